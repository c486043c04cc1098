"""``torchrun --nproc-per-node 2 -m attnviz heads`` gives one process's numbers: every statistic and importance to
1e-6, BLEU exactly. Two real processes on the CPU (gloo), each capped: a hang fails the test, loudly."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.helpers import assert_same_atlas, free_port, one_error_line, pairs_file, run_cli, torchrun

ROOT = Path(__file__).resolve().parent.parent
CAP_S = 300  # a child that takes longer is called hung (the work takes seconds)


def _torchrun(*args: str) -> subprocess.CompletedProcess[str]:
    return torchrun("heads", *args)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_two_processes_give_one_process_numbers(capsys, tiny_models, tmp_path) -> None:
    lines = Path(tiny_models["data"]).read_text(encoding="utf-8").splitlines()[:90]
    data = tmp_path / "pairs.tsv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    common = ["--checkpoint", str(tiny_models["transformer"][0]), "--data", str(data), "--seeds", "2", "--beam", "2",
              "--format", "png"]
    code, _, stderr = run_cli(capsys, "heads", *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    done = _torchrun(*common, "--out", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 processes" in done.stderr
    assert_same_atlas(tmp_path / "one", tmp_path / "two")


def test_bad_input_under_torchrun_is_one_line_from_attnviz(tiny_models, tmp_path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    done = _torchrun("--checkpoint", str(tiny_models["transformer"][0]), "--data", str(empty), "--out",
                     str(tmp_path / "out"))
    assert done.returncode != 0
    assert "is empty" in one_error_line(done.stderr)
    assert not (tmp_path / "out").exists()


def test_a_process_that_dies_ends_the_job_without_a_hang_and_without_files(tiny_models, tmp_path) -> None:
    import signal
    import threading

    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen",
           "ATTNVIZ_HEADS_TIMEOUT": "60"}
    out = tmp_path / "out"
    job = subprocess.Popen(
        [sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
         "--master-port", str(free_port()), "-m", "attnviz", "heads", "--checkpoint",
         str(tiny_models["transformer"][0]), "--data", str(pairs_file(tiny_models, tmp_path, 300)), "--out", str(out),
         "--seeds", "20",
         "--format", "png"], env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(CAP_S, job.kill)  # (reading its stderr must not wait forever either)
    watchdog.start()
    try:
        assert job.stderr is not None
        for line in job.stderr:  # the work is under way (the pruning curve takes a while)
            if "pruning curve" in line:
                break
        workers = Path(f"/proc/{job.pid}/task/{job.pid}/children").read_text().split()
        assert len(workers) == 2
        os.kill(int(workers[-1]), signal.SIGKILL)
        rest = job.stderr.read()
        job.wait(timeout=CAP_S)
    finally:
        watchdog.cancel()
        if job.poll() is None:
            job.kill()
            job.wait()
    assert job.returncode != 0
    assert "attnviz: terminated; no output was left half-written" in rest or "attnviz: error:" in rest, rest[-2000:]
    assert not out.exists()


def test_more_processes_than_gpus_is_one_sentence_before_anyone_waits(monkeypatch):
    """torchrun --nproc-per-node 2 on a one-GPU machine: NCCL refuses two processes on one GPU, so the process
    without a GPU of its own says why (seen on an H100 machine: rank 1 asked for cuda:1)."""
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.heads.distributed import device_for_rank

    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "0")
    assert device_for_rank(torch.device("cuda")) == torch.device("cuda", 0)
    assert device_for_rank(torch.device("cpu")) == torch.device("cpu")
    monkeypatch.setenv("LOCAL_RANK", "1")
    with pytest.raises(DeviceUnavailableError, match=r"started 2 processes on this machine, which has 1 GPU\(s\)"):
        device_for_rank(torch.device("cuda"))
