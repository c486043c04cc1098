"""Training a vision transformer on Fashion-MNIST (``attnviz train vit --data DIR``).

The recipe (models/MODELS.md has the figures behind it): AdamW with weight decay, linear warm-up then cosine decay
(:func:`attnviz.training.schedule.lr_at`), label smoothing, gradient clipping; with ``augment``, light
augmentation — a random crop of the image padded by 2 pixels and a horizontal flip, each image its own.
Validation accuracy on the held-out part of the training images is measured after every epoch and recorded with
the checkpoint; the test images are not read here. Like the translators' training (:mod:`attnviz.training.train`)
it checks its options, ``--arch`` and ``--out`` before reading the data, saves a checkpoint the loader accepts
after every epoch, stops at ``--minutes``, and keeps its state beside ``out`` for ``--resume`` until its schedule
is done.
Shapes: B batch, C channels, S image side.
"""

from __future__ import annotations

import functools
import hashlib
import math
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import torch
from torch import Tensor, nn

from attnviz.core.checkpoints.checkpoint import build_model, model_size_problem, save_checkpoint
from attnviz.core.limits import check_config_values
from attnviz.core.models.kinds import kind_named
from attnviz.i18n import tr
from attnviz.training.epochs import check_finite, check_out, end_epoch, kept_note, start_run
from attnviz.training.fashion_mnist import CLASS_NAMES, SIDE, TRAIN, Split, idx_file, to_inputs, train_validation
from attnviz.training.options import TrainingError, arch_problems
from attnviz.training.resume import (
    SAVE_EVERY_S,
    RunIdentity,
    TrainingState,
    save_state,
)
from attnviz.training.schedule import descend

PAD = 2  # the random crop's padding, pixels on each side
EVAL_BATCH = 1000


@dataclass(frozen=True)
class ViTOptions:
    """Optimisation settings of a vision transformer's training (``attnviz train vit``)."""

    epochs: int = 20
    batch_size: int = 128
    lr: float | None = None  # peak learning rate after warm-up; None: the kind's default (ModelKind.default_lr)
    warmup_steps: int = 500
    weight_decay: float = 0.05
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    augment: bool = False  # random crop (padding 2) and horizontal flip (in the pilot it slowed learning: off)
    val_images: int = 5000  # held out of the 60,000 training images
    seed: int = 0
    minutes: float | None = None  # wall-clock budget; training stops after the step that crosses it
    stop_after: int | None = None  # stop after this many epochs; the LR schedule still spans ``epochs``


SCHEDULE = ("epochs", "batch_size", "lr", "warmup_steps", "weight_decay", "label_smoothing", "clip_norm", "augment",
            "val_images", "seed")  # what a resumed run must share with the stopped one


def vit_option_problems(values: dict[str, Any]) -> list[str]:
    """What is wrong with these ViTOptions values (the loader's ranges), each naming its --option."""
    problems = [f"--{name.replace('_', '-')}: {problem}" for name, value in values.items()
                for problem in check_config_values(ViTOptions, {name: value})]
    stop, epochs = values.get("stop_after"), values.get("epochs", ViTOptions.epochs)
    if not problems and stop is not None and stop > epochs:
        problems.append(tr("--stop-after {stop} is past the last epoch (--epochs {epochs})").format(stop=stop,
                                                                                                   epochs=epochs))
    return problems


def augment(images: Tensor, generator: torch.Generator | None = None) -> Tensor:
    """uint8 images (B, S, S) -> each randomly cropped back to S × S from its copy padded by :data:`PAD` pixels
    of background (0), then flipped left–right with probability ½."""
    b, side = images.shape[0], images.shape[-1]
    padded = nn.functional.pad(images, (PAD, PAD, PAD, PAD))  # (B, S + 2·PAD, S + 2·PAD)
    top = torch.randint(0, 2 * PAD + 1, (b,), generator=generator)
    left = torch.randint(0, 2 * PAD + 1, (b,), generator=generator)
    span = torch.arange(side)
    rows = (top[:, None] + span)[:, :, None]  # (B, S, 1)
    cols = (left[:, None] + span)[:, None, :]  # (B, 1, S)
    cropped = padded[torch.arange(b)[:, None, None], rows, cols]  # (B, S, S)
    flip = torch.rand(b, generator=generator) < 0.5
    return torch.where(flip[:, None, None], cropped.flip(-1), cropped)


