"""``attnviz to-hf``: write attnviz's Transformer as a Hugging Face (Marian) model folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from attnviz.commands.shared import CliError, Terminated
from attnviz.i18n import tr
from attnviz.paths import DEFAULT_CHECKPOINT


def add_parser(subparsers: Any) -> None:
    """The ``to-hf`` command's options."""
    to_hf = subparsers.add_parser("to-hf", help=tr("write the Transformer as a Hugging Face (Marian) model folder"))
    to_hf.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                       help=tr("an attnviz Transformer checkpoint (default: the shipped one)"))
    to_hf.add_argument("--out", required=True, help=tr("the folder to write (must not exist)"))
    to_hf.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Write attnviz's Transformer as a Hugging Face Marian folder (the same network: core/hf/convert.py)."""
    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint
    from attnviz.core.hf.convert import save_marian_folder

    try:
        loaded = load_checkpoint(args.checkpoint)
    except CheckpointError as error:
        raise CliError(str(error)) from None
    existed = Path(args.out).exists() or Path(args.out).is_symlink()
    try:
        out = save_marian_folder(loaded, args.out)
    except (KeyboardInterrupt, Terminated):
        if existed or not (Path(args.out) / "config.json").is_file():
            raise
        out = Path(args.out)  # the signal came once the folder had its name: it is whole, and is said so
    print(tr("wrote {out}: a Hugging Face Marian model and its tokenizer (transformers: "
             "MarianMTModel.from_pretrained; attnviz --checkpoint {out})").format(out=out))
    return 0
