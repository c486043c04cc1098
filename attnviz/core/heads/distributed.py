"""Adding sums across processes: one process alone, or every process of a ``torchrun`` job.

Under ``torchrun`` (its environment: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) :func:`reducer_from_environment`
joins the job's process group (gloo on the CPU, NCCL on CUDA) and every :meth:`Reducer.sum` is an all-reduce
(:meth:`Reducer.gather`: every process's picklable object, in rank order); alone, a sum is the array itself.
Integer sums (BLEU counts) stay integers, so they add exactly.

A job never hangs (:class:`Watch`, a thread in every process of a job, from its start — :func:`watched_job`, loading
the model included — to its last exchange): a process that dies (SIGKILL, out of memory) or stops answering makes
the others end within seconds (same machine) or :data:`SILENCE_S` (another machine, or a process stopped while
the model loads), a process that waits for the others longer than ATTNVIZ_HEADS_TIMEOUT seconds ends the job, and
a process whose launcher is gone (``attnviz heads --processes``, torchrun) ends too; each says so in one line
naming the process to blame, and exits with :data:`EXIT_PEER` (nothing is written before every process has finished: the
block of :func:`reducer_from_environment` ends with every process there). The bookkeeping (each process's host and
pid, a heartbeat, how many exchanges it has come to, why it stopped) lives under ``attnviz/`` in the job's own
key-value store (torch's TCPStore at MASTER_ADDR:MASTER_PORT).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

from attnviz.i18n import tr

TIMEOUT_ENV = "ATTNVIZ_HEADS_TIMEOUT"  # seconds a process waits for the others (default 600): never a hang
SILENCE_S = 30.0  # a process of the job with no heartbeat for this long (stopped, its machine lost) is called gone
BEAT_S = 1.0  # how often each process beats and looks at the others
EXIT_PEER = 3  # exit code of a process that stops because another failed (a launcher's cue: not the cause)
DIE_ENV = "ATTNVIZ_TEST_DIE"  # tests: "RANK:EXCHANGE" — that process SIGKILLs itself at that exchange
LOADING_ENV = "ATTNVIZ_TEST_LOADING"  # tests: what a process does as it starts loading the model (see at_loading)
LAUNCHER_ENV = "ATTNVIZ_LAUNCHER_PID"  # the pid of the launcher (attnviz --processes) that started this process
AGENT_STORE_ENV = "TORCHELASTIC_USE_AGENT_STORE"  # "True": the job's store is up before its processes start


class Reducer:
    """Sums across processes: this is one process alone (rank 0 of 1)."""

    rank = 0
    world = 1

    def sum(self, array: np.ndarray) -> np.ndarray:
        """The element-wise sum of ``array`` over every process (float64 or int64)."""
        return np.array(array, copy=True)

    def gather(self, value: Any) -> list[Any]:
        """Every process's ``value`` (picklable), in rank order, on every process: alone, ``[value]``."""
        return [value]

    def agree(self) -> None:
        """Wait until every process is here (nothing to wait for alone)."""


class TorchReducer(Reducer):
    """Sums with ``torch.distributed.all_reduce`` over the default process group; every exchange watched
    (:class:`Watch`): one that fails or outlasts the timeout ends this process with one line saying why."""

    def __init__(self, device: torch.device, watch: Watch):
        import torch.distributed as dist

        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.device = device
        self.watch = watch

    def sum(self, array: np.ndarray) -> np.ndarray:
        import torch.distributed as dist

        values = np.asarray(array)
        dtype = torch.int64 if np.issubdtype(values.dtype, np.integer) else torch.float64
        tensor = torch.as_tensor(values, dtype=dtype).to(self.device)

        def add() -> torch.Tensor:  # (the copy back waits for NCCL's asynchronous sum: watched too)
            dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
            return tensor.cpu()

        return self.watch.exchange(add).numpy().astype(np.int64 if dtype == torch.int64 else np.float64)

    def gather(self, value: Any) -> list[Any]:
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        # (on NCCL through the GPU set by reducer_from_environment)
        self.watch.exchange(lambda: dist.all_gather_object(out, value))
        return out

    def agree(self) -> None:
        self.sum(np.zeros(1))


def launched_by_torchrun() -> bool:
    """Whether this process is one of a torchrun job of two or more processes."""
    return int(os.environ.get("WORLD_SIZE", "1") or 1) > 1


