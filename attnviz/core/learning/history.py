"""A training's history: snapshots of the loss, the held-out score, the alignment agreement and the probe's
attention map, taken while a model trains (:mod:`attnviz.training.live`), kept in its checkpoint's training
info under ``"history"`` and read back, untrusted, when the checkpoint is opened again. numpy only.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from attnviz.i18n import N_, tr

MAX_SNAPSHOTS = 1000
MAX_MAP_CELLS = 10_000  # one snapshot's map at most (the kernel regression's is 50 × 50)
MAX_LABEL_CHARS = 100

# A snapshot's note as live training writes it, in English (it is kept in the checkpoint); translated when shown
LAYER_HEAD_NOTE = N_("layer {layer} · head {head}")
LAYER_MEAN_NOTE = N_("layer {layer} · mean of {heads} heads")
ROLLOUT_NOTE = N_("[CLS] rollout · {layers} layers · {heads} heads averaged")  # an image task's map
_NOTES = ((re.compile(r"layer (?P<layer>\d+) · head (?P<head>\d+)"), LAYER_HEAD_NOTE),
          (re.compile(r"layer (?P<layer>\d+) · mean of (?P<heads>\d+) heads"), LAYER_MEAN_NOTE),
          (re.compile(r"\[CLS\] rollout · (?P<layers>\d+) layers · (?P<heads>\d+) heads averaged"), ROLLOUT_NOTE))


def shown_note(note: str) -> str:
    """A snapshot's stored note in the interface's language (a note it does not know: as it is)."""
    for pattern, template in _NOTES:
        if match := pattern.fullmatch(note):
            return tr(template).format(**match.groupdict())
    return note


# The rule a run on a generated task stops by once the model has learned (``attnviz train --task`` and the Train
# dock alike): held-out exact match (an image task: accuracy) at least LEARNED_PERCENT % at LEARNED_EVALUATIONS
# snapshots in a row.
PERCENT_SCORES = ("exact match", "accuracy")  # the held-out scores in % of the examples a task's run learns by
LEARNED_PERCENT = 99.0
LEARNED_EVALUATIONS = 3
ENDINGS = ("learned", "epochs", "minutes", "stopped")  # why a run ended (Ending.why)


def has_learned(snapshots: Sequence[Snapshot], score_name: str, level: float | None,
                evaluations: int = LEARNED_EVALUATIONS) -> bool:
    """The learned rule: held-out exact match or accuracy (%, :data:`PERCENT_SCORES`) at least ``level`` at the last
    ``evaluations`` snapshots taken after the first step. Never true for a run scored otherwise (BLEU, test MSE) or
    without a level (None)."""
    scored = [s for s in snapshots if s.step > 0]
    return (level is not None and score_name in PERCENT_SCORES and len(scored) >= evaluations
            and all(s.score >= level for s in scored[-evaluations:]))


@dataclass(frozen=True)
class Ending:
    """Why a run ended: ``why`` one of :data:`ENDINGS` — "learned" (:func:`has_learned` held for ``level`` % at
    ``evaluations`` snapshots in a row), "epochs" (all ``epochs`` were trained), "minutes" (the limit of
    ``minutes`` ran out) or "stopped" (the user's Stop, or Ctrl-C). score_name: the held-out score the learned
    rule read (:data:`PERCENT_SCORES`)."""

    why: str
    level: float | None = None
    evaluations: int = LEARNED_EVALUATIONS
    epochs: int | None = None
    minutes: float | None = None
    score_name: str = "exact match"

    def to_json(self) -> dict[str, Any]:
        return {"why": self.why, "level": self.level, "evaluations": self.evaluations, "epochs": self.epochs,
                "minutes": self.minutes, "score_name": self.score_name}

    @classmethod
    def from_json(cls, raw: Any) -> Ending | None:
        """A stored ending, or None where it is missing or not one (an extra: the history shows without it)."""
        if not isinstance(raw, dict) or raw.get("why") not in ENDINGS:
            return None
        level, evaluations, epochs, minutes = (raw.get(k) for k in ("level", "evaluations", "epochs", "minutes"))
        if not ((level is None or (_real(level) and 0 < level <= 100))
                and isinstance(evaluations, int) and 0 < evaluations <= MAX_SNAPSHOTS
                and (epochs is None or (isinstance(epochs, int) and 0 < epochs < 10**6))
                and (minutes is None or (_real(minutes) and 0 < minutes < 10**6))):
            return None
        score_name = raw.get("score_name", "exact match")
        return cls(raw["why"], None if level is None else float(level), evaluations, epochs,
                   None if minutes is None else float(minutes),
                   score_name if score_name in PERCENT_SCORES else "exact match")

    @property
    def shown(self) -> str:
        """Why it stopped, as the Train dock says it (in the interface's language)."""
        if self.why == "learned":
            level = self.level if self.level is not None else LEARNED_PERCENT
            if self.score_name != "exact match":
                return tr("learned: held-out {score} at least {level:g} % at {count} evaluations in a row").format(
                    score=tr(self.score_name), level=level, count=self.evaluations)
            return tr("learned: held-out exact match at least {level:g} % at {count} evaluations in a row").format(
                level=level, count=self.evaluations)
        if self.why == "minutes":
            return tr("time limit ({minutes:g} min) reached").format(minutes=self.minutes or 0)
        if self.why == "stopped":
            return tr("stopped by the user")
        if self.epochs == 1:
            return tr("epoch limit (1 epoch) reached")
        if self.epochs is not None:
            return tr("epoch limit (all {epochs:,} epochs) reached").format(epochs=self.epochs)
        return tr("epoch limit reached")


class HistoryError(ValueError):
    """A stored history that cannot be shown; one sentence."""


@dataclass(frozen=True)
class ProbeImage:
    """An image task's probe: pixels (S, S) grey in [0, 1], cut into square patches of ``patch`` pixels;
    patches (G, G) bool: the right attention (the patches its shape covers); answer: the right class's name (in
    English, as the task names it); seed: what ``--probe`` gives to draw it again. A snapshot's map is then (G, G):
    ``[CLS]``'s attention on each patch."""

    pixels: np.ndarray
    patch: int
    patches: np.ndarray
    answer: str
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"pixels": np.round(self.pixels.astype(np.float64), 3).tolist(), "patch": self.patch,
                "patches": self.patches.astype(int).tolist(), "answer": self.answer, "seed": self.seed}

    @classmethod
    def from_json(cls, raw: Any) -> ProbeImage:
        """Read a stored probe image, checking every field (HistoryError in one sentence)."""
        bad = HistoryError(tr("the training history's probe image is not a grey image with its patches"))
        if not isinstance(raw, dict):
            raise bad
        patch, answer, seed = raw.get("patch"), raw.get("answer"), raw.get("seed", 0)
        if not (isinstance(patch, int) and 0 < patch <= 100 and isinstance(answer, str)
                and 0 < len(answer) <= MAX_LABEL_CHARS and isinstance(seed, int) and 0 <= seed < 2**31):
            raise bad
        try:
            pixels = np.array(raw.get("pixels"), dtype=np.float64)
            patches = np.array(raw.get("patches"), dtype=np.float64)
        except (TypeError, ValueError):
            raise bad from None
        side = pixels.shape[0] if pixels.ndim == 2 else 0
        if not (pixels.shape == (side, side) and 0 < pixels.size <= MAX_MAP_CELLS and side % patch == 0
                and patches.shape == (side // patch, side // patch) and np.isfinite(pixels).all()
                and ((pixels >= 0) & (pixels <= 1)).all() and np.isin(patches, (0, 1)).all()):
            raise bad
        return cls(pixels.astype(np.float32), patch, patches.astype(bool), answer, seed)


@dataclass(frozen=True)
class Snapshot:
    """Where training stood after ``step`` optimizer steps (``seconds`` of training).

    loss: mean training loss since the previous snapshot (NaN at step 0); score: the held-out score
    (:attr:`TrainingHistory.score_name`); agreement: the share of output tokens whose strongest attention
    falls on a right source position (None without a gold alignment); map (rows, cols): the probe's
    attention, its rows the right answer's tokens fed to the decoder (teacher forcing, where the answer is
    known: the rows stay put from snapshot to snapshot) or else the model's own greedy output; note: which
    map it is ("layer 2 · head 3", "w = 4.1"); said: the model's greedy output for the probe (empty: not a
    translation model); overlap: an image task's top-k overlap — the share of the k patches [CLS] attends to most
    that are the right ones, k the right patches' count (None: not an image task).
    """

    step: int
    seconds: float
    loss: float
    score: float
    agreement: float | None
    rows: tuple[str, ...]
    cols: tuple[str, ...]
    map: np.ndarray
    note: str = ""
    said: tuple[str, ...] = ()
    overlap: float | None = None

    def to_json(self) -> dict[str, Any]:
        stored = {"step": self.step, "seconds": round(self.seconds, 2), "loss": _number(self.loss, 5),
                  "score": _number(self.score, 5),
                  "agreement": None if self.agreement is None else round(self.agreement, 4),
                  "rows": list(self.rows), "cols": list(self.cols),
                  "map": np.round(self.map.astype(np.float64), 4).tolist(), "note": self.note,
                  "said": list(self.said)}
        return stored | ({"overlap": round(self.overlap, 4)} if self.overlap is not None else {})

    @property
    def shown_note(self) -> str:
        """:attr:`note` as the interface shows it (:func:`shown_note`)."""
        return shown_note(self.note)


def _number(value: float, digits: int) -> float | None:
    return round(value, digits) if math.isfinite(value) else None


@dataclass(frozen=True)
class TrainingHistory:
    """What was trained on what, and its snapshots in step order.

    task: a task name (a text task of :data:`attnviz.core.learning.tasks.TASKS` or an image task), ``"file"`` or
    ``"kernel-regression"``; score_name: what ``Snapshot.score`` measures ("exact match", "accuracy", "BLEU",
    "test MSE"), higher_is_better for the curves' reading; probe_image: an image task's probe (None: the probe is
    a sentence, its tokens the maps' columns).
    """

    kind: str
    task: str
    score_name: str
    snapshots: tuple[Snapshot, ...] = field(default_factory=tuple)
    higher_is_better: bool = True
    ending: Ending | None = None  # why the run ended (None: still running, or not recorded)
    probe_image: ProbeImage | None = None

    def to_json(self) -> dict[str, Any]:
        stored = {"kind": self.kind, "task": self.task, "score_name": self.score_name,
                  "higher_is_better": self.higher_is_better, "snapshots": [s.to_json() for s in self.snapshots]}
        if self.probe_image is not None:
            stored["probe_image"] = self.probe_image.to_json()
        return stored | ({"ending": self.ending.to_json()} if self.ending is not None else {})

    @property
    def in_percent(self) -> bool:
        """Its score is a share of held-out examples in % (exact match, accuracy)."""
        return self.score_name in PERCENT_SCORES

    def with_snapshot(self, snapshot: Snapshot) -> TrainingHistory:
        return replace(self, snapshots=(*self.snapshots, snapshot))

    def ended(self, ending: Ending) -> TrainingHistory:
        return replace(self, ending=ending)

    @property
    def steps(self) -> np.ndarray:
        return np.array([s.step for s in self.snapshots], np.float64)

    def curve(self, name: str) -> np.ndarray:
        """``loss``, ``score`` or ``agreement`` per snapshot (NaN where there is none)."""
        return np.array([math.nan if getattr(s, name) is None else getattr(s, name) for s in self.snapshots],
                        np.float64)

    @classmethod
    def from_json(cls, raw: Any) -> TrainingHistory:
        """Read a stored history, checking every field (HistoryError naming the first bad one)."""
        if not isinstance(raw, dict):
            raise HistoryError(tr("the training history is not an object"))
        text = {name: raw.get(name) for name in ("kind", "task", "score_name")}
        if not all(isinstance(v, str) and 0 < len(v) <= MAX_LABEL_CHARS for v in text.values()):
            raise HistoryError(tr("the training history's kind, task or score name is missing"))
        snapshots = raw.get("snapshots")
        if not isinstance(snapshots, list) or not 0 < len(snapshots) <= MAX_SNAPSHOTS:
            raise HistoryError(tr("the training history must hold 1 to {count} snapshots").format(count=MAX_SNAPSHOTS))
        read = tuple(_snapshot(i, s) for i, s in enumerate(snapshots))
        if any(b.step <= a.step for a, b in itertools.pairwise(read)):
            raise HistoryError(tr("the training history's snapshots are not in step order (each at a later step "
                                  "than the one before)"))
        probe = ProbeImage.from_json(raw["probe_image"]) if raw.get("probe_image") is not None else None
        if probe is not None and any(s.map.shape != probe.patches.shape for s in read):
            raise HistoryError(tr("the training history's maps are not one cell per patch of its probe image"))
        return cls(text["kind"], text["task"], text["score_name"], read,  # type: ignore[arg-type]
                   bool(raw.get("higher_is_better", True)), Ending.from_json(raw.get("ending")), probe)


def _snapshot(index: int, raw: Any) -> Snapshot:
    where = tr("snapshot {number} of the training history").format(number=index + 1)
    if not isinstance(raw, dict):
        raise HistoryError(tr("{where} is not an object").format(where=where))
    step: Any = raw.get("step")
    seconds: Any = raw.get("seconds")
    if not (isinstance(step, int) and 0 <= step < 10**9 and _real(seconds) and seconds >= 0):
        raise HistoryError(tr("{where} has no step or time").format(where=where))
    values: dict[str, Any] = {name: raw.get(name) for name in ("loss", "score", "agreement", "overlap")}
    if not all(v is None or _real(v) for v in values.values()):
        raise HistoryError(tr("{where} holds a loss, score or agreement that is not a number").format(where=where))
    agreement, overlap = values["agreement"], values["overlap"]
    if any(share is not None and not 0 <= share <= 1 for share in (agreement, overlap)):
        raise HistoryError(tr("{where}'s agreement is not a share from 0 to 1").format(where=where))
    rows: Any = raw.get("rows")
    cols: Any = raw.get("cols")
    note: Any = raw.get("note", "")
    said: Any = raw.get("said", [])
    if not (_labels(rows) and _labels(cols) and _labels(said) and len(said) <= MAX_MAP_CELLS
            and isinstance(note, str) and len(note) <= MAX_LABEL_CHARS):
        raise HistoryError(tr("{where} has bad labels").format(where=where))
    if not 0 < len(rows) * len(cols) <= MAX_MAP_CELLS:
        raise HistoryError(tr("{where}'s map is empty or larger than {cells:,} cells").format(where=where,
                                                                                               cells=MAX_MAP_CELLS))
    try:
        values_map = np.array(raw.get("map"), dtype=np.float64)
    except (TypeError, ValueError):
        raise HistoryError(tr("{where}'s map is not a table of numbers").format(where=where)) from None
    if values_map.shape != (len(rows), len(cols)) or not np.isfinite(values_map).all():
        raise HistoryError(tr("{where}'s map is not {rows} × {cols} finite numbers").format(
            where=where, rows=len(rows), cols=len(cols)))
    return Snapshot(step, float(seconds), _float(values["loss"]), _float(values["score"]),
                    None if agreement is None else float(agreement), tuple(rows), tuple(cols),
                    values_map.astype(np.float32), note, tuple(said), None if overlap is None else float(overlap))


def _real(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _float(value: Any) -> float:
    return math.nan if value is None else float(value)


def _labels(labels: Any) -> bool:
    return isinstance(labels, list) and all(isinstance(t, str) and len(t) <= MAX_LABEL_CHARS for t in labels)
