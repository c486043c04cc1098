"""``attnviz fill-mask``: the top-5 words for the first [MASK] of --text, or of each stdin line."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from attnviz.commands.shared import THREADS_HELP, CliError, load_model, set_threads, stdin_lines, text_option
from attnviz.core.layout import Capability
from attnviz.i18n import tr

TOP_WORDS = 5  # attnviz fill-mask prints this many words per line


def add_parser(subparsers: Any) -> None:
    """The ``fill-mask`` command's options."""
    fill = subparsers.add_parser("fill-mask", help=tr("the top-5 words for the first [MASK] of --text, or of each "
                                                      "stdin line"))
    fill.add_argument("--checkpoint", required=True,
                      help=tr("an encoder-only model: models/encoder-only.safetensors or a Hugging Face BERT folder"))
    fill.add_argument("--text", help=tr("one sentence with [MASK] (or the tokenizer's own mask token); without it, "
                                        "read stdin"))
    fill.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    fill.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    fill.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The top-5 words for the first mask of --text, or of every stdin line: one line per input line, the words
    separated by tabs, best first."""
    set_threads(args.threads)
    loaded, device = load_model(args.checkpoint, args.device)
    if not loaded.offers(Capability.MASKS):
        raise CliError(tr("{checkpoint}: a {kind} model does not fill masks (open an encoder-only model: BERT, "
                          "DistilBERT, RoBERTa, ModernBERT or attnviz's own)").format(checkpoint=args.checkpoint,
                                                                                       kind=loaded.kind))
    filling = loaded.model_kind.stepping_cls(loaded, device, top_k=TOP_WORDS)
    lines = [text_option(args.text)] if args.text is not None else stdin_lines()
    for number, line in enumerate(lines, 1):
        where = "" if args.text is not None else tr("line {number}: ").format(number=number)
        try:
            filling.encode(line)
            if filling.finished:
                raise ValueError(tr("no {mask} to fill: write {mask} in place of a word").format(
                    mask=filling.reader.mask_token))
            step = filling.step()
        except ValueError as error:
            raise CliError(where + str(error)) from None
        sys.stdout.write("\t".join(step.topk_tokens) + "\n")
        sys.stdout.flush()
    return 0
