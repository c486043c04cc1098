"""Command-line interface: ``attnviz COMMAND …``. Needs no window; only ``export`` loads Qt, to paint
its figures offscreen.

Errors reach the user as one line on stderr and exit code 2, never as a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import select
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from attnviz.core.layout import Capability
from attnviz.core.limits import BANDWIDTH_CHOICES, MAX_BEAM, bandwidth_choosable
from attnviz.core.models.kinds import KINDS
from attnviz.core.text import MAX_TEXT_BYTES, check_text_size, valid_text
from attnviz.figures.editions import DEFAULT_EDITION, EDITION_NAMES, EDITIONS
from attnviz.i18n import N_, tr
from attnviz.paths import DEFAULT_CHECKPOINT

EXIT_USAGE = 2
EXIT_INTERNAL = 1
DEFAULT_BEAM = 4  # translate and eval: beam search scores about 1.5 BLEU above greedy (models/MODELS.md)
THREADS_HELP = N_("CPU threads for torch (default 1: steady speed on a busy machine)")
INPUT_BATCH = 256  # translate: stdin lines decoded together at most
MASK_HEADS_HELP = N_("switch heads off: kind:layer.head, comma-separated, counted from 1, e.g. cross:2.1,enc:1.3 "
                     "(kinds: enc, dec, cross)")


class CliError(Exception):
    """A problem the user can fix; printed as one line on stderr, exit code 2."""


def _cmd_demo(args: argparse.Namespace) -> int:
    """Show the core at work: kernel regression and a masked attention row, as text."""
    import torch

    from attnviz.core.limits import seed_problem

    if problem := seed_problem(args.seed):
        raise CliError(problem)

    from attnviz.core import (
        NadarayaWatsonRegression,
        fit_parametric,
        masked_softmax,
        nadaraya_watson,
        synthetic_regression_data,
    )

    data = synthetic_regression_data(seed=args.seed)
    print(tr("Nadaraya–Watson kernel regression on f(x) = 2 sin x + x^0.8 (50 noisy points)"))
    for kernel in ("gaussian", "boxcar", "epanechnikov"):
        pred = nadaraya_watson(data.x_test, data.x_train, data.y_train, kernel, bandwidth=0.5)
        mse = torch.nanmean((pred.predictions - data.y_test) ** 2).item()
        print(tr("  non-parametric {kernel:<13} h=0.5  test MSE {mse:.3f}").format(kernel=kernel, mse=mse))
    model = NadarayaWatsonRegression()
    losses = fit_parametric(model, data.x_train, data.y_train, epochs=5)
    with torch.no_grad():
        mse = ((model(data.x_test, data.x_train, data.y_train).predictions - data.y_test) ** 2).mean()
    print(tr("  parametric     learned w={w:.2f}  loss {before:.1f} -> {after:.1f}  test MSE {mse:.3f}").format(
        w=model.w.item(), before=losses[0], after=losses[-1], mse=mse.item()))
    scores = torch.tensor([[[2.0, 1.0, 0.5, 3.0, -1.0]]])
    weights = masked_softmax(scores, torch.tensor([3]))[0, 0]
    print(tr("masked softmax of scores [2, 1, 0.5, 3, -1] with valid length 3:"))
    print("  " + "  ".join(f"{w:.3f}" for w in weights.tolist()))
    return 0


def _device(name: str):
    from attnviz.core.device import DeviceUnavailableError, pick_device

    try:
        return pick_device(name)
    except DeviceUnavailableError as error:
        raise CliError(str(error)) from None


TRAIN_TRANSLATION_ONLY = ("data", "arch", "batch_size", "minutes", "stop_after", "resume")  # kernel-regression has none


def _cmd_train(args: argparse.Namespace) -> int:
    """Train one model and write its checkpoint; every option, --arch and --out are checked first."""
    from attnviz.training.options import TrainingError
    from attnviz.training.resume import state_path
    from attnviz.training.train import TrainOptions, train_kernel_regression, train_translation

    if args.threads is not None:
        _set_threads(args.threads)
    if args.task == MLM_TASK or KINDS[args.kind].sequence_layout.offers(Capability.MASKS):
        return _train_mlm(args)
    if args.task is not None:
        return _train_task(args)
    if given := [f"--{name}" for name in LIVE_ONLY if getattr(args, name) is not None]:
        raise CliError(tr("{option} goes with --task (a task's training is recorded in snapshots)").format(
            option=given[0]))
    try:
        if not KINDS[args.kind].reads_text:  # the regression family trains on its own synthetic data
            if given := [name for name in TRAIN_TRANSLATION_ONLY if getattr(args, name) is not None]:
                raise CliError(tr("{option}: {kind} trains on its own synthetic data "
                                  "(it takes --epochs, --seed, --lr and --force)").format(
                    option=f"--{given[0].replace('_', '-')}", kind=args.kind))
            settings = {k: v for k, v in {"epochs": args.epochs, "seed": args.seed, "lr": args.lr}.items()
                        if v is not None}
            info = train_kernel_regression(args.out, **settings, replace_existing=args.force)
            print(tr("wrote {out}: learned w={w:.3f}, loss {before:.2f} -> {after:.2f}").format(
                out=args.out, w=info["w"], before=info["loss_before"], after=info["loss_after"]))
            return 0
        if args.data is None or not Path(args.data).is_file():
            raise CliError(tr("training data not found: {path}").format(path=args.data))
        overrides = {k: v for k, v in {"epochs": args.epochs, "seed": args.seed, "minutes": args.minutes,
                                        "lr": args.lr, "batch_size": args.batch_size,
                                        "stop_after": args.stop_after}.items() if v is not None}
        arch = _parse_arch(args.kind, args.arch) if args.arch is not None else None
        info = train_translation(args.kind, args.data, args.out, _device(args.device), TrainOptions(**overrides),
                                 arch, replace_existing=args.force, resume=bool(args.resume))
    except (KeyboardInterrupt, Terminated):
        if (state := state_path(args.out)).is_file():
            print(tr("attnviz: the run's state is kept in {state}: the same command with --resume continues it"
                     ).format(state=state), file=sys.stderr)
        raise
    except TrainingError as error:
        raise CliError(str(error)) from None
    if info["val_bleu"] is None:
        print(tr("wrote {out}: training BLEU {bleu:.2f} (too few sentences for a validation split) after "
                 "{minutes} min").format(out=args.out, bleu=info["train_bleu"], minutes=info["minutes"]))
    else:
        print(tr("wrote {out}: validation BLEU {bleu:.2f} after {minutes} min").format(
            out=args.out, bleu=info["val_bleu"], minutes=info["minutes"]))
    return 0


TOP_WORDS = 5  # attnviz fill-mask prints this many words per line

LIVE_ONLY = ("preset", "snapshots", "probe", "learned")  # train options of a --task run


MLM_TASK = "mlm"  # attnviz train encoder-only --task mlm: masked words of the English side of --data


def _train_mlm(args: argparse.Namespace) -> int:
    """``attnviz train encoder-only --task mlm --data FILE``: the small BERT on the English of the translators'
    split (same vocabulary, same held-out sentences), written as one checkpoint with its per-epoch history."""
    from attnviz.core.checkpoints.checkpoint import save_checkpoint
    from attnviz.training.mlm import MlmOptions, train_encoder_only
    from attnviz.training.target import TargetError, check_target

    if args.task != MLM_TASK or not KINDS[args.kind].sequence_layout.offers(Capability.MASKS):
        fills = [name for name, kind in KINDS.items()
                 if kind.trainable and kind.sequence_layout.offers(Capability.MASKS)]
        raise CliError(tr("--task {task} trains {kinds} (attnviz train {kinds} --task {task} --data FILE)").format(
            task=MLM_TASK, kinds=", ".join(fills)))
    if given := [f"--{name.replace('_', '-')}" for name in (*LIVE_ONLY, "stop_after", "resume", "minutes")
                 if getattr(args, name) is not None]:
        raise CliError(tr("{option} does not go with --task {task}").format(option=given[0], task=MLM_TASK))
    if args.data is None or not Path(args.data).is_file():
        raise CliError(tr("training data not found: {path}").format(path=args.data))
    try:
        check_target(args.out, args.force)
    except (TargetError, ValueError) as error:
        raise CliError(f"--out {error}") from None
    changes = {k: v for k, v in {"seed": args.seed, "lr": args.lr, "batch_size": args.batch_size}.items()
               if v is not None}
    arch = _parse_arch(args.kind, args.arch) if args.arch is not None else None
    epochs = args.epochs if args.epochs is not None else MlmOptions.epochs
    trained = train_encoder_only(args.data, None, epochs=epochs, opts=MlmOptions(**changes), arch=arch,
                                 device=_device(args.device), threads=None)
    history = {**trained.history, "source": "attnviz train", "task": MLM_TASK}
    save_checkpoint(args.out, trained.model, src_vocab=trained.vocab, tgt_vocab=trained.vocab, training=history,
                    half=True, verify=True)
    print(tr("wrote {out}: masked-word accuracy {accuracy:.1%}; one content word top-1 {top1:.1%}, top-5 {top5:.1%} "
             "on the held-out sentences").format(out=args.out, accuracy=history["val_masked_accuracy_per_epoch"][-1],
                                                  top1=history["content_word_top1"], top5=history["content_word_top5"]))
    return 0


def _train_task(args: argparse.Namespace) -> int:
    """``attnviz train KIND --task NAME``: train on a generated task, recording snapshots of the probe's map,
    the loss, the exact-match score and the alignment agreement; Ctrl-C stops it and saves what it learned."""
    import signal

    from attnviz.core.learning.history import LEARNED_PERCENT
    from attnviz.training.live import LIVE_KINDS, Control, LiveSettings, LiveTraining, preset_arch, task_data
    from attnviz.training.options import TrainingError
    from attnviz.training.target import TargetError, check_target

    if args.kind not in LIVE_KINDS:
        raise CliError(tr("--task trains {kinds}; {kind} trains on its own data (leave out --task)").format(
            kinds=", ".join(LIVE_KINDS), kind=args.kind))
    if given := [f"--{name.replace('_', '-')}" for name in ("data", "stop_after", "resume") if getattr(args, name)]:
        raise CliError(tr("{option} does not go with --task (the task's data is generated)").format(option=given[0]))
    changes = {k: v for k, v in {"epochs": args.epochs, "minutes": args.minutes, "snapshots": args.snapshots,
                                   "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed}.items()
               if v is not None}
    learned = LEARNED_PERCENT if args.learned is None else args.learned  # (the Train dock's rule too)
    settings = LiveSettings(**changes, learned=learned or None)  # (0: every epoch)
    arch = {**preset_arch(args.kind, args.preset or "small"),
            **(_parse_arch(args.kind, args.arch) if args.arch is not None else {})}
    control = Control()

    def interrupted(*_: object) -> None:
        if control.stopped:  # a second Ctrl-C: quit now, without saving
            raise KeyboardInterrupt
        control.stop()
        print(tr("attnviz: stopping after this step and saving what it learned (Ctrl-C again quits without "
                 "saving)"), file=sys.stderr, flush=True)

    previous = signal.signal(signal.SIGINT, interrupted)

    def report(history) -> None:
        last = history.snapshots[-1]
        agreement = "" if last.agreement is None else tr(", agreement {agreement:.0f} %").format(
            agreement=100 * last.agreement)
        loss = "" if last.loss != last.loss else tr("loss {loss:.3f}, ").format(loss=last.loss)
        print(tr("step {step:,} ({seconds:.0f} s): {loss}exact match {score:.1f} %{agreement}; {probe} -> {said}"
                 ).format(step=last.step, seconds=last.seconds, loss=loss, score=last.score, agreement=agreement,
                          probe=" ".join(last.cols), said=" ".join(last.said) or tr("(nothing)")),
              file=sys.stderr, flush=True)

    try:
        check_target(args.out, args.force)
        run = LiveTraining(args.kind, task_data(args.task, settings, args.probe), arch, settings,
                           _device(args.device))
        parameters = sum(p.numel() for p in run.model.parameters())
        print(tr("{kind} on {task}: {parameters:,} parameters, {epochs} epochs of {steps} steps; Ctrl-C stops and "
                 "saves").format(kind=args.kind, task=args.task, parameters=parameters, epochs=settings.epochs,
                                 steps=run.steps_per_epoch), file=sys.stderr)
        trained = run.run(control, report)
        check_target(args.out, True)  # (a file put there while training is kept)
        trained.save(args.out)
    except (TrainingError, TargetError, OSError) as error:
        raise CliError(str(error)) from None
    finally:
        signal.signal(signal.SIGINT, previous)
    info = trained.info
    if info.get("learned"):
        print(tr("stopped at step {step:,}: held-out exact match at least {level:g} % at {count} evaluations in a "
                 "row (--learned 0 trains every epoch)").format(step=info["steps"], level=settings.learned,
                                                              count=settings.learned_evaluations), file=sys.stderr)
    stopped = tr(" (stopped early)") if info["stopped"] else ""
    print(tr("wrote {out}{stopped}: exact match {score:.1f} %, alignment agreement {agreement:.0f} % after "
             "{steps:,} steps ({minutes} min)").format(out=args.out, stopped=stopped, score=info["score"],
                                                        agreement=100 * (info["agreement"] or 0),
                                                        steps=info["steps"], minutes=info["minutes"]))
    return 0


def _parse_arch(kind: str, text: str) -> dict:
    """--arch: a JSON object of model settings, each one the kind's config has, in the loader's ranges."""
    from attnviz.core.models.kinds import kind_named
    from attnviz.training.options import arch_problems

    try:
        arch = json.loads(text)
    except json.JSONDecodeError as error:
        raise CliError(tr("--arch is not valid JSON ({reason})").format(reason=error.msg)) from None
    except RecursionError:
        raise CliError(tr("--arch is nested too deeply; give a flat JSON object of settings")) from None
    if not isinstance(arch, dict):
        raise CliError(tr('--arch must be a JSON object, e.g. \'{"num_decoder_layers": 3}\''))
    known = kind_named(kind).settable_fields()
    if unknown := sorted(set(arch) - set(known)):
        raise CliError(tr("--arch: {kind} has no setting {unknown}; known: {known}").format(
            kind=kind, unknown=", ".join(unknown), known=", ".join(sorted(known))))
    if problems := arch_problems(kind, arch):
        raise CliError(f"--arch: {problems[0]}")
    return arch


def _set_threads(threads: int | None) -> None:
    from attnviz.core.device import set_threads

    try:
        set_threads(threads)
    except ValueError as error:
        raise CliError(f"--threads: {error}") from None


def _load(path: str, device_name: str):
    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint

    device = _device(device_name)
    try:
        return load_checkpoint(path, device), device
    except CheckpointError as error:
        raise CliError(str(error)) from None


def _translation_model(args: argparse.Namespace):
    """The --checkpoint as a loaded translation model and its device; torch threads per --threads."""
    _set_threads(args.threads)
    loaded, device = _load(args.checkpoint, args.device)
    if not loaded.offers(Capability.DECODER):
        raise CliError(tr("{checkpoint}: a {kind} checkpoint does not translate").format(
            checkpoint=args.checkpoint, kind=loaded.kind))
    if not 1 <= args.beam <= MAX_BEAM:
        raise CliError(tr("--beam must be from 1 to {most}, got {beam}").format(most=MAX_BEAM, beam=args.beam))
    return loaded, device


def shown(text: object) -> str:
    """``text`` safe for a terminal: control characters (ESC, BEL, OSC sequences …) written as escapes,
    so input echoed in a message can never move the cursor, retitle the window or ring a bell."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in str(text))


