"""The model families, one module each (kernel regression, the RNN encoder–decoder, the Transformer, the
decoder-only and encoder-only Transformers), the decoder interface the translation families implement
(:mod:`.translation`), the registry of kinds (:mod:`.kinds`) and a model as loaded (:mod:`.loaded`)."""
