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
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any

from attnviz.commands.shared import EXIT_INTERNAL, EXIT_USAGE, CliError, Terminated
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

    from attnviz.core.heads.distributed import EXIT_PEER, LAUNCHER_ENV, timeout_seconds

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
    options = job_options(args)
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
        store.set(OPTIONS_KEY, json.dumps(options))  # (the other machines compare theirs with these)
    else:
        store = meet_machine_0(host, port, args.command)
        if store is None:
            return EXIT_PEER
        check_same_options(store, options, args.node_rank)
    given = getattr(args, "data", None)  # (patch reads --pairs: no --data)
    data = piped_data(given)  # (a pipe: read once here, every process reads the copy)
    argv = without_job_options(args.argv)
    if data is not None and data.name != str(given):
        argv = with_data(argv, data.name)
    env = {**os.environ, "MASTER_ADDR": host, "MASTER_PORT": str(port), "WORLD_SIZE": str(world),
           "LOCAL_WORLD_SIZE": str(args.processes), "GROUP_RANK": str(args.node_rank),
           "TORCHELASTIC_USE_AGENT_STORE": str(True),  # (torch's env:// then joins this store instead of making one)
           LAUNCHER_ENV: str(os.getpid())}  # (a process whose launcher is gone ends itself, even while loading)
    command = [sys.executable, "-m", "attnviz", "--lang", language(), *argv]
    job = Job(command, env, args.processes, args.node_rank * args.processes, world)
    job.data = data
    if args.node_rank == 0 and args.nodes > 1:
        job.refusals = (store, args.nodes)
    try:
        return job.run(EXIT_PEER)
    finally:
        if data is not None:
            os.close(data.fd)
        del store


OPTIONS_KEY = "attnviz/options"  # machine 0's options (JSON): each other machine compares its own with them
REFUSED_KEY = "attnviz/refused/{node}"  # a machine refused for other options than machine 0's: the differences
MACHINE_LOCAL = ("argv", "run", "node_rank", "rendezvous", "out", "force", "threads")  # may differ between machines


def job_options(args: argparse.Namespace) -> dict[str, list[Any]]:
    """The options every machine of a job must share: {option: [given on the command line, its value as text]}
    (those of MACHINE_LOCAL left out: --out and --force only matter on machine 0, --threads to each machine)."""
    given = {arg.split("=", 1)[0] for arg in args.argv if arg.startswith("--")}
    return {f"--{dest.replace('_', '-')}": [f"--{dest.replace('_', '-')}" in given, str(value)]
            for dest, value in sorted(vars(args).items()) if dest not in MACHINE_LOCAL}


def option_differences(here: dict[str, list[Any]], there: dict[str, list[Any]], node: int) -> list[str]:
    """Each option whose value differs between this machine (--node-rank ``node``) and machine 0, in words; an
    option neither gave (each its own default, e.g. a path under its own installation) does not differ."""
    out = []
    for option in sorted(set(here) | set(there)):
        mine, theirs = here.get(option, [False, "-"]), there.get(option, [False, "-"])
        if mine[1] != theirs[1] and (mine[0] or theirs[0]):
            out.append(tr("{option} {here} on machine {node}, {there} on machine 0").format(
                option=option, here=mine[1], node=node, there=theirs[1]))
    return out


def check_same_options(store: Any, options: dict[str, list[Any]], node: int) -> None:
    """CliError (and a word to machine 0, which stops its processes) unless this machine's options are machine
    0's: a job whose machines differ (--no-pruning on one) would run its whole work and then break in an exchange
    one machine never comes to."""
    try:
        there = json.loads(store.get(OPTIONS_KEY))
    except Exception as error:
        raise CliError(tr("the rendezvous holds no options of machine 0 ({error}): is it attnviz's?").format(
            error=str(error).splitlines()[0] if str(error) else type(error).__name__)) from None
    if differences := option_differences(options, there, node):
        said = "; ".join(differences)
        with contextlib.suppress(Exception):
            store.set(REFUSED_KEY.format(node=node), said)
        raise CliError(tr("machine {node} was started with other options than machine 0 ({differences}): every "
                          "machine runs the same command, only --node-rank differs").format(node=node,
                                                                                           differences=said))


