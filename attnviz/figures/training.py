"""The figures of a training's history (:class:`~attnviz.core.learning.history.TrainingHistory`): the probe's
map at a snapshot, the curves (loss; held-out score and alignment agreement), and the flip-book's frames
(each snapshot's map over the loss so far). numpy only."""

from __future__ import annotations

import math

import numpy as np

from attnviz.core.learning.history import Snapshot, TrainingHistory
from attnviz.figures.spec import FigureSpec, LineSpec, NamedFigure, Series, StackSpec
from attnviz.i18n import tr

CURVE_WIDTH_PX = 460  # a flip-book frame's map is drawn at most this wide, above the curve


def snapshot_caption(history: TrainingHistory, snapshot: Snapshot) -> str:
    """``step 384 · 3 s · exact match 85.5 % · agreement 100 %`` (the loss where there is one)."""
    parts = [tr("step {step:,}").format(step=snapshot.step), _duration(snapshot.seconds)]
    if math.isfinite(snapshot.loss):
        parts.append(tr("loss {loss:.3g}").format(loss=snapshot.loss))
    if math.isfinite(snapshot.score):
        parts.append(f"{score_name(history)} {_score_text(history, snapshot.score)}")
    if snapshot.agreement is not None:
        parts.append(tr("agreement {percent:.0f} %").format(percent=100 * snapshot.agreement))
    return " · ".join(parts)


def score_name(history: TrainingHistory) -> str:
    """What the history's score measures, in the interface's language (the history keeps it in English; the
    training code marks each name for translation)."""
    return tr(history.score_name)


def _score_text(history: TrainingHistory, score: float) -> str:
    return f"{score:.1f} %" if history.in_percent else f"{score:.3g}"


def _duration(seconds: float) -> str:
    return (tr("{seconds:.0f} s").format(seconds=seconds) if seconds < 120
            else tr("{minutes:.1f} min").format(minutes=seconds / 60))


def map_axes(history: TrainingHistory) -> tuple[str, str]:
    if history.task == "kernel-regression":
        return tr("queries x"), tr("keys xᵢ")
    if history.probe_image is not None:
        return tr("patch row"), tr("patch column")
    return tr("output tokens"), tr("input tokens")


def snapshot_figure(history: TrainingHistory, index: int, max_grid_px: float = 560) -> FigureSpec:
    """The probe's attention map at snapshot ``index``, titled with where training stood. An image probe's map is
    its patch grid, coloured from 0 to the largest share any snapshot gives one patch (a share of 49 patches is far
    from 1; one scale for every snapshot keeps them comparable)."""
    snapshot = history.snapshots[index]
    rows, cols = map_axes(history)
    note = f" · {snapshot.shown_note}" if snapshot.note else ""
    numeric = history.task == "kernel-regression"
    top = max(float(s.map.max()) for s in history.snapshots) if history.probe_image is not None else 1.0
    return FigureSpec(snapshot.map, snapshot.rows, snapshot.cols, f"{snapshot_caption(history, snapshot)}{note}",
                      levels=(0.0, top if top > 0 else 1.0),
                      row_axis=rows, col_axis=cols, max_grid_px=max_grid_px,
                      row_values=np.array([float(v) for v in snapshot.rows]) if numeric else None,
                      col_values=np.array([float(v) for v in snapshot.cols]) if numeric else None)


def loss_curve(history: TrainingHistory, upto: int | None = None, title: str | None = None) -> LineSpec:
    """The training loss per snapshot (the mean since the one before), up to snapshot ``upto``; ``title``
    None: "Training loss"."""
    shown = history.snapshots[: None if upto is None else upto + 1]
    steps = np.array([s.step for s in shown], np.float64)
    loss = np.array([s.loss for s in shown], np.float64)
    keep = np.isfinite(loss)
    return LineSpec((Series(tr("training loss"), steps[keep], loss[keep]),),
                    tr("Training loss") if title is None else title, tr("step"), tr("loss"))


def score_curves(history: TrainingHistory) -> LineSpec:
    """The held-out score and (with a gold alignment) the alignment agreement, in %, per snapshot."""
    steps = history.steps
    score = history.curve("score")
    if history.score_name == "test MSE":
        return LineSpec((Series(tr("test MSE"), steps, score),), tr("Test error"), tr("step"),
                        tr("mean squared error"))
    series = [Series(score_name(history), steps, score)]
    if np.isfinite(history.curve("agreement")).any():
        series.append(Series(tr("alignment agreement"), steps, 100 * history.curve("agreement"), "dashed"))
    return LineSpec(tuple(series), tr("Held-out score and alignment agreement"), tr("step"), "%", (0.0, 100.0))


def training_frames(history: TrainingHistory) -> list[StackSpec]:
    """One flip-book frame per snapshot: its map above the loss curve so far (on the whole run's axes, so
    the curve grows in place from frame to frame)."""
    whole = loss_curve(history)
    frames = []
    for index in range(len(history.snapshots)):
        so_far = loss_curve(history, index)
        curve = _on_axes_of(so_far, whole)
        frames.append(StackSpec((snapshot_figure(history, index, CURVE_WIDTH_PX), curve)))
    return frames


def _on_axes_of(part: LineSpec, whole: LineSpec) -> LineSpec:
    """``part`` drawn on ``whole``'s ranges: an invisible bracket series pins x, the y range is fixed."""
    xs = np.concatenate([np.asarray(s.x, np.float64) for s in whole.series]) if whole.series else np.zeros(0)
    ys = np.concatenate([np.asarray(s.y, np.float64) for s in whole.series]) if whole.series else np.zeros(0)
    if not xs.size:
        return part
    low, high = float(ys.min()), float(ys.max())
    y_range = (min(0.0, low), high * 1.05 if high > low else low + 1.0)
    bracket = Series("", np.array([0.0, xs.max()]), np.array([math.nan, math.nan]), "points")
    return LineSpec((*part.series, bracket), part.title, part.x_label, part.y_label, y_range)


def curves_figure(history: TrainingHistory) -> StackSpec:
    """The loss above the held-out score and agreement: the Train dock's curves, as one figure."""
    return StackSpec((loss_curve(history), score_curves(history)))


def training_figures(history: TrainingHistory, stem: str) -> list[NamedFigure]:
    """The curves and the first, middle and last maps, for ``export --training`` and the Train dock."""
    last = len(history.snapshots) - 1
    picks = sorted({0, last // 2, last})
    maps = [NamedFigure(f"{stem}_map_step{history.snapshots[i].step:06d}", snapshot_figure(history, i)) for i in picks]
    return [NamedFigure(f"{stem}_loss", loss_curve(history)), NamedFigure(f"{stem}_scores", score_curves(history)),
            *maps]
