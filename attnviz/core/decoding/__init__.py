"""Decoding: the one beam search (:mod:`.beam_search`) and its rules, step-wise decoding of one sentence for
the app and the CLI (:mod:`.stepping`), filling masks with an encoder-only model (:mod:`.fill_mask`), and one
query of a trained model recomputed stage by stage as decoding computes it (:mod:`.query_computation`)."""