def meet_machine_0(host: str, port: int, command: str) -> Any:
    """A client of the job's store on machine 0 (--node-rank above 0), waited for at most ATTNVIZ_HEADS_TIMEOUT
    seconds with a line saying so (a try every few seconds: Ctrl+C is heard between them); None, after one line
    saying machine 0 never came, when it has not come by then."""
    import socket

    import torch.distributed as dist

    from attnviz.core.heads.distributed import TIMEOUT_ENV, timeout_seconds

    address = f"{host}:{port}"
    try:
        socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        raise CliError(tr("--rendezvous {address}: no such host ({error})").format(
            address=address, error=error.strerror or error)) from None
    limit = timeout_seconds()
    print(tr("attnviz {command}: waiting for machine 0 at {address} (at most {seconds:g} s, {env})").format(
        command=command, address=address, seconds=limit, env=TIMEOUT_ENV), file=sys.stderr, flush=True)
    deadline = time.monotonic() + limit
    while (left := deadline - time.monotonic()) > 0:
        tried = time.monotonic()
        try:  # (a plain socket first: torch's client logs every failed try, with its C++ stack)
            with socket.create_connection((host, port), timeout=max(0.1, min(MEET_TRY_S, left))):
                break
        except OSError:  # (nothing listens there yet, or no answer in this try): one try every MEET_TRY_S s
            time.sleep(max(0.0, min(tried + MEET_TRY_S, deadline) - time.monotonic()))
    else:
        print(tr("attnviz: error: machine 0 did not come to the rendezvous at {address} in {seconds:g} s ({env}): "
                 "start the same command there with --node-rank 0; nothing was written").format(
            address=address, seconds=limit, env=TIMEOUT_ENV), file=sys.stderr, flush=True)
        return None
    try:
        return dist.TCPStore(host, port, is_master=False, timeout=datetime.timedelta(seconds=limit))
    except Exception as error:
        raise CliError(tr("--rendezvous {address}: no attnviz job's rendezvous there ({error})").format(
            address=address, error=str(error).splitlines()[0] if str(error) else type(error).__name__)) from None


MEET_TRY_S = 2.0  # each try to reach machine 0's store waits this long at most


class PipedData:
    """--data that was a pipe, read once by the launcher into an anonymous file in memory: its descriptor (open in
    every process) and the name the processes read it by (the pipe's own name where that is /dev/fd/N)."""

    def __init__(self, fd: int, name: str, given: str):
        self.fd, self.name, self.given = fd, name, given


def piped_data(path: Any) -> PipedData | None:
    """A pipe given as --data (``<(zcat corpus.gz)``, a FIFO) read once, here, into memory; None for anything else
    (a file, which every process reads itself, or a name that is no file, which process 0 names in one line). Only
    one reader gets a pipe's lines, and a descriptor like /dev/fd/63 is the launcher's alone: the processes could
    not share it. No line is read whole past a document line's bound (1 MiB): the processes refuse that line."""
    import re
    import stat

    from attnviz.core.heads.corpus import MAX_DOCUMENT_LINE_BYTES

    if path is None:
        return None
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    if not hasattr(os, "memfd_create"):
        raise CliError(tr("--data {path} is a pipe, which one process alone can read: under --processes give a file"
                          ).format(path=path))
    copy = os.memfd_create("attnviz-data")
    try:
        with open(path, "rb") as pipe, os.fdopen(os.dup(copy), "wb") as out:
            while raw := pipe.readline(MAX_DOCUMENT_LINE_BYTES + 1):
                out.write(raw)
                if len(raw) > MAX_DOCUMENT_LINE_BYTES and not raw.endswith(b"\n"):
                    break
    except OSError as error:
        os.close(copy)
        raise CliError(tr("{path} cannot be read: {reason}").format(path=path, reason=error.strerror)) from None
    if (number := re.fullmatch(r"/(?:dev|proc/self)/fd/(\d+)", str(path))) and int(number[1]) > 2:
        os.dup2(copy, int(number[1]))  # (in the pipe's place, read to its end: the processes read the same name)
        os.close(copy)
        return PipedData(int(number[1]), str(path), str(path))
    return PipedData(copy, f"/dev/fd/{copy}", str(path))


