"""``attnviz explain``: explain every greedily decoded token of a corpus by every method and measure their agreement.

Each sentence is decoded greedily and every decoded token explained by every method (:mod:`attnviz.core.explain`);
it writes how far the methods agree (agreement.csv, layers.csv), where attention parks (sinks.csv, and by the
query's position sinks_by_position.csv) and the figures
(:mod:`attnviz.figures.explain`), all at once or nothing. Runs alone or as every process of a ``torchrun`` job."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from attnviz.commands import processes
from attnviz.commands.shared import (
    EXIT_USAGE,
    THREADS_HELP,
    CliError,
    batch_size_option,
    check_out_option,
    check_scale_option,
    chosen_device,
    formats_option,
    load_model,
    refuse_one_image,
    refuse_replacing,
    set_threads,
    warn,
    write_with_figures,
)
from attnviz.core.models.kinds import input_command
from attnviz.i18n import tr

if TYPE_CHECKING:
    from attnviz.progress import Heartbeat


def add_parser(subparsers: Any) -> None:
    """The ``explain`` command's options."""
    from attnviz.core.explain import DEFAULT_IG_STEPS, MAX_IG_STEPS, METHODS
    from attnviz.core.hf.documents import DEFAULT_BATCH_TOKENS

    cmd = subparsers.add_parser("explain", help=tr("explain every greedily decoded token of a corpus by attention, "
                                            "rollout, flow, norms, gradients and occlusion, and measure their "
                                            "agreement"))
    cmd.add_argument("--checkpoint", required=True, help=tr("an attnviz translation checkpoint (.safetensors), a "
                                                            "Hugging Face decoder-only folder (GPT-2, Llama, Qwen, "
                                                            "Gemma, Mistral …), "
                                                            "or an image model with a folder of images as --data"))
    cmd.add_argument("--data", required=True, type=Path,
                     help=tr("English sentences, one a line, or a TSV of english<TAB>french pairs; for an image "
                             "model, a folder of images"))
    cmd.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    cmd.add_argument("--limit", type=int, metavar="N", help=tr("explain the first N sentences (or images, by name) "
                                                               "only (default all)"))
    cmd.add_argument("--ig-steps", type=int, default=DEFAULT_IG_STEPS, metavar="K",
                     help=tr("integrated gradients' steps, 1 to {most} (default {steps})").format(
                         most=MAX_IG_STEPS, steps=DEFAULT_IG_STEPS))
    cmd.add_argument("--batch-size", type=int, default=DEFAULT_BATCH_TOKENS, metavar="TOKENS",
                     help=tr("tokens per forward pass of the gradient and occlusion methods (their variants in "
                             "batches; default {tokens}), halved when the device runs out of memory; the numbers do "
                             "not depend on it").format(tokens=DEFAULT_BATCH_TOKENS))
    cmd.add_argument("--methods", default="all", metavar="LIST",
                     help=tr("the methods to compute, comma-separated, from {methods} (default all)").format(
                         methods=", ".join(METHODS)))
    cmd.add_argument("--heldout", action="store_true",
                     help=tr("use only the validation split that training held out of --data (a TSV; rebuilt from "
                             "the options stored in the checkpoint)"))
    cmd.add_argument("--format", default="png,svg,pdf", help=tr("figure formats, comma-separated: png, svg, pdf, csv "
                                                                "(default png,svg,pdf)"))
    cmd.add_argument("--scale", type=float, default=2.0, help=tr("PNG scale factor (default 2)"))
    cmd.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    cmd.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    cmd.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    processes.add_options(cmd)
    cmd.set_defaults(run=run)


def sentences_to_explain(args: argparse.Namespace, loaded: Any) -> list[str]:
    """The English sentences to explain: --data's first column (or the held-out split's sources), in order."""
    from attnviz.core.heads.corpus import CorpusError, check_data_file, data_lines
    from attnviz.core.layout import Capability
    from attnviz.training.data import training_split

    path: Path = args.data
    try:
        check_data_file(path)
    except CorpusError as error:
        raise CliError(str(error)) from None
    if args.heldout:
        options = loaded.training.get("options")
        if not isinstance(options, dict):
            raise CliError(tr("{checkpoint}: no training options stored; --heldout needs them").format(
                checkpoint=args.checkpoint))
        if loaded.offers(Capability.MASKS):  # the small BERT held out the translators' English sentences
            from attnviz.training.mlm import VAL_SOURCES, english_sentences

            held = english_sentences(path, VAL_SOURCES, int(options.get("seed", 0)))[1]
            sentences = [" ".join(s) for s in held]
        else:
            _, pairs = training_split(path, options.get("max_src_tokens"), options.get("max_tgt_tokens"),
                                      int(options.get("val_sources", 0)), int(options.get("seed", 0)))
            sentences = list(dict.fromkeys(" ".join(p.src) for p in pairs))
    else:  # read a line at a time, none past 64 KiB, and no further than --limit needs
        sentences = []
        try:
            for _number, line in data_lines(path):
                if sentence := line.split("\t", 1)[0].strip():
                    sentences.append(sentence)
                    if args.limit is not None and len(sentences) >= args.limit:
                        break
        except CorpusError as error:
            raise CliError(str(error)) from None
    if not sentences:
        raise CliError(tr("{path}: no sentences to explain").format(path=path))
    return sentences[: args.limit] if args.limit is not None else sentences


