"""``attnviz export``: write every attention map of a sentence as files, without a window.

Or a saved session's figures (--session), a kernel-regression model's fit, every step of one view as a flip-book
(--flipbook), a checkpoint's training history (--training)."""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from pathlib import Path
from typing import Any, cast

from attnviz.commands.shared import (
    MASK_HEADS_HELP,
    THREADS_HELP,
    CliError,
    check_beam,
    check_out_option,
    check_scale_option,
    formats_option,
    head_mask_of,
    load_model,
    pictures_ready,
    refuse_replacing,
    set_threads,
    shown,
    text_option,
    warn,
    warn_about_source,
    write_batch,
)
from attnviz.core.layout import Capability
from attnviz.core.limits import BANDWIDTH_CHOICES, MAX_PROMPT_MAP_TOKENS, bandwidth_choosable
from attnviz.core.models.kinds import input_command
from attnviz.i18n import tr
from attnviz.paths import DEFAULT_CHECKPOINT

PROGRESS_FRAMES = 100  # a flip-book of this many frames or more says how far it has got (a tenth at a time)
FLIPBOOK_KINDS = {"cross": "CROSS", "dec-self": "DECODER_SELF"}  # --kind: the attention that changes per step
PROMPT_MAP_KINDS = {"enc-self": "ENCODER_SELF", **FLIPBOOK_KINDS}  # --kind of --prompt-map (an encoder–decoder's)
FLIPBOOK_ONLY = ("kind", "layer", "head", "all_heads")
KERNEL_ONLY = ("kernel", "bandwidth", "query")  # export options of a kernel-regression model
PROMPT_MAP_CONFLICTS = ("training", "session", "image", "step", "flipbook", "all_heads", "mask_heads", "kernel",
                        "bandwidth", "query")  # (one map of a prompt: no steps, no other view, no gates)
TRAINING_CONFLICTS = ("text", "session", "step", "flipbook", "kind", "layer", "head", "all_heads", "kernel",
                      "bandwidth", "query", "scores", "blank_masked", "mask_heads")


def add_parser(subparsers: Any) -> None:
    """The ``export`` command's options."""
    export = subparsers.add_parser("export", help=tr("write every attention map of a sentence as files, no window "
                                                     "needed"))
    export.add_argument("--checkpoint", help=tr("a checkpoint (.safetensors; default: the shipped Transformer); "
                                                "a kernel-regression one exports its fit"))
    export.add_argument("--text", help=tr("the sentence to decode (translation models)"))
    export.add_argument("--image", type=Path, help=tr("the image to read (image models): every layer × head map, and "
                                                      "[CLS]'s attention and rollout over the image"))
    export.add_argument("--session", type=Path, help=tr("a saved session (File ▸ Save session): its model, "
                                                        "sentence, forced tokens, step and view"))
    export.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    export.add_argument("--format", help=tr("comma-separated: png, svg, pdf, csv, npy (default png,csv)"))
    export.add_argument("--step", help=tr("1-based step to export, or 'all' (default: the last step)"))
    export.add_argument("--scale", type=float, default=2.0,
                        help=tr("PNG (and flip-book GIF) scale factor (default 2)"))
    export.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    export.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    export.add_argument("--beam", type=int, default=1, help=tr("beam size (1 = greedy)"))
    export.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    export.add_argument("--scores", action="store_true", help=tr("pre-softmax scores instead of weights"))
    export.add_argument("--blank-masked", action="store_true",
                        help=tr("leave masked cells blank instead of marking them (as the app's 'Show masked "
                                "cells' off)"))
    export.add_argument("--flipbook", action="store_true",
                        help=tr("write every step of one view as a multi-page PDF and an animated GIF "
                                "(<view>_flipbook.pdf, <view>_flipbook.gif) instead of picture files per step"))
    export.add_argument("--training", action="store_true", help=tr("the checkpoint's training history: a "
                        "flip-book (GIF and PDF, a frame per snapshot) and the curves and maps in --format"))
    export.add_argument("--kind", choices=[*PROMPT_MAP_KINDS],
                        help=tr("--flipbook: which attention, cross or dec-self (default cross); --prompt-map of an "
                                "encoder–decoder folder: enc-self (default), or with --target dec-self or cross"))
    export.add_argument("--layer", type=int, help=tr("--flipbook: 1-based layer (default 1)"))
    export.add_argument("--head", type=int, help=tr("--flipbook: 1-based head (default 1)"))
    export.add_argument("--all-heads", action="store_true",
                        help=tr("--flipbook: every layer and head, small multiples"))
    export.add_argument("--mask-heads", metavar="HEADS", help=tr(MASK_HEADS_HELP))
    export.add_argument("--prompt-map", action="store_true",
                        help=tr("a Hugging Face decoder-only, encoder-only or encoder–decoder folder: write one map "
                                "of the text's attention (--layer, --head; default 1, 1; --kind, --target), computed "
                                "on demand from the queries and keys of one forward pass, the others never made; the "
                                "text may be as long as the model's positions (up to {most:,} tokens)").format(
                            most=MAX_PROMPT_MAP_TOKENS))
    export.add_argument("--target", help=tr("--prompt-map of an encoder–decoder folder: the translation its decoder "
                                            "reads (teacher-forced: its start token, then this text), for --kind "
                                            "dec-self or cross"))
    export.add_argument("--kernel", help=tr("kernel regression: gaussian, boxcar, epanechnikov or constant"))
    export.add_argument("--bandwidth", type=float, help=tr("kernel regression: the bandwidth h"))
    export.add_argument("--query", type=float, help=tr("kernel regression: the query x (default 2.5)"))
    export.set_defaults(run=run)