def warn(message: str) -> None:
    print(tr("attnviz: warning: {message}").format(message=shown(message)), file=sys.stderr)


def _warn_about(source, max_len: int, line: int | None = None) -> None:
    """Say on stderr which words became <unk> and whether the input was cut to the model's limit."""
    where = tr("line {line}: ").format(line=line) if line is not None else ""
    if source.unknown:
        warn(tr("{where}unknown words mapped to <unk>: {words}").format(where=where, words=" ".join(source.unknown)))
    if source.truncated_from:
        warn(tr("{where}input of {count} tokens truncated to the model's limit of {most}").format(
            where=where, count=source.truncated_from, most=max_len))


def _input_batches(stream, most: int) -> Iterator[list[str]]:
    """Lines of ``stream`` in batches of up to ``most``: each batch holds the lines already available, so
    a batch job is decoded many sentences at a time while a person typing gets each answer at once."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests): plain iteration
        lines = [line.rstrip("\n") for line in stream]
        for begin in range(0, len(lines), most):
            yield lines[begin: begin + most]
        return
    pending, eof, number = b"", False, 0
    while pending or not eof:
        while b"\n" not in pending and not eof:  # block for at least one whole line
            if len(pending) > MAX_TEXT_BYTES:  # (never held whole: /dev/zero has no line end)
                raise CliError(_line_too_long(number + 1))
            chunk = os.read(fd, 1 << 16)
            eof = not chunk
            pending += chunk
        while not eof and pending.count(b"\n") < most and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 1 << 16)
            eof = not chunk
            pending += chunk
        *lines, pending = pending.split(b"\n")
        if eof and pending:
            lines, pending = [*lines, pending], b""
        for begin in range(0, len(lines), most):
            batch = []
            for line in lines[begin: begin + most]:
                number += 1
                if len(line) > MAX_TEXT_BYTES:
                    raise CliError(_line_too_long(number))
                batch.append(_decoded_line(line, number))
            yield batch


def _line_too_long(number: int) -> str:
    return tr("stdin: line {line} is over {kib} KiB: one sentence a line").format(line=number,
                                                                                  kib=MAX_TEXT_BYTES // 1024)


def _stdin_lines() -> Iterator[str]:
    """stdin's lines as text, one at a time, none held past 64 KiB (CliError naming the line: ``< /dev/zero`` is
    refused after 64 KiB, not read into memory); bytes that are not UTF-8 become U+FFFD, with a warning."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # (a text stream without bytes beneath it: tests)
        yield from (line.rstrip("\r\n") for line in sys.stdin)
        return
    number = 0
    while raw := stream.readline(MAX_TEXT_BYTES + 2):
        number += 1
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if len(line) > MAX_TEXT_BYTES:
            raise CliError(_line_too_long(number))
        yield _decoded_line(line, number)


