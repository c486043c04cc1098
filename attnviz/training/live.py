"""Training you can watch: a translation model trained on a generated task (or a TSV of pairs) with
snapshots of its loss, held-out score, alignment agreement and a probe's attention map as it learns.

The Train dock runs :class:`LiveTraining` on a worker thread (pause, resume and stop through
:class:`Control`); ``attnviz train KIND --task NAME`` runs it in the terminal. The trained model is saved
with its :class:`~attnviz.core.learning.history.TrainingHistory` in the checkpoint's training info, so opening
it again shows the history.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.checkpoints.checkpoint import build_model, save_checkpoint
from attnviz.core.decoding.beam_search import encode_batch, translate
from attnviz.core.heads.alignment import cross_attention, gold_mask, head_agreement
from attnviz.core.learning.bleu import corpus_bleu
from attnviz.core.learning.history import (
    LAYER_HEAD_NOTE,
    LAYER_MEAN_NOTE,
    LEARNED_EVALUATIONS,
    Ending,
    Snapshot,
    TrainingHistory,
    has_learned,
)
from attnviz.core.learning.tasks import Example, task_named
from attnviz.core.limits import check_config_values, seed_problem
from attnviz.core.models.kinds import kind_named, preset_arch, task_kinds
from attnviz.core.text import Vocab, tokenize
from attnviz.i18n import N_, tr
from attnviz.training.control import Control
from attnviz.training.data import describe_skipped, make_batches, read_pairs, split_by_source
from attnviz.training.options import TrainingError
from attnviz.training.schedule import descend

LIVE_KINDS = tuple(kind for kind in task_kinds() if kind_named(kind).reads_text)  # the kinds it trains
__all__ = ["preset_arch"]  # (re-exported: the CLI, the bench and the tests build their models with it)
MAX_FILE_PAIRS = 200_000  # a TSV's pairs kept for live training (the Tatoeba file has about 230,000)


@dataclass(frozen=True)
class LiveSettings:
    """How long and how to train. An epoch is one pass over ``train_size`` examples (a task) or the file's
    training pairs; training stops after ``epochs`` or ``minutes``, whichever comes first, and takes
    ``snapshots`` snapshots spread over that (plus one before the first step)."""

    epochs: int = 20
    minutes: float | None = None
    snapshots: int = 30
    batch_size: int = 64
    lr: float | None = None  # None: the kind's default
    warmup_steps: int = 100
    seed: int = 0
    train_size: int = 8192
    heldout_size: int = 256
    # Stop once held-out exact match is at least ``learned`` % at ``learned_evaluations`` snapshots in a row
    # (core.training_history.has_learned; None: train every epoch). attnviz train --task and the Train dock set
    # core.training_history.LEARNED_PERCENT.
    learned: float | None = None
    learned_evaluations: int = LEARNED_EVALUATIONS

    def problems(self) -> list[str]:
        checks = [("epochs", 1, 10_000), ("snapshots", 1, 500), ("batch_size", 1, 4096),
                  ("warmup_steps", 0, 10**6), ("train_size", 16, 10**6), ("heldout_size", 1, 10_000)]
        found = [tr("{option} must be from {low:,} to {high:,}").format(option=f"--{name.replace('_', '-')}",
                                                                          low=low, high=high)
                 for name, low, high in checks
                 if not (isinstance(getattr(self, name), int) and low <= getattr(self, name) <= high)]
        if problem := seed_problem(self.seed):
            found.append(problem)
        if self.learned is not None and not (0 < self.learned <= 100):
            found.append(tr("--learned must be more than 0 and at most 100 (%)"))
        if self.minutes is not None and not (0 < self.minutes <= 24 * 60):
            found.append(tr("--minutes must be more than 0 and at most 1,440"))
        if self.lr is not None and not (0 < self.lr <= 1):
            found.append(tr("--lr must be more than 0 and at most 1"))
        return found


@dataclass(frozen=True)
class TrainingData:
    """What a live run trains on: training and held-out examples (gold alignments empty for a file), the
    vocabularies, the probe whose map is drawn, and the held-out score's name."""

    task: str  # a task name, or "file"
    name: str  # what the window calls it: "reverse", "pairs.tsv"
    train: list[Example]
    heldout: list[Example]
    src_vocab: Vocab
    tgt_vocab: Vocab
    probe: Example
    score_name: str

    @property
    def has_gold(self) -> bool:
        return bool(self.heldout) and bool(self.heldout[0].gold)

    @property
    def max_lens(self) -> tuple[int, int]:
        examples = [*self.train, *self.heldout, self.probe]
        return max(len(e.src) for e in examples), max(len(e.tgt) for e in examples) + 2


