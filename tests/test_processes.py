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


def _pruned_corpus(tiny_models: dict, tmp_path: Path) -> Path:
    """300 pairs for a job stopped or killed once its pruning curve is under way: with 20 seeds the curve takes
    each process many seconds, and its first progress line (its first tenth) comes after about a second, where
    the tiny models' 1,500 pairs made each process compute the whole atlas and five seconds of the curve first."""
    return pairs_file(tiny_models, tmp_path, 300)


def test_a_stopped_process_ends_the_job_at_the_timeout_in_one_line(tiny_models, tmp_path):
    out = tmp_path / "out"
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
               str(_pruned_corpus(tiny_models, tmp_path)), "--format", "csv", "--seeds", "20", "--out", str(out),
               ATTNVIZ_HEADS_TIMEOUT="5")
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
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
               str(_pruned_corpus(tiny_models, tmp_path)), "--format", "csv", "--seeds", "20", "--out",
               str(tmp_path / "out"))
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


def test_a_process_stopped_while_the_model_loads_ends_the_job_in_one_line(tiny_models, tmp_path):
    """Issue 60 §4: process 1 stops itself (SIGSTOP) as the model starts loading; before, process 0 waited in the
    rendezvous for the whole timeout (609 s with the default 600) with no store to see the silence; now the
    heartbeat runs from the process's start, and the stopped one is named at the silence bound, 30 s. (The timeout,
    120 s here, is above it, so only the silence can end the job: with one of 5 s, the wait in the rendezvous,
    begun before the stop, could reach the timeout first and name process 1 as late instead.)"""
    out = tmp_path / "out"
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]),
               "--format", "csv", "--out", str(out), ATTNVIZ_HEADS_TIMEOUT="120", ATTNVIZ_TEST_LOADING="stop:1")
    _, stderr = _finished(job)
    assert job.returncode == 3, stderr
    line = one_error_line(stderr)
    assert "process 1 of 2 gave no sign of life" in line and "nothing was written" in line, line
    assert "Traceback" not in stderr
    assert not out.exists()


def test_processes_whose_launcher_is_killed_while_the_model_loads_end_themselves(tiny_models, tmp_path):
    """Issue 60 §4: before, processes orphaned while loading outlived their launcher (300 s and more): their
    watch started after the load and took the new parent for the launcher. Each process here reports itself in
    a FIFO as it starts loading and then waits there for good, like a load that never ends."""
    fifo = tmp_path / "loading"
    os.mkfifo(fifo)
    job = _job("heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]),
               "--format", "csv", "--out", str(tmp_path / "out"), ATTNVIZ_TEST_LOADING=f"hold:{fifo}")
    loading: list[int] = []
    while len(loading) < 2:  # (each process opens it, writes its line and closes it: read until both came)
        with open(fifo, encoding="ascii") as reports:
            loading += [int(line.split()[1]) for line in reports]
    assert sorted(loading) == sorted(_workers(job))
    job.kill()  # the launcher, SIGKILLed while both processes load
    job.wait()
    deadline = time.monotonic() + CAP_S  # (an upper bound only: each wait ends when the process does)
    assert all(_ended_within(pid, deadline - time.monotonic()) for pid in loading), "orphaned processes kept loading"
    assert not (tmp_path / "out").exists()


def _machine(rank: int, port: int, *args: str, **env: str) -> subprocess.Popen[str]:
    """``attnviz ARGS`` as machine ``rank`` of a job of two machines, one process each, meeting at 127.0.0.1:port."""
    return subprocess.Popen([sys.executable, "-m", "attnviz", *args, "--processes", "1", "--nodes", "2",
                             "--node-rank", str(rank), "--rendezvous", f"127.0.0.1:{port}"], env=_env(**env),
                            cwd=ROOT, stderr=subprocess.PIPE, text=True)


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_machine_whose_machine_0_never_comes_says_it_waits_and_ends_at_the_timeout(tiny_models, tmp_path):
    """Issue 60 §4: before, --node-rank 1 printed nothing for 100 s and more; now its first line says what it
    waits for, and it ends at ATTNVIZ_HEADS_TIMEOUT (here 2 s) in one line, having started no process."""
    port = _free_port()  # (nothing listens there: machine 0 never comes)
    machine = _machine(1, port, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                       str(tiny_models["data"]), "--format", "csv", "--out", str(tmp_path / "out"),
                       ATTNVIZ_HEADS_TIMEOUT="2")
    first, rest = _finished(machine, until="waiting")
    assert first.strip() == f"attnviz heads: waiting for machine 0 at 127.0.0.1:{port} (at most 2 s, " \
                            "ATTNVIZ_HEADS_TIMEOUT)", first
    assert machine.returncode == 3, rest
    line = one_error_line(rest)
    assert f"machine 0 did not come to the rendezvous at 127.0.0.1:{port} in 2 s" in line, line
    assert "Traceback" not in rest and "c10d" not in rest
    assert not (tmp_path / "out").exists()