def _decoded_line(line: bytes, number: int) -> str:
    """One input line as text; bytes that are not UTF-8 become U+FFFD, with a warning (the rest of the
    input is still translated)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        text = line.decode("utf-8", errors="replace")
        warn(tr("line {number}: bytes that are not UTF-8 were replaced by U+FFFD").format(number=number))
    return text.rstrip("\r")


def _text_option(text: str) -> str:
    """--text as a sentence: over 64 KiB refused (CliError) before any tokenizer sees it; bytes that were not UTF-8
    (Python carries them as lone surrogates) become U+FFFD with a warning, as stdin's lines do."""
    try:
        check_text_size(text)
    except ValueError as error:
        raise CliError(f"--text: {error}") from None
    cleaned = valid_text(text)
    if cleaned != text:
        warn(tr("--text: bytes that are not UTF-8 were replaced by U+FFFD"))
    return cleaned


def _cmd_translate(args: argparse.Namespace) -> int:
    """Translate --text, or every stdin line; exactly one output line per input line."""
    from attnviz.cli_heads import head_mask_of
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.heads import masked_heads
    from attnviz.core.text import source_words

    loaded, device = _translation_model(args)
    mask = head_mask_of(loaded, args.mask_heads)
    max_len = loaded.config.max_src_len
    batches = [[_text_option(args.text)]] if args.text is not None else _input_batches(sys.stdin, INPUT_BATCH)
    number = 0
    for lines in batches:
        sources = [source_words(line, loaded.src_vocab, max_len) for line in lines]
        for offset, source in enumerate(sources, number + 1):
            _warn_about(source, max_len, offset if args.text is None else None)
        number += len(lines)
        with masked_heads(loaded.model, mask, device):
            outputs = translate(loaded.model, sources, loaded.src_vocab, loaded.tgt_vocab, device,
                                beam_size=args.beam)
        sys.stdout.write("".join(loaded.tgt_vocab.text_of(words) + "\n" for words in outputs))
        sys.stdout.flush()
    return 0