Explains = Callable[..., list[Any]]  # a sentence's explanation: (batch_tokens=N) -> every decoded token's Explanation
Steps = Iterator[Explains]


def _decoded_steps(loaded: Any, sentences: list[str], device: Any, ig_steps: int, batch_tokens: int,
                   notice: Callable[[str], object], methods: tuple[str, ...]) -> Steps:
    """A translation model: each sentence decoded greedily (all at once, batched), then every token it wrote,
    its final <eos> included (unless it stopped at the length limit); a Hugging Face decoder-only model's continuation
    explained at once (:func:`attnviz.core.explain.causal.explain_continuation`: one recorded pass a sentence)."""
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.explain.causal import explain_continuation
    from attnviz.core.text import source_words

    splits = [source_words(s, loaded.src_vocab, loaded.config.max_src_len) for s in sentences]
    outputs = translate(loaded.model, splits, loaded.src_vocab, loaded.tgt_vocab, device, beam_size=1,
                        tokens_per_batch=batch_tokens, notice=notice)
    end = loaded.tgt_vocab.tokens[loaded.tgt_vocab.eos_id]
    continues = _continues_prompts(loaded)  # (a Hugging Face decoder-only model: its continuation at once)
    for split, output in zip(splits, outputs, strict=True):
        ended = len(output) < loaded.config.max_tgt_len  # greedy decoding stopped at <eos>, not at the limit
        tokens = [*output, end] if ended and split.words else output if split.words else []
        if continues:
            ids = list(split.ids) if split.ids is not None else loaded.src_vocab.ids(list(split.words))
            yield partial(explain_continuation, loaded, ids, split.words, tokens, device, methods, ig_steps=ig_steps)
        else:
            yield partial(_each_step, loaded, split.words, output, tokens, device, ig_steps, methods)


def _each_step(loaded: Any, source: tuple[str, ...], output: list[str], tokens: list[str], device: Any,
               ig_steps: int, methods: tuple[str, ...], batch_tokens: int) -> list[Any]:
    """Every token of one translation explained (:func:`attnviz.core.explain.explain_step`), in order."""
    from attnviz.core.explain import explain_step

    return [explain_step(loaded, source, output[:t], device=device, methods=methods, ig_steps=ig_steps,
                         every_layer=True, token=token, batch_tokens=batch_tokens) for t, token in enumerate(tokens)]


def _masked_steps(loaded: Any, sentences: list[str], device: Any, ig_steps: int, methods: tuple[str, ...]) -> Steps:
    """An encoder-only model: each word of each sentence masked in turn, its fill explained."""
    from attnviz.core.decoding.fill_mask import CLS, SEP
    from attnviz.core.text import preprocess, tokenize

    for sentence in sentences:
        words = tokenize(preprocess(sentence))[: loaded.config.max_len - 2]
        yield partial(_each_mask, loaded, [CLS, *words, SEP], device, ig_steps, methods)


def _each_mask(loaded: Any, tokens: list[str], device: Any, ig_steps: int, methods: tuple[str, ...],
               batch_tokens: int) -> list[Any]:
    """Every word of one sentence (``[CLS] … [SEP]``) masked in turn, its fill explained, in order."""
    from attnviz.core.decoding.fill_mask import MASK
    from attnviz.core.explain import explain_mask

    return [explain_mask(loaded, [*tokens[:i], MASK, *tokens[i + 1:]], i, device=device, methods=methods,
                         ig_steps=ig_steps, every_layer=True, batch_tokens=batch_tokens)
            for i in range(1, len(tokens) - 1)]