def test_machines_given_other_options_are_refused_at_the_rendezvous_in_one_line(tiny_models, tmp_path):
    """Issue 60 §4: before, a machine with --no-pruning ran the whole work and then broke in gloo ("Read error",
    SIGABRT); now it is refused as it meets machine 0, and machine 0 stops its processes, each in one line."""
    port = _free_port()
    common = ["heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(tiny_models["data"]),
              "--format", "csv", "--seeds", "2"]
    first = _machine(0, port, *common, "--out", str(tmp_path / "out"))
    other = _machine(1, port, *common, "--no-pruning", "--out", str(tmp_path / "elsewhere"))
    _, said_1 = _finished(other)
    _, said_0 = _finished(first)
    assert other.returncode == 2, said_1
    assert "machine 1 was started with other options than machine 0 (--no-pruning True on machine 1, False on " \
           "machine 0)" in one_error_line(said_1), said_1
    assert first.returncode == 2, said_0
    line = one_error_line(said_0)
    assert "machine 1 was started with other options than this one (--no-pruning True on machine 1" in line, line
    assert "nothing was written" in line
    assert "Traceback" not in said_0 + said_1 and "Read error" not in said_0 + said_1
    assert not (tmp_path / "out").exists() and not (tmp_path / "elsewhere").exists()


def test_machines_with_the_same_options_but_their_out_make_one_job(capsys, tiny_models, tmp_path):
    """--out (only machine 0 writes) may differ between machines; the job equals one process."""
    common = ["heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
              str(pairs_file(tiny_models, tmp_path, 8)), "--format", "csv", "--seeds", "1"]
    code, _, stderr = run_cli(capsys, *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    port = _free_port()
    first = _machine(0, port, *common, "--out", str(tmp_path / "two"))
    other = _machine(1, port, *common, "--out", str(tmp_path / "elsewhere"))
    _, said_1 = _finished(other)
    _, said_0 = _finished(first)
    assert (first.returncode, other.returncode) == (0, 0), said_0 + said_1
    assert "attnviz heads: 2 processes, 8 sentences" in said_0
    assert (tmp_path / "two" / "heads.csv").read_text() == (tmp_path / "one" / "heads.csv").read_text()
    assert not (tmp_path / "elsewhere").exists()


def _writer(path: str | int, data: bytes) -> threading.Thread:
    """A thread that writes ``data`` into the pipe at ``path`` (or the write end descriptor ``path``: the thread
    owns it, so it is never closed before the data is written) (one writer) and closes it."""
    def write() -> None:
        with open(path, "wb") as pipe:
            pipe.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("pipe", ["process substitution", "named FIFO"])
def test_data_from_a_pipe_is_read_once_and_shared_by_the_processes(capsys, tiny_models, tmp_path, pipe):
    """Issue 60 §4: before, ``--data <(zcat corpus.gz)`` failed under --processes 2 ("/dev/fd/63: no such file":
    the descriptor is the launcher's) and a FIFO with one writer hung (two readers, one writer); now the launcher
    reads it once and every process reads that copy: the files are one process's."""
    data = pairs_file(tiny_models, tmp_path, 6)
    common = ["explain", "--checkpoint", str(tiny_models["transformer"][0]), "--ig-steps", "2", "--format", "csv"]
    code, _, stderr = run_cli(capsys, *common, "--data", str(data), "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    if pipe == "named FIFO":
        name = str(tmp_path / "corpus.fifo")
        os.mkfifo(name)
        writer = _writer(name, data.read_bytes())
        job = _job(*common, "--data", name, "--out", str(tmp_path / "two"))
    else:  # (bash's <(…): a pipe's read end, inherited as /dev/fd/N)
        read_end, write_end = os.pipe()
        name = f"/dev/fd/{read_end}"
        job = subprocess.Popen([sys.executable, "-m", "attnviz", *common, "--data", name, "--out",
                                str(tmp_path / "two"), "--processes", "2"], env=_env(), cwd=ROOT,
                               stderr=subprocess.PIPE, text=True, pass_fds=(read_end,))
        os.close(read_end)
        writer = _writer(write_end, data.read_bytes())  # (closed by the writer once written: the pipe's end)
    _, stderr = _finished(job)
    writer.join()
    assert job.returncode == 0, stderr
    for file in ("agreement.csv", "layers.csv", "sinks.csv"):
        assert (tmp_path / "two" / file).read_text() == (tmp_path / "one" / file).read_text(), file


def test_a_bad_line_in_a_fifo_is_named_by_the_fifo(tiny_models, tmp_path):
    fifo = str(tmp_path / "corpus.fifo")
    os.mkfifo(fifo)
    writer = _writer(fifo, b"one sentence\ntwo\0 sentences\n")
    job = _job("explain", "--checkpoint", str(tiny_models["transformer"][0]), "--data", fifo, "--out",
               str(tmp_path / "out"))
    _, stderr = _finished(job)
    writer.join()
    assert job.returncode == 2, stderr
    assert f"{fifo} is not a text file (line 2 holds a NUL byte)" in one_error_line(stderr)
    assert not (tmp_path / "out").exists()