def _cmd_fill_mask(args: argparse.Namespace) -> int:
    """The top-5 words for the first mask of --text, or of every stdin line: one line per input line, the words
    separated by tabs, best first."""
    _set_threads(args.threads)
    loaded, device = _load(args.checkpoint, args.device)
    if not loaded.offers(Capability.MASKS):
        raise CliError(tr("{checkpoint}: a {kind} model does not fill masks (open an encoder-only model: BERT, "
                          "DistilBERT, RoBERTa or attnviz's own)").format(checkpoint=args.checkpoint, kind=loaded.kind))
    filling = loaded.model_kind.stepping_cls(loaded, device, top_k=TOP_WORDS)
    lines = [_text_option(args.text)] if args.text is not None else _stdin_lines()
    for number, line in enumerate(lines, 1):
        where = "" if args.text is not None else tr("line {number}: ").format(number=number)
        try:
            filling.encode(line)
            if filling.finished:
                raise ValueError(tr("no {mask} to fill: write {mask} in place of a word").format(
                    mask=filling.reader.mask_token))
            step = filling.step()
        except ValueError as error:
            raise CliError(where + str(error)) from None
        sys.stdout.write("\t".join(step.topk_tokens) + "\n")
        sys.stdout.flush()
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    """Corpus BLEU of a checkpoint on a TSV of pairs (all references of a source used)."""
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.heads.corpus import CorpusError, check_data_file
    from attnviz.core.learning.bleu import corpus_bleu
    from attnviz.core.text import preprocess, source_words
    from attnviz.training.data import group_references, read_pairs, training_split

    try:  # (a folder, a device or a dangling link is called what it is, not "not found")
        check_data_file(args.data)
    except CorpusError as error:
        raise CliError(str(error)) from None
    loaded, device = _translation_model(args)
    if args.heldout:
        options = loaded.training.get("options")
        if not isinstance(options, dict):
            raise CliError(tr("{checkpoint}: no training options stored; --heldout needs them").format(
                checkpoint=args.checkpoint))
        _, pairs = training_split(args.data, options.get("max_src_tokens"), options.get("max_tgt_tokens"),
                                  int(options.get("val_sources", 0)), int(options.get("seed", 0)))
    else:
        pairs = read_pairs(args.data)
    refs = group_references(pairs)
    if not refs:
        raise CliError((tr("{path}: no held-out sentence pairs (is it the file the model was trained on?)")
                        if args.heldout else tr("{path}: no sentence pairs")).format(path=args.data))
    sources = list(refs)
    max_len = loaded.config.max_src_len
    # each sentence as the model splits it (a subword model its own way); its output as text, preprocessed as
    # the references are (a subword model writes "Il est calme." where the references read "il est calme .")
    splits = [source_words(" ".join(s), loaded.src_vocab, max_len) for s in sources]
    outputs = translate(loaded.model, splits, loaded.src_vocab, loaded.tgt_vocab, device, beam_size=args.beam)
    hypotheses = [preprocess(loaded.tgt_vocab.text_of(o)) for o in outputs]
    bleu = corpus_bleu(hypotheses, [[" ".join(r) for r in refs[s]] for s in sources])
    print(tr("BLEU {bleu:.2f} on {count} source sentences").format(bleu=bleu, count=len(refs)))
    return 0


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


