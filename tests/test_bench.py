"""Every benchmark in bench/ still runs: its --quick mode in a fresh process prints its table.

Smoke tests only: no figure is asserted (speed is reported by the full runs in bench/RESULTS.md, never
by a test). Benchmarks that nothing runs rot; these catch a script broken by a change elsewhere.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import CHILD_CAP_S
from tests.test_frozen import APP

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_"))  # (_x.py: helpers)

# What each script's table starts with (a line a reader of its output looks for).
TABLE = {
    "analysis_window.py": "| phase | seconds | longest event-loop gap, ms |",
    "app_bench.py": "resident memory, window + ",
    "checkpoint_open.py": "| model | attnviz load_checkpoint, ms CPU | plain build + load_state_dict, ms CPU | ratio |",
    "decode_latency.py": "@50 recompute",
    "explain.py": "| rollout + flow + norm (+ raw) |",
    "export_all.py": "| Export all run | files | wall time | longest event-loop gap |",
    "frozen_start.py": "start-up sentence decoded",
    "flipbook_memory.py": "| case | peak resident memory, MB: whole run / before the flip-book",
    "fuzz_loader.py": "0 other outcomes",
    "heads.py": "| processes | seconds | sentences/s | speed-up | peak RSS per process |",
    "heatmap_redraw.py": "mpl persistent",
    "document_sums.py": "| statistics and sinks summed | forward pass + sums, s | ratio |",
    "hf_corpus.py": "| command | whole process, s | work, s | sentences/s (work) | peak RSS, MB |",
    "hf_models.py": "| model | parameters | open (first: imports transformers) |",
    "hostile_inputs.py": "| case | peak resident memory, MB | seconds | exit code | last line on stderr |",
    "image_gaps.py": "| file | bytes | time until drawn or refused | longest event-loop gap | what the user reads |",
    "hostile_memory.py": "| case | peak RSS, MB | wall, s | exit | last line |",
    "image_redraw.py": "| what | median | min | max | images |",
    "long_input.py": "longest event-loop gap over the run",
    "long_window.py": "| tokens | maps on demand | opened, first map painted |",
    "long_maps.py": "| tokens | forward pass with recording | first map | further map |",
    "map_on_demand.py": "| head | threads | map: wall, ms | map: CPU, ms |",
    "modern_real_size.py": "| model | open (load_checkpoint) | one decoding step, 1 / 1 threads |",
    "monkey_window.py": "| action | times |",
    "patch_vs_transformerlens.py": "| implementation | heads | pairs | what | seconds |",
    "step_redraw.py": "| code | step + redraw, event loop |",
    "train_tasks.py": "| trained in the Train dock (redrawn every snapshot) |",
    "job_hangs.py": "| case | how it ended |",
    "translate_throughput.py": "| competing busy processes | lines | seconds | lines/s |",
    "window_start.py": "| window | panels built | construction, CPU s |",
}


def test_every_benchmark_has_a_smoke_test():
    assert sorted(TABLE) == SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_benchmark_runs_in_its_quick_mode_and_prints_its_table(script, tmp_path):
    if script == "frozen_start.py" and APP is None:
        pytest.skip("no standalone build newer than the sources in dist/attnviz (bash packaging/build.sh makes one)")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--quick"], capture_output=True,
                          text=True, timeout=CHILD_CAP_S, cwd=ROOT, env=env)
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-3000:])
    assert TABLE[script] in done.stdout, done.stdout[-2000:]


def test_the_memory_stages_of_the_app_bench_add_up_to_the_whole(tmp_path):
    """``app_bench.py --memory-stages`` (the stage table of bench/RESULTS.md) names every stage, each adding
    what the process grew by, down to the decoded sentence."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "app_bench.py"), "--memory-stages"],
                          capture_output=True, text=True, timeout=CHILD_CAP_S, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| ") and " MB |" in line]
    stages = [row[0].lstrip("| ") for row in rows]
    assert stages[:3] == ["Python", "numpy", "Qt (QtWidgets, the QApplication)"]
    assert "import torch" in stages and "load transformer" in stages and stages[-1] == "decoding the sentence"
    added = sum(float(row[2].removesuffix(" MB")) for row in rows)
    assert abs(added - float(rows[-1][1].removesuffix(" MB"))) <= len(rows)  # (each rounded to 1 MB)
