"""``attnviz heads``: the head atlas of a translation model over a corpus (statistics, importance, pruning curve).

Runs alone or as every process of a ``torchrun`` job (process r decodes its share; the sums are added across
processes; rank 0 writes the files).

The files appear in --out only when all of them are whole (:func:`attnviz.render.figure_files.export_batch`).
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
    batch_size_option,
    check_beam,
    check_out_option,
    check_scale_option,
    chosen_device,
    csv_bytes,
    formats_option,
    load_model,
    refuse_one_image,
    refuse_replacing,
    set_threads,
    shown,
    warn,
    write_batch,
)
from attnviz.core.columns import HEADS_FILES, PRUNING_CSV, PRUNING_FIGURE_CSV, columns_file
from attnviz.core.layout import Capability
from attnviz.core.models.kinds import input_command
from attnviz.i18n import tr
from attnviz.paths import DEFAULT_CHECKPOINT

if TYPE_CHECKING:
    from attnviz.progress import Heartbeat

MAX_SEEDS = 20
DEFAULT_SEEDS = 3
TASK_SENTENCES = 1000  # --task without --limit: this many distinct held-out inputs
HEADS_FORMATS = "png,svg,pdf"


def add_parser(subparsers: Any) -> None:
    """The ``heads`` command's options."""
    heads = subparsers.add_parser("heads", help=tr("statistics, importance and pruning of every attention head over a "
                                            "corpus (also under torchrun)"))
    heads.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                       help=tr("a translation checkpoint (.safetensors) or a Hugging Face model folder (default: "
                               "the shipped Transformer)"))
    heads.add_argument("--data", help=tr("one source sentence a line, or source<TAB>reference lines (references give "
                                         "the pruning curve); for an image model, a folder of images"))
    heads.add_argument("--task", metavar="NAME", help=tr(
        "instead of --data: a generated task's held-out inputs and right outputs (copy, reverse, sort, dates; "
        "--limit of them, default {count}), and each cross-attention head's agreement with the task's true "
        "alignment (heads.csv's alignment column) — for a model trained with attnviz train KIND --task NAME").format(
        count=TASK_SENTENCES))
    heads.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    heads.add_argument("--beam", type=int, default=1, help=tr("beam size (default 1: greedy)"))
    heads.add_argument("--seeds", type=int, default=DEFAULT_SEEDS,
                       help=tr("random pruning orders averaged (default {seeds})").format(seeds=DEFAULT_SEEDS))
    heads.add_argument("--limit", type=int, metavar="N", help=tr("use the first N distinct source sentences"))
    heads.add_argument("--no-pruning", action="store_true", help=tr("skip the pruning curve (the slow part)"))
    heads.add_argument("--format", default=HEADS_FORMATS,
                       help=tr("figure formats, comma-separated: png, svg, pdf, csv (default {formats})").format(
                           formats=HEADS_FORMATS))
    heads.add_argument("--scale", type=float, default=2.0, help=tr("PNG scale factor (default 2)"))
    heads.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps (under torchrun on "
                                                           "CUDA: each process its LOCAL_RANK's GPU)"))
    heads.add_argument("--documents", action="store_true", help=tr(
        "a Hugging Face language model (decoder-only or encoder-only; an encoder-only one always): read --data as "
        "one document a line, cut to the model's positions (at most {most:,} tokens), one forward pass each, no "
        "decoding; heads.csv's statistics and sinks_by_position.csv, no importance").format(most=4096))
    heads.add_argument("--batch-size", type=int, default=4096, metavar="TOKENS", help=tr(
        "with --documents: tokens per forward pass (rows × the longest document; default 4096), halved when the "
        "device runs out of memory"))
    heads.add_argument("--threads", type=int, default=1, help=tr("CPU threads for torch per process (default 1)"))
    heads.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    processes.add_options(heads)
    heads.set_defaults(run=run)




def _checked(args: argparse.Namespace) -> None:
    check_beam(args.beam)
    if not 1 <= args.seeds <= MAX_SEEDS:
        raise CliError(tr("--seeds must be from 1 to {most}, got {seeds}").format(most=MAX_SEEDS, seeds=args.seeds))
    if args.limit is not None and args.limit < 1:
        raise CliError(tr("--limit must be at least 1, got {limit}").format(limit=args.limit))
    batch_size_option(args.batch_size)
    if args.documents and args.task is not None:
        raise CliError(tr("--documents reads --data, not a --task"))
    if (args.data is None) == (args.task is None):
        raise CliError(tr("give the sentences with --data FILE or a generated task with --task NAME (one of them)"))
    if args.task is not None:
        from attnviz.core.heads.alignment import check_task_count
        from attnviz.core.learning.tasks import task_named

        try:
            check_task_count(task_named(args.task), args.limit or TASK_SENTENCES)
        except KeyError as error:
            raise CliError(f"--task {error.args[0]}") from None
        except ValueError as error:
            raise CliError(f"--limit {args.limit}: {error}") from None


