"""``--processes N`` of ``attnviz heads`` and ``attnviz explain``: the command as a job of N processes on this machine
(or N on each of several, ``--nodes``), started and watched by attnviz itself, so that what the user reads is one
line per failure, never a launcher's traceback.

The launcher holds the job's key-value store (torch's TCPStore: the rendezvous of ``torch.distributed``, and the
bookkeeping of :class:`attnviz.core.heads.distributed.Watch`), starts each process as ``python -m attnviz`` with the
same options and torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT …), passes process
0's progress through, and when a process fails stops the others and says in one line which process failed and how:
killed (SIGKILL: often out of memory), its own error (bad input: exit 2), or what the others saw (a process that
hung, a machine lost). Processes that lose their launcher end themselves (the watch). Nothing is written unless
every process finishes: process 0 writes only after the last exchange.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any

from attnviz.commands.shared import EXIT_INTERNAL, CliError, Terminated
from attnviz.i18n import N_, language, tr

PROCESSES_HELP = N_("run as a job of N processes on this machine (on the CPU: at most one per core; on CUDA: one per "
                    "GPU), each taking its share of the corpus; a process that fails stops the job in one line")
NODES_HELP = N_("the job spans this many machines, each running the same command with its own --node-rank "
                "(default 1)")
NODE_RANK_HELP = N_("this machine's place in the job, from 0 (0 holds the rendezvous; default 0)")
RENDEZVOUS_HELP = N_("HOST:PORT of machine 0, where the processes of every machine meet (with --nodes; default "
                     "127.0.0.1 and a free port)")
FINAL_PREFIXES = ("attnviz: error:", "attnviz: internal error:", "attnviz: interrupted", "attnviz: terminated",
                  "attnviz: hung up")
LAST_WORDS = (N_("attnviz: error: {message}"),  # (cli.py's lines, whose translations begin the same way)
              N_("attnviz: internal error: {kind}: {error} (set ATTNVIZ_DEBUG=1 to see where)"),
              N_("attnviz: interrupted; no output was left half-written"),
              N_("attnviz: terminated; no output was left half-written"),
              N_("attnviz: hung up (the terminal closed); no output was left half-written"))


def check_own_address(host: str, port: int) -> None:
    """CliError at once unless this machine can listen on ``host``:``port`` (machine 0's --rendezvous): torch's store
    would otherwise try to reach a stranger's address until its timeout, deaf to Ctrl+C, its log full of retries."""
    import socket

    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise CliError(tr("--rendezvous {address}: no such host ({error})").format(
            address=f"{host}:{port}", error=error.strerror or error)) from None
    problem: OSError | None = None
    for family, kind, protocol, _name, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
                return
            except OSError as error:
                problem = error
    raise CliError(tr("--rendezvous {address}: this machine (--node-rank 0) cannot listen there ({error}): give "
                      "one of its own addresses").format(address=f"{host}:{port}",
                                                        error=getattr(problem, "strerror", None) or problem))


def final_prefixes() -> tuple[str, ...]:
    """How a process's last word begins (cli.py's one line for an error, a bug or a signal), in English and in the
    interface's language, which the processes speak too: FINAL_PREFIXES and their translations."""
    import re

    translated = [re.split(r"[{;；(（]", tr(text))[0].rstrip() for text in LAST_WORDS]
    return tuple(dict.fromkeys([*FINAL_PREFIXES, *(t for t in translated if len(t) > len("attnviz:"))]))


STOP_GRACE_S = 10.0  # how long the others may take to unwind before they are killed


def add_options(cmd: argparse.ArgumentParser) -> None:
    """--processes, --nodes, --node-rank and --rendezvous."""
    cmd.add_argument("--processes", type=int, metavar="N", help=tr(PROCESSES_HELP))
    cmd.add_argument("--nodes", type=int, default=1, metavar="M", help=tr(NODES_HELP))
    cmd.add_argument("--node-rank", type=int, default=0, metavar="I", help=tr(NODE_RANK_HELP))
    cmd.add_argument("--rendezvous", metavar="HOST:PORT", help=tr(RENDEZVOUS_HELP))


def wanted(args: argparse.Namespace) -> bool:
    """Whether this run is the launcher of a job (--processes given, and not itself a process of a job)."""
    from attnviz.core.heads.distributed import launched_by_torchrun

    if args.processes is None:
        if args.nodes != 1 or args.node_rank != 0 or args.rendezvous is not None:
            raise CliError(tr("--nodes, --node-rank and --rendezvous shape a job: add --processes N"))
        return False
    return not launched_by_torchrun() and "RANK" not in os.environ


def check_processes(count: int, device: Any) -> None:
    """CliError, in one sentence, for more processes on this machine than GPUs (CUDA) or CPU cores (the CPU)."""
    from attnviz.core.heads.distributed import usable_cpus

    if count < 1:
        raise CliError(tr("--processes must be at least 1, got {count}").format(count=count))
    if device.type == "cuda":
        import torch

        gpus = torch.cuda.device_count()
        if count > gpus:
            raise CliError(tr("--processes {count}: this machine has {gpus} GPU(s), and each process takes one: give "
                              "at most {gpus}, or run on the CPU (--device cpu)").format(count=count, gpus=gpus))
    elif count > (cores := usable_cpus()):  # (per machine: --nodes puts N on each)
        raise CliError(tr("--processes {count}: this machine has {cores} CPU core(s), and more processes than cores "
                          "only wait for each other: give at most {cores}").format(count=count, cores=cores))


def launch(args: argparse.Namespace, device: Any) -> int:
    """Run ``args.argv`` (the command line without --processes) as the job; its exit code."""
    import torch.distributed as dist

    from attnviz.core.heads.distributed import EXIT_PEER, timeout_seconds

    check_processes(args.processes, device)
    if args.nodes < 1:
        raise CliError(tr("--nodes must be at least 1, got {nodes}").format(nodes=args.nodes))
    if not 0 <= args.node_rank < args.nodes:
        raise CliError(tr("--node-rank must be from 0 to {most} (--nodes {nodes}), got {rank}").format(
            most=args.nodes - 1, nodes=args.nodes, rank=args.node_rank))
    host, port = "127.0.0.1", 0
    if args.rendezvous is not None:
        host, _, port_text = args.rendezvous.rpartition(":")
        if not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise CliError(tr("--rendezvous must be HOST:PORT, got {text!r}").format(text=args.rendezvous))
        port = int(port_text)
    elif args.nodes > 1:
        raise CliError(tr("--nodes {nodes}: give every machine --rendezvous HOST:PORT of machine 0").format(
            nodes=args.nodes))
    world = args.processes * args.nodes
    store = None
    if args.node_rank == 0:  # machine 0 holds the job's store, for as long as the job runs
        if args.nodes > 1:
            check_own_address(host, port)
        try:
            store = dist.TCPStore(host if args.nodes > 1 else "127.0.0.1", port, world_size=world, is_master=True,
                                  wait_for_workers=False, timeout=datetime.timedelta(seconds=timeout_seconds()))
        except Exception as error:
            raise CliError(tr("--rendezvous {address}: cannot listen there ({error})").format(
                address=f"{host}:{port}", error=str(error).splitlines()[0] if str(error) else error)) from None
        port = store.port
    env = {**os.environ, "MASTER_ADDR": host, "MASTER_PORT": str(port), "WORLD_SIZE": str(world),
           "LOCAL_WORLD_SIZE": str(args.processes), "GROUP_RANK": str(args.node_rank),
           "TORCHELASTIC_USE_AGENT_STORE": str(True)}  # (torch's env:// then joins this store instead of making one)
    command = [sys.executable, "-m", "attnviz", "--lang", language(), *without_job_options(args.argv)]
    job = Job(command, env, args.processes, args.node_rank * args.processes, world)
    try:
        return job.run(EXIT_PEER)
    finally:
        del store


def without_job_options(argv: list[str]) -> list[str]:
    """``argv`` less --processes, --nodes, --node-rank and --rendezvous (and their values)."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in ("--processes", "--nodes", "--node-rank", "--rendezvous"):
            skip = "=" not in arg
            continue
        out.append(arg)
    return out


class Job:
    """The processes of this machine: started, their stderr read, the first failure said in one line."""

    def __init__(self, command: list[str], env: dict[str, str], local: int, first_rank: int, world: int):
        self.command, self.env, self.world = command, env, world
        self.ranks = [first_rank + i for i in range(local)]
        self.lines: queue.Queue[tuple[int, str | None]] = queue.Queue()
        self.final: dict[int, list[str]] = {rank: [] for rank in self.ranks}  # what each said last (errors)
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.ended: set[int] = set()  # the processes whose stderr has been read to its end
        self.final_prefixes = final_prefixes()

    def run(self, exit_peer: int) -> int:
        for local, rank in enumerate(self.ranks):
            env = {**self.env, "RANK": str(rank), "LOCAL_RANK": str(local)}
            self.processes[rank] = subprocess.Popen(self.command, env=env, stderr=subprocess.PIPE)
            assert self.processes[rank].stderr is not None
            threading.Thread(target=self._read, args=(rank, self.processes[rank].stderr), daemon=True).start()
        try:
            return self._watch(exit_peer)
        except (KeyboardInterrupt, Terminated):
            self._stop_all()
            if self.processes[self.ranks[0]].returncode == 0:  # (it had finished: its files are whole)
                self._say(self.final[self.ranks[0]])
                return 0
            raise
        finally:
            self._stop_all()

    def _read(self, rank: int, stream: IO[bytes]) -> None:
        for raw in stream:
            self.lines.put((rank, raw.decode("utf-8", errors="replace").rstrip("\n")))
        self.lines.put((rank, None))

    def _drain(self, passing: bool) -> None:
        """Take the lines read so far: process 0's progress passed through (``passing``), errors kept."""
        while True:
            try:
                rank, line = self.lines.get_nowait()
            except queue.Empty:
                return
            if line is None:
                self.ended.add(rank)
            elif line.startswith(self.final_prefixes):
                self.final[rank].append(line)
            elif passing and rank == 0:
                print(line, file=sys.stderr, flush=True)

    def _watch(self, exit_peer: int) -> int:
        while True:
            self._drain(passing=True)
            codes = {rank: process.poll() for rank, process in self.processes.items()}
            if all(code == 0 for code in codes.values()):
                self._settle()
                self._say([line for rank in self.ranks for line in self.final[rank]])
                return 0
            if any(code not in (None, 0) for code in codes.values()):
                break
            time.sleep(0.05)
        deadline = time.monotonic() + 1.0  # (the others' exits that come with it: the cause among them)
        while time.monotonic() < deadline and any(p.poll() is None for p in self.processes.values()):
            time.sleep(0.05)
        codes = {rank: process.poll() for rank, process in self.processes.items()}
        self._stop_all()
        self._settle()
        killed = [rank for rank, code in codes.items() if code is not None and code < 0]
        own = [rank for rank, code in codes.items() if code not in (None, 0, exit_peer) and code > 0]
        peers = [rank for rank, code in codes.items() if code == exit_peer]
        if killed:
            rank = killed[0]
            signum = -(codes[rank] or 0)
            try:
                name = signal.Signals(signum).name
            except ValueError:
                name = str(signum)
            oom = tr(" (often: out of memory)") if signum == signal.SIGKILL else ""
            self._say([tr("attnviz: error: process {rank} of {world} (pid {pid}) was killed by {signal}{oom}: the "
                          "job stopped; nothing was written").format(rank=rank, world=self.world,
                                                                      pid=self.processes[rank].pid, signal=name,
                                                                      oom=oom)])
            return EXIT_INTERNAL
        for rank in own + peers:
            if self.final[rank]:
                self._say(self.final[rank][-1:])
                code = codes[rank]
                return code if code is not None and code > 0 else EXIT_INTERNAL
        rank = (own + peers)[0]
        self._say([tr("attnviz: error: process {rank} of {world} ended with exit code {code}; the job stopped").format(
            rank=rank, world=self.world, code=codes[rank])])
        return EXIT_INTERNAL

    def _settle(self) -> None:
        """Wait (briefly) for the processes' stderr to be read to its end."""
        deadline = time.monotonic() + 5.0
        while len(self.ended) < len(self.ranks) and time.monotonic() < deadline:
            try:
                rank, line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            if line is None:
                self.ended.add(rank)
            elif line.startswith(self.final_prefixes):
                self.final[rank].append(line)

    def _stop_all(self) -> None:
        """Every process still running: SIGTERM (unwinds, as Ctrl+C does), SIGKILL after STOP_GRACE_S."""
        running = [p for p in self.processes.values() if p.poll() is None]
        for process in running:
            for signum in (signal.SIGTERM, signal.SIGCONT):  # (a stopped process takes its SIGTERM when continued)
                with contextlib.suppress(ProcessLookupError):
                    process.send_signal(signum)
        deadline = time.monotonic() + STOP_GRACE_S
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    @staticmethod
    def _say(lines: list[str]) -> None:
        for line in lines:
            print(line, file=sys.stderr, flush=True)