def task_data(name: str, settings: LiveSettings, probe: str | None = None) -> TrainingData:
    """A generated task's data; ``probe``: the input whose map is drawn (the task's own by default).
    TrainingError if the probe is not an input of the task."""
    task = task_named(name)
    src_vocab, tgt_vocab = task.vocabularies()
    text = task.probe if probe is None else probe
    example = task.solve(tuple(tokenize(text.lower())))
    if example is None:
        raise TrainingError(tr("the probe {text!r} is not an input of the {name} task (e.g. {example!r})").format(
            text=text, name=name, example=task.probe))
    if len(example.src) > task.max_src_len:
        raise TrainingError(tr("the probe {text!r} is longer than the {name} task's inputs ({low} to {high} "
                               "digits)").format(text=text, name=name, low=task.lengths[0], high=task.lengths[1]))
    return TrainingData(name, name, task.examples(settings.train_size, settings.seed),
                        task.examples(settings.heldout_size, settings.seed, held_out=True), src_vocab, tgt_vocab,
                        example, N_("exact match"))


def file_data(path: str | Path, settings: LiveSettings, probe: str | None = None) -> TrainingData:
    """A TSV of source<TAB>target pairs (as ``attnviz train --data`` reads it); a tenth of its sources, at
    most ``heldout_size``, held out for BLEU. TrainingError, in one sentence, when it has no usable pair."""
    path = Path(path)
    skipped: Counter[str] = Counter()
    try:
        pairs = read_pairs(path, 12, 20, skipped)[:MAX_FILE_PAIRS]
    except OSError as error:
        raise TrainingError(tr("{name}: cannot be read ({error})").format(name=path.name,
                                                                          error=error.strerror or error)) from None
    if not pairs:
        if skipped:
            raise TrainingError(tr("{name}: no usable source<TAB>target pairs (lines skipped: {skipped})").format(
                name=path.name, skipped=describe_skipped(skipped)))
        raise TrainingError(tr("{name}: no usable source<TAB>target pairs (the file has no lines)").format(
            name=path.name))
    sources = len({p.src for p in pairs})
    train, heldout = split_by_source(pairs, min(settings.heldout_size, sources // 10), settings.seed)
    src_vocab = Vocab.build([p.src for p in train], 1)
    tgt_vocab = Vocab.build([p.tgt for p in train], 1)
    examples = [Example(p.src, p.tgt, ()) for p in train]
    held = [Example(p.src, p.tgt, ()) for p in heldout]
    probe_src = tuple(tokenize(probe.lower())) if probe else examples[0].src
    if not probe_src:
        raise TrainingError(tr("the probe sentence is empty"))
    return TrainingData("file", path.name, examples, held, src_vocab, tgt_vocab, Example(probe_src, (), ()),
                        N_("BLEU") if held else N_("training BLEU"))


@dataclass
class TrainedModel:
    """A finished (or stopped) run: the model in eval mode, its vocabularies, history and training info."""

    kind: str
    model: nn.Module
    src_vocab: Vocab | None  # None: the kernel-regression model
    tgt_vocab: Vocab | None
    history: TrainingHistory
    info: dict[str, Any]

    def save(self, path: str | Path) -> Path:
        """Write the checkpoint (float32, loaded back before it takes its name) with its history."""
        training = {**self.info, "history": self.history.to_json()}
        return save_checkpoint(path, self.model, src_vocab=self.src_vocab, tgt_vocab=self.tgt_vocab,
                               training=training, verify=True)


@torch.inference_mode()
def greedy_with_attention(model: Any, src: tuple[str, ...], src_vocab: Vocab, tgt_vocab: Vocab,
                          max_len: int, device: torch.device) -> tuple[list[str], Tensor]:
    """The greedy output tokens of one source (<eos> included when reached) and their cross-attention
    (T, L, H, S)."""
    ids, valid = encode_batch([src], src_vocab)
    state, _ = model.start(ids.to(device), valid.to(device))
    token = torch.tensor([tgt_vocab.bos_id], device=device)
    tokens, rows = [], []
    for _ in range(max_len):
        log_probs, state, attention = model.step(token, state, need_attention=True)
        log_probs[:, list(tgt_vocab.banned)] = -math.inf
        token = log_probs.argmax(-1)
        tokens.append(tgt_vocab.tokens[int(token)])
        rows.append(attention.cross_weights[0].float().cpu())
        if int(token) in tgt_vocab.end_ids:
            break
    return tokens, torch.stack(rows)


class LiveTraining:
    """One run: ``run`` trains, calling ``on_snapshot`` with the history so far after every snapshot."""

    def __init__(self, kind: str, data: TrainingData, arch: dict[str, Any], settings: LiveSettings,
                 device: torch.device | str = "cpu"):
        if kind not in LIVE_KINDS:
            raise TrainingError(tr("{kind} cannot be trained here; choose one of {kinds}").format(
                kind=kind, kinds=", ".join(LIVE_KINDS)))
        if problems := settings.problems():
            raise TrainingError(problems[0])
        model_kind = kind_named(kind)
        max_src, max_tgt = data.max_lens
        values = {**arch, "src_vocab_size": len(data.src_vocab), "tgt_vocab_size": len(data.tgt_vocab),
                  "max_src_len": max_src, "max_tgt_len": max_tgt}
        if problems := check_config_values(model_kind.config_cls, values, model_kind.attention_cells):
            raise TrainingError(tr("the model cannot be built: {problem}").format(problem=problems[0]))
        self.kind, self.data, self.settings, self.device = kind, data, settings, torch.device(device)
        self.arch = arch  # (kept in the training info: the Train dock shows the size of a model opened again)
        torch.manual_seed(settings.seed)
        self.model: Any = build_model(model_kind.make_config(**values)).to(self.device)
        self.lr = settings.lr if settings.lr is not None else model_kind.default_lr
        self.history = TrainingHistory(kind, data.task, data.score_name)
        self.head = (0, 0)  # the (layer, head) whose map is drawn: the best-aligned one with a gold alignment
        self._held = encode_batch([e.src for e in data.heldout], data.src_vocab) if data.heldout else None

    @property
    def steps_per_epoch(self) -> int:
        return math.ceil(len(self.data.train) / self.settings.batch_size)

    def run(self, control: Control | None = None,
            on_snapshot: Callable[[TrainingHistory], None] | None = None) -> TrainedModel:
        """Train until the epochs or the minutes are done or ``control`` stops it; the model as it is then."""
        control = control or Control()
        settings, data = self.settings, self.data
        total = settings.epochs * self.steps_per_epoch
        optimizer = torch.optim.Adam(self.model.parameters(), lr=self.lr, betas=(0.9, 0.98), foreach=True)
        loss_fn = nn.CrossEntropyLoss(ignore_index=data.tgt_vocab.pad_id)

        def batches(epoch: int) -> Iterable[Any]:
            return make_batches(data.train, data.src_vocab, data.tgt_vocab, settings.batch_size,  # type: ignore[arg-type]
                                settings.seed + epoch)

        def train_step(step: int, batch: Any) -> float:
            batch = batch.to(self.device)
            self.model.train()
            logits = self.model(batch.src, batch.src_valid_lens, batch.tgt_in)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1))
            return descend(optimizer, self.model, loss, step, total, self.lr, settings.warmup_steps, 1.0)

        def snapshot(step: int, seconds: float, loss: float) -> TrainingHistory:
            self.history = self.history.with_snapshot(self._snapshot(step, seconds, loss))
            return self.history

        step, why = train_with_snapshots(settings, self.steps_per_epoch, batches, train_step, snapshot,
                                         self._has_learned, control, on_snapshot,
                                         lambda: check_weights(self.model, self.lr))
        self.history = self.history.ended(Ending(why, settings.learned, settings.learned_evaluations,
                                                 settings.epochs, settings.minutes))
        self.model.eval()
        last = self.history.snapshots[-1]
        info = {"task": data.task, "data": data.name, "steps": step, "epochs_completed": step / self.steps_per_epoch,
                "minutes": round(last.seconds / 60, 2), "stopped": control.stopped, "device": str(self.device),
                "learned": why == "learned", "ending": why,
                "score": last.score, "score_name": data.score_name, "agreement": last.agreement,
                "parameters": sum(p.numel() for p in self.model.parameters()), "peak_lr": self.lr,
                "options": {k: v for k, v in vars(self.settings).items()}, "arch": dict(self.arch)}
        return TrainedModel(self.kind, self.model, data.src_vocab, data.tgt_vocab, self.history, info)

    def _has_learned(self) -> bool:
        """The learned rule (:func:`~attnviz.core.learning.history.has_learned`) on the snapshots so far."""
        return has_learned(self.history.snapshots, self.data.score_name, self.settings.learned,
                           self.settings.learned_evaluations)

    def _snapshot(self, step: int, seconds: float, loss: float) -> Snapshot:
        """Score the model on the held-out examples and draw the probe's map (the model is left in eval mode)."""
        data, model = self.data, self.model
        model.eval()
        score, agreement = self._score(), None
        if data.has_gold and self._held is not None:
            agreement = self._agreement()
        if data.probe.tgt:  # the right answer is known: its rows stay put while the attention forms
            src, valid = encode_batch([data.probe.src], data.src_vocab)
            feed, _ = encode_batch([data.probe.tgt], data.tgt_vocab, add_bos=True)
            rows = cross_attention(model, src.to(self.device), valid.to(self.device), feed.to(self.device))[0].cpu()
            tokens = [*data.probe.tgt, "<eos>"]
            said = translate(model, [data.probe.src], data.src_vocab, data.tgt_vocab, self.device,
                             max_len=data.max_lens[1])[0]
        else:  # what the model says, as it says it
            tokens, rows = greedy_with_attention(model, data.probe.src, data.src_vocab, data.tgt_vocab,
                                                 data.max_lens[1], self.device)
            said = [t for t in tokens if t not in data.tgt_vocab.tokens[:4]]
        layers, heads = rows.shape[1], rows.shape[2]
        layer, head = self.head if data.has_gold else (layers - 1, None)
        if head is None:  # no gold alignment: the last layer, averaged over its heads
            probe_map = rows[:, layer].mean(1)
            note = LAYER_MEAN_NOTE.format(layer=layer + 1, heads=heads) if heads > 1 else ""  # (English: stored)
        else:
            probe_map = rows[:, layer, head]
            note = LAYER_HEAD_NOTE.format(layer=layer + 1, head=head + 1) if layers * heads > 1 else ""
        return Snapshot(step, seconds, loss, score, agreement, tuple(tokens), data.probe.src,
                        probe_map.numpy().astype(np.float32), note, tuple(said))

    def _score(self) -> float:
        data = self.data
        examples = data.heldout or data.train[: self.settings.heldout_size]
        outputs = translate(self.model, [e.src for e in examples], data.src_vocab, data.tgt_vocab, self.device,
                            max_len=data.max_lens[1])
        if data.task != "file":
            return 100.0 * sum(tuple(o) == e.tgt for o, e in zip(outputs, examples, strict=True)) / len(examples)
        return corpus_bleu([" ".join(o) for o in outputs], [[" ".join(e.tgt)] for e in examples])

    def _agreement(self) -> float:
        """The best head's agreement on the held-out examples; that head becomes the one drawn."""
        data = self.data
        assert self._held is not None
        src, valid = self._held
        feed, _ = encode_batch([e.tgt for e in data.heldout], data.tgt_vocab, add_bos=True)
        cross = cross_attention(self.model, src.to(self.device), valid.to(self.device), feed.to(self.device))
        per_head = head_agreement(cross.cpu(), gold_mask(data.heldout, src.shape[1], feed.shape[1]))
        best = int(per_head.argmax())
        self.head = divmod(best, per_head.shape[1])
        return float(per_head.flatten()[best])


