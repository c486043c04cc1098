"""How long a ``--processes`` job takes to end, and what it says, when it fails before its work (issue 60 §4).

Each case runs ``attnviz heads`` of the shipped Transformer over the app's example sentences (24 pairs,
``--format csv --seeds 2``) in a fresh temporary folder and prints one line: the seconds (wall clock) and the last
line the job printed. A case that does not end is killed at its cap and reported as such.

- ``stopped``: process 1 stops itself (SIGSTOP) as the model starts loading (ATTNVIZ_TEST_LOADING=stop:1; the
  default ATTNVIZ_HEADS_TIMEOUT, 600 s): the seconds from the stop (seen in /proc) to the job's end;
- ``orphaned``: both processes held as the model starts loading (ATTNVIZ_TEST_LOADING=hold:FIFO), the launcher
  SIGKILLed: the seconds until both processes are gone (cap 120 s);
- ``nomachine0``: ``--nodes 2 --node-rank 1`` with nothing at machine 0's address (ATTNVIZ_HEADS_TIMEOUT=30): the
  seconds to the first line on stderr and to the end;
- ``options``: two machines on this one, machine 1 with ``--no-pruning``: when each ends, and its exit code;
- ``zcat``: ``--data <(zcat corpus.gz)`` (bash); ``fifo``: a named FIFO with one writer (``cat pairs > FIFO``).

    .venv/bin/python bench/job_hangs.py                    # every case, this checkout
    .venv/bin/python bench/job_hangs.py --root OTHER stopped zcat
    .venv/bin/python bench/job_hangs.py --quick            # the smoke run (tests/test_bench.py): orphaned alone

``--root`` runs another checkout's attnviz (a tree without the ATTNVIZ_TEST_LOADING hook cannot run the first two).
"""

from __future__ import annotations

import argparse
import gzip
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

CASES = ("stopped", "orphaned", "nomachine0", "options", "zcat", "fifo")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("cases", nargs="*", metavar="CASE", help=f"any of {', '.join(CASES)} (default: all)")
    parser.add_argument("--quick", action="store_true", help="the smoke run: the orphaned case alone")
    args = parser.parse_args()
    if unknown := set(args.cases) - set(CASES):
        parser.error(f"unknown cases: {', '.join(sorted(unknown))}")
    with tempfile.TemporaryDirectory(prefix="attnviz-job-hangs-") as folder:
        bench = Bench(args.root.resolve(), Path(folder))
        print("| case | how it ended |\n| --- | --- |", flush=True)
        for case in ("orphaned",) if args.quick else args.cases or CASES:
            print(f"| {case} | {getattr(bench, case)()} |", flush=True)