@torch.no_grad()
def accuracy(model: nn.Module, split: Split, device: torch.device) -> float:
    """Top-1 accuracy of ``model`` on ``split`` (eval mode), a fraction."""
    model.eval()
    right = 0
    for begin in range(0, len(split), EVAL_BATCH):
        inputs = to_inputs(split.images[begin: begin + EVAL_BATCH]).to(device)
        predicted = model(inputs).logits.argmax(-1).cpu()
        right += int((predicted == split.labels[begin: begin + EVAL_BATCH]).sum())
    return right / max(len(split), 1)


def data_digest(folder: str | Path) -> str:
    """SHA-256 over the training images' and labels' files as stored (a resumed run must read the same)."""
    digest = hashlib.sha256()
    for stem in (f"{TRAIN}-images-idx3-ubyte", f"{TRAIN}-labels-idx1-ubyte"):
        with open(idx_file(Path(folder), stem), "rb") as handle:
            digest.update(hashlib.file_digest(handle, "sha256").digest())
    return digest.hexdigest()


def _progress(log: TextIO, epoch: int, epochs: int, done: int, total: int, loss: float, batches_per_s: float,
              batch_size: int) -> None:
    """The progress line: where the epoch stands, its mean loss so far, the speed and the epoch's time left."""
    eta = (total - done) / max(batches_per_s, 1e-9)
    images_per_s = batches_per_s * batch_size
    log.write(tr("epoch {epoch}/{epochs}: batch {done:,}/{total:,}, loss {loss:.3f}, {rate:,.0f} images/s, "
                 "{eta:.1f} min left in the epoch").format(epoch=epoch, epochs=epochs, done=done, total=total,
                                                           loss=loss, rate=images_per_s, eta=eta / 60) + "\n")
    log.flush()


