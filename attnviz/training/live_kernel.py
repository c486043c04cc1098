"""The book's Nadaraya–Watson regression trained where you can watch it: one snapshot per epoch of the
leave-one-out loss, the test error, the learned w and the attention weights of the test queries over the
training keys (they sharpen as w grows)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import torch

from attnviz.core.learning.history import Ending, Snapshot, TrainingHistory
from attnviz.core.models.kernel_regression import KernelRegressionConfig, KernelRegressionModel, leave_one_out
from attnviz.i18n import N_, tr
from attnviz.training.control import Control
from attnviz.training.live import TrainedModel
from attnviz.training.options import KERNEL_REGRESSION_EPOCHS, KERNEL_REGRESSION_LR, TrainingError

MAX_EPOCHS = 1000
SCORE_NAME = N_("test MSE")  # (kept in the history and the checkpoint in English; translated when shown)


class KernelTraining:
    """Full-batch SGD on w (the book's recipe), ``epochs`` steps, a snapshot after each."""

    def __init__(self, epochs: int = KERNEL_REGRESSION_EPOCHS, lr: float | None = None, seed: int = 0):
        if not 1 <= epochs <= MAX_EPOCHS:
            raise TrainingError(tr("--epochs must be from 1 to {most:,}").format(most=MAX_EPOCHS))
        self.lr = KERNEL_REGRESSION_LR if lr is None else lr
        if not 0 < self.lr <= 10:
            raise TrainingError(tr("--lr must be more than 0 and at most 10"))
        self.epochs, self.seed = epochs, seed
        torch.manual_seed(seed)
        self.model = KernelRegressionModel(replace(KernelRegressionConfig(), seed=seed))
        self.history = TrainingHistory("kernel-regression", "kernel-regression", SCORE_NAME, higher_is_better=False)

    def run(self, control: Control | None = None,
            on_snapshot: Callable[[TrainingHistory], None] | None = None) -> TrainedModel:
        control = control or Control()
        model = self.model
        keys, values = leave_one_out(model.x_train, model.y_train)
        optimizer = torch.optim.SGD(model.parametric.parameters(), lr=self.lr)
        started, paused_for = time.perf_counter(), 0.0
        step = 0

        def loss_now() -> torch.Tensor:
            return ((model.parametric(model.x_train, keys, values).predictions - model.y_train) ** 2).sum() / 2

        def snapshot(loss: float) -> None:
            self.history = self.history.with_snapshot(self._snapshot(step, time.perf_counter() - started - paused_for,
                                                                     loss))
            if on_snapshot:
                on_snapshot(self.history)

        with torch.no_grad():
            snapshot(float(loss_now()))
        for step in range(1, self.epochs + 1):
            paused_for += control.wait_while_paused()
            if control.stopped:
                step -= 1
                break
            optimizer.zero_grad()
            loss = loss_now()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                snapshot(float(loss_now()))
        if not torch.isfinite(model.parametric.w).all():
            raise TrainingError(tr("training diverged: w became NaN or infinite (try a smaller learning rate than "
                                   "{lr:g})").format(lr=self.lr))
        ending = Ending("stopped") if control.stopped else Ending("epochs", epochs=self.epochs)
        self.history = self.history.ended(ending)
        last = self.history.snapshots[-1]
        info = {"task": "kernel-regression", "epochs": step, "lr": self.lr, "stopped": control.stopped,
                "loss_before": self.history.snapshots[0].loss, "loss_after": last.loss,
                "w": model.parametric.w.item(), "minutes": round(last.seconds / 60, 3), "score": last.score,
                "score_name": SCORE_NAME}
        return TrainedModel("kernel-regression", model, None, None, self.history, info)

    @torch.no_grad()
    def _snapshot(self, step: int, seconds: float, loss: float) -> Snapshot:
        model = self.model
        prediction = model(model.x_test)
        mse = float(((prediction.predictions - model.y_test) ** 2).mean())
        return Snapshot(step, seconds, loss, mse, None, tuple(f"{x:.1f}" for x in model.x_test.tolist()),
                        tuple(f"{x:.2f}" for x in model.x_train.tolist()),
                        prediction.weights.numpy().astype(np.float32), f"w = {model.parametric.w.item():.2f}")
