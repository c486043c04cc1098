"""``attnviz eval``: print the corpus BLEU of a checkpoint on a TSV of sentence pairs."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import Any

from attnviz.commands.shared import (
    CliError,
    add_translation_model_options,
    batch_size_option,
    translation_model,
    warn,
)
from attnviz.i18n import tr


def add_parser(subparsers: Any) -> None:
    """The ``eval`` command's options."""
    cmd = subparsers.add_parser("eval", help=tr("print the BLEU of a checkpoint on a TSV of pairs"))
    add_translation_model_options(cmd)
    cmd.add_argument("--data", required=True, help=tr("TSV of english<TAB>french pairs"))
    cmd.add_argument("--heldout", action="store_true",
                     help=tr("score only the validation split that training held out of --data "
                             "(rebuilt from the options stored in the checkpoint)"))
    cmd.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Corpus BLEU of a checkpoint on a TSV of pairs (all references of a source used)."""
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.heads.corpus import CorpusError, check_data_file
    from attnviz.core.learning.bleu import corpus_bleu
    from attnviz.core.text import preprocess, source_words
    from attnviz.training.data import describe_skipped, group_references, read_pairs, training_split

    try:  # (a folder, a device or a dangling link is called what it is, not "not found")
        check_data_file(args.data)
    except CorpusError as error:
        raise CliError(str(error)) from None
    tokens = batch_size_option(args.batch_size)
    loaded, device = translation_model(args)
    skipped: Counter[str] = Counter()  # (why read_pairs left lines out: said, never silent)
    if args.heldout:
        options = loaded.training.get("options")
        if not isinstance(options, dict):
            raise CliError(tr("{checkpoint}: no training options stored; --heldout needs them").format(
                checkpoint=args.checkpoint))
        _, pairs = training_split(args.data, options.get("max_src_tokens"), options.get("max_tgt_tokens"),
                                  int(options.get("val_sources", 0)), int(options.get("seed", 0)))
    else:
        pairs = read_pairs(args.data, skipped=skipped)
    refs = group_references(pairs)
    if not refs:
        raise CliError((tr("{path}: no held-out sentence pairs (is it the file the model was trained on?)")
                        if args.heldout else tr("{path}: no sentence pairs")).format(path=args.data)
                       + (tr(" (lines left out: {why})").format(why=describe_skipped(skipped)) if skipped else ""))
    if skipped:
        warn(tr("{path}: lines left out: {why}").format(path=args.data, why=describe_skipped(skipped)))
    sources = list(refs)
    max_len = loaded.config.max_src_len
    # each sentence as the model splits it (a subword model its own way); its output as text, preprocessed as
    # the references are (a subword model writes "Il est calme." where the references read "il est calme .")
    splits = [source_words(" ".join(s), loaded.src_vocab, max_len) for s in sources]
    outputs = translate(loaded.model, splits, loaded.src_vocab, loaded.tgt_vocab, device, beam_size=args.beam,
                        tokens_per_batch=tokens, notice=warn)
    hypotheses = [preprocess(loaded.tgt_vocab.text_of(o)) for o in outputs]
    bleu = corpus_bleu(hypotheses, [[" ".join(r) for r in refs[s]] for s in sources])
    print(tr("BLEU {bleu:.2f} on {count} source sentences").format(bleu=bleu, count=len(refs)))
    return 0
