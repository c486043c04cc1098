"""``attnviz translate``: translate --text, or stdin line by line, one output line per input line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from attnviz.commands.shared import (
    MASK_HEADS_HELP,
    add_translation_model_options,
    batch_size_option,
    head_mask_of,
    input_batches,
    text_option,
    translation_model,
    warn,
    warn_about_source,
)
from attnviz.i18n import tr

INPUT_BATCH = 256  # stdin lines decoded together at most


def add_parser(subparsers: Any) -> None:
    """The ``translate`` command's options."""
    cmd = subparsers.add_parser("translate", help=tr("translate --text, or stdin line by line"))
    add_translation_model_options(cmd)
    cmd.add_argument("--text", help=tr("one sentence; without it, read stdin"))
    cmd.add_argument("--mask-heads", metavar="HEADS", help=tr(MASK_HEADS_HELP))
    cmd.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Translate --text, or every stdin line; exactly one output line per input line."""
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.heads import masked_heads
    from attnviz.core.text import source_words

    tokens = batch_size_option(args.batch_size)
    loaded, device = translation_model(args)
    mask = head_mask_of(loaded, args.mask_heads)
    max_len = loaded.config.max_src_len
    batches = [[text_option(args.text)]] if args.text is not None else input_batches(sys.stdin, INPUT_BATCH)
    number = 0
    for lines in batches:
        sources = [source_words(line, loaded.src_vocab, max_len) for line in lines]
        for offset, source in enumerate(sources, number + 1):
            warn_about_source(source, max_len, offset if args.text is None else None)
        number += len(lines)
        with masked_heads(loaded.model, mask, device):
            outputs = translate(loaded.model, sources, loaded.src_vocab, loaded.tgt_vocab, device,
                                beam_size=args.beam, tokens_per_batch=tokens, notice=warn)
        sys.stdout.write("".join(loaded.tgt_vocab.text_of(words) + "\n" for words in outputs))
        sys.stdout.flush()
    return 0
