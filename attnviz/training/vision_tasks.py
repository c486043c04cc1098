"""Watching a vision transformer learn an image task whose right attention is known (``attnviz train vit --task
shapes``, the Train dock): :mod:`attnviz.core.learning.image_tasks` draws every training batch afresh, and the run
records, in the same :class:`~attnviz.core.learning.history.TrainingHistory` as a text task's run, snapshots of the
probe image's ``[CLS]`` attention, the held-out accuracy and the agreement of ``[CLS]`` attention with the
shape's patches.

Which attention: the **rollout** of every layer (Abnar & Zuidema 2020, :mod:`attnviz.core.attention.rollout`:
heads averaged, the residual as 0.5·I, the layers multiplied), ``[CLS]``'s row. The question is which *input*
patches ``[CLS]`` reads, and after the first layer a position is no longer its patch: it holds what it gathered.
Measured on the tiny model (2 layers, 2 heads) after 768 steps, held-out: the last layer alone puts 32 % of
``[CLS]``'s patch attention on the shape (top-k overlap 57 %) — in a 2-layer model ``[CLS]`` gathers the shape in
layer 1 (81 %) and reads other positions in layer 2 — while the rollout puts 57 % there (top-k 93 %); the last
layer alone would call a model that has learned to look at the shape one that has not. ``[CLS]``'s share of itself
is left out and the rest renormalised over the P patches (the map and both agreements are shares of what ``[CLS]``
draws from patches).

Agreement (``Snapshot.agreement``): the share of that attention on the shape's patches, averaged over the
held-out images (even attention scores the shape's share of the patches, about 6 of 49). Top-k overlap
(``Snapshot.overlap``): of the k patches ``[CLS]`` attends to most, k the shape's patch count, the share that are
the shape's, averaged likewise. Shapes: B batch, L layers, H heads, N = 1 + P positions, G patches per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from attnviz.core.attention.rollout import DEFAULT_RESIDUAL
from attnviz.core.checkpoints.checkpoint import build_model, save_checkpoint
from attnviz.core.learning.history import (
    ROLLOUT_NOTE,
    Ending,
    ProbeImage,
    Snapshot,
    TrainingHistory,
    has_learned,
)
from attnviz.core.learning.image_tasks import IMAGE_TASKS, ImageExample, ImageTask
from attnviz.core.limits import check_config_values
from attnviz.core.models.kinds import kind_named
from attnviz.i18n import tr
from attnviz.training.control import Control
from attnviz.training.live import LiveSettings, check_weights, train_with_snapshots
from attnviz.training.options import TrainingError
from attnviz.training.schedule import descend


def image_batch(examples: list[ImageExample]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(images (B, 1, S, S) float32, labels (B,) int64, patches (B, P) bool) of ``examples``."""
    images = torch.from_numpy(np.stack([e.image for e in examples]))[:, None]
    labels = torch.tensor([e.label for e in examples], dtype=torch.int64)
    patches = torch.from_numpy(np.stack([e.patches.reshape(-1) for e in examples]))
    return images, labels, patches


def cls_attention(weights: torch.Tensor, residual: float = DEFAULT_RESIDUAL) -> torch.Tensor:
    """weights (L, B, H, N, N) -> (B, P): ``[CLS]``'s row of the rollout (each layer's heads averaged, A_l =
    residual·I + (1 − residual)·mean_h W_l, R = A_L ⋯ A_1), its share of itself left out and the rest renormalised
    over the patches. (The same numbers as :func:`attnviz.core.attention.rollout.rollout`, batched in torch.)"""
    layers = weights.float().mean(2)  # (L, B, N, N)
    eye = torch.eye(layers.shape[-1], device=layers.device)
    flows = residual * eye + (1 - residual) * layers[0]  # (B, N, N)
    for layer in layers[1:]:
        flows = (residual * eye + (1 - residual) * layer) @ flows  # R_l = A_l @ R_{l-1}
    row = flows[:, 0, 1:]  # (B, P)
    return row / row.sum(-1, keepdim=True).clamp_min(1e-12)


