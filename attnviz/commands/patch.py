"""``attnviz patch``: which heads carry a behaviour — activation patching, pattern-only patching and attribution
patching of every head over minimal pairs (:mod:`attnviz.core.patching`), with 95 % bootstrap intervals over pairs.

Runs alone or as a job of ``--processes N`` (pair i is patched by process i mod N; the results are gathered in the
pairs' order, so the files are the same as one process writes). The files appear in --out only when all of them are
whole, as ``attnviz heads`` writes (:func:`attnviz.render.figure_files.export_batch`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnviz.commands import processes
from attnviz.commands.shared import (
    EXIT_USAGE,
    CliError,
    check_out_option,
    check_scale_option,
    chosen_device,
    csv_bytes,
    formats_option,
    load_model,
    refuse_replacing,
    set_threads,
    shown,
    warn,
    write_batch,
)
from attnviz.core.columns import DISAGREEMENTS_CSV, PATCH_FILES, columns_file, described
from attnviz.i18n import tr
from attnviz.paths import DEFAULT_CHECKPOINT

if TYPE_CHECKING:
    from attnviz.progress import Heartbeat

PATCH_FORMATS = "png,svg"
ALL_MEASURES = "denoise,noise,pattern,values,atp,residual"  # (attnviz.core.patching.engine.CHOICES)


def add_parser(subparsers: Any) -> None:
    """The ``patch`` command's options."""
    cmd = subparsers.add_parser("patch", help=tr("which heads carry a behaviour: patching every head over minimal "
                                                 "pairs, with attribution patching beside it"))
    cmd.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                     help=tr("a checkpoint (.safetensors) or a Hugging Face model folder (default: the shipped "
                             "Transformer)"))
    cmd.add_argument("--pairs", type=Path, metavar="FILE", help=tr(
        "minimal pairs, one a line: clean<TAB>corrupt<TAB>answer<TAB>alternative; both sides must read as the same "
        "number of tokens"))
    cmd.add_argument("--task", metavar="NAME", help=tr(
        "instead of --pairs: generated pairs (gender, agreement, number for an English–French model; ioi for an "
        "English decoder-only folder)"))
    cmd.add_argument("--limit", type=int, metavar="N", help=tr("use the first N pairs"))
    cmd.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    cmd.add_argument("--format", default=PATCH_FORMATS, help=tr(
        "figure formats, comma-separated: png, svg, pdf, csv (default {formats})").format(formats=PATCH_FORMATS))
    cmd.add_argument("--scale", type=float, default=2.0, help=tr("PNG scale factor (default 2)"))
    cmd.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    cmd.add_argument("--measures", default=ALL_MEASURES, help=tr(
        "what to compute, comma-separated: denoise, noise, pattern, values, atp, residual (default: all); each costs "
        "its own passes, so denoise alone is the quickest"))
    cmd.add_argument("--threads", type=int, default=1, help=tr("CPU threads for torch per process (default 1)"))
    cmd.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    processes.add_options(cmd)
    cmd.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The patching files of --checkpoint over --pairs or --task, written into --out (progress on stderr)."""
    from attnviz.progress import Heartbeat

    if processes.wanted(args):
        return processes.launch(args, chosen_device(args.device))
    try:
        with Heartbeat("attnviz patch", enabled=os.environ.get("RANK", "0") in ("", "0")) as progress:
            return _run(args, progress)
    except CliError:
        if os.environ.get("RANK", "0") not in ("", "0"):
            return EXIT_USAGE
        raise


def _run(args: argparse.Namespace, progress: Heartbeat) -> int:
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.heads.distributed import device_for_rank, reducer_from_environment
    from attnviz.core.patching.corpus import patch_corpus
    from attnviz.core.patching.pairs import PairsError, read_pairs
    from attnviz.core.patching.statistics import summarise
    from attnviz.core.patching.tasks import task_pairs
    from attnviz.figures.patching import patching_figure_stems, patching_figures
    from attnviz.render.figure_files import SIDECAR

    if (args.pairs is None) == (args.task is None):
        raise CliError(tr("give the pairs with --pairs FILE or a generated task with --task NAME (one of them)"))
    if args.limit is not None and args.limit < 1:
        raise CliError(tr("--limit must be at least 1, got {limit}").format(limit=args.limit))
    measures = measures_option(args.measures)
    formats = [f for f in formats_option(args.format) if f != "npy"]
    check_scale_option(args.scale)
    check_out_option(args.out)
    set_threads(args.threads)
    pairs = None
    if args.pairs is not None:
        try:
            pairs = read_pairs(args.pairs)
        except PairsError as error:
            raise CliError(f"{shown(args.pairs)}: {error}") from None
    refuse_replacing(args, [*PATCH_FILES, "COLUMNS.md", SIDECAR,
                            *(f"{stem}.{fmt}" for stem in patching_figure_stems() for fmt in formats)])
    progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
    loaded, device = load_model(args.checkpoint, args.device)
    try:
        if pairs is None:
            pairs = task_pairs(args.task, loaded)
        pairs = pairs[: args.limit] if args.limit else pairs
        device = device_for_rank(device)
    except PairsError as error:
        raise CliError(f"{args.checkpoint}: {error}") from None
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None
    with reducer_from_environment(device) as reducer:
        started = time.perf_counter()
        if reducer.rank == 0 and reducer.world > 1:
            print(tr("attnviz patch: {world} processes, {pairs:,} pairs").format(world=reducer.world,
                                                                               pairs=len(pairs)),
                  file=sys.stderr, flush=True)
        progress.stage(tr("patching every head over {count:,} pairs").format(count=len(pairs)))
        try:
            result = patch_corpus(loaded, pairs, device, progress, reducer, measures)
        except PairsError as error:
            raise CliError(f"{args.checkpoint}: {error}") from None
        seconds = time.perf_counter() - started
        if reducer.rank != 0:
            return 0
    for _pair, reason in result.skipped[:3]:
        warn(reason)
    if result.skipped:
        warn(tr("{count:,} of {total:,} pairs were left out: the model gives them no step to read").format(
            count=len(result.skipped), total=len(pairs)))
    if not result.results:
        raise CliError(tr("no pair could be patched"))
    summary = summarise(list(result.results), result.layout)
    model = Path(args.checkpoint).stem
    extra = {"patching.csv": csv_bytes(summary.table()),
             "pairs.csv": csv_bytes(_pair_rows(result, summary))}
    if "atp" in measures and "denoise" in measures:
        extra["disagreements.csv"] = (csv_bytes(_disagreement_rows(summary)) if summary.disagreements else
                                      (",".join(described(DISAGREEMENTS_CSV)) + "\n").encode("utf-8"))
    if "residual" in measures:
        extra["residual.csv"] = csv_bytes(_residual_rows(result))
    extra["COLUMNS.md"] = columns_file(tuple(f for f in PATCH_FILES if f in extra), "attnviz patch").encode("utf-8")
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind,
               **({"pairs_file": str(args.pairs)} if args.pairs is not None else {"task": args.task}),
               "measures": list(measures),
               "pairs": len(pairs), "patched": len(result.results), "left_out": len(result.skipped),
               "counted": summary.counted, "kendall_tau_atp_vs_patching": _number(summary.tau),
               "kendall_tau_interval_95": [_number(summary.tau_low), _number(summary.tau_high)],
               "bootstrap_resamples": 1000, "processes": reducer.world, "seconds": round(seconds, 1)}
    progress.stage(tr("drawing the figures"))
    written = write_batch(patching_figures(summary, result.layout, model), args, formats, sidecar, extra, progress)
    said = tr("wrote {count} files into {out}: {heads} heads over {pairs:,} pairs in {seconds:.0f} s").format(
        count=len(written), out=shown(args.out), heads=len(summary.heads), pairs=summary.counted, seconds=seconds)
    if "denoise" in summary.means:
        best = int(max(range(len(summary.heads)), key=lambda n: _sortable(float(summary.means["denoise"][n]))))
        said += tr("; most restored by {head}: {share:.2f} [{low:.2f}, {high:.2f}]").format(
            head=str(summary.heads[best]), share=summary.means["denoise"][best], low=summary.lows["denoise"][best],
            high=summary.highs["denoise"][best])
    if "atp" in summary.means and "denoise" in summary.means:
        said += tr("; Kendall τ of attribution patching against patching {tau:.2f} [{tau_low:.2f}, "
                   "{tau_high:.2f}]").format(tau=summary.tau, tau_low=summary.tau_low, tau_high=summary.tau_high)
    print(said)
    return 0


def measures_option(text: str) -> tuple[str, ...]:
    """--measures: the measures named (CliError for an unknown or no name), in the engine's order."""
    from attnviz.core.patching.engine import CHOICES

    names = [name.strip().lower() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in CHOICES]
    if unknown or not names:
        raise CliError(tr("--measures: {names} is not a measure (choose from {choices}, comma-separated)").format(
            names=", ".join(repr(n) for n in unknown) or repr(text), choices=", ".join(CHOICES)))
    return tuple(name for name in CHOICES if name in names)