def with_data(argv: list[str], name: str) -> list[str]:
    """``argv`` with --data's value replaced by ``name``."""
    out, replace = [], False
    for arg in argv:
        if replace:
            out.append(name)
            replace = False
        elif arg == "--data":
            out.append(arg)
            replace = True
        elif arg.startswith("--data="):
            out.append(f"--data={name}")
        else:
            out.append(arg)
    return out


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
        self.data: PipedData | None = None  # --data read once from a pipe: open in every process
        self.refusals: tuple[Any, int] | None = None  # (the job's store, the machines): a machine refused there

    def run(self, exit_peer: int) -> int:
        for local, rank in enumerate(self.ranks):
            env = {**self.env, "RANK": str(rank), "LOCAL_RANK": str(local)}
            self.processes[rank] = subprocess.Popen(self.command, env=env, stderr=subprocess.PIPE,
                                                    pass_fds=() if self.data is None else (self.data.fd,))
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

    def _refused(self) -> str | None:
        """What another machine was refused for (its options not machine 0's), in one line, or None."""
        if self.refusals is None:
            return None
        store, nodes = self.refusals
        for node in range(1, nodes):
            with contextlib.suppress(Exception):
                if store.check([REFUSED_KEY.format(node=node)]):
                    return tr("attnviz: error: machine {node} was started with other options than this one "
                              "({differences}): every machine runs the same command, only --node-rank differs; the "
                              "job stopped, nothing was written").format(
                        node=node, differences=store.get(REFUSED_KEY.format(node=node)).decode())
        return None

    def _watch(self, exit_peer: int) -> int:
        turns = 0
        while True:
            self._drain(passing=True)
            turns += 1
            if turns % 10 == 0 and (refused := self._refused()) is not None:
                self._stop_all()
                self._settle()
                self._say([refused])
                return EXIT_USAGE
            codes = {rank: process.poll() for rank, process in self.processes.items()}
            if all(code == 0 for code in codes.values()):
                self._settle()
                self._say([line for rank in self.ranks for line in self.final[rank]])
                return 0
            if any(code not in (None, 0) for code in codes.values()):
                break
            time.sleep(0.05)
        deadline = time.monotonic() + 1.0  # (the others' exits that come with it: the cause among them)
        speaker = self.processes.get(0) if self._quiet_usage(codes) else None
        if speaker is not None:  # (bad input every process meets: process 0 says it, however far behind the
            deadline += STOP_GRACE_S  # others it is on a busy machine; then the rest as usual)
        while time.monotonic() < deadline and any(p.poll() is None for p in self.processes.values()):
            if speaker is not None and speaker.poll() is not None:
                deadline, speaker = min(deadline, time.monotonic() + 1.0), None
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

    def _quiet_usage(self, codes: dict[int, int | None]) -> bool:
        """Whether the processes that failed all left on bad input without a word (exit 2: processes but 0 meet
        it quietly) while process 0 still runs: it will say the one line."""
        failed = [rank for rank, code in codes.items() if code not in (None, 0)]
        return bool(failed) and 0 in codes and codes[0] is None and all(
            codes[rank] == EXIT_USAGE and not self.final[rank] for rank in failed)

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

    def _say(self, lines: list[str]) -> None:
        for line in lines:
            if self.data is not None and self.data.name != self.data.given:  # (the pipe by the name it was given)
                line = line.replace(self.data.name, self.data.given)
            print(line, file=sys.stderr, flush=True)
