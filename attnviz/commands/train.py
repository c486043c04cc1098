"""``attnviz train``: train one model (on sentence pairs, a generated --task or masked words), write its checkpoint."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from attnviz.commands.shared import CliError, Terminated, chosen_device, set_threads
from attnviz.core.layout import Capability
from attnviz.core.models.kinds import KINDS, data_trainer, data_trainer_modules
from attnviz.i18n import tr

TRAIN_TRANSLATION_ONLY = ("data", "arch", "batch_size", "minutes", "stop_after", "resume")  # kernel-regression has none
LIVE_ONLY = ("preset", "snapshots", "probe", "learned")  # train options of a --task run
MAX_ARCH_NESTING = 16  # --arch is one flat object: deeper JSON is refused before it is parsed
MLM_TASK = "mlm"  # attnviz train encoder-only --task mlm: masked words of the English side of --data


def add_parser(subparsers: Any) -> None:
    """The ``train`` command's options."""
    from attnviz.training.options import KERNEL_REGRESSION_EPOCHS, KERNEL_REGRESSION_LR, TrainOptions

    trainable = [name for name, kind in KINDS.items() if kind.trainable]
    lrs = "; ".join(f"{name} {KINDS[name].default_lr:g}" for name in trainable
                    if KINDS[name].reads_text or KINDS[name].data_trainer is not None)
    train = subparsers.add_parser("train", help=tr("train a model on sentence pairs and write a checkpoint"))
    train.add_argument("kind", choices=trainable)
    own_data = "".join(module.data_help() for module in data_trainer_modules())
    train.add_argument("--data", help=tr("TSV of english<TAB>french pairs (required; kernel-regression takes "
                                         "none{others})").format(others=own_data))
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
    for module in data_trainer_modules():  # (the options of kinds trained on data of their own sort: --augment …)
        module.add_arguments(train)
    train.add_argument("--arch", help=tr('JSON of model settings, e.g. \'{"num_decoder_layers": 3}\' '
                                         "(default: the kind's standard model, models/MODELS.md)"))
    from attnviz.core.models.kinds import all_tasks, task_kinds, tasks_of

    learns = "; ".join(f"{kind}: {', '.join(tasks_of(kind))}" for kind in task_kinds())
    train.add_argument("--task", choices=[*all_tasks(), MLM_TASK], help=tr("train on a generated task whose right "
                       "alignment is known, recording the training's history (default: none, train on --data; the user "
                       "guide's \"Watch it learn\"; {learns}); mlm: an encoder-only model on the masked words of "
                       "--data's English").format(learns=learns))
    train.add_argument("--preset", choices=["tiny", "small"], help=tr("--task: the model's size (default small; "
                       "--arch changes single settings)"))
    train.add_argument("--snapshots", type=int, metavar="N", help=tr("--task: snapshots of the probe's map and the "
                       "scores (default 30)"))
    train.add_argument("--probe",
                       help=tr("--task: the input whose attention map is recorded (default: the task's own; an image "
                               "task: the seed of its probe image, 0)"))
    train.add_argument("--learned", type=float, metavar="PERCENT",
                       help=tr("--task: stop once held-out exact match (an image task: accuracy) is at least PERCENT "
                               "at 3 evaluations in a row, and save (default 99; 0: train every epoch)"))
    train.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Train one model and write its checkpoint; every option, --arch and --out are checked first."""
    from attnviz.training.train import TrainOptions, train_kernel_regression, train_translation

    if args.threads is not None:
        set_threads(args.threads)
    if args.task == MLM_TASK or KINDS[args.kind].sequence_layout.offers(Capability.MASKS):
        return _train_mlm(args)
    if args.task is not None:
        return _train_task(args)
    if given := [f"--{name}" for name in LIVE_ONLY if getattr(args, name) is not None]:
        raise CliError(tr("{option} goes with --task (a task's training is recorded in snapshots)").format(
            option=given[0]))
    if (own := data_trainer(args.kind)) is not None:  # (a kind trained on data of its own sort: images …)
        return cast(int, own(args, _parse_arch, _training_errors))
    for module in data_trainer_modules():
        module.refuse_options(args)
    with _training_errors(args.out):
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
        info = train_translation(args.kind, args.data, args.out, chosen_device(args.device),
                                 TrainOptions(**overrides), arch, replace_existing=args.force,
                                 resume=bool(args.resume))
    if info["val_bleu"] is None:
        print(tr("wrote {out}: training BLEU {bleu:.2f} (too few sentences for a validation split) after "
                 "{minutes} min").format(out=args.out, bleu=info["train_bleu"], minutes=info["minutes"]))
    else:
        print(tr("wrote {out}: validation BLEU {bleu:.2f} after {minutes} min").format(
            out=args.out, bleu=info["val_bleu"], minutes=info["minutes"]))
    return 0


@contextlib.contextmanager
def _training_errors(out: Path) -> Iterator[None]:
    """A run stopped by Ctrl+C or SIGTERM says where its state is kept (the same command with --resume continues
    it) and stops; a TrainingError becomes the command's one error line."""
    from attnviz.training.options import TrainingError
    from attnviz.training.resume import state_path

    try:
        yield
    except (KeyboardInterrupt, Terminated):
        if (state := state_path(out)).is_file():
            print(tr("attnviz: the run's state is kept in {state}: the same command with --resume continues it"
                     ).format(state=state), file=sys.stderr)
        raise
    except TrainingError as error:
        raise CliError(str(error)) from None


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
    if given := [f"--{name.replace('_', '-')}" for name in (*LIVE_ONLY, "stop_after", "resume", "minutes", "augment")
                 if getattr(args, name, None) is not None]:
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
                                 device=chosen_device(args.device), threads=None)
    history = {**trained.history, "source": "attnviz train", "task": MLM_TASK}
    save_checkpoint(args.out, trained.model, src_vocab=trained.vocab, tgt_vocab=trained.vocab, training=history,
                    half=True, verify=True)
    print(tr("wrote {out}: masked-word accuracy {accuracy:.1%}; one content word top-1 {top1:.1%}, top-5 {top5:.1%} "
             "on the held-out sentences").format(out=args.out, accuracy=history["val_masked_accuracy_per_epoch"][-1],
                                                  top1=history["content_word_top1"], top5=history["content_word_top5"]))
    return 0


