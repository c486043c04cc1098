"""What every training loop of ``attnviz train`` does between two epochs, one rule for all kinds: check the weights,
save the checkpoint and the state ``--resume`` continues, and say when to stop (``--stop-after``, ``--minutes``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

import torch
from torch import nn

from attnviz.core.checkpoints.checkpoint import CheckpointError
from attnviz.i18n import tr
from attnviz.training.options import TrainingError
from attnviz.training.resume import ResumeError, TrainingState, load_state, state_path
from attnviz.training.target import check_target


def kept_note(out: str | Path, epoch: int) -> str:
    """What ``out`` holds while epoch ``epoch`` (1-based) is under way: the epoch before it, or what was there."""
    return tr("{path} holds epoch {epoch}").format(path=out, epoch=epoch - 1) if epoch > 1 else \
        tr("{path} is as it was").format(path=out)


def check_finite(model: nn.Module, epoch: int, peak_lr: float, kept: str) -> None:
    """TrainingError where the weights became NaN or infinite in ``epoch`` (``kept``: what --out still holds)."""
    if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
        raise TrainingError(tr("training diverged in epoch {epoch}: the weights became NaN or infinite "
                               "(try a smaller --lr than {lr:g}); {kept}").format(epoch=epoch, lr=peak_lr, kept=kept))


def check_out(out: str | Path, replace_existing: bool) -> None:
    """--out may be written (:func:`attnviz.training.target.check_target`), else TrainingError naming --out."""
    try:
        check_target(out, replace_existing)
    except ValueError as error:
        raise TrainingError(f"--out {error}") from None


def read_state(state_file: Path, stop_after: int | None) -> TrainingState:
    """The state ``--resume`` continues, checked against ``--stop-after`` (TrainingError if it cannot be)."""
    try:
        state = load_state(state_file)
    except ResumeError as error:
        raise TrainingError(f"--resume: {error}") from None
    if stop_after is not None and stop_after < state.epoch:
        raise TrainingError(tr("--stop-after {stop}: the run in {path} has already finished epoch {epoch}").format(
            stop=stop_after, path=state_file, epoch=state.epoch - 1))
    return state


def start_run(out: str | Path, *, resume: bool, replace_existing: bool,
              stop_after: int | None) -> tuple[Path, TrainingState | None]:
    """Before a run: the file its state is kept in beside ``out`` and, with ``resume``, the state it continues
    (:func:`read_state`); TrainingError where an unfinished run is there and neither --resume nor --force is given,
    or where ``out`` may not be written (:func:`check_out`)."""
    state_file = state_path(out)
    resumed = read_state(state_file, stop_after) if resume else None
    if not resume and not replace_existing and state_file.exists():
        raise TrainingError(tr("{path} holds an unfinished run: add --resume to continue it, or --force to "
                               "start over").format(path=state_file))
    check_out(out, replace_existing or resume)
    return state_file, resumed


def end_epoch(save: Callable[[], object], epoch: int, kept: str, *, epochs: int, stop_after: int | None,
              out_of_time: bool, deadline: float | None, state_file: Path,
              keep_state: Callable[[int, int, float, int], None], log: TextIO) -> bool:
    """After epoch ``epoch`` (1-based) of ``epochs``: ``save()`` the checkpoint (TrainingError saying what --out still
    holds where it cannot be), keep the state the next epoch resumes from (none once the schedule is done), and say
    whether to stop: ``out_of_time`` (--minutes ran out inside the epoch), --stop-after, or the ``deadline``
    (``time.perf_counter()`` seconds) passed."""
    try:
        save()
    except (OSError, CheckpointError) as error:
        raise TrainingError(tr("epoch {epoch} could not be saved: {error}; {kept}").format(
            epoch=epoch, error=error, kept=kept)) from None
    if epoch == epochs and not out_of_time:
        state_file.unlink(missing_ok=True)  # the schedule is done: nothing is left to resume
    elif not out_of_time:
        keep_state(epoch + 1, 0, 0.0, 0)
    if out_of_time or epoch == stop_after or bool(deadline and time.perf_counter() > deadline):
        if out_of_time or epoch < epochs:
            log.write(tr("stopped; continue the schedule with the same command and --resume ({path})").format(
                path=state_file) + "\n")
        return True
    return False