def _parse_step(text: str) -> int | None:
    """``--step``: a 1-based step number, or ``all`` (None)."""
    if text.strip().lower() == "all":
        return None
    try:
        number = int(text)
    except ValueError:
        raise CliError(tr("--step must be a step number or 'all', got {text!r}").format(text=text)) from None
    if number < 1:
        raise CliError(tr("--step counts from 1, got {number}").format(number=number))
    return number


def run(args: argparse.Namespace) -> int:
    """Write every attention map of a sentence (or a kernel-regression model's figures) as pictures and
    numbers, without a window; with --session, the figures of a saved session."""
    from attnviz.figures.attention import AttentionView, attention_figures, attention_sidecar

    if args.prompt_map:
        return _export_prompt_map(args)
    if args.target is not None:
        raise CliError(tr("--target is the decoder's text of --prompt-map; add --prompt-map"))
    if args.flipbook and args.kind == "enc-self":
        raise CliError(tr("--kind enc-self does not change from step to step: --flipbook shows cross or dec-self"))
    if args.flipbook:
        if args.format is not None or args.step is not None:
            raise CliError(tr("{option} does not go with --flipbook (it writes every step as one PDF and one GIF)"
                              ).format(option="--format" if args.format is not None else "--step"))
    elif given := [name for name in FLIPBOOK_ONLY if getattr(args, name) not in (None, False)]:
        raise CliError(tr("{option} chooses the view of --flipbook; add --flipbook").format(
            option=f"--{given[0].replace('_', '-')}"))
    if args.flipbook or args.training:  # (pictures always: said before the work, with what to do instead)
        pictures_ready(["pdf"], tr("write each step's numbers with --format csv --step all instead of --flipbook, "
                                   "which needs no display") if args.flipbook else
                       tr("a training flip-book is a picture: export it on a machine where Qt starts"))
    formats = formats_option(args.format or "png,csv")
    wanted = _parse_step(args.step) if args.step is not None else -1  # -1: the last step
    check_scale_option(args.scale)
    if args.training:
        return _export_training(args, formats)
    saved = _read_saved_session(args) if args.session is not None else None
    if saved is not None and saved.image:  # (a session of an image model: the image it showed, read as the window
        args.image, args.text = Path(saved.image), None  # does; a sentence it may hold is not an image model's input)
    set_threads(args.threads)
    loaded, device = load_model(args.checkpoint or str(DEFAULT_CHECKPOINT), args.device)
    args.checkpoint = args.checkpoint or str(DEFAULT_CHECKPOINT)
    if loaded.offers(Capability.KERNEL):
        return _export_kernel(args, loaded, saved, formats)
    if (own := input_command("export", loaded.model_kind)) is not None:  # (the kind's own input: an image …)
        own_mask = _saved_heads_off(args, loaded, saved.heads_off) if saved is not None and saved.heads_off else None
        return cast(int, own(args, loaded, device, formats, own_mask))
    if args.image is not None:
        raise CliError(tr("--image: {checkpoint} is a {kind} model, which reads no images").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    if given := [f"--{name}" for name in KERNEL_ONLY if getattr(args, name) is not None]:
        raise CliError(tr("{option} sets the kernel-regression view; {checkpoint} is a {kind} model").format(
            option=given[0], checkpoint=args.checkpoint, kind=loaded.kind))
    if args.text is None or not args.text.strip():
        raise CliError(tr("--text is empty: give the sentence whose attention to export"))
    args.text = text_option(args.text)
    check_beam(args.beam)
    from attnviz.core.heads import masked_heads

    mask = head_mask_of(loaded, args.mask_heads) if args.mask_heads is not None else None
    if saved is not None and saved.heads_off:  # the heads the window had switched off, switched off here too
        mask = _saved_heads_off(args, loaded, saved.heads_off)
    if saved is not None and _beyond_decoding(loaded, args.text, device):  # (the window shows its maps on demand)
        return _export_long_session(args, loaded, device, formats, saved, mask)
    session = loaded.model_kind.stepping_cls(loaded, device, beam_size=args.beam)  # (translating, filling masks)
    with masked_heads(loaded.model, mask) if mask else contextlib.nullcontext():
        source = session.encode(args.text)
        warn_about_source(source, session.max_src_len)
        if saved is not None and saved.plan:  # the saved steps, with the tokens the user forced
            from attnviz.session_file import replay

            shown_step = replay(saved, session)
            steps = session.steps
            if wanted == -1 and shown_step >= 0:
                wanted = shown_step + 1
        else:
            steps = session.run()
    name = Path(args.checkpoint).stem
    if mask:  # (as the window names a model with heads off: ModelInfo.name)
        name = tr("{model}, heads off {heads}").format(model=name, heads=mask)
    if args.flipbook:
        return _export_flipbook(args, source, steps, name)
    if not steps:  # (a sentence with no mask to fill: its encoding alone)
        chosen: list = [None]
    elif wanted is None:
        chosen = list(steps)
    elif wanted == -1:
        chosen = [steps[-1]]
    elif wanted > len(steps):
        raise CliError(tr("--step {step}: the decoding of this sentence has only {count} steps").format(
            step=wanted, count=len(steps)))
    else:
        chosen = [steps[wanted - 1]]
    view = AttentionView(scores=args.scores, show_masked=not args.blank_masked)
    figures = attention_figures(source, chosen, view, name)
    sidecar = attention_sidecar(source, chosen, view, name, loaded.kind, str(args.checkpoint), str(device))
    if mask:
        sidecar["masked_heads"] = str(mask)
    if saved is not None:
        sidecar["session"] = str(args.session)
        sidecar["forced_tokens"] = [token for token in saved.plan if token is not None]
    written = write_batch(figures, args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _export_prompt_map(args: argparse.Namespace) -> int:
    """export --prompt-map: one map (--layer, --head: weights, or --scores) of a Hugging Face folder's attention over a
    long text, from the queries and keys one forward pass keeps (core/decoding/long_prompt.py): a decoder-only
    prompt's or an encoder-only sentence's self-attention, an encoder–decoder's encoder self-attention or, with
    --target read by teacher forcing, its decoder self-attention or cross-attention (--kind). No other map is made, so
    the text is read up to the model's positions (up to MAX_PROMPT_MAP_TOKENS), not the decoding limit; what it may
    allocate is the store and the pass's buffers beside it, checked against MAX_QUERY_KEY_BYTES before the forward pass
    (core/limits.py, core/decoding/long_prompt.py ``pass_bytes``); progress on stderr as each layer is read."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.decoding.long_prompt import on_demand_refusal

    if given := [f"--{name.replace('_', '-')}" for name in PROMPT_MAP_CONFLICTS
                 if getattr(args, name) not in (None, False)]:
        raise CliError(tr("{option} does not go with --prompt-map (one map of a prompt, computed on demand)").format(
            option=given[0]))
    formats = formats_option(args.format or "png,csv")
    check_scale_option(args.scale)
    check_beam(args.beam)
    set_threads(args.threads)
    loaded, device = load_model(args.checkpoint or str(DEFAULT_CHECKPOINT), args.device)
    args.checkpoint = args.checkpoint or str(DEFAULT_CHECKPOINT)
    if not loaded.model_kind.maps_on_demand:
        raise CliError(tr("--prompt-map computes the maps of a Hugging Face decoder-only, encoder-only or "
                          "encoder–decoder model on demand; {checkpoint} is a {kind} model").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    if (refusal := on_demand_refusal(loaded)) is not None:
        raise CliError(refusal)
    kind = AttentionKind[PROMPT_MAP_KINDS[args.kind or "enc-self"]]
    seq2seq = loaded.layout.name == "encoder-decoder"
    if not seq2seq and (args.kind is not None or args.target is not None):
        raise CliError(tr("{option} is for an encoder–decoder folder's --prompt-map; {checkpoint} has one "
                          "self-attention").format(option="--kind" if args.kind is not None else "--target",
                                                   checkpoint=args.checkpoint))
    if kind is not AttentionKind.ENCODER_SELF and (args.target is None or not args.target.strip()):
        raise CliError(tr("--kind {kind} reads a target: give the translation with --target").format(kind=args.kind))
    if kind is AttentionKind.ENCODER_SELF and args.target is not None:
        raise CliError(tr("--target is read by the decoder: add --kind dec-self or --kind cross"))
    if args.text is None or not args.text.strip():
        raise CliError(tr("--text is empty: give the sentence whose attention to export"))
    args.text = text_option(args.text)
    target = None if args.target is None else text_option(args.target)
    config = loaded.config
    layers = config.num_encoder_layers if kind is AttentionKind.ENCODER_SELF and loaded.layout.name != \
        "decoder-only" else config.num_decoder_layers
    for option, number, most in (("--layer", args.layer, layers), ("--head", args.head, config.num_heads)):
        if number is not None and not 1 <= number <= most:
            raise CliError(tr("{option} {number}: this model has {most} (counted from 1)").format(
                option=option, number=number, most=most))
    layer, head = (args.layer or 1) - 1, (args.head or 1) - 1
    return _write_prompt_map(args, loaded, device, formats, kind, layer, head, target)


def _write_prompt_map(args: argparse.Namespace, loaded, device, formats: list[str], kind, layer: int, head: int,
                      target: str | None, mask=None, extra: dict[str, Any] | None = None) -> int:
    """The one map (``layer``, ``head``: 0-based, checked) of ``kind`` over args.text (and ``target``) computed on
    demand, written into args.out with its sidecar (and ``extra``'s entries); ``mask``: heads switched off during the
    forward pass. Says on stderr how far the forward pass has got at least every 10 s."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.core.decoding.long_prompt import longest_prompt, query_keys, read_long_input
    from attnviz.core.heads import masked_heads
    from attnviz.figures.attention import MatrixView, figure_stem, matrix_figure, with_sink_column
    from attnviz.figures.spec import NamedFigure
    from attnviz.progress import Heartbeat
    from attnviz.render.figure_files import SIDECAR

    check_out_option(args.out)  # (before the forward pass, which takes half a minute at 4,096 tokens)
    stem = figure_stem(kind, f"layer{layer + 1}_head{head + 1}", None, args.scores, False,
                       loaded.layout.kind_slug(kind))
    refuse_replacing(args, [f"{stem}.{fmt}" for fmt in formats] + [SIDECAR])
    read = read_long_input(loaded, args.text, target, device)
    warn_about_source(read, longest_prompt(loaded))
    gated = masked_heads(loaded.model, mask) if mask else contextlib.nullcontext()
    with Heartbeat("attnviz export", unit=tr("attention layers")) as progress, gated:  # (minutes: a wide model's)
        progress.stage(tr("reading {tokens:,} tokens").format(tokens=len(read.ids) + len(read.target_ids)))
        store = query_keys(loaded, read, device, progress)[kind]  # (refused before the pass above MAX_QUERY_KEY_BYTES)
        progress.stage(tr("computing the map"))
        values = store.map(layer, head, scores=args.scores)  # (Q, K)
    rows = read.target_tokens if kind is not AttentionKind.ENCODER_SELF else read.tokens
    cols = read.tokens if kind is not AttentionKind.DECODER_SELF else read.target_tokens
    notes = loaded.layer_notes  # (a single-stack model's: every kind is that stack's self-attention)
    note = notes[layer] if layer < len(notes) else ""  # ("sliding window 512": the layer's own mask is its hidden)
    hidden = store.hidden(layer)
    if loaded.learned_sink and not args.scores:  # (the sink's column, as every other map of the model has it)
        values, cols, hidden = with_sink_column(values, cols, hidden)
    view = MatrixView(values, rows, cols, hidden, kind, layer, head, args.scores,
                      loaded.layout.kind_label(kind), stepped=False, layer_note=note,
                      slug=loaded.layout.kind_slug(kind))
    name = Path(args.checkpoint).stem
    if mask:  # (as the window names a model with heads off: ModelInfo.name)
        name = tr("{model}, heads off {heads}").format(model=name, heads=mask)
    figure = NamedFigure(view.stem(), matrix_figure(view, name, None, not args.blank_masked))
    sidecar = {"attnviz_export": 1, "sentence": args.text, "source_tokens": list(read.tokens),
               "unknown_words": list(read.unknown), "truncated_from": read.truncated_from, "model": name,
               "kind": loaded.kind, "checkpoint": str(args.checkpoint), "device": str(device),
               "attention": loaded.layout.kind_label(kind), "attention_slug": loaded.layout.kind_slug(kind),
               "layer": layer + 1, "layer_type": note or "full", "head": head + 1,
               "computed": "on demand (queries and keys of one forward pass)",
               "query_key_bytes": store.nbytes,
               "values": "pre-softmax scores" if args.scores else "attention weights",
               "masked_cells": "blank" if args.blank_masked else "marked"}
    if read.target_tokens:
        sidecar.update(target=target, target_tokens=list(read.target_tokens))
    if mask:
        sidecar["masked_heads"] = str(mask)
    sidecar |= extra or {}
    written = write_batch([figure], args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _beyond_decoding(loaded, text: str | None, device) -> bool:
    """Whether ``text`` is longer than ``loaded``'s decoding cap and its maps are computed on demand: the window then
    shows the whole prompt's maps on demand and steps nothing (core/decoding/long_prompt.py's encode_long_prompt)."""
    from attnviz.core.decoding.long_prompt import on_demand_refusal, read_long_input

    if not text or not text.strip() or on_demand_refusal(loaded) is not None or loaded.src_vocab is None:
        return False
    try:
        read = read_long_input(loaded, text_option(text), None, device)
    except ValueError:
        return False  # (said as the window says it, by the decoding path)
    return len(read.ids) > loaded.config.max_src_len


def _export_long_session(args: argparse.Namespace, loaded, device, formats: list[str], saved, mask) -> int:
    """export --session of a prompt beyond the decoding cap: what the window shows of it — the whole prompt's map of
    the saved layer and head, computed on demand (with the session's heads off) — not a decoding of its first tokens.
    Nothing is stepped, so --step and --flipbook are refused."""
    from attnviz.core.attention.kind import AttentionKind

    if args.step is not None or args.flipbook:
        raise CliError(tr("{session}: its prompt of more than {cap:,} tokens is shown whole, its maps computed on "
                          "demand, and never stepped: leave out {option}").format(
            session=args.session, cap=loaded.config.max_src_len, option="--step" if args.step is not None else
            "--flipbook"))
    args.text = text_option(args.text)
    layers, heads = loaded.config.num_decoder_layers if loaded.layout.name == "decoder-only" else \
        loaded.config.num_encoder_layers, loaded.config.num_heads
    layer, head = saved.view.layer, saved.view.head
    if not (0 <= layer < layers and 0 <= head < heads):
        raise CliError(tr("{session}: its view shows layer {layer}, head {head}; this model has {layers} layers of "
                          "{heads} heads").format(session=args.session, layer=layer + 1, head=head + 1,
                                                  layers=layers, heads=heads))
    return _write_prompt_map(args, loaded, device, formats, AttentionKind.ENCODER_SELF, layer, head, None, mask,
                             {"session": str(args.session)})


def _saved_heads_off(args: argparse.Namespace, loaded, heads_off: str):
    """export --session: the session's switched-off heads as the mask its figures are decoded with (the window's
    own parsing; heads this model does not have are refused with its message). CliError with --mask-heads too."""
    from attnviz.core.heads import GatesUnavailable, HeadMask, HeadMaskError, head_layout

    if args.mask_heads is not None:
        raise CliError(tr("--session switches its own heads off ({heads}): leave out --mask-heads").format(
            heads=heads_off))
    try:
        return HeadMask.parse(heads_off, head_layout(loaded.model))
    except (HeadMaskError, GatesUnavailable) as error:
        raise CliError(tr("{session}: the heads it switches off: {error}").format(session=args.session,
                                                                                  error=error)) from None


def _read_saved_session(args: argparse.Namespace):
    """export --session: read it, and take the checkpoint, sentence, beam and view options from it."""
    from attnviz.session_file import CheckpointOutside, checkpoint_changed, find_checkpoint, read_session

    if args.checkpoint is not None or args.text is not None:
        raise CliError(tr("--session names the checkpoint and the sentence: leave out {option}").format(
            option="--checkpoint" if args.checkpoint is not None else "--text"))
    saved = read_session(args.session)  # (its errors are ValueErrors: one line, exit 2)
    try:
        checkpoint = find_checkpoint(saved, args.session)
    except CheckpointOutside as outside:
        raise CliError(tr("{problem}: not followed without asking (open the session in the window to confirm it, "
                          "or move the session beside its checkpoint)").format(problem=outside)) from None
    if note := checkpoint_changed(saved, checkpoint):
        warn(note)
    args.checkpoint, args.text, args.beam = str(checkpoint), saved.sentence, saved.beam_size
    args.scores = args.scores or saved.view.scores
    args.blank_masked = args.blank_masked or not saved.view.show_masked
    if args.flipbook and args.kind is None and args.layer is None and args.head is None and not args.all_heads:
        kinds = {value: key for key, value in FLIPBOOK_KINDS.items()}
        args.kind = kinds.get(saved.view.kind.name)
        if args.kind is not None:
            args.layer, args.head, args.all_heads = saved.view.layer + 1, saved.view.head + 1, saved.view.all_heads
            if args.all_heads:
                args.layer = args.head = None
    return saved


def _export_kernel(args: argparse.Namespace, loaded, saved, formats: list[str]) -> int:
    """export of a kernel-regression checkpoint: its predictions, the query's weights and both weight
    heatmaps, for --kernel, --bandwidth and --query (or the saved session's, or the model's own)."""
    from attnviz.core.models.kernel_regression import explain
    from attnviz.core.results import KERNELS
    from attnviz.figures.panels import kernel_figures, kernel_sidecar

    if args.flipbook:
        raise CliError(tr("--flipbook shows a decoding: {checkpoint} is a {kind} model, which does not "
                          "translate").format(checkpoint=args.checkpoint, kind=loaded.kind))
    if args.text is not None and args.session is None:
        raise CliError(tr("--text: {checkpoint} is a {kind} model, which does not translate; "
                          "choose its view with --kernel, --bandwidth and --query").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    if args.step is not None:
        raise CliError(tr("--step: a {kind} model has no decoding steps").format(kind=loaded.kind))
    kept = saved.kernel if saved is not None else None
    kernel = args.kernel or (kept.kernel if kept else None)
    bandwidth = args.bandwidth if args.bandwidth is not None else (kept.bandwidth if kept else None)
    query = args.query if args.query is not None else (kept.query if kept else 2.5)
    if kernel is not None and kernel not in KERNELS:
        raise CliError(tr("--kernel must be one of: {names}").format(names=", ".join(KERNELS)))
    if bandwidth is not None and not bandwidth_choosable(bandwidth):
        raise CliError(tr("--bandwidth must be from {low:g} to {high:g} (as the window's Bandwidth h), got "
                          "{bandwidth}").format(low=BANDWIDTH_CHOICES[0], high=BANDWIDTH_CHOICES[1],
                                                bandwidth=bandwidth))
    if not (math.isfinite(query) and abs(query) < 1e6):
        raise CliError(tr("--query must be a finite number, got {query}").format(query=query))
    fit = explain(loaded.model, kernel, bandwidth, query)
    sidecar = kernel_sidecar(fit, Path(args.checkpoint), loaded.kind)
    written = write_batch(kernel_figures(fit), args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _export_flipbook(args: argparse.Namespace, source, steps: list, model: str) -> int:
    """export --flipbook: the view (--kind, --layer, --head or --all-heads) at every step of the decoding as
    ``<stem>_flipbook.pdf`` and ``<stem>_flipbook.gif`` in --out; both written, or neither."""
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.figures.attention import (
        AttentionView,
        available_kinds,
        figure_stem,
        figure_title,
        flipbook_figures,
        stack_for,
    )
    from attnviz.render.figure_files import ExportError, WouldReplace, cannot_write
    from attnviz.render.flipbook import flipbook_paths, gif_scale, scale_notice, write_flipbook

    kinds = available_kinds(source)  # (without --kind: the last the model has, cross-attention if it has one)
    kind = AttentionKind[FLIPBOOK_KINDS[args.kind]] if args.kind else kinds[-1]
    if kind not in kinds:
        raise CliError(tr("--kind {name}: this model has no {kind}").format(name=args.kind, kind=kind.label()))
    layers, heads = stack_for(kind, source, steps[-1], args.scores)[0].shape[:2]
    for option, number, most, problem in (
            ("--layer", args.layer, layers, tr("{option} {number}: this model's {kind} has {most} layer(s), "
                                               "counted from 1")),
            ("--head", args.head, heads, tr("{option} {number}: this model's {kind} has {most} head(s), "
                                            "counted from 1"))):
        if number is not None and not 1 <= number <= most:
            raise CliError(problem.format(option=option, number=number, kind=kind.label(), most=most))
    if args.all_heads and (args.layer is not None or args.head is not None):
        raise CliError(tr("--all-heads shows every layer and head: leave out --layer and --head"))
    layer, head = (args.layer or 1) - 1, (args.head or 1) - 1
    view = AttentionView(kind, layer, head, scores=args.scores, show_masked=not args.blank_masked,
                         all_heads=args.all_heads)
    figures = flipbook_figures(source, steps, view, model)
    what = "all-heads" if args.all_heads else f"layer{layer + 1}_head{head + 1}"
    shown_what = tr("all heads") if args.all_heads else tr("layer {layer} · head {head}").format(
        layer=layer + 1, head=head + 1)
    pdf, gif = flipbook_paths(args.out, figure_stem(kind, what, None, args.scores))
    created = not args.out.exists()
    try:
        fitted = gif_scale(figures, args.scale)  # (refused here, before the folder is made, when too large)
        args.out.mkdir(parents=True, exist_ok=True)
        written = write_flipbook(figures, pdf, gif, scale=fitted, force=args.force,
                                 title=figure_title(model, kind, shown_what, None, args.scores))
    except BaseException as error:
        if created:
            with contextlib.suppress(OSError):
                args.out.rmdir()  # only if empty: it was made for this export
        if isinstance(error, WouldReplace):
            raise CliError(tr("{error}; add --force to replace them").format(error=error)) from None
        if isinstance(error, ExportError):
            raise CliError(str(error)) from None
        if isinstance(error, OSError):
            raise CliError(str(cannot_write(args.out, error))) from None
        raise
    if notice := scale_notice(figures, args.scale, fitted):
        print(tr("attnviz: note: {notice}").format(notice=notice), file=sys.stderr)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _export_training(args: argparse.Namespace, formats: list[str]) -> int:
    """export --training: a checkpoint's training history as a flip-book (``training.gif``, ``training.pdf``:
    one frame per snapshot, the loss so far under each) and figures (the curves, the first, middle and last
    maps) in --format; all the files are written, or none."""
    import tempfile

    from attnviz.core.learning.history import HistoryError, TrainingHistory
    from attnviz.figures.training import training_figures, training_frames
    from attnviz.render.figure_files import ExportError, batch_names
    from attnviz.render.flipbook import gif_scale, scale_notice, write_flipbook

    if given := [f"--{name.replace('_', '-')}" for name in TRAINING_CONFLICTS
                 if getattr(args, name) not in (None, False)]:
        raise CliError(tr("{option} does not go with --training (it exports the checkpoint's training history)"
                          ).format(option=given[0]))
    if args.checkpoint is None:
        raise CliError(tr("--training needs --checkpoint: a model trained by attnviz train --task or the Train dock"))
    loaded, _device_used = load_model(args.checkpoint, "cpu")
    if "history" not in loaded.training:
        raise CliError(tr("{checkpoint} has no training history (train it with attnviz train --task, the Train "
                          "dock, or attnviz train kernel-regression)").format(checkpoint=args.checkpoint))
    try:
        history = TrainingHistory.from_json(loaded.training["history"])
    except HistoryError as error:
        raise CliError(f"{args.checkpoint}: {error}") from None
    frames = training_frames(history)
    stem = Path(args.checkpoint).stem
    figures = training_figures(history, stem)
    flipbook = [f"{stem}_training.pdf", f"{stem}_training.gif"]
    # files in the way are said before minutes of drawing, not after
    refuse_replacing(args, batch_names(figures, formats, True, flipbook))

    def drawn(done: int, total: int) -> bool:  # (pages and frames of the PDF and the GIF's two passes)
        if len(frames) >= PROGRESS_FRAMES and (done == total or done % max(total // 10, 1) == 0):
            print(tr("attnviz: flip-book of {count:,} snapshots: drawn {percent} %").format(
                count=len(frames), percent=100 * done // total), file=sys.stderr, flush=True)
        return True

    try:
        fitted = gif_scale(frames, args.scale)
        with tempfile.TemporaryDirectory(prefix="attnviz-training-") as staging:
            pdf, gif = Path(staging, "training.pdf"), Path(staging, "training.gif")
            write_flipbook(frames, pdf, gif, scale=fitted, title=tr("{stem}: training").format(stem=stem),
                           progress=drawn)
            extra = {flipbook[0]: pdf.read_bytes(), flipbook[1]: gif.read_bytes()}
    except ExportError as error:
        raise CliError(str(error)) from None
    sidecar = {"checkpoint": str(args.checkpoint), "kind": loaded.kind, "task": history.task,
               "snapshots": len(history.snapshots), "training": {k: v for k, v in loaded.training.items()
                                                                  if k != "history"}}
    written = write_batch(figures, args, formats, sidecar, extra)
    if notice := scale_notice(frames, args.scale, fitted):
        print(tr("attnviz: note: {notice}").format(notice=notice), file=sys.stderr)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0
