"""``attnviz heads|explain --processes N`` (issue 49 §5): a job that never hangs and says one line per failure.

Real processes on the CPU (gloo). Every wait is for an event (a line on stderr, a process gone); time only bounds
it (CAP_S: a hang fails the test, loudly), so a loaded machine makes the tests slower, never wrong."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.helpers import one_error_line, pairs_file, run_cli

ROOT = Path(__file__).resolve().parent.parent
CAP_S = 300  # a job that takes longer is called hung (the work takes seconds)


def _env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen", **extra}


def _job(*args: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "attnviz", *args, "--processes", "2"], env=_env(**env), cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)


def _finished(job: subprocess.Popen[str], until: str | None = None) -> tuple[str, str]:
    """(stderr up to the first line holding ``until``, the rest) once the job has ended; killed past CAP_S."""
    watchdog = threading.Timer(CAP_S, job.kill)
    watchdog.start()
    try:
        assert job.stderr is not None
        before = ""
        if until is not None:
            for line in job.stderr:
                before += line
                if until in line:
                    break
        rest = job.stderr.read()
        job.wait(timeout=CAP_S)
    finally:
        watchdog.cancel()
        if job.poll() is None:
            job.kill()
            job.wait()
    return before, rest


def _workers(job: subprocess.Popen[str]) -> list[int]:
    return [int(pid) for pid in Path(f"/proc/{job.pid}/task/{job.pid}/children").read_text().split()]


def _ended_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` (not this one's child) ends within ``seconds``: its pidfd becomes readable when it
    exits, so this waits for that event, not on a clock."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True  # (already gone)
    try:
        return bool(select.select([fd], [], [], max(seconds, 0.0))[0])
    finally:
        os.close(fd)


def test_two_processes_write_what_one_writes(capsys, tiny_models, tmp_path):
    common = ["explain", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
              str(pairs_file(tiny_models, tmp_path, 6)), "--ig-steps", "2", "--format", "csv"]
    code, _, stderr = run_cli(capsys, *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    job = _job(*common, "--out", str(tmp_path / "two"))
    _, stderr = _finished(job)
    assert job.returncode == 0, stderr
    assert "attnviz explain: 2 processes, 6 sentences" in stderr
    for name in ("agreement.csv", "layers.csv", "sinks.csv"):
        assert (tmp_path / "two" / name).read_text() == (tmp_path / "one" / name).read_text(), name


def test_a_killed_process_ends_the_job_in_one_line_naming_it_and_nothing_is_written(tiny_models, tmp_path):
    out = tmp_path / "out"
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
               str(pairs_file(tiny_models, tmp_path, 40)), "--format", "csv", "--seeds", "2", "--out", str(out),
               ATTNVIZ_TEST_DIE="1:3")  # process 1 SIGKILLs itself at its third exchange, mid-job
    _, stderr = _finished(job)
    assert job.returncode == 1
    line = one_error_line(stderr)
    assert "process 1 of 2" in line and "was killed by SIGKILL" in line and "nothing was written" in line, line
    assert "Traceback" not in stderr and "internal error" not in stderr
    assert not out.exists()


def test_a_stopped_process_ends_the_job_at_the_timeout_in_one_line(tiny_models, tmp_path):
    out = tmp_path / "out"
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]),
               "--format", "csv", "--seeds", "20", "--out", str(out), ATTNVIZ_HEADS_TIMEOUT="5")
    stopped: list[float] = []

    def stop_process_1() -> None:  # once the pruning curve is under way
        os.kill(_workers(job)[1], signal.SIGSTOP)
        stopped.append(time.monotonic())

    assert job.stderr is not None
    for line in job.stderr:
        if "pruning curve" in line:
            stop_process_1()
            break
    _, stderr = _finished(job)
    took = time.monotonic() - stopped[0]
    assert job.returncode == 3, stderr
    line = one_error_line(stderr)
    assert "process 1 of 2 gave no sign of life" in line and "nothing was written" in line, line
    assert 5 <= took < CAP_S  # (at the timeout: never before it; after it by what the machine's load adds)
    assert not out.exists()


def test_processes_whose_launcher_is_killed_end_themselves(tiny_models, tmp_path):
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]),
               "--format", "csv", "--seeds", "20", "--out", str(tmp_path / "out"))
    assert job.stderr is not None
    for line in job.stderr:
        if "pruning curve" in line:
            break
    workers = _workers(job)
    assert len(workers) == 2
    job.kill()  # the launcher, SIGKILLed: its processes are orphaned
    job.wait()
    deadline = time.monotonic() + CAP_S  # (an upper bound only: each wait ends when the process does)
    assert all(_ended_within(pid, deadline - time.monotonic()) for pid in workers), "orphaned processes kept running"
    assert not (tmp_path / "out").exists()


def test_bad_input_is_process_0s_one_line(tiny_models, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"\n \n")
    job = _job("explain", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(empty), "--out",
               str(tmp_path / "out"))
    _, stderr = _finished(job)
    assert job.returncode == 2
    assert "no sentences to explain" in one_error_line(stderr)
    assert not (tmp_path / "out").exists()


def test_more_processes_than_cores_or_gpus_is_one_sentence(capsys, tiny_models, tmp_path, monkeypatch):
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.heads.distributed import device_for_rank, usable_cpus

    too_many = str(usable_cpus() + 1)
    code, _, stderr = run_cli(capsys, "heads", "--processes", too_many, "--device", "cpu", "--checkpoint",
                              str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]), "--out",
                              str(tmp_path / "out"))
    assert code == 2
    assert f"--processes {too_many}: this machine has {usable_cpus()} CPU core(s)" in one_error_line(stderr)
    monkeypatch.setenv("WORLD_SIZE", too_many)  # torchrun --nproc-per-node past the cores: the same sentence
    monkeypatch.setenv("LOCAL_WORLD_SIZE", too_many)
    import torch

    with pytest.raises(DeviceUnavailableError, match=f"{too_many} processes were started on this machine"):
        device_for_rank(torch.device("cpu"))
    assert not (tmp_path / "out").exists()


def test_job_options_need_processes(capsys, tmp_path):
    code, _, stderr = run_cli(capsys, "heads", "--nodes", "2", "--data", "x", "--out", str(tmp_path / "out"))
    assert code == 2 and "add --processes N" in one_error_line(stderr)