def _train_task(args: argparse.Namespace) -> int:
    """``attnviz train KIND --task NAME``: train on a generated task, recording snapshots of the probe's map,
    the loss, the held-out score and the agreement with the right attention; Ctrl-C stops it and saves what it
    learned. The kind's registry record says which tasks it learns and what trains it."""
    import signal

    from attnviz.core.learning.history import LEARNED_PERCENT
    from attnviz.core.models.kinds import preset_arch, task_kinds, task_trainer, tasks_of
    from attnviz.training.control import Control
    from attnviz.training.live import LiveSettings
    from attnviz.training.options import TrainingError
    from attnviz.training.target import TargetError, check_target

    if args.kind not in task_kinds():
        raise CliError(tr("--task trains {kinds}; {kind} trains on its own data (leave out --task)").format(
            kinds=", ".join(task_kinds()), kind=args.kind))
    if args.task not in tasks_of(args.kind):
        learners = [kind for kind in task_kinds() if args.task in tasks_of(kind)]
        raise CliError(tr("--task {task} trains {kinds}; {kind} learns {tasks}").format(
            task=args.task, kinds=", ".join(learners), kind=args.kind, tasks=", ".join(tasks_of(args.kind))))
    if given := [f"--{name.replace('_', '-')}" for name in ("data", "stop_after", "resume", "augment")
                 if getattr(args, name, None)]:
        raise CliError(tr("{option} does not go with --task (the task's data is generated)").format(option=given[0]))
    changes = {k: v for k, v in {"epochs": args.epochs, "minutes": args.minutes, "snapshots": args.snapshots,
                                   "batch_size": args.batch_size, "lr": args.lr, "seed": args.seed}.items()
               if v is not None}
    learned = LEARNED_PERCENT if args.learned is None else args.learned  # (the Train dock's rule too)
    settings = LiveSettings(**changes, learned=learned or None)  # (0: every epoch)
    arch = {**preset_arch(args.kind, args.preset or "small"),
            **(_parse_arch(args.kind, args.arch) if args.arch is not None else {})}
    score = tr(tasks_of(args.kind)[args.task].score_name)
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
        if last.overlap is not None:
            agreement += tr(" (top-k overlap {overlap:.0f} %)").format(overlap=100 * last.overlap)
        loss = "" if last.loss != last.loss else tr("loss {loss:.3f}, ").format(loss=last.loss)
        if history.probe_image is not None:  # (an image: its seed, what it shows and what the model calls it)
            probe = tr("probe image {seed} ({answer})").format(seed=history.probe_image.seed,
                                                               answer=history.probe_image.answer)
        else:
            probe = " ".join(last.cols)
        print(tr("step {step:,} ({seconds:.0f} s): {loss}{score} {value:.1f} %{agreement}; {probe} -> {said}"
                 ).format(step=last.step, seconds=last.seconds, loss=loss, score=score, value=last.score,
                          agreement=agreement, probe=probe, said=" ".join(last.said) or tr("(nothing)")),
              file=sys.stderr, flush=True)

    try:
        check_target(args.out, args.force)
        run = task_trainer(args.kind)(args.kind, args.task, arch, settings, args.probe, chosen_device(args.device))
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
        print(tr("stopped at step {step:,}: held-out {score} at least {level:g} % at {count} evaluations in a "
                 "row (--learned 0 trains every epoch)").format(step=info["steps"], score=score, level=settings.learned,
                                                              count=settings.learned_evaluations), file=sys.stderr)
    stopped = tr(" (stopped early)") if info["stopped"] else ""
    if info.get("overlap") is not None:
        print(tr("wrote {out}{stopped}: {score} {value:.1f} %, [CLS] attention on the right patches {agreement:.0f} % "
                 "(top-k overlap {overlap:.0f} %) after {steps:,} steps ({minutes} min)").format(
            out=args.out, stopped=stopped, score=score, value=info["score"], agreement=100 * (info["agreement"] or 0),
            overlap=100 * info["overlap"], steps=info["steps"], minutes=info["minutes"]))
        return 0
    print(tr("wrote {out}{stopped}: exact match {score:.1f} %, alignment agreement {agreement:.0f} % after "
             "{steps:,} steps ({minutes} min)").format(out=args.out, stopped=stopped, score=info["score"],
                                                        agreement=100 * (info["agreement"] or 0),
                                                        steps=info["steps"], minutes=info["minutes"]))
    return 0


def _nesting(text: str) -> int:
    """How deep JSON ``text`` nests objects and arrays (brackets inside strings do not count), read without
    parsing it: json's own limit follows the interpreter's recursion limit, which an imported library may raise."""
    deepest = depth = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "}]":
            depth -= 1
    return deepest


def _parse_arch(kind: str, text: str) -> dict:
    """--arch: a JSON object of model settings, each one the kind's config has, in the loader's ranges."""
    from attnviz.core.models.kinds import kind_named
    from attnviz.training.options import arch_problems

    if _nesting(text) > MAX_ARCH_NESTING:
        raise CliError(tr("--arch is nested too deeply; give a flat JSON object of settings"))
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