def _write_batch(figures: list, args: argparse.Namespace, formats: list[str], sidecar: dict,
                 extra_files: dict[str, bytes] | None = None,
                 progress: Callable[[int, int], bool] | None = None) -> list[Path]:
    """export_batch into --out at --scale, replacing files only with --force; problems as CliError. ``progress``
    (done, total) after each file drawn."""
    from attnviz.render.figure_files import ExportError, WouldReplace, export_batch

    try:
        return export_batch(figures, args.out, formats, args.scale, sidecar, overwrite=args.force,
                            extra_files=extra_files, progress=progress)
    except WouldReplace as error:
        raise CliError(tr("{error}; add --force to replace them").format(error=error)) from None
    except ExportError as error:
        raise CliError(str(error)) from None


PROGRESS_FRAMES = 100  # a flip-book of this many frames or more says how far it has got (a tenth at a time)
FLIPBOOK_KINDS = {"cross": "CROSS", "dec-self": "DECODER_SELF"}  # --kind: the attention that changes per step
FLIPBOOK_ONLY = ("kind", "layer", "head", "all_heads")


def _cmd_export(args: argparse.Namespace) -> int:
    """Write every attention map of a sentence (or a kernel-regression model's figures) as pictures and
    numbers, without a window; with --session, the figures of a saved session."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # never a window, display or not
    from PySide6 import QtGui

    from attnviz.figures.attention import AttentionView, attention_figures, attention_sidecar
    from attnviz.render.figure_files import ExportError, check_scale, parse_formats

    if args.flipbook:
        if args.format is not None or args.step is not None:
            raise CliError(tr("{option} does not go with --flipbook (it writes every step as one PDF and one GIF)"
                              ).format(option="--format" if args.format is not None else "--step"))
    elif given := [name for name in FLIPBOOK_ONLY if getattr(args, name) not in (None, False)]:
        raise CliError(tr("{option} chooses the view of --flipbook; add --flipbook").format(
            option=f"--{given[0].replace('_', '-')}"))
    try:
        formats = parse_formats(args.format or "png,csv")
    except ExportError as error:
        raise CliError(str(error)) from None
    wanted = _parse_step(args.step) if args.step is not None else -1  # -1: the last step
    try:
        check_scale(args.scale)
    except ExportError as error:
        raise CliError(f"--scale: {error}") from None
    if args.training:
        return _export_training(args, formats)
    saved = _read_saved_session(args) if args.session is not None else None
    _set_threads(args.threads)
    loaded, device = _load(args.checkpoint or str(DEFAULT_CHECKPOINT), args.device)
    args.checkpoint = args.checkpoint or str(DEFAULT_CHECKPOINT)
    if loaded.offers(Capability.KERNEL):
        return _export_kernel(args, loaded, saved, formats)
    if given := [f"--{name}" for name in KERNEL_ONLY if getattr(args, name) is not None]:
        raise CliError(tr("{option} sets the kernel-regression view; {checkpoint} is a {kind} model").format(
            option=given[0], checkpoint=args.checkpoint, kind=loaded.kind))
    if args.text is None or not args.text.strip():
        raise CliError(tr("--text is empty: give the sentence whose attention to export"))
    args.text = _text_option(args.text)
    if not 1 <= args.beam <= MAX_BEAM:
        raise CliError(tr("--beam must be from 1 to {most}, got {beam}").format(most=MAX_BEAM, beam=args.beam))
    from attnviz.cli_heads import head_mask_of
    from attnviz.core.heads import masked_heads

    mask = head_mask_of(loaded, args.mask_heads) if args.mask_heads is not None else None
    if saved is not None and saved.heads_off:  # the heads the window had switched off, switched off here too
        mask = _saved_heads_off(args, loaded, saved.heads_off)
    session = loaded.model_kind.stepping_cls(loaded, device, beam_size=args.beam)  # (translating, filling masks)
    with masked_heads(loaded.model, mask) if mask else contextlib.nullcontext():
        source = session.encode(args.text)
        _warn_about(source, session.max_src_len)
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
    _app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(sys.argv[:1])  # fonts need it
    view = AttentionView(scores=args.scores, show_masked=not args.blank_masked)
    figures = attention_figures(source, chosen, view, name)
    sidecar = attention_sidecar(source, chosen, view, name, loaded.kind, str(args.checkpoint), str(device))
    if mask:
        sidecar["masked_heads"] = str(mask)
    if saved is not None:
        sidecar["session"] = str(args.session)
        sidecar["forced_tokens"] = [token for token in saved.plan if token is not None]
    written = _write_batch(figures, args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


KERNEL_ONLY = ("kernel", "bandwidth", "query")  # export options of a kernel-regression model


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
    from PySide6 import QtGui

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
    _app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(sys.argv[:1])  # fonts need it
    sidecar = kernel_sidecar(fit, Path(args.checkpoint), loaded.kind)
    written = _write_batch(kernel_figures(fit), args, formats, sidecar)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _export_flipbook(args: argparse.Namespace, source, steps: list, model: str) -> int:
    """export --flipbook: the view (--kind, --layer, --head or --all-heads) at every step of the decoding as
    ``<stem>_flipbook.pdf`` and ``<stem>_flipbook.gif`` in --out; both written, or neither."""
    from PySide6 import QtGui

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
    _app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(sys.argv[:1])  # fonts need it
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


TRAINING_CONFLICTS = ("text", "session", "step", "flipbook", "kind", "layer", "head", "all_heads", "kernel",
                      "bandwidth", "query", "scores", "blank_masked", "mask_heads")


def _export_training(args: argparse.Namespace, formats: list[str]) -> int:
    """export --training: a checkpoint's training history as a flip-book (``training.gif``, ``training.pdf``:
    one frame per snapshot, the loss so far under each) and figures (the curves, the first, middle and last
    maps) in --format; all the files are written, or none."""
    import tempfile

    from PySide6 import QtGui

    from attnviz.core.learning.history import HistoryError, TrainingHistory
    from attnviz.figures.training import training_figures, training_frames
    from attnviz.render.figure_files import ExportError, batch_names, batch_targets_in_the_way
    from attnviz.render.flipbook import gif_scale, scale_notice, write_flipbook

    if given := [f"--{name.replace('_', '-')}" for name in TRAINING_CONFLICTS
                 if getattr(args, name) not in (None, False)]:
        raise CliError(tr("{option} does not go with --training (it exports the checkpoint's training history)"
                          ).format(option=given[0]))
    if args.checkpoint is None:
        raise CliError(tr("--training needs --checkpoint: a model trained by attnviz train --task or the Train dock"))
    loaded, _device_used = _load(args.checkpoint, "cpu")
    if "history" not in loaded.training:
        raise CliError(tr("{checkpoint} has no training history (train it with attnviz train --task, the Train "
                          "dock, or attnviz train kernel-regression)").format(checkpoint=args.checkpoint))
    try:
        history = TrainingHistory.from_json(loaded.training["history"])
    except HistoryError as error:
        raise CliError(f"{args.checkpoint}: {error}") from None
    _app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(sys.argv[:1])  # fonts need it
    frames = training_frames(history)
    stem = Path(args.checkpoint).stem
    figures = training_figures(history, stem)
    flipbook = [f"{stem}_training.pdf", f"{stem}_training.gif"]
    # files in the way are said before minutes of drawing, not after
    in_the_way = batch_targets_in_the_way(args.out, batch_names(figures, formats, True, flipbook)) \
        if not args.force and args.out.is_dir() else []
    if in_the_way:
        raise CliError(tr("{count} file(s) in {folder} would be replaced, e.g. {name}; add --force to replace "
                          "them").format(count=len(in_the_way), folder=args.out, name=in_the_way[0].name))

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
    written = _write_batch(figures, args, formats, sidecar, extra)
    if notice := scale_notice(frames, args.scale, fitted):
        print(tr("attnviz: note: {notice}").format(notice=notice), file=sys.stderr)
    print(tr("wrote {count} files into {out}").format(count=len(written), out=shown(args.out)))
    return 0


def _cmd_to_hf(args: argparse.Namespace) -> int:
    """Write attnviz's Transformer as a Hugging Face Marian folder (the same network: core/hf/convert.py)."""
    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint
    from attnviz.core.hf.convert import save_marian_folder

    try:
        loaded = load_checkpoint(args.checkpoint)
    except CheckpointError as error:
        raise CliError(str(error)) from None
    existed = Path(args.out).exists() or Path(args.out).is_symlink()
    try:
        out = save_marian_folder(loaded, args.out)
    except (KeyboardInterrupt, Terminated):
        if existed or not (Path(args.out) / "config.json").is_file():
            raise
        out = Path(args.out)  # the signal came once the folder had its name: it is whole, and is said so
    print(tr("wrote {out}: a Hugging Face Marian model and its tokenizer (transformers: "
             "MarianMTModel.from_pretrained; attnviz --checkpoint {out})").format(out=out))
    return 0