def timeout_seconds() -> float:
    try:
        return max(1.0, float(os.environ.get(TIMEOUT_ENV, "600")))
    except ValueError:
        return 600.0


_job_watch: Watch | None = None  # this process's watch while :func:`watched_job` runs


@contextlib.contextmanager
def watched_job() -> Iterator[None]:
    """The block of a process of a job (the whole command: reading, loading the model, the work), watched from its
    start: a launcher killed, or another process stopped, while the model loads ends this process in one line as it
    would during the work. :func:`reducer_from_environment` takes this watch over. Alone: nothing."""
    global _job_watch
    if not launched_by_torchrun() or _job_watch is not None:
        yield
        return
    watch = Watch(int(os.environ.get("RANK", "0")), int(os.environ["WORLD_SIZE"]), timeout_seconds())
    watch.start()
    _job_watch = watch
    try:
        yield
    finally:
        _job_watch = None
        watch.stop()


def at_loading() -> None:
    """Tests (ATTNVIZ_TEST_LOADING, as the model starts loading, once this process's watch has beaten in the job's
    store): "stop:RANK" — that process stops itself (SIGSTOP); "hold:FIFO" — every process writes "RANK PID" into
    FIFO and then waits there for good (a load that never ends)."""
    action, _, what = os.environ.get(LOADING_ENV, "").partition(":")
    if not action or (watch := _job_watch) is None:
        return
    import signal

    watch.beating.wait(watch.timeout)
    if action == "stop" and what == str(watch.rank):
        os.kill(os.getpid(), signal.SIGSTOP)
    elif action == "hold":
        with open(what, "w", encoding="ascii") as fifo:
            fifo.write(f"{watch.rank} {os.getpid()}\n")
        threading.Event().wait()


@contextlib.contextmanager
def reducer_from_environment(device: torch.device) -> Iterator[Reducer]:
    """The reducer of this process: a process group joined for the block (and left after it) under a launcher
    (``attnviz … --processes``, torchrun), else the one-process reducer. The block ends with every process there
    (so that what is written after it is written only when every process has finished); every wait is watched
    (:class:`Watch`): a process that dies, hangs or is orphaned ends the job in one line instead of a hang."""
    if not launched_by_torchrun():
        yield Reducer()
        return
    import torch.distributed as dist

    backend = "nccl" if device.type == "cuda" else "gloo"
    if device.type == "cuda":
        torch.cuda.set_device(device)
    watch = _job_watch
    if watch is None:
        watch = Watch(int(os.environ.get("RANK", "0")), int(os.environ["WORLD_SIZE"]), timeout_seconds())
        watch.start()
    try:
        watch.exchange(lambda: dist.init_process_group(backend, timeout=datetime.timedelta(
            seconds=timeout_seconds() + 2 * SILENCE_S)))  # (torch's own timeout: a backstop behind the watch's)
        watch.joined()
        reducer = TorchReducer(device, watch)
        try:
            yield reducer
            reducer.agree()  # every process has finished its share: only now may anything be written
        except BaseException as error:
            watch.stopping(error)  # (the others learn why: bad input, Ctrl+C, a bug)
            raise
        finally:
            watch.stop()
            with contextlib.suppress(Exception):
                dist.destroy_process_group()
    finally:
        watch.stop()