def run(args: argparse.Namespace) -> int:
    """The atlas, the importance and the pruning curve of --checkpoint over --data, written into --out. Under
    torchrun every process meets bad input alike: rank 0 says it, the others exit 2 quietly. Progress on stderr
    (rank 0): each part of the work as it starts, every tenth, and at least every 10 s (:mod:`attnviz.progress`)."""
    from attnviz.progress import Heartbeat

    if processes.wanted(args):  # this run starts the job's processes and watches them
        _checked(args)  # (the options and --out before the processes start: a full disk is said in a second)
        formats_option(args.format)
        check_scale_option(args.scale)
        check_out_option(args.out)
        return processes.launch(args, chosen_device(args.device))
    from attnviz.core.heads.distributed import watched_job

    try:  # (a process of a job: watched from its start, the model's loading included)
        with watched_job(), Heartbeat("attnviz heads", enabled=os.environ.get("RANK", "0") in ("", "0")) as progress:
            return _run_heads(args, progress)
    except CliError:
        if os.environ.get("RANK", "0") not in ("", "0"):
            return EXIT_USAGE
        raise


def _run_heads(args: argparse.Namespace, progress: Heartbeat) -> int:
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.columns import SINKS_BY_POSITION_CSV, SINKS_KIND_FIGURE_CSV
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.heads import (
        CorpusError,
        GatesUnavailable,
        compute_atlas,
        head_layout,
        pruning_curve,
        read_corpus,
    )
    from attnviz.core.heads.distributed import (
        at_loading,
        device_for_rank,
        launched_by_torchrun,
        reducer_from_environment,
    )
    from attnviz.core.heads.sinks import sinks_csv
    from attnviz.figures.heads import atlas_figure_stems, atlas_figures, sink_figure_stems, sink_figures
    from attnviz.render.figure_files import SIDECAR

    _checked(args)  # everything that can be checked is, before the hours of work: options, --out, the data
    refuse_one_image(args.data)
    folder = input_command("heads") if args.data is not None and Path(args.data).is_dir() else None
    if folder is not None and (code := folder(args, progress)) is not None:  # (a folder of the family's inputs)
        return code
    formats = formats_option(args.format)
    check_scale_option(args.scale)
    check_out_option(args.out)
    set_threads(args.threads)
    if args.documents:
        return _run_documents(args, progress, formats)
    examples: list[Any] | None = None
    progress.stage(tr("reading the sentences"))
    if args.task is not None:
        from attnviz.core.heads.alignment import check_vocabulary, task_examples
        from attnviz.core.learning.tasks import task_named

        try:
            task = task_named(args.task)
        except KeyError as error:
            raise CliError(f"--task {error.args[0]}") from None
        examples, corpus = task_examples(task, args.limit or TASK_SENTENCES)
    else:
        progress.unit = tr("bytes")  # (said as the file is read: a 200,000-line file takes tens of seconds)
        try:
            corpus = read_corpus(args.data, args.limit, progress)
        except CorpusError as error:
            raise CliError(str(error)) from None
        finally:
            progress.unit = ""
    pruning = corpus.references is not None and not args.no_pruning
    refuse_replacing(args, ["heads.csv", *(["pruning.csv"] if pruning else []), SINKS_BY_POSITION_CSV, "COLUMNS.md",
                            SIDECAR])
    progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
    at_loading()
    loaded, device = load_model(args.checkpoint, args.device)
    if loaded.kind == "hf-encoder" and args.task is None:  # (an encoder-only folder decodes nothing: documents)
        return _run_documents(args, progress, formats, (loaded, device))
    if not loaded.offers(Capability.DECODER):
        raise CliError(tr("{checkpoint}: a {kind} checkpoint does not translate").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    if args.task is not None:
        try:
            check_vocabulary(loaded, task)
        except ValueError as error:
            raise CliError(f"{args.checkpoint}: {error}") from None
    try:  # every file it will write is known now: one in the way is said before the work, not after
        layout = head_layout(loaded.model)
    except GatesUnavailable as error:
        raise CliError(f"{args.checkpoint}: {error}") from None
    cross = any(s.kind is AttentionKind.CROSS for s in layout.kinds)
    sink_stems = [stem for s in layout.kinds for stem in sink_figure_stems(s.kind.slug)]
    refuse_replacing(args, [f"{stem}.{fmt}" for stem in (*atlas_figure_stems(cross, pruning), *sink_stems)
                            for fmt in formats if fmt != "npy"])
    try:
        device = device_for_rank(device)
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None
    model = Path(args.checkpoint).stem
    with reducer_from_environment(device) as reducer:
        speaker = reducer.rank == 0
        started = time.perf_counter()
        if speaker and launched_by_torchrun():
            print(tr("attnviz heads: {world} processes, {sentences:,} sentences").format(
                world=reducer.world, sentences=len(corpus)), file=sys.stderr, flush=True)
        try:
            progress.stage(tr("statistics and importance"))
            atlas = compute_atlas(loaded, corpus, None, device, progress, beam_size=args.beam, reducer=reducer)
            curve = None
            if pruning:
                progress.stage(tr("pruning curve"))
                curve = pruning_curve(loaded, corpus, atlas, device, progress, beam_size=args.beam, seeds=args.seeds,
                                      reducer=reducer)
            agreement = None
            if examples is not None:
                progress.stage(tr("agreement with the task's alignment"))
                from attnviz.core.heads.alignment import alignment_agreement

                agreement = alignment_agreement(loaded, examples, device, reducer)
        except GatesUnavailable as error:
            raise CliError(f"{args.checkpoint}: {error}") from None
        except ValueError as error:
            raise CliError(f"{args.checkpoint}: {error}") from None
        seconds = time.perf_counter() - started
        if not speaker:
            return 0
    if atlas.truncated:
        warn(tr("{count:,} sentences were longer than the model's limit of {most} tokens and were truncated").format(
            count=atlas.truncated, most=loaded.config.max_src_len))
    if corpus.references is None:
        warn(tr("no references in {path}: the importance uses the model's own output as the target, and there is no "
                "pruning curve").format(path=args.data))
    sinks = [(k.kind, k.sinks) for k in atlas.kinds if k.sinks is not None]
    extra = {"heads.csv": csv_bytes(_with_alignment(atlas.table(), agreement))}
    if curve is not None:
        extra["pruning.csv"] = csv_bytes(curve.table())
    extra[SINKS_BY_POSITION_CSV] = sinks_csv([(kind.slug, sums) for kind, sums in sinks]).encode("utf-8")
    extra["COLUMNS.md"] = columns_file(tuple(f for f in HEADS_FILES if (curve is not None or f not in (
        PRUNING_CSV, PRUNING_FIGURE_CSV)) and (sinks or f != SINKS_KIND_FIGURE_CSV)), "attnviz heads").encode("utf-8")
    progress.stage(tr("drawing the figures"))
    figures = [figure for figure in atlas_figures(atlas, curve, model) + [
        figure for kind, sums in sinks for figure in sink_figures(sums, model, kind.label(), kind.slug)]
        if getattr(figure.spec, "panels", True)]  # (a statistic no kind has, e.g. a decoder-only model's rare: none)
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind,
               "data": None if args.data is None else str(args.data),
               "sentences": atlas.sentences, "truncated": atlas.truncated, "beam": args.beam,
               "importance_target": atlas.target, "pairs": atlas.pairs, "processes": reducer.world,
               **({"task": args.task} if args.task is not None else {}),
               "seconds": round(seconds, 1), **({"seeds": args.seeds} if curve is not None else {})}
    written = write_batch(figures, args, [f for f in formats if f != "npy"], sidecar, extra, progress)
    summary = ""
    if curve is not None:
        half = len(curve.heads) // 2
        summary = tr("; BLEU {bleu:.2f} with every head, with {half} of {count} pruned: {important:.2f} (least "
                     "important first), {random:.2f} (random)").format(
            bleu=curve.importance_bleu[0], half=half, count=len(curve.heads), important=curve.importance_bleu[half],
            random=curve.random_mean[half])
    print(tr("wrote {count} files into {out}: {heads} heads over {sentences:,} sentences in {seconds:.0f} s{summary}"
             ).format(count=len(written), out=shown(args.out), heads=len(atlas.heads()), sentences=atlas.sentences,
                      seconds=seconds, summary=summary))
    return 0


