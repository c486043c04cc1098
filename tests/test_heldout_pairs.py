"""scripts/heldout_pairs.py writes the held-out split of a checkpoint (what ``eval --heldout`` scores) as
``source<TAB>reference`` lines, which ``attnviz heads --data`` reads: none of them is a training pair."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import heldout_pairs  # noqa: E402  (scripts/heldout_pairs.py)


def test_the_held_out_pairs_are_never_trained_on_and_keep_every_reference(capsys, tiny_models) -> None:
    checkpoint, data = tiny_models["transformer"][0], tiny_models["data"]
    assert heldout_pairs.main(["--checkpoint", str(checkpoint), "--data", str(data), "--limit", "5"]) == 0
    lines = capsys.readouterr().out.splitlines()
    sources = list(dict.fromkeys(line.split("\t")[0] for line in lines))
    assert len(sources) == 5 and all(len(line.split("\t")) == 2 for line in lines)
    pairs = {tuple(line.split("\t")) for line in Path(data).read_text(encoding="utf-8").splitlines()}
    assert all(tuple(line.split("\t")) in pairs for line in lines)  # each a pair of the data, as written there
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.training.data import training_split

    options = load_checkpoint(checkpoint).training["options"]
    train, _ = training_split(data, options["max_src_tokens"], options["max_tgt_tokens"], options["val_sources"],
                              options["seed"])
    assert not {" ".join(p.src) for p in train} & set(sources)
    assert heldout_pairs.main(["--checkpoint", str(checkpoint), "--data", str(data)]) == 0
    assert len(set(line.split("\t")[0] for line in capsys.readouterr().out.splitlines())) == options["val_sources"]