def explained_halving(explain: Explains, size: int, device: Any, notice: Callable[[str], object]
                      ) -> tuple[list[Any], int]:
    """``explain(size)``, tried again at half the tokens while the device runs out of memory (``notice`` told each
    time); the explanations and the batch size that worked. CliError where one variant alone does not fit."""
    from attnviz.core.device import out_of_memory

    while True:
        try:
            return explain(batch_tokens=size), size
        except (RuntimeError, MemoryError) as error:
            if not out_of_memory(error):
                raise
            if size <= 1:
                raise CliError(tr("one sentence's explanation runs {device} out of memory even one variant at a "
                                  "time: give shorter sentences or another --device").format(device=device)) from None
            if getattr(device, "type", "") == "cuda":
                import torch

                torch.cuda.empty_cache()
            size = max(1, size // 2)
            notice(tr("out of memory on {device}: batches of {tokens:,} tokens from now on").format(device=device,
                                                                                                 tokens=size))


def run(args: argparse.Namespace) -> int:
    """Explain --data with --checkpoint and write the files into --out. Under torchrun every process explains its
    share and meets bad input alike: rank 0 says it, the others exit 2 quietly."""
    from attnviz.progress import Heartbeat

    if Path(args.data).is_dir() and (folder := input_command("explain")) is not None:  # (a folder of images …)
        return cast(int, folder(args, checked_options))
    refuse_one_image(args.data)
    if processes.wanted(args):  # this run starts the job's processes and watches them
        formats = checked_options(args)  # (the options, --out and the files in the way before the processes start)
        refuse_replacing(args, _written_names(args, formats))
        return processes.launch(args, chosen_device(args.device))
    from attnviz.core.heads.distributed import watched_job

    try:  # progress on stderr (rank 0): each part as it starts, every tenth, and at least every 10 s; a process of
        # a job is watched from its start, the model's loading included
        with watched_job(), Heartbeat("attnviz explain",
                                      enabled=os.environ.get("RANK", "0") in ("", "0")) as progress:
            return _run(args, progress)
    except CliError:
        if os.environ.get("RANK", "0") not in ("", "0"):
            return EXIT_USAGE
        raise


def my_share(sentences: list[str], rank: int, world: int) -> list[int]:
    """The indices of the sentences process ``rank`` of ``world`` explains, in order: sorted by length, dealt
    back and forth (as ``attnviz heads`` deals its batches), so every process gets short and long ones alike."""
    from attnviz.core.heads.corpus import plan_batches, shard

    return sorted(i for batch in shard(plan_batches([len(s.split()) for s in sentences], 1, 1), rank, world)
                  for i in batch)


def _continues_prompts(loaded: Any) -> bool:
    """A Hugging Face decoder-only model: explained by :func:`attnviz.core.explain.causal.explain_continuation`."""
    from attnviz.core.hf.documents import is_encoder, reads_documents

    return reads_documents(loaded) and not is_encoder(loaded)


def methods_option(value: str) -> tuple[str, ...]:
    """--methods checked: "all", or names from METHODS (CliError naming the unknown ones); in METHODS' order."""
    from attnviz.core.explain import METHODS

    if value.strip() == "all":
        return METHODS
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in METHODS]
    if unknown or not names:
        raise CliError(tr("--methods: unknown {names}; choose from {methods}").format(
            names=", ".join(unknown) or "''", methods=", ".join(METHODS)))
    return tuple(m for m in METHODS if m in names)


def _quiet(_message: str) -> None:
    """Another process than rank 0 says nothing."""


def checked_options(args: argparse.Namespace) -> list[str]:
    """--limit, --ig-steps, --scale and --out checked (CliError naming the option); the figure formats asked."""
    from attnviz.core.explain import MAX_IG_STEPS

    if args.limit is not None and args.limit < 1:
        raise CliError(tr("--limit must be at least 1, got {limit}").format(limit=args.limit))
    if not 1 <= args.ig_steps <= MAX_IG_STEPS:
        raise CliError(tr("--ig-steps must be from 1 to {most}, got {steps}").format(most=MAX_IG_STEPS,
                                                                                  steps=args.ig_steps))
    batch_size_option(args.batch_size)
    args.method_names = methods_option(getattr(args, "methods", "all"))
    formats = [f for f in formats_option(args.format) if f != "npy"]
    check_scale_option(args.scale)
    check_out_option(args.out)
    return formats


def _written_names(args: argparse.Namespace, formats: list[str]) -> list[str]:
    """The files a run over sentences may write into --out (the figures: by the methods asked)."""
    from attnviz.core.columns import SINKS_BY_POSITION_CSV
    from attnviz.figures.explain import explain_figure_stems
    from attnviz.render.figure_files import SIDECAR

    return (["agreement.csv", "layers.csv", "sinks.csv", SINKS_BY_POSITION_CSV, "COLUMNS.md", SIDECAR]
            + [f"{stem}.{fmt}" for stem in explain_figure_stems(args.method_names) for fmt in formats])