def _number(value: float) -> float | str:
    return round(float(value), 6) if value == value else "n/a"


def _sortable(value: float) -> float:
    return float(value) if value == value else float("-inf")


def _pair_rows(result: Any, summary: Any) -> list[dict[str, Any]]:
    """pairs.csv: one row per pair and head."""
    from attnviz.core.patching.engine import MEASURES
    from attnviz.core.patching.statistics import NOT_COMPUTED

    rows = []
    for number, (pair, one, prefix) in enumerate(zip(result.pairs, result.results, result.prefixes, strict=True), 1):
        shares = {m: one.shares(m) for m in MEASURES if m in one.metrics}
        for head in summary.heads:
            row: dict[str, Any] = {"pair": number, "line": pair.line or "generated", "clean": pair.clean,
                                   "corrupt": pair.corrupt, "answer": pair.answer, "alternative": pair.alternative,
                                   "prefix": " ".join(prefix) or "none", "clean_metric": one.clean_metric,
                                   "corrupt_metric": one.corrupt_metric, "kind": head.kind.slug,
                                   "layer": head.layer + 1, "head": head.head + 1}
            for measure in MEASURES:
                if measure not in shares:
                    row[measure] = NOT_COMPUTED
                    continue
                value = float(shares[measure][head.kind][head.layer, head.head])
                row[measure] = value if value == value else "n/a"
            row["entropy"] = float(one.entropy[head.kind][head.layer, head.head])
            rows.append(row)
    return rows


def _residual_rows(result: Any) -> list[dict[str, Any]]:
    """residual.csv: one row per pair, layer and input position."""
    rows = []
    for number, (one, tokens) in enumerate(zip(result.results, result.tokens, strict=True), 1):
        shares = one.residual_shares()
        for layer in range(shares.shape[0]):
            for position in range(shares.shape[1]):
                value = float(shares[layer, position])
                rows.append({"pair": number, "layer": layer + 1, "position": position + 1,
                             "token": tokens[position] if position < len(tokens) else "n/a",
                             "denoise": value if value == value else "n/a"})
    return rows


def _disagreement_rows(summary: Any) -> list[dict[str, Any]]:
    """disagreements.csv: the heads where attribution patching misses activation patching by over 0.1."""
    return [{"kind": d.head.kind.slug, "layer": d.head.layer + 1, "head": d.head.head + 1, "denoise": d.patching,
             "atp": d.attribution, "difference": d.attribution - d.patching, "entropy": d.entropy}
            for d in summary.disagreements]