def agreements(shares: torch.Tensor, patches: torch.Tensor) -> tuple[float, float]:
    """shares (B, P) of ``[CLS]`` attention, patches (B, P) bool the right ones -> (the mean share on the right
    patches, the mean top-k overlap: of the k patches attended to most, k the right ones' count, the share that are
    right)."""
    share = float((shares * patches).sum(-1).mean())
    ranks = shares.argsort(-1, descending=True).argsort(-1)  # (B, P): 0 for the patch attended to most
    counts = patches.sum(-1, keepdim=True)  # (B, 1): k per image
    top = ranks < counts
    overlap = float(((top & patches).sum(-1) / counts.squeeze(-1).clamp_min(1)).mean())
    return share, overlap


@dataclass
class TrainedImageModel:
    """A finished (or stopped) image-task run: the model in eval mode, its classes, history and training info."""

    kind: str
    model: nn.Module
    classes: tuple[str, ...]
    history: TrainingHistory
    info: dict[str, Any]

    def save(self, path: str | Path) -> Path:
        """Write the checkpoint (float32, loaded back before it takes its name) with its history."""
        training = {**self.info, "history": self.history.to_json()}
        return save_checkpoint(path, self.model, labels=self.classes, training=training, verify=True)


class ImageTaskTraining:
    """One run on an image task: ``run`` trains, calling ``on_snapshot`` with the history so far after every
    snapshot. An epoch is ``settings.train_size`` freshly generated images (none is seen twice)."""

    def __init__(self, kind: str, task: ImageTask, arch: dict[str, Any], settings: LiveSettings,
                 probe: str | None = None, device: torch.device | str = "cpu"):
        if problems := settings.problems():
            raise TrainingError(problems[0])
        seed = task.probe_seed(task.probe if probe is None else probe)
        if seed is None:
            raise TrainingError(tr("the probe {text!r} is not a probe of the {name} task: give the seed of its probe "
                                   "image, a whole number (e.g. {example})").format(text=probe, name=task.name,
                                                                                   example=task.probe))
        if arch.get("patch_size", task.patch) != task.patch:
            raise TrainingError(tr("the {name} task's right attention is on patches of {patch} × {patch} pixels: "
                                   "leave patch_size as it is").format(name=task.name, patch=task.patch))
        model_kind = kind_named(kind)
        values = {**arch, "image_size": task.side, "patch_size": task.patch, "channels": 1,
                  "num_classes": len(task.classes)}
        if problems := check_config_values(model_kind.config_cls, values, model_kind.attention_cells):
            raise TrainingError(tr("the model cannot be built: {problem}").format(problem=problems[0]))
        try:
            config = model_kind.make_config(**values)
        except ValueError as error:
            raise TrainingError(tr("the model cannot be built: {problem}").format(problem=error)) from None
        self.kind, self.task, self.settings, self.device = kind, task, settings, torch.device(device)
        self.arch = arch
        torch.manual_seed(settings.seed)
        self.model: Any = build_model(config).to(self.device)
        self.lr = settings.lr if settings.lr is not None else model_kind.default_lr
        self.probe = task.probe_example(seed)
        self._probe_input = image_batch([self.probe])
        self._held = image_batch(task.examples(settings.heldout_size, settings.seed, held_out=True))
        probe_image = ProbeImage(self.probe.image, task.patch, self.probe.patches, task.classes[self.probe.label],
                                 seed)
        self.history = TrainingHistory(kind, task.name, task.score_name, probe_image=probe_image)
        self._stream = task.stream(settings.seed)

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(self.settings.train_size / self.settings.batch_size)

    def run(self, control: Control | None = None, on_snapshot: Any = None) -> TrainedImageModel:
        """Train until the epochs or the minutes are done, the model has learned, or ``control`` stops it; the model
        as it is then."""
        control = control or Control()
        settings, steps = self.settings, self.steps_per_epoch
        total = settings.epochs * steps
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.lr, weight_decay=0.01, foreach=True)
        loss_fn = nn.CrossEntropyLoss()

        def batches(_epoch: int) -> Any:
            for index in range(steps):
                size = min(settings.batch_size, settings.train_size - index * settings.batch_size)
                yield image_batch([next(self._stream) for _ in range(size)])

        def train_step(step: int, batch: Any) -> float:
            images, labels, _ = batch
            self.model.train()
            loss = loss_fn(self.model(images.to(self.device)).logits, labels.to(self.device))
            return descend(optimizer, self.model, loss, step, total, self.lr, settings.warmup_steps, 1.0)

        def snapshot(step: int, seconds: float, loss: float) -> TrainingHistory:
            self.history = self.history.with_snapshot(self._snapshot(step, seconds, loss))
            return self.history

        def learned() -> bool:
            return has_learned(self.history.snapshots, self.task.score_name, settings.learned,
                               settings.learned_evaluations)

        step, why = train_with_snapshots(settings, steps, batches, train_step, snapshot, learned, control,
                                         on_snapshot, lambda: check_weights(self.model, self.lr))
        self.history = self.history.ended(Ending(why, settings.learned, settings.learned_evaluations, settings.epochs,
                                                 settings.minutes, self.task.score_name))
        self.model.eval()
        last = self.history.snapshots[-1]
        info = {"task": self.task.name, "data": self.task.name, "steps": step, "epochs_completed": step / steps,
                "minutes": round(last.seconds / 60, 2), "stopped": control.stopped, "device": str(self.device),
                "learned": why == "learned", "ending": why, "score": last.score, "score_name": self.task.score_name,
                "agreement": last.agreement, "overlap": last.overlap,
                "parameters": sum(p.numel() for p in self.model.parameters()), "peak_lr": self.lr,
                "options": dict(vars(settings)), "arch": dict(self.arch)}
        return TrainedImageModel(self.kind, self.model, self.task.classes, self.history, info)

    @torch.no_grad()
    def _snapshot(self, step: int, seconds: float, loss: float) -> Snapshot:
        """Score the model on the held-out images and record the probe's ``[CLS]`` map (the model left in eval
        mode)."""
        model, task = self.model, self.task
        model.eval()
        images, labels, patches = self._held
        right, shares = 0, []
        for begin in range(0, len(labels), 256):
            out = model(images[begin: begin + 256].to(self.device), need_weights=True)
            right += int((out.logits.argmax(-1).cpu() == labels[begin: begin + 256]).sum())
            shares.append(cls_attention(out.weights).cpu())
        agreement, overlap = agreements(torch.cat(shares), patches)
        probe = model(self._probe_input[0].to(self.device), need_weights=True)
        layers, heads = probe.weights.shape[0], probe.weights.shape[2]
        grid = task.grid
        probe_map = cls_attention(probe.weights)[0].reshape(grid, grid).cpu().numpy()  # (P,) -> (G, G)
        note = ROLLOUT_NOTE.format(layers=layers, heads=heads)  # (English: stored)
        said = task.classes[int(probe.logits.argmax(-1)[0])]
        numbers = tuple(str(i + 1) for i in range(grid))
        return Snapshot(step, seconds, loss, 100.0 * right / len(labels), agreement, numbers, numbers,
                        probe_map.astype(np.float32), note, (said,), overlap)


def task_training(kind: str, task: str, arch: dict[str, Any], settings: LiveSettings, probe: str | None = None,
                  device: torch.device | str = "cpu") -> ImageTaskTraining:
    """The run of ``kind`` on the image task called ``task`` (the registry record's ``TaskSizes.trainer``)."""
    if task not in IMAGE_TASKS:
        raise TrainingError(tr("unknown task {name!r}; known: {known}").format(name=task, known=", ".join(IMAGE_TASKS)))
    return ImageTaskTraining(kind, IMAGE_TASKS[task], arch, settings, probe, device)