def _run(args: argparse.Namespace, progress: Heartbeat) -> int:
    from attnviz.core.columns import EXPLAIN_FILES, SINKS_BY_POSITION_CSV, columns_file, counted_in
    from attnviz.core.device import DeviceUnavailableError
    from attnviz.core.explain import SINK_CLASSES
    from attnviz.core.explain.corpus import (
        CorpusTally,
        agreement_csv,
        layers_csv,
        sinks_by_position_csv,
        sinks_csv,
    )
    from attnviz.core.heads.distributed import (
        at_loading,
        device_for_rank,
        launched_by_torchrun,
        reducer_from_environment,
    )
    from attnviz.core.layout import Capability
    from attnviz.figures.explain import explain_figures

    # everything that can be checked is, before the work: options, --out, the data, then the model
    formats = checked_options(args)
    refuse_replacing(args, _written_names(args, formats))
    progress.stage(tr("reading the sentences"))
    sentences = None if args.heldout else sentences_to_explain(args, None)  # (the held-out split: the model's options)
    set_threads(args.threads if args.threads is not None else 1)
    progress.stage(tr("loading {checkpoint}").format(checkpoint=args.checkpoint))
    at_loading()
    loaded, device = load_model(args.checkpoint, args.device)
    if input_command("explain", loaded.model_kind) is not None:  # (its input is a folder, not sentences)
        raise CliError(tr("{checkpoint} reads images: give a folder of images as --data").format(
            checkpoint=args.checkpoint))
    if not loaded.model_kind.explains and not _continues_prompts(loaded):
        raise CliError(tr("{checkpoint}: explanations cover attnviz's own models (Transformer, decoder-only, RNN, "
                          "the small BERT) and Hugging Face decoder-only folders, not a {kind} model").format(
            checkpoint=args.checkpoint, kind=loaded.kind)) from None
    if sentences is None:
        sentences = sentences_to_explain(args, loaded)
    try:
        device = device_for_rank(device)
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None
    with reducer_from_environment(device) as reducer:
        speaker = reducer.rank == 0
        started = time.perf_counter()  # the work: decoding and explaining (not loading, not the figures)
        if speaker and launched_by_torchrun():
            print(tr("attnviz explain: {world} processes, {sentences:,} sentences").format(
                world=reducer.world, sentences=len(sentences)), file=sys.stderr, flush=True)
        mine = my_share(sentences, reducer.rank, reducer.world)
        notice = warn if speaker else _quiet
        mine = sorted(mine, key=lambda i: (len(sentences[i].split()), i))  # by length (put back in order below)
        share = [sentences[i] for i in mine]
        methods = args.method_names
        steps = _masked_steps(loaded, share, device, args.ig_steps, methods) if loaded.offers(Capability.MASKS) \
            else _decoded_steps(loaded, share, device, args.ig_steps, args.batch_size, notice, methods)
        parts: list[tuple[int, CorpusTally]] = []  # (sentence index, its tally): put back in order below
        progress.unit = tr("sentences")
        progress.stage(tr("explaining"))
        size = args.batch_size
        for number, (index, explain) in enumerate(zip(mine, steps, strict=True), start=1):
            part = CorpusTally()
            explanations, size = explained_halving(explain, size, device, notice)
            for explanation in explanations:
                part.add(explanation)
            parts.append((index, part))
            progress(number, len(mine))
        seconds = time.perf_counter() - started
        tally = CorpusTally()  # every process's parts, in the corpus's order: one process's tally, list for list
        for _, part in sorted((pair for gathered in reducer.gather(parts) for pair in gathered), key=lambda p: p[0]):
            tally.extend(part)
        if not speaker:
            return 0
    if not tally.steps:
        raise CliError(tr("{path}: nothing was decoded to explain").format(path=args.data))
    files = {"agreement.csv": agreement_csv(tally).encode(), "layers.csv": layers_csv(tally).encode(),
             "sinks.csv": sinks_csv(tally, SINK_CLASSES).encode(),
             SINKS_BY_POSITION_CSV: sinks_by_position_csv(tally).encode(),
             "COLUMNS.md": columns_file(EXPLAIN_FILES, "attnviz explain", counted_in("tokens")).encode()}
    sidecar = {"checkpoint": str(args.checkpoint), "data": str(args.data), "sentences": len(sentences),
               "tokens": tally.steps, "ig_steps": args.ig_steps, "heldout": bool(args.heldout),
               "processes": reducer.world, "batch_tokens": size, "methods": list(args.method_names),
               "seconds": round(seconds, 1)}
    progress.unit = ""
    progress.stage(tr("drawing the figures"))
    written = write_with_figures(files, explain_figures(tally), args, formats, sidecar, progress)
    print(tr("explained {tokens} tokens of {count} sentences; wrote {files} files to {out}").format(
        tokens=tally.steps, count=len(sentences), files=len(written), out=args.out))
    return 0