def _run_documents(args: argparse.Namespace, progress: Heartbeat, formats: list[str],
                   model: tuple[Any, Any] | None = None) -> int:
    """heads.csv (statistics, no importance), sinks_by_position.csv, the atlas and sinks figures and COLUMNS.md of a
    Hugging Face language model over --data read as documents (:mod:`attnviz.core.hf.documents`)."""
    from attnviz.core.columns import DOCUMENTS_FILES, HEADS_CSV, SINKS_BY_POSITION_CSV
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.heads import CorpusError
    from attnviz.core.heads.distributed import (
        at_loading,
        device_for_rank,
        launched_by_torchrun,
        reducer_from_environment,
    )
    from attnviz.core.heads.sinks import sinks_csv
    from attnviz.core.hf.documents import DocumentsTooLong, document_atlas, is_encoder, read_documents, reads_documents
    from attnviz.figures.heads import atlas_figure_stems, atlas_figures, sink_figure_stems, sink_figures
    from attnviz.render.figure_files import SIDECAR

    if model is None:
        progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
        at_loading()
        model = load_model(args.checkpoint, args.device)
    loaded, device = model
    if not reads_documents(loaded):
        raise CliError(tr("{checkpoint}: --documents reads a Hugging Face language model (decoder-only or "
                          "encoder-only), not a {kind} model").format(checkpoint=args.checkpoint, kind=loaded.kind))
    refuse_replacing(args, ["heads.csv", SINKS_BY_POSITION_CSV, "COLUMNS.md", SIDECAR]
                     + [f"{stem}.{fmt}" for stem in (*atlas_figure_stems(False, False, importance=False),
                                                     *sink_figure_stems()) for fmt in formats if fmt != "npy"])
    progress.stage(tr("reading the documents"))
    progress.unit = tr("bytes")
    try:
        documents = read_documents(args.data, loaded, args.limit, progress)
        device = device_for_rank(device)
    except CorpusError as error:
        raise CliError(str(error)) from None
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None
    finally:
        progress.unit = ""
    with reducer_from_environment(device) as reducer:
        speaker = reducer.rank == 0
        started = time.perf_counter()
        if speaker and launched_by_torchrun():
            print(tr("attnviz heads: {world} processes, {sentences:,} sentences").format(
                world=reducer.world, sentences=len(documents)), file=sys.stderr, flush=True)
        progress.stage(tr("statistics and sinks over {count:,} documents, batches of {tokens:,} tokens").format(
            count=len(documents), tokens=args.batch_size))
        try:
            result = document_atlas(loaded, documents, device, progress, batch_tokens=args.batch_size,
                                    reducer=reducer, notice=warn if speaker else None)
        except DocumentsTooLong as error:
            raise CliError(f"{args.checkpoint}: {error}") from None
        seconds = time.perf_counter() - started
        if not speaker:
            return 0
    if documents.truncated:
        warn(tr("{count:,} documents were longer than the model's {most:,} positions and were cut").format(
            count=documents.truncated, most=max(len(d) for d in documents.ids)))
    name = Path(args.checkpoint).stem
    kind = result.atlas.kinds[0].kind
    table = result.atlas.table()
    extra = {"heads.csv": csv_bytes(table),
             SINKS_BY_POSITION_CSV: sinks_csv([(kind.slug, result.sinks)]).encode("utf-8"),
             "COLUMNS.md": columns_file(DOCUMENTS_FILES, "attnviz heads",  # (heads.csv's own columns only)
                                        {HEADS_CSV: list(table[0]) if table else []}).encode("utf-8")}
    progress.stage(tr("drawing the figures"))
    figures = [figure for figure in atlas_figures(result.atlas, None, name) + sink_figures(result.sinks, name,
                                                                                          kind.label())
               if getattr(figure.spec, "panels", True)]  # (a statistic the kind lacks, e.g. rare: no grid)
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind, "data": str(args.data), "documents": True,
               "sentences": len(documents), "tokens": result.tokens, "truncated": documents.truncated,
               "causal": not is_encoder(loaded), "batch_tokens": args.batch_size,
               "batch_tokens_at_the_end": result.batch_tokens, "processes": reducer.world,
               "importance": "not measured over documents", "seconds": round(seconds, 1)}
    written = write_batch(figures, args, [f for f in formats if f != "npy"], sidecar, extra, progress)
    print(tr("wrote {count} files into {out}: {heads} heads over {sentences:,} documents ({tokens:,} tokens) in "
             "{seconds:.0f} s").format(count=len(written), out=shown(args.out), heads=len(result.atlas.heads()),
                                       sentences=len(documents), tokens=result.tokens, seconds=seconds))
    return 0


def _with_alignment(rows: list[dict[str, Any]], agreement: Any) -> list[dict[str, Any]]:
    """heads.csv's rows with --task's ``alignment`` column on the cross-attention rows (agreement (L, H))."""
    if agreement is None:
        return rows
    return [{**row, "alignment": float(agreement[row["layer"] - 1, row["head"] - 1])} if row["kind"] == "cross"
            else row for row in rows]
