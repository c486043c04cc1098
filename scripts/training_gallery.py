"""Regenerate resources/training/*.json: the training history of one small model per task, which the gallery's
"Watching attention learn" figures show (the map untrained, midway and trained). Deterministic (seed 0, one
torch thread); each run takes seconds to a minute on a laptop CPU.

    .venv/bin/python scripts/training_gallery.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

RUNS = {"copy": ("rnn-additive", 6), "reverse": ("transformer", 12), "sort": ("transformer", 12),
        "dates": ("rnn-additive", 4)}  # task: (model, epochs)


def main() -> int:
    import torch

    from attnviz.paths import TRAINING_HISTORIES
    from attnviz.training.live import LiveSettings, LiveTraining, preset_arch, task_data

    torch.set_num_threads(1)
    TRAINING_HISTORIES.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[1:]) or set(RUNS)  # (python scripts/training_gallery.py dates: that run alone)
    for task, (kind, epochs) in RUNS.items():
        if task not in only:
            continue
        settings = LiveSettings(epochs=epochs, snapshots=24)
        trained = LiveTraining(kind, task_data(task, settings), preset_arch(kind, "small"), settings).run()
        last = trained.history.snapshots[-1]
        record = {"kind": kind, "preset": "small", "epochs": epochs, "history": trained.history.to_json()}
        path = TRAINING_HISTORIES / f"{task}.json"
        path.write_text(json.dumps(record, separators=(",", ":")) + "\n", encoding="utf-8")
        print(f"{path}: {kind} on {task}, {last.step} steps, exact match {last.score:.1f} %, agreement "
              f"{100 * (last.agreement or 0):.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