def _cmd_figures(args: argparse.Namespace) -> int:
    """Render the book's attention figures (the gallery) without a window, with an index page."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtGui

    from attnviz.figures.editions import edition_of
    from attnviz.figures.spec import NamedFigure
    from attnviz.gallery import entries, index_html
    from attnviz.progress import Heartbeat
    from attnviz.render.figure_files import ExportError, check_output_folder, check_scale, parse_formats

    try:
        edition = edition_of(args.edition)
        formats = parse_formats(args.format)
        check_scale(args.scale)
        only = [part.strip() for part in args.only.split(",") if part.strip()] if args.only else None
        chosen = entries(only, edition)
    except (ExportError, ValueError) as error:
        raise CliError(str(error)) from None
    try:
        check_output_folder(args.out)
    except ExportError as error:
        raise CliError(f"--out: {error}") from None
    _set_threads(args.threads)
    _app = QtGui.QGuiApplication.instance() or QtGui.QGuiApplication(sys.argv[:1])  # fonts need it
    with Heartbeat("attnviz figures") as progress:  # each tenth and at least every 10 s, on stderr
        # (chosen: in the edition's order, its supplementary figures last; files named by its section numbers)
        progress.stage(tr("computing the figures"))
        figures = []
        for entry in chosen:
            figures.append(NamedFigure(entry.file_stem(edition), entry.build()))
            progress(len(figures), len(chosen))
        index = index_html(chosen, [fmt for fmt in formats if fmt != "npy"], edition).encode("utf-8")
        sidecar = {"attnviz_figures": 1, "edition": edition,
                   "figures": [{"file": e.file_stem(edition), "key": e.key, "section": e.section.number(edition),
                                "in_book": not e.supplementary(edition), "caption": e.caption,
                                "sections": e.section.numbers} for e in chosen]}
        progress.stage(tr("drawing the files"))
        written = _write_batch(figures, args, formats, sidecar, {"index.html": index}, progress)
    print(tr("wrote {figures} figures ({files} files) into {out}; open {index}").format(
        figures=len(chosen), files=len(written), out=shown(args.out), index=shown(args.out / "index.html")))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="attnviz", description=tr("See attention."))
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo = sub.add_parser("demo", help=tr("print what the attention core computes, as text"))
    demo.add_argument("--seed", type=int, default=0)
    demo.set_defaults(run=_cmd_demo)

    from attnviz.training.options import KERNEL_REGRESSION_EPOCHS, KERNEL_REGRESSION_LR, TrainOptions

    trainable = [name for name, kind in KINDS.items() if kind.trainable]
    lrs = "; ".join(f"{name} {KINDS[name].default_lr:g}" for name in trainable if KINDS[name].reads_text)
    train = sub.add_parser("train", help=tr("train a model on sentence pairs and write a checkpoint"))
    train.add_argument("kind", choices=trainable)
    train.add_argument("--data", help=tr("TSV of english<TAB>french pairs (required; kernel-regression takes none)"))
    train.add_argument("--out", required=True, help=tr("checkpoint to write (.safetensors); an existing checkpoint "
                                                       "is replaced only with --force, any other file never"))
    train.add_argument("--force", action="store_true",
                       help=tr("replace an attnviz checkpoint at --out (default: refuse)"))
    train.add_argument("--epochs", type=int, metavar="N",
                       help=tr("passes over the data (default {epochs}; kernel-regression {kernel_epochs})").format(
                           epochs=TrainOptions.epochs, kernel_epochs=KERNEL_REGRESSION_EPOCHS))
    train.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps (default auto)"))
    train.add_argument("--seed", type=int, metavar="S",
                       help=tr("seed of the validation split, the batches and the initial weights (default {seed})"
                               ).format(seed=TrainOptions.seed))
    train.add_argument("--minutes", type=float, help=tr("stop after this much wall-clock time (default: no limit)"))
    train.add_argument("--stop-after", type=int, metavar="N",
                       help=tr("stop after N epochs; the learning-rate schedule still spans --epochs (default: "
                               "--epochs)"))
    train.add_argument("--resume", action="store_true", default=None,
                       help=tr("continue a stopped run from its state beside --out (OUT.resume, written after each "
                               "epoch and every 10 minutes); give the same --data, --epochs and settings (default: "
                               "a new run)"))
    train.add_argument("--lr", type=float, help=tr("peak learning rate (default: {rates}; kernel-regression "
                                                   "{kernel_rate:g})").format(rates=lrs,
                                                                              kernel_rate=KERNEL_REGRESSION_LR))
    train.add_argument("--batch-size", type=int, metavar="N",
                       help=tr("sentence pairs per step (default {size})").format(size=TrainOptions.batch_size))
    train.add_argument("--threads", type=int, help=tr("CPU threads for torch (default: torch's own choice)"))
    train.add_argument("--arch", help=tr('JSON of model settings, e.g. \'{"num_decoder_layers": 3}\' '
                                         "(default: the kind's standard model, models/MODELS.md)"))
    from attnviz.core.learning.tasks import TASKS

    train.add_argument("--task", choices=[*TASKS, MLM_TASK], help=tr("train on a generated task whose right alignment "
                       "is known, recording the training's history (default: none, train on --data; README \"Watch "
                       "it learn\"); mlm: an encoder-only model on the masked words of --data's English"))
    train.add_argument("--preset", choices=["tiny", "small"], help=tr("--task: the model's size (default small; "
                       "--arch changes single settings)"))
    train.add_argument("--snapshots", type=int, metavar="N", help=tr("--task: snapshots of the probe's map and the "
                       "scores (default 30)"))
    train.add_argument("--probe",
                       help=tr("--task: the input whose attention map is recorded (default: the task's own)"))
    train.add_argument("--learned", type=float, metavar="PERCENT",
                       help=tr("--task: stop once held-out exact match is at least PERCENT at 3 evaluations in a "
                               "row, and save (default 99; 0: train every epoch)"))
    train.set_defaults(run=_cmd_train)

    for name, helptext, run in (("translate", tr("translate --text, or stdin line by line"), _cmd_translate),
                                ("eval", tr("print the BLEU of a checkpoint on a TSV of pairs"), _cmd_eval)):
        cmd = sub.add_parser(name, help=helptext)
        cmd.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                         help=tr("a .safetensors checkpoint (default: the shipped Transformer)"))
        cmd.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
        cmd.add_argument("--threads", type=int, help=tr(THREADS_HELP))
        cmd.add_argument("--beam", type=int, default=DEFAULT_BEAM,
                         help=tr("beam size (default {beam}; 1 = greedy, as the app steps by default)").format(
                             beam=DEFAULT_BEAM))
        if name == "translate":
            cmd.add_argument("--text", help=tr("one sentence; without it, read stdin"))
            cmd.add_argument("--mask-heads", metavar="HEADS", help=tr(MASK_HEADS_HELP))
        else:
            cmd.add_argument("--data", required=True, help=tr("TSV of english<TAB>french pairs"))
            cmd.add_argument("--heldout", action="store_true",
                             help=tr("score only the validation split that training held out of --data "
                                     "(rebuilt from the options stored in the checkpoint)"))
        cmd.set_defaults(run=run)
    fill = sub.add_parser("fill-mask", help=tr("the top-5 words for the first [MASK] of --text, or of each stdin line"))
    fill.add_argument("--checkpoint", required=True,
                      help=tr("an encoder-only model: models/encoder-only.safetensors or a Hugging Face BERT folder"))
    fill.add_argument("--text", help=tr("one sentence with [MASK] (or the tokenizer's own mask token); without it, "
                                        "read stdin"))
    fill.add_argument("--device", default="auto", help=tr("auto, cpu, cuda, cuda:N or mps"))
    fill.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    fill.set_defaults(run=_cmd_fill_mask)
    export = sub.add_parser("export", help=tr("write every attention map of a sentence as files, no window needed"))
    export.add_argument("--checkpoint", help=tr("a checkpoint (.safetensors; default: the shipped Transformer); "
                                                "a kernel-regression one exports its fit"))
    export.add_argument("--text", help=tr("the sentence to decode (translation models)"))
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
    export.add_argument("--kind", choices=list(FLIPBOOK_KINDS),
                        help=tr("--flipbook: which attention (default cross)"))
    export.add_argument("--layer", type=int, help=tr("--flipbook: 1-based layer (default 1)"))
    export.add_argument("--head", type=int, help=tr("--flipbook: 1-based head (default 1)"))
    export.add_argument("--all-heads", action="store_true",
                        help=tr("--flipbook: every layer and head, small multiples"))
    export.add_argument("--mask-heads", metavar="HEADS", help=tr(MASK_HEADS_HELP))
    export.add_argument("--kernel", help=tr("kernel regression: gaussian, boxcar, epanechnikov or constant"))
    export.add_argument("--bandwidth", type=float, help=tr("kernel regression: the bandwidth h"))
    export.add_argument("--query", type=float, help=tr("kernel regression: the query x (default 2.5)"))
    export.set_defaults(run=_cmd_export)

    to_hf = sub.add_parser("to-hf", help=tr("write the Transformer as a Hugging Face (Marian) model folder"))
    to_hf.add_argument("--checkpoint", default=str(DEFAULT_CHECKPOINT),
                       help=tr("an attnviz Transformer checkpoint (default: the shipped one)"))
    to_hf.add_argument("--out", required=True, help=tr("the folder to write (must not exist)"))
    to_hf.set_defaults(run=_cmd_to_hf)
    figures = sub.add_parser("figures",
                             help=tr("render the book's attention figures (d2l.ai, the Transformer paper)"))
    figures.add_argument("--out", required=True, type=Path, help=tr("folder to write into (created if missing)"))
    figures.add_argument("--format", default="png,svg,csv", help=tr("comma-separated: png, svg, pdf, csv, npy"))
    figures.add_argument("--only", help=tr("figures whose key or section (in either edition) starts with these, "
                                           "e.g. 10.6,paper or 11.6"))
    figures.add_argument("--edition", default=DEFAULT_EDITION, metavar="|".join(EDITIONS),
                         help=tr("how sections are numbered: {editions} (default {default}); the other edition's "
                                 "number stands beside each").format(
                             editions="; ".join(f"{e}: {tr(n)}" for e, n in EDITION_NAMES.items()),
                             default=DEFAULT_EDITION))
    figures.add_argument("--scale", type=float, default=2.0, help=tr("PNG scale factor (default 2)"))
    figures.add_argument("--threads", type=int, help=tr(THREADS_HELP))
    figures.add_argument("--force", action="store_true", help=tr("replace files of the same names in --out"))
    figures.set_defaults(run=_cmd_figures)
    from attnviz.cli_explain import add_parser as add_explain
    from attnviz.cli_heads import add_heads_parser

    add_heads_parser(sub)
    add_explain(sub)
    return parser


COMMANDS = ("demo", "train", "translate", "fill-mask", "eval", "export", "figures", "to-hf", "heads", "explain")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one CLI command; returns the process exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    with _sigterm_unwinds():
        return _run_reporting(run, args)


class Terminated(BaseException):
    """SIGTERM or SIGHUP (a closed terminal), raised where the program is so that it unwinds as Ctrl+C does:
    outputs in progress are taken back (staging folders, temporary files, a folder made for them) before the exit.
    ``signum``: which."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def _sigterm_unwinds() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Terminated` (once: a second one while the first unwinds is ignored); SIGHUP
    only where it is not ignored already (``nohup attnviz …`` keeps running when the terminal closes)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    raised: list[int] = []

    def terminate(signum: int, _frame: object) -> None:
        if not raised:
            raised.append(signum)
            raise Terminated(signum)

    caught = [signal.SIGTERM, *([signal.SIGHUP] if signal.getsignal(signal.SIGHUP) is signal.SIG_DFL else [])]
    previous = {number: signal.signal(number, terminate) for number in caught}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _report_stop(stopped: BaseException) -> int:
    """Say what Ctrl+C, SIGTERM or SIGHUP left behind, truthfully, and return the exit code: 0 when the signal came
    while the output was being moved into place (held until the move was whole: the output is complete), else
    128 + the signal's number (nothing was left half-written)."""
    import signal

    signum = stopped.signum if isinstance(stopped, Terminated) else signal.SIGINT
    if (folder := getattr(stopped, "completed_output", None)) is not None:
        print(tr("attnviz: {signal} came as the output was being moved into place; the move was finished first, so "
                 "{folder} is complete").format(signal=signal.Signals(signum).name, folder=shown(folder)),
              file=sys.stderr)
        return 0
    said = {int(signal.SIGINT): tr("attnviz: interrupted; no output was left half-written"),
            int(signal.SIGHUP): tr("attnviz: hung up (the terminal closed); no output was left half-written")}
    print(said.get(int(signum), tr("attnviz: terminated; no output was left half-written")), file=sys.stderr)
    return 128 + signum


def _run_reporting(run: Callable[[argparse.Namespace], int], args: argparse.Namespace) -> int:
    """``run(args)``, every problem reported in one line on stderr and turned into the exit code."""
    try:
        return run(args)
    except CliError as error:
        print(tr("attnviz: error: {message}").format(message=shown(error)), file=sys.stderr)
        return EXIT_USAGE
    except (KeyboardInterrupt, Terminated) as stopped:
        return _report_stop(stopped)
    except (OSError, ValueError) as error:  # unreadable files, bad values: still no traceback
        print(tr("attnviz: error: {message}").format(message=shown(error)), file=sys.stderr)
        return EXIT_USAGE
    except Exception as error:  # a bug: one line for the user, exit 1 (not a usage problem)
        if os.environ.get("ATTNVIZ_DEBUG"):
            raise
        print(tr("attnviz: internal error: {kind}: {error} (set ATTNVIZ_DEBUG=1 to see where)").format(
            kind=type(error).__name__, error=error), file=sys.stderr)
        return EXIT_INTERNAL