def train_with_snapshots(settings: LiveSettings, steps_per_epoch: int, batches: Callable[[int], Iterable[Any]],
                         train_step: Callable[[int, Any], float],
                         snapshot: Callable[[int, float, float], TrainingHistory], learned: Callable[[], bool],
                         control: Control, on_snapshot: Callable[[TrainingHistory], None] | None,
                         finished: Callable[[], None] = lambda: None) -> tuple[int, str]:
    """The loop of every run watched in snapshots (a text task's, a file's, an image task's): ``batches(epoch)``
    for each of ``settings.epochs`` epochs, ``train_step(step, batch)`` (1-based step; the batch's loss) for each,
    ``snapshot(step, seconds, mean loss since the last)`` before the first step and ``settings.snapshots`` times
    spread over the epochs (or the minutes, where they end first), each handed to ``on_snapshot``; it stops at the
    epochs' end, the minutes' end, ``control``'s stop or once ``learned()`` holds after a snapshot. Pausing does not
    count as training time. Then ``finished()`` (which may refuse the weights) and the last step's snapshot, where it
    has none yet. Returns the steps taken and why it ended (:data:`~attnviz.core.learning.history.ENDINGS`)."""
    total = settings.epochs * steps_per_epoch
    step_marks = [round(total * (k + 1) / settings.snapshots) for k in range(settings.snapshots)]
    budget = settings.minutes * 60 if settings.minutes else math.inf
    time_marks = [budget * (k + 1) / settings.snapshots for k in range(settings.snapshots)]
    started, paused_for, step, taken = time.perf_counter(), 0.0, 0, 0
    loss_sum, loss_count = 0.0, 0
    has_learned = False  # the held-out score stayed at settings.learned for its evaluations in a row
    why = "epochs"  # why the loop ended (Ending.why)
    last_step = -1

    def elapsed() -> float:
        return time.perf_counter() - started - paused_for

    def take() -> None:
        nonlocal loss_sum, loss_count, has_learned, last_step
        history = snapshot(step, elapsed(), loss_sum / loss_count if loss_count else math.nan)
        loss_sum, loss_count, last_step = 0.0, 0, step
        if on_snapshot:
            on_snapshot(history)
        has_learned = learned()

    take()
    for epoch in range(1, settings.epochs + 1):
        for batch in batches(epoch):
            paused_for += control.wait_while_paused()
            if control.stopped or elapsed() >= budget or has_learned:
                why = "learned" if has_learned else "stopped" if control.stopped else "minutes"
                break
            step += 1
            loss_sum, loss_count = loss_sum + train_step(step, batch), loss_count + 1
            if taken < len(step_marks) and (step >= step_marks[taken] or elapsed() >= time_marks[taken]):
                taken += 1
                take()
        else:
            continue
        break
    finished()
    if last_step != step:
        take()
    return step, why


def check_weights(model: nn.Module, lr: float) -> None:
    """TrainingError where training left a weight NaN or infinite."""
    if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
        raise TrainingError(tr("training diverged: the weights became NaN or infinite (try a smaller learning "
                               "rate than {lr:g})").format(lr=lr))


def task_training(kind: str, task: str, arch: dict[str, Any], settings: LiveSettings, probe: str | None = None,
                  device: torch.device | str = "cpu") -> LiveTraining:
    """The run of ``kind`` on the text task called ``task`` (the registry record's ``TaskSizes.trainer``)."""
    return LiveTraining(kind, task_data(task, settings, probe), arch, settings, device)


def with_settings(settings: LiveSettings, **changes: Any) -> LiveSettings:
    return replace(settings, **{k: v for k, v in changes.items() if v is not None})