def train_vit(data: str | Path, out: str | Path, device: torch.device, opts: ViTOptions,
              arch: dict[str, Any] | None = None, log: TextIO | None = None, replace_existing: bool = False,
              resume: bool = False) -> dict[str, Any]:
    """Train a vision transformer on the Fashion-MNIST folder ``data`` and save it to ``out`` after every epoch
    (see the module's docstring). Problems raise :class:`TrainingError`. Returns the training info stored in the
    checkpoint (data, sizes, time, per-epoch validation accuracy)."""
    log = log or sys.stderr
    kind = "vit"
    model_kind = kind_named(kind)
    if problems := vit_option_problems(vars(opts)) or arch_problems(kind, arch or {}):
        raise TrainingError(problems[0])
    state_file, resumed = start_run(out, resume=resume, replace_existing=replace_existing, stop_after=opts.stop_after)
    train, val = train_validation(data, opts.seed, opts.val_images)
    values = {**(arch or {}), "image_size": SIDE, "channels": 1, "num_classes": len(CLASS_NAMES)}
    if problems := check_config_values(model_kind.config_cls, values, model_kind.attention_cells):
        raise TrainingError(problems[0])
    try:
        config = model_kind.make_config(**values)
    except ValueError as error:  # a patch size that does not divide 28, say
        raise TrainingError(f"--arch: {error}") from None
    if problem := model_size_problem(config):
        raise TrainingError(tr("{problem} (make --arch smaller)").format(problem=problem))
    peak_lr = opts.lr if opts.lr is not None else model_kind.default_lr
    schedule = {name: getattr(opts, name) for name in SCHEDULE} | {"lr": peak_lr}
    identity = RunIdentity(kind, data_digest(data), schedule, dict(arch or {}), (len(CLASS_NAMES), 0))
    if resumed and (why := identity.mismatch(resumed.identity)):
        raise TrainingError(tr("--resume: {path} is another run's: {why}").format(path=state_file, why=why))
    torch.manual_seed(opts.seed)
    model = build_model(config).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    log.write(tr("{kind}: {train:,} training images, {val:,} validation images; {parameters:,} parameters; device "
                 "{device}").format(kind=kind, train=len(train), val=len(val), parameters=n_params, device=device)
              + "\n")
    steps_per_epoch = math.ceil(len(train) / opts.batch_size)
    total_steps = opts.epochs * steps_per_epoch
    # weight decay on the matrices and the convolution, not on biases, norms, [CLS] or the position embeddings
    decays = {name: p.dim() >= 2 and name not in ("cls_token", "pos_embedding") for name, p in model.named_parameters()}
    decay = [p for name, p in model.named_parameters() if decays[name]]
    rest = [p for name, p in model.named_parameters() if not decays[name]]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": opts.weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=peak_lr, foreach=True)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=opts.label_smoothing)
    run = resumed or TrainingState(identity, epoch=1, batches_done=0, step=0, model={}, optimizer={},
                                   rng=torch.get_rng_state())
    if resumed:
        model.load_state_dict(resumed.model)
        optimizer.load_state_dict(resumed.optimizer)
        torch.set_rng_state(resumed.rng)
        run.runs += 1
        log.write(tr("resuming epoch {epoch} at batch {batch} (step {step:,}) from {path}").format(
            epoch=run.epoch, batch=run.batches_done + 1, step=run.step, path=state_file) + "\n")
    started = time.perf_counter()
    deadline = started + opts.minutes * 60 if opts.minutes else None
    info: dict[str, Any] = {}

    def keep_state(epoch: int, batches_done: int, loss_sum: float, loss_batches: int) -> None:
        """Save where the run stands (a failure to save is reported and training goes on)."""
        snapshot = replace(run, epoch=epoch, batches_done=batches_done, loss_sum=loss_sum, loss_batches=loss_batches,
                           minutes=run.minutes + (time.perf_counter() - started) / 60,
                           model={k: v.detach().float().cpu() for k, v in model.state_dict().items()},
                           optimizer=optimizer.state_dict(), rng=torch.get_rng_state())
        try:
            save_state(state_file, snapshot)
        except OSError as error:
            log.write(tr("note: the training state could not be saved to {path} ({error}); this run cannot be "
                         "resumed from here").format(path=state_file, error=error) + "\n")

    for epoch in range(run.epoch, opts.epochs + 1):
        model.train()
        order = torch.randperm(len(train), generator=torch.Generator().manual_seed(opts.seed * 100_003 + epoch))
        first = run.batches_done if epoch == run.epoch else 0
        loss_sum, loss_batches = (run.loss_sum, run.loss_batches) if first else (0.0, 0)
        epoch_started = last_saved = last_said = time.perf_counter()
        out_of_time = False
        for i in range(first + 1, steps_per_epoch + 1):
            index = order[(i - 1) * opts.batch_size: i * opts.batch_size]
            images = augment(train.images[index]) if opts.augment else train.images[index]
            inputs, labels = to_inputs(images).to(device), train.labels[index].to(device)
            run.step += 1
            loss = loss_fn(model(inputs).logits, labels)
            value = descend(optimizer, model, loss, run.step, total_steps, peak_lr, opts.warmup_steps, opts.clip_norm)
            loss_sum, loss_batches = loss_sum + value, loss_batches + 1
            now = time.perf_counter()
            if now - last_said >= 30 or i == steps_per_epoch:
                rate = (i - first) / max(now - epoch_started, 1e-9)  # batches a second
                _progress(log, epoch, opts.epochs, i, steps_per_epoch, loss_sum / loss_batches, rate, opts.batch_size)
                last_said = now
            out_of_time = bool(deadline and now > deadline) and i < steps_per_epoch
            if out_of_time or (i < steps_per_epoch and now - last_saved > SAVE_EVERY_S):
                keep_state(epoch, i, loss_sum, loss_batches)
                last_saved = time.perf_counter()
            if out_of_time:
                break
        kept = kept_note(out, epoch)
        check_finite(model, epoch, peak_lr, kept)
        score = accuracy(model, val, device)
        minutes = run.minutes + (time.perf_counter() - started) / 60
        run.accuracy_history.append(round(100 * score, 2))
        run.loss_history.append(round(loss_sum / max(loss_batches, 1), 4))
        info = {"data": "Fashion-MNIST", "train_images": len(train), "val_images": len(val),
                "epochs_completed": epoch - out_of_time, "steps": run.step, "minutes": round(minutes, 1),
                "device": str(device), "threads": torch.get_num_threads(), "parameters": n_params,
                "val_accuracy": round(100 * score, 2), "val_accuracy_per_epoch": list(run.accuracy_history),
                "train_loss_per_epoch": list(run.loss_history), "peak_lr": peak_lr,
                "options": dict(vars(opts)), "seed": opts.seed, "runs": run.runs}
        if out_of_time:  # a partial epoch is scored but not part of the history a resumed run continues
            run.accuracy_history.pop()
            run.loss_history.pop()
        log.write(tr("epoch {epoch}: validation accuracy {accuracy:.2f} % after {minutes:.1f} min").format(
            epoch=epoch, accuracy=100 * score, minutes=minutes) + "\n")
        check_out(out, replace_existing or resume or epoch > 1)  # (a file put there while training is kept)
        save = functools.partial(save_checkpoint, out, model, labels=CLASS_NAMES, training=info, verify=True)
        if end_epoch(save, epoch, kept,
                     epochs=opts.epochs, stop_after=opts.stop_after, out_of_time=out_of_time, deadline=deadline,
                     state_file=state_file, keep_state=keep_state, log=log):
            break
    return info



