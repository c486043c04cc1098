"""Write the held-out pairs of a checkpoint's training split as ``source<TAB>reference`` lines (the split that
``attnviz eval --heldout`` and ``attnviz explain --heldout`` use, rebuilt from the options stored in the checkpoint):
the input ``attnviz heads --data`` takes for the head-atlas numbers of the user guide (docs/head-atlas.md).

    python scripts/heldout_pairs.py --checkpoint models/transformer.safetensors --data fra.txt --limit 500 > held.tsv

``--limit N``: the first N distinct sources, each with every reference it has. The lines of --data are read at run
time and written to stdout only.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.training.data import group_references, training_split

    options = load_checkpoint(args.checkpoint).training.get("options")
    if not isinstance(options, dict):
        print(f"{args.checkpoint}: no training options stored, so no held-out split", file=sys.stderr)
        return 2
    _, pairs = training_split(args.data, options.get("max_src_tokens"), options.get("max_tgt_tokens"),
                              int(options.get("val_sources", 0)), int(options.get("seed", 0)))
    refs = group_references(pairs)
    for source in list(refs)[: args.limit]:
        for reference in refs[source]:
            print(f"{' '.join(source)}\t{' '.join(reference)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