class Watch:
    """The thread that keeps a process of a job from hanging. It beats in the job's store every BEAT_S seconds
    and ends this process (one line on stderr, exit :data:`EXIT_PEER`) when:

    - another process of the job died (its pid gone, on this machine), or gave no heartbeat for SILENCE_S s;
    - an exchange (:meth:`exchange`: joining, adding, gathering) has waited longer than the timeout: the line names
      the processes that have not come to it;
    - this process's launcher is gone (its parent changed: orphaned; ATTNVIZ_LAUNCHER_PID names it, so a launcher
      killed before the watch started is seen too).

    Where the job's store is up before the processes start (``--processes``, torchrun's agent store) the watch beats
    from its start, so a process stopped while the model loads is seen as one stopped during the work; the other
    checks (a process gone, one that said why it left) wait for the process group.

    An exchange that fails (the connection to a process that died) ends the process the same way, with the same
    line. Ending with ``os._exit`` is safe: nothing is written while the watch runs (see
    :func:`reducer_from_environment`)."""

    def __init__(self, rank: int, world: int, timeout: float):
        self.rank, self.world, self.timeout = rank, world, timeout
        launcher = os.environ.get(LAUNCHER_ENV, "")
        self.parent = int(launcher) if launcher.isdigit() else os.getppid()
        self.early = os.environ.get(AGENT_STORE_ENV, "") == "True"  # (the store can be reached before joining)
        self.beating = threading.Event()  # set at this process's first heartbeat in the job's store
        self.prefix = f"attnviz/{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}/"
        self.exchanges = 0
        self.waiting_since: float | None = None
        self._store: Any = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._seen: dict[int, tuple[int, float]] = {}  # rank -> (its last heartbeat, when it changed here)
        self._where: dict[int, tuple[str, int]] = {}  # rank -> (host, pid)
        self._joined = False
        self.silence = max(min(SILENCE_S, timeout), 3 * BEAT_S)
        self._thread = threading.Thread(target=self._run, name="attnviz-watch", daemon=True)
        die = os.environ.get(DIE_ENV, "")
        self._die_at = int(die.split(":")[1]) if die.split(":")[0] == str(rank) and ":" in die else None

    def start(self) -> None:
        self._thread.start()

    def joined(self) -> None:
        """The process group is joined: the job's store can be reached."""
        self._joined = True

    def stop(self) -> None:
        """From now on the watch ends nothing (the process may be writing its files)."""
        with self._lock:
            self._done.set()

    def exchange(self, call: Callable[[], Any]) -> Any:
        """``call()`` (a collective), watched: failing, or waiting past the timeout, ends the process in one line."""
        self.exchanges += 1
        if self._die_at is not None and self.exchanges >= self._die_at:  # (tests: a process killed mid-job)
            import signal

            os.kill(os.getpid(), signal.SIGKILL)
        self._tell("step", self.exchanges)
        self.waiting_since = time.monotonic()
        try:
            return call()
        except Exception as error:  # the connection to a process that is gone, torch's own timeout
            self._end(self._blame() or tr("exchanging with the other processes failed ({error})").format(
                error=str(error).splitlines()[0] if str(error) else type(error).__name__))
        finally:
            self.waiting_since = None

    def stopping(self, error: BaseException) -> None:
        """Tell the others why this process leaves early (before it unwinds)."""
        with contextlib.suppress(Exception):
            if self._store is not None:
                self._store.set(self.prefix + f"why/{self.rank}", (str(error) or type(error).__name__)[:500])
        self.stop()

    # -- the thread ---------------------------------------------------------------------------------------------

    def _run(self) -> None:
        while not self._done.wait(BEAT_S):
            if os.getppid() != self.parent:
                self._end(tr("its launcher (process {pid}) is gone").format(pid=self.parent))
            since = self.waiting_since
            if since is not None and time.monotonic() - since > self.timeout:
                late = self._late()
                self._end(tr("{who} did not come to exchange {number} in {seconds:g} s ({env})").format(
                    who=late or tr("the other processes"), number=self.exchanges, seconds=self.timeout,
                    env=TIMEOUT_ENV))
            if (store := self._connected()) is not None:
                self._beat(store)
                if culprit := self._blame():
                    self._end(culprit)

    def _beat(self, store: Any) -> None:
        with contextlib.suppress(Exception):
            store.add(self.prefix + f"beat/{self.rank}", 1)
            self.beating.set()

    def _connected(self) -> Any:
        """This process's own client of the job's store (connected once the job is joined, or from the start where
        the store is up before the processes: ``early``), or None."""
        if self._store is None and (self._joined or self.early):
            try:
                import torch.distributed as dist

                self._store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]),
                                            is_master=False, timeout=datetime.timedelta(seconds=10))
                self._store.set(self.prefix + f"where/{self.rank}", f"{socket.gethostname()} {os.getpid()}")
                self._tell("step", self.exchanges)
                self._beat(self._store)  # (at once: a process stopped a moment later is seen as stopped)
            except Exception:  # (no store to reach: the exchanges' own checks still hold)
                self._store = None
        return self._store

    def _tell(self, what: str, value: int) -> None:
        if self._store is not None:
            with contextlib.suppress(Exception):
                self._store.set(self.prefix + f"{what}/{self.rank}", str(value))

    def _others(self) -> list[int]:
        return [rank for rank in range(self.world) if rank != self.rank]

    def _blame(self) -> str | None:
        """Which other process failed, in words (None: all look alive): one that said why it left, one whose
        pid is gone from this machine (both once the job is joined: before it, a process that leaves on bad input
        is its launcher's to report), one silent for SILENCE_S s."""
        store = self._store
        if store is None:
            return None
        now = time.monotonic()
        joined = self._joined
        try:
            for rank in self._others():
                if joined and store.check([self.prefix + f"why/{rank}"]):
                    return tr("process {rank} of {world} stopped: {why}").format(
                        rank=rank, world=self.world, why=store.get(self.prefix + f"why/{rank}").decode())
                if joined and (where := self._where_of(rank)) and where[0] == socket.gethostname() \
                        and not _alive(where[1]):
                    return tr("process {rank} of {world} (pid {pid}) died: killed, or out of memory").format(
                        rank=rank, world=self.world, pid=where[1])
                beat = int(store.add(self.prefix + f"beat/{rank}", 0))
                last, changed = self._seen.get(rank, (-1, now))
                if beat != last:
                    self._seen[rank] = (beat, now)
                elif beat > 0 and now - changed > self.silence:
                    return tr("process {rank} of {world} gave no sign of life for {seconds:.0f} s (stopped, or its "
                              "machine lost)").format(rank=rank, world=self.world, seconds=now - changed)
        except Exception:
            return tr("the job's store at {address} is gone (its launcher or machine stopped)").format(
                address=f"{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
        return None

    def _where_of(self, rank: int) -> tuple[str, int] | None:
        if rank not in self._where and self._store.check([self.prefix + f"where/{rank}"]):
            host, pid = self._store.get(self.prefix + f"where/{rank}").decode().rsplit(" ", 1)
            self._where[rank] = (host, int(pid))
        return self._where.get(rank)

    def _late(self) -> str | None:
        """The processes that have not come to this process's exchange, in words (None: not known)."""
        if self._store is None:
            return None
        try:
            late = [rank for rank in self._others() if not self._store.check([self.prefix + f"step/{rank}"])
                    or int(self._store.get(self.prefix + f"step/{rank}")) < self.exchanges]
        except Exception:
            return None
        if not late:
            return None
        return tr("process {ranks} of {world}").format(ranks=", ".join(map(str, late)), world=self.world)

    def _end(self, why: str) -> None:
        """Say why the job stops, in one line, and leave now (exit EXIT_PEER); from the thread only while the
        watch runs (never once the process may be writing its files)."""
        with self._lock:
            if threading.current_thread() is not self._thread or not self._done.is_set():
                line = tr("attnviz: error: {why}: the job stopped; nothing was written").format(why=why)
                with contextlib.suppress(Exception):
                    print(line, file=sys.stderr, flush=True)
                os._exit(EXIT_PEER)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this machine (a zombie, dead but not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def usable_cpus() -> int:
    """The CPU cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        return os.cpu_count() or 1


def device_for_rank(device: torch.device) -> torch.device:
    """Under torchrun on CUDA, each process takes the GPU of its LOCAL_RANK; elsewhere ``device`` itself. More
    processes on this machine than CPU cores (on the CPU) is refused: they would only wait for each other."""
    if device.type == "cpu" and launched_by_torchrun():
        processes = int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1)
        if processes > (cores := usable_cpus()):
            from attnviz.core.device import DeviceUnavailableError

            raise DeviceUnavailableError(tr(
                "{processes} processes were started on this machine, which has {cores} CPU core(s): more processes "
                "than cores only wait for each other; start at most {cores} (--nproc-per-node, --processes)").format(
                processes=processes, cores=cores))
    if device.type == "cuda" and launched_by_torchrun() and device.index is None:
        local_rank, gpus = int(os.environ.get("LOCAL_RANK", "0")), torch.cuda.device_count()
        if local_rank >= gpus:  # (NCCL refuses two processes on one GPU: say so before anyone waits for them)
            from attnviz.core.device import DeviceUnavailableError

            raise DeviceUnavailableError(tr(
                "torchrun started {processes} processes on this machine, which has {gpus} GPU(s): start one process "
                "per GPU (--nproc-per-node {gpus}), or run on the CPU (--device cpu)").format(
                processes=os.environ.get("LOCAL_WORLD_SIZE", local_rank + 1), gpus=gpus))
        return torch.device("cuda", local_rank)
    return device
