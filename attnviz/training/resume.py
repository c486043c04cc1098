"""A training run's state between sessions: what ``attnviz train --resume`` continues from.

Beside the checkpoint ``out`` training keeps ``out.resume`` (:func:`state_path`): the float32 weights,
Adam's moments, the step, the position in the epoch, the per-epoch history, the random state and the
settings the schedule depends on. It is written after every epoch and every :data:`SAVE_EVERY_S` seconds
inside one (atomically: a run killed at any moment leaves the previous state whole), and removed when the
last epoch of the schedule is done. A resumed run that reads the same data with the same settings makes
the same model as one that was never stopped (same threads, same machine).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from attnviz.core.safe_output import atomic_output
from attnviz.i18n import tr

SAVE_EVERY_S = 600.0  # inside an epoch, the state is saved when this much wall-clock time has passed
SCHEDULE_OPTIONS = ("epochs", "batch_size", "lr", "warmup_steps", "label_smoothing", "clip_norm",
                    "max_src_tokens", "max_tgt_tokens", "src_min_freq", "tgt_min_freq", "val_sources", "seed")


class ResumeError(ValueError):
    """There is no state to resume, it cannot be read, or it belongs to another run; one sentence."""


def state_path(out: str | Path) -> Path:
    """Where the run writing checkpoint ``out`` keeps its state."""
    out = Path(out)
    return out.with_name(out.name + ".resume")


def data_digest(path: str | Path) -> str:
    """SHA-256 of the training data file (a resumed run must read the same sentences)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


@dataclass
class RunIdentity:
    """What a run is: a resumed run must match every field of the stopped one."""

    kind: str
    data_sha256: str
    schedule: dict[str, Any]  # the TrainOptions fields of SCHEDULE_OPTIONS, or a kind's own (peak lr as resolved)
    arch: dict[str, Any]
    vocab_sizes: tuple[int, int]

    def mismatch(self, other: RunIdentity) -> str | None:
        """The first difference from ``other`` (the stopped run), as a sentence naming the option; None if none."""
        if self.kind != other.kind:
            return tr("it trained {other}, not {this}").format(other=other.kind, this=self.kind)
        if self.data_sha256 != other.data_sha256:
            return tr("it trained on a different --data file (its contents differ)")
        extra = sorted((set(self.schedule) | set(other.schedule)) - set(SCHEDULE_OPTIONS))  # (another kind's own)
        for name in (*SCHEDULE_OPTIONS, *extra):
            if self.schedule.get(name) != other.schedule.get(name):
                flag = "--" + name.replace("_", "-")
                return tr("it ran with {option} {other}, this run has {this}").format(
                    option=flag, other=other.schedule.get(name), this=self.schedule.get(name))
        if self.arch != other.arch:
            return tr("it ran with {option} {other}, this run has {this}").format(
                option="--arch", other=other.arch or "{}", this=self.arch or "{}")
        if tuple(self.vocab_sizes) != tuple(other.vocab_sizes):
            return tr("its vocabularies differ from this data's")
        return None


@dataclass
class TrainingState:
    """Where a run stands: ``epoch`` is the epoch under way (1-based) and ``batches_done`` of its batches are
    done (0: it starts there); ``step`` counts all optimizer steps so far."""

    identity: RunIdentity
    epoch: int
    batches_done: int
    step: int
    model: dict[str, torch.Tensor]
    optimizer: dict[str, Any]
    rng: torch.Tensor
    loss_sum: float = 0.0  # this epoch's loss so far, over loss_batches batches
    loss_batches: int = 0
    bleu_history: list[float] = field(default_factory=list)
    loss_history: list[float] = field(default_factory=list)
    accuracy_history: list[float] = field(default_factory=list)  # a classifier's validation accuracy per epoch, %
    minutes: float = 0.0  # wall-clock minutes of the earlier runs
    cuda_rng: torch.Tensor | None = None  # the CUDA generator's state when the run trains on a GPU
    runs: int = 1  # how many runs (this one included) made the model


def save_state(path: Path, state: TrainingState) -> None:
    """Write ``state`` to ``path`` atomically (OSError if it cannot)."""
    payload = asdict(state)
    payload["identity"]["vocab_sizes"] = list(state.identity.vocab_sizes)
    with atomic_output(path) as tmp:
        torch.save(payload, tmp)


def load_state(path: Path) -> TrainingState:
    """Read a state written by :func:`save_state`; ResumeError if it is missing or unreadable."""
    if not path.is_file():
        raise ResumeError(tr("no training state at {path}: there is nothing to resume (a run writes it after "
                             "each epoch and removes it when its schedule is done)").format(path=path))
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
        identity = RunIdentity(**payload.pop("identity"))
        return TrainingState(identity=identity, **payload)
    except Exception as error:  # a truncated, foreign or older file: it cannot be continued
        raise ResumeError(tr("{path} is not a training state attnviz can continue ({kind})").format(
            path=path, kind=type(error).__name__)) from None
