"""A training run the window watches: :class:`TrainingRun` trains on a thread of its own (never the model's
worker, which keeps decoding) and hands each snapshot's :class:`~attnviz.core.learning.history.TrainingHistory`
(numpy only) and its end back through the runner's ``post``, on the GUI thread.

A run on a generated task stops once the model has learned, by the rule ``attnviz train --task`` stops by
(:func:`attnviz.core.learning.history.has_learned`), or when its epochs or minutes are done, or the user stops
it. Then the model is written to ``request.out`` (loaded back before it takes its name, with its history) and
``on_done`` gets that path and the final history, whose ``ending`` says why it ended: the window opens it like
any checkpoint. Importing this module never imports torch: the run does, on its thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attnviz.core.learning.history import LEARNED_PERCENT
from attnviz.i18n import tr
from attnviz.training.control import Control

if TYPE_CHECKING:
    from attnviz.core.learning.history import TrainingHistory

log = logging.getLogger(__name__)
KERNEL_TASK = "kernel-regression"  # the task of the Nadaraya–Watson model (its own synthetic data)
FILE_TASK = "file"  # a TSV of the user's


@dataclass(frozen=True)
class TrainRequest:
    """What to train: ``kind`` (a live kind or "kernel-regression"), ``task`` (a task name, "file" with
    ``data_path``, or "kernel-regression"), the architecture settings over the kind's defaults, how long,
    how many snapshots, the probe input (None: the task's own), where the checkpoint goes, and the held-out
    exact match (%) at which a task's run stops as learned (None: train every epoch)."""

    kind: str
    task: str
    out: Path
    arch: dict[str, Any] = field(default_factory=dict)
    epochs: int = 20
    minutes: float | None = None
    snapshots: int = 30
    probe: str | None = None
    data_path: Path | None = None
    device: str = "cpu"
    seed: int = 0
    learned: float | None = LEARNED_PERCENT


def save_copy(checkpoint: Path, target: Path) -> None:
    """Copy a trained checkpoint to ``target``, whole or not at all: a new file, or an attnviz checkpoint (which
    the user agreed to replace); anything else is refused (``TargetError``, a ValueError naming the path)."""
    import shutil

    from attnviz.core.safe_output import atomic_output
    from attnviz.training.target import check_target

    check_target(target, replace=True)
    with atomic_output(target) as tmp:
        shutil.copyfile(checkpoint, tmp)


class TrainingRun:
    """One training on its own daemon thread; pause, resume and stop from the GUI thread.

    on_snapshot(history) after every snapshot, then on_done(path, history) (the final history, its ``ending``
    set) or on_failed(message), all through ``post``;
    nothing is delivered once ``closed()`` (the window is gone), and then the run stops at its next step.
    """

    def __init__(self, request: TrainRequest, post: Callable[[Callable[[], None]], None],
                 on_snapshot: Callable[[TrainingHistory], None], on_done: Callable[[Path, TrainingHistory], None],
                 on_failed: Callable[[str], None], closed: Callable[[], bool] = lambda: False, inline: bool = False):
        self.request, self._post, self._closed = request, post, closed
        self._on_snapshot, self._on_done, self._on_failed = on_snapshot, on_done, on_failed
        self.control = Control()
        self.running = False
        self.inline = inline  # start() trains in the caller (an InlineRunner's session: tests, scripts)
        self._thread = threading.Thread(target=self._work, name="attnviz-training", daemon=True)

    def start(self) -> None:
        """Start on the run's thread (inline: train here and now, delivering as it goes)."""
        self.running = True
        if self.inline:
            self._work()
        else:
            self._thread.start()

    @property
    def paused(self) -> bool:
        return self.control.paused

    def pause(self) -> None:
        self.control.pause()

    def resume(self) -> None:
        self.control.resume()

    def stop(self) -> None:
        """Stop after the step under way; the model as it is then is saved and opened."""
        self.control.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end (tests, closing); whether it has."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _deliver(self, callback: Callable[[], None]) -> None:
        if self._closed():
            self.control.stop()
            return
        self._post(lambda: None if self._closed() else callback())

    def _work(self) -> None:
        try:
            path, history = self._train()
        except Exception as error:  # one sentence for the window: training errors are written for people
            from attnviz.training.options import TrainingError

            if not isinstance(error, TrainingError | OSError | ValueError):
                log.exception("training failed")
            message = str(error) or type(error).__name__
            self._deliver(lambda: self._finish(lambda: self._on_failed(message)))
            return
        self._deliver(lambda: self._finish(lambda: self._on_done(path, history)))

    def _finish(self, then: Callable[[], None]) -> None:
        self.running = False
        then()

    def _train(self) -> tuple[Path, TrainingHistory]:
        from attnviz.core.device import pick_device
        from attnviz.core.models.kinds import task_trainer
        from attnviz.training.live import LiveSettings, LiveTraining, file_data
        from attnviz.training.live_kernel import KernelTraining

        request = self.request

        def snapshot(history: TrainingHistory) -> None:
            self._deliver(lambda: self._on_snapshot(history))

        if request.task == KERNEL_TASK:
            trainer: Any = KernelTraining(request.epochs, seed=request.seed)
        else:
            settings = LiveSettings(epochs=request.epochs, minutes=request.minutes, snapshots=request.snapshots,
                                    seed=request.seed, learned=request.learned)
            if request.task == FILE_TASK:
                if request.data_path is None:
                    raise ValueError(tr("choose the TSV of source<TAB>target pairs to train on"))
                data = file_data(request.data_path, settings, request.probe)
                trainer = LiveTraining(request.kind, data, request.arch, settings, pick_device(request.device))
            else:  # (the kind's registry record names what trains it on a task)
                trainer = task_trainer(request.kind)(request.kind, request.task, request.arch, settings,
                                                     request.probe, pick_device(request.device))
        trained = trainer.run(self.control, snapshot)
        request.out.parent.mkdir(parents=True, exist_ok=True)
        return trained.save(request.out), trained.history