class Bench:
    def __init__(self, root: Path, folder: Path):
        self.root, self.folder = root, folder
        lines = [line.strip() for line in (root / "resources/examples.txt").read_text().splitlines()
                 if line.strip() and not line.startswith("#")]
        self.data = folder / "pairs.tsv"
        self.data.write_text("".join(f"{line}\t{line}\n" for line in (lines * 4)[:24]))
        self.heads = ["heads", "--checkpoint", str(root / "models/transformer.safetensors"), "--data",
                      str(self.data), "--format", "csv", "--seeds", "2"]

    def _env(self, **extra: str) -> dict[str, str]:
        return {**os.environ, "PYTHONPATH": str(self.root), "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen",
                **extra}

    def _start(self, *args: str, **env: str) -> subprocess.Popen[str]:
        return subprocess.Popen([sys.executable, "-m", "attnviz", *args], env=self._env(**env), cwd=self.root,
                                stderr=subprocess.PIPE, text=True)

    @staticmethod
    def _end(job: subprocess.Popen[str], cap: float) -> tuple[str, float]:
        """(the last line it printed, the time it ended), killed at ``cap`` seconds."""
        timer = threading.Timer(cap, job.kill)
        timer.start()
        assert job.stderr is not None
        said = [line for line in job.stderr.read().splitlines() if line.strip()]
        job.wait()
        timer.cancel()
        return (said[-1] if said else "(nothing)")[:300], time.monotonic()

    def _out(self, name: str) -> str:
        return str(self.folder / name)

    def stopped(self) -> str:
        job = self._start(*self.heads, "--out", self._out("stopped"), "--processes", "2",
                          ATTNVIZ_TEST_LOADING="stop:1")
        stopped = None
        while stopped is None and job.poll() is None:  # (a measurement: /proc polled every 0.1 s)
            try:
                for pid in Path(f"/proc/{job.pid}/task/{job.pid}/children").read_text().split():
                    if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "T":
                        stopped = time.monotonic()
            except (OSError, IndexError):
                pass
            time.sleep(0.1)
        line, ended = self._end(job, 900)
        since = f"{ended - stopped:.1f} s after the stop" if stopped is not None else "(never seen stopped)"
        return f"ended {since}, exit {job.returncode}: {line}"

    def orphaned(self) -> str:
        fifo = self.folder / "loading"
        os.mkfifo(fifo)
        job = self._start(*self.heads, "--out", self._out("orphaned"), "--processes", "2",
                          ATTNVIZ_TEST_LOADING=f"hold:{fifo}")
        pids: list[int] = []
        while len(pids) < 2:
            with open(fifo, encoding="ascii") as reports:
                pids += [int(line.split()[1]) for line in reports]
        job.kill()
        job.wait()
        killed = time.monotonic()
        gone = [_ended_within(pid, max(0.0, 120 - (time.monotonic() - killed))) for pid in pids]
        took = time.monotonic() - killed
        for pid, ended in zip(pids, gone, strict=True):
            if not ended:
                os.kill(pid, signal.SIGKILL)
        return f"{sum(gone)} of 2 processes gone {took:.1f} s after the launcher's SIGKILL (cap 120 s)"

    def nomachine0(self) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        started = time.monotonic()
        job = self._start(*self.heads, "--out", self._out("nomachine0"), "--processes", "1", "--nodes", "2",
                          "--node-rank", "1", "--rendezvous", f"127.0.0.1:{port}", ATTNVIZ_HEADS_TIMEOUT="30")
        assert job.stderr is not None
        first = job.stderr.readline().strip()
        said_first = time.monotonic() - started
        line, ended = self._end(job, 300)
        return (f"first line after {said_first:.1f} s ({first[:120]!r}), ended after {ended - started:.1f} s, exit "
                f"{job.returncode}: {line}")

    def options(self) -> str:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        started = time.monotonic()
        job = ["--processes", "1", "--nodes", "2", "--rendezvous", f"127.0.0.1:{port}"]
        first = self._start(*self.heads, "--out", self._out("options-0"), *job, "--node-rank", "0")
        other = self._start(*self.heads, "--no-pruning", "--out", self._out("options-1"), *job, "--node-rank", "1")
        line_1, ended_1 = self._end(other, 900)
        line_0, ended_0 = self._end(first, 900)
        return (f"machine 1 ended after {ended_1 - started:.1f} s, exit {other.returncode}: {line_1} | machine 0 "
                f"after {ended_0 - started:.1f} s, exit {first.returncode}: {line_0}")

    def zcat(self) -> str:
        (self.folder / "corpus.gz").write_bytes(gzip.compress(self.data.read_bytes()))
        command = " ".join([sys.executable, "-m", "attnviz", *self.heads[:3], "--data",
                            f"<(zcat {self.folder / 'corpus.gz'})", *self.heads[5:], "--out", self._out("zcat"),
                            "--processes", "2"])
        started = time.monotonic()
        job = subprocess.Popen(["bash", "-c", f"exec {command}"], env=self._env(), cwd=self.root,
                               stderr=subprocess.PIPE, text=True)
        line, ended = self._end(job, 600)
        return f"ended after {ended - started:.1f} s, exit {job.returncode}: {line}"

    def fifo(self) -> str:
        fifo = self.folder / "corpus.fifo"
        os.mkfifo(fifo)
        writer = subprocess.Popen(["bash", "-c", f"cat {self.data} > {fifo}"])
        started = time.monotonic()
        job = self._start(*self.heads[:3], "--data", str(fifo), *self.heads[5:], "--out", self._out("fifo"),
                          "--processes", "2")
        line, ended = self._end(job, 300)
        writer.kill()
        writer.wait()
        return f"ended after {ended - started:.1f} s, exit {job.returncode}: {line}"


def _ended_within(pid: int, seconds: float) -> bool:
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], seconds)[0])
    finally:
        os.close(fd)


if __name__ == "__main__":
    main()
