"""Training loops for the translation models and the kernel-regression checkpoint."""

from __future__ import annotations

import functools
import math
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import torch
from torch import nn

from attnviz.core.checkpoints.checkpoint import CheckpointError, build_model, model_size_problem, save_checkpoint
from attnviz.core.decoding.beam_search import translate
from attnviz.core.learning.bleu import corpus_bleu
from attnviz.core.limits import check_config_values
from attnviz.core.models.kinds import kind_named
from attnviz.core.text import Vocab
from attnviz.i18n import tr
from attnviz.training.data import Pair, describe_skipped, group_references, make_batches, training_split
from attnviz.training.epochs import check_finite, check_out, end_epoch, kept_note, start_run
from attnviz.training.options import (
    KERNEL_REGRESSION_EPOCHS,
    KERNEL_REGRESSION_LR,
    TrainingError,
    TrainOptions,
    arch_problems,
    option_problems,
)
from attnviz.training.resume import (
    SAVE_EVERY_S,
    SCHEDULE_OPTIONS,
    RunIdentity,
    TrainingState,
    data_digest,
    save_state,
)
from attnviz.training.schedule import descend

BOOK_SENTENCES = ("go .", "i lost .", "he's calm .", "i'm home .")  # d2l's test sentences


class Progress:
    """A one-line progress bar on a stream (stderr): step, loss, tokens/s, ETA."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, label: str = ""):
        self.total, self.stream, self.label = total, stream, label
        self.start = time.perf_counter()
        self.tokens = 0
        self.tty = stream.isatty()
        self.last_print = 0.0

    def update(self, done: int, loss: float, tokens: int) -> None:
        self.tokens += tokens
        now = time.perf_counter()
        if not self.tty and now - self.last_print < 30 and done < self.total:
            return
        self.last_print = now
        elapsed = now - self.start
        eta = elapsed / max(done, 1) * (self.total - done)
        width = 24
        filled = int(width * done / max(self.total, 1))
        line = tr("{label} [{bar}] {done}/{total} loss {loss:.3f}  {rate:,.0f} tok/s  ETA {eta:.1f} min").format(
            label=self.label, bar="#" * filled + "." * (width - filled), done=done, total=self.total, loss=loss,
            rate=self.tokens / max(elapsed, 1e-9), eta=eta / 60)
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def greedy_texts(model: Any, sentences: list[tuple[str, ...]], src_vocab: Vocab, tgt_vocab: Vocab,
                 device: torch.device) -> list[str]:
    """Greedy translations (preprocessed text) of tokenized sentences, in eval mode."""
    model.eval()
    return [" ".join(t) for t in translate(model, sentences, src_vocab, tgt_vocab, device)]


def evaluate_bleu(model: Any, pairs: list[Pair], src_vocab: Vocab, tgt_vocab: Vocab, device: torch.device) -> float:
    """Greedy corpus BLEU against all references of each source."""
    refs = group_references(pairs)
    sources = list(refs)
    hyps = greedy_texts(model, sources, src_vocab, tgt_vocab, device)
    return corpus_bleu(hyps, [[" ".join(r) for r in refs[s]] for s in sources])


def train_translation(kind: str, data_path: str | Path, out: str | Path, device: torch.device,
                      opts: TrainOptions, arch: dict[str, Any] | None = None,
                      log: TextIO | None = None, replace_existing: bool = True, resume: bool = False) -> dict[str, Any]:
    """Train one translation model on a TSV of pairs and save it to ``out`` after every epoch.

    Options, ``arch`` and ``out`` are checked before the data is read, the model's config (with the
    data's vocabulary sizes) before it is built, and every checkpoint is loaded back before it takes
    its name: training never writes a file the loader refuses. ``out`` may already hold an attnviz
    checkpoint only if ``replace_existing`` (or ``resume``). The run's state is kept beside ``out``
    (:mod:`attnviz.training.resume`) until its schedule is done; ``resume`` continues from it with the same
    data and settings. Problems raise :class:`TrainingError`.
    Returns the training info stored in the checkpoint (data, sizes, time, BLEU).
    """
    log = log or sys.stderr  # looked up at call time: a redirected stderr is honoured
    model_kind = kind_named(kind)
    if problems := option_problems(vars(opts)) or arch_problems(kind, arch or {}):
        raise TrainingError(problems[0])
    state_file, resumed = start_run(out, resume=resume, replace_existing=replace_existing, stop_after=opts.stop_after)
    torch.manual_seed(opts.seed)
    skipped: Counter[str] = Counter()
    train, val = training_split(data_path, opts.max_src_tokens, opts.max_tgt_tokens, opts.val_sources, opts.seed,
                                skipped)
    if skipped:
        count = sum(skipped.values())
        note = tr("note: {count:,} lines of {name} skipped: {reasons}") if count != 1 else \
            tr("note: {count:,} line of {name} skipped: {reasons}")
        log.write(note.format(count=count, name=Path(data_path).name, reasons=describe_skipped(skipped)) + "\n")
    if not val:
        log.write(tr("note: {count} distinct source sentences are too few to hold out a validation split (10 or "
                     "more are needed); BLEU is measured on the training pairs").format(
            count=len({p.src for p in train})) + "\n")
    src_vocab = Vocab.build([p.src for p in train], opts.src_min_freq)
    tgt_vocab = Vocab.build([p.tgt for p in train], opts.tgt_min_freq)
    values = {**(arch or {}), "src_vocab_size": len(src_vocab), "tgt_vocab_size": len(tgt_vocab)}
    if problems := check_config_values(model_kind.config_cls, values, model_kind.attention_cells):
        raise TrainingError(tr("{name}: the model cannot be built from this data: {problem}").format(
            name=Path(data_path).name, problem=problems[0]))
    config = model_kind.make_config(**values)
    if problem := model_size_problem(config):
        raise TrainingError(tr("{problem} (make --arch smaller)").format(problem=problem))
    peak_lr = opts.lr if opts.lr is not None else model_kind.default_lr
    schedule = {name: getattr(opts, name) for name in SCHEDULE_OPTIONS} | {"lr": peak_lr}
    identity = RunIdentity(kind, data_digest(data_path), schedule, dict(arch or {}),
                           (len(src_vocab), len(tgt_vocab)))
    if resumed and (why := identity.mismatch(resumed.identity)):
        raise TrainingError(tr("--resume: {path} is another run's: {why}").format(path=state_file, why=why))
    model = build_model(config).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    log.write(tr("{kind}: {train:,} training pairs, {val:,} validation pairs; vocab {src:,} en / {tgt:,} fr; "
                 "{parameters:,} parameters; device {device}").format(
        kind=kind, train=len(train), val=len(val), src=len(src_vocab), tgt=len(tgt_vocab), parameters=n_params,
        device=device) + "\n")
    scored, scored_on = (val, "validation") if val else (train, "training")
    total_steps = opts.epochs * math.ceil(len(train) / opts.batch_size)
    # foreach: one call per step for all parameters (on a CPU the default is a Python loop over them)
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9, foreach=True)
    loss_fn = nn.CrossEntropyLoss(ignore_index=tgt_vocab.pad_id, label_smoothing=opts.label_smoothing)
    run = resumed or TrainingState(identity, epoch=1, batches_done=0, step=0, model={}, optimizer={},
                                   rng=torch.get_rng_state())
    if resumed:
        model.load_state_dict(resumed.model)
        optimizer.load_state_dict(resumed.optimizer)
        _restore_rng(resumed, device)
        run.runs += 1
        log.write(tr("resuming epoch {epoch} at batch {batch} (step {step:,}) from {path}").format(
            epoch=run.epoch, batch=run.batches_done + 1, step=run.step, path=state_file) + "\n")
    started = time.perf_counter()
    deadline = started + opts.minutes * 60 if opts.minutes else None
    info: dict[str, Any] = {}

    def keep_state(epoch: int, batches_done: int, loss_sum: float, loss_batches: int) -> None:
        """Save where the run stands (a failure to save is reported and training goes on)."""
        snapshot = replace(run, epoch=epoch, batches_done=batches_done, loss_sum=loss_sum,
                           loss_batches=loss_batches, minutes=run.minutes + (time.perf_counter() - started) / 60,
                           model={k: v.detach().float().cpu() for k, v in model.state_dict().items()},
                           optimizer=optimizer.state_dict(), rng=torch.get_rng_state(),
                           cuda_rng=torch.cuda.get_rng_state(device) if device.type == "cuda" else None)
        try:
            save_state(state_file, snapshot)
        except OSError as error:
            log.write(tr("note: the training state could not be saved to {path} ({error}); this run cannot be "
                         "resumed from here").format(path=state_file, error=error) + "\n")

    for epoch in range(run.epoch, opts.epochs + 1):
        model.train()
        batches = make_batches(train, src_vocab, tgt_vocab, opts.batch_size, opts.seed + epoch)
        progress = Progress(len(batches), log, tr("epoch {epoch}/{epochs}").format(epoch=epoch, epochs=opts.epochs))
        out_of_time = False
        first = run.batches_done if epoch == run.epoch else 0
        loss_sum, loss_batches = (run.loss_sum, run.loss_batches) if first else (0.0, 0)
        last_saved = time.perf_counter()
        for i, batch in enumerate(batches[first:], first + 1):
            batch = batch.to(device)
            run.step += 1
            logits = model(batch.src, batch.src_valid_lens, batch.tgt_in)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1))
            value = descend(optimizer, model, loss, run.step, total_steps, peak_lr, opts.warmup_steps, opts.clip_norm)
            loss_sum, loss_batches = loss_sum + value, loss_batches + 1
            progress.update(i, value, int((batch.tgt_out != tgt_vocab.pad_id).sum()))
            out_of_time = bool(deadline and time.perf_counter() > deadline) and i < len(batches)
            if out_of_time or (i < len(batches) and time.perf_counter() - last_saved > SAVE_EVERY_S):
                keep_state(epoch, i, loss_sum, loss_batches)
                last_saved = time.perf_counter()
            if out_of_time:
                break
        progress.close()
        kept = kept_note(out, epoch)
        check_finite(model, epoch, peak_lr, kept)
        bleu = evaluate_bleu(model, scored, src_vocab, tgt_vocab, device)
        minutes = run.minutes + (time.perf_counter() - started) / 60
        run.bleu_history.append(round(bleu, 2))
        run.loss_history.append(round(loss_sum / max(loss_batches, 1), 4))
        book = greedy_texts(model, [tuple(s.split()) for s in BOOK_SENTENCES], src_vocab, tgt_vocab, device)
        info = {"data": str(Path(data_path).name), "train_pairs": len(train), "val_pairs": len(val),
                "val_sources": len({p.src for p in val}), "epochs_completed": epoch - out_of_time,
                "steps": run.step, "minutes": round(minutes, 1), "device": str(device),
                "threads": torch.get_num_threads(), "val_bleu": round(bleu, 2) if val else None,
                "bleu_scored_on": scored_on, "parameters": n_params,
                "bleu_per_epoch": list(run.bleu_history), "train_loss_per_epoch": list(run.loss_history),
                "peak_lr": peak_lr, "book_sentences": dict(zip(BOOK_SENTENCES, book, strict=True)),
                "options": {k: v for k, v in vars(opts).items()}, "seed": opts.seed, "runs": run.runs}
        if out_of_time:  # a partial epoch is scored but not part of the history a resumed run continues
            run.bleu_history.pop()
            run.loss_history.pop()
        if not val:
            info["train_bleu"] = round(bleu, 2)
        said = "; ".join(f"{s} => {t}" for s, t in zip(BOOK_SENTENCES, book, strict=True))
        scored_line = tr("epoch {epoch}: validation BLEU {bleu:.2f} after {minutes:.1f} min; {said}") if val else \
            tr("epoch {epoch}: training BLEU {bleu:.2f} after {minutes:.1f} min; {said}")
        log.write(scored_line.format(epoch=epoch, bleu=bleu, minutes=minutes, said=said) + "\n")
        check_out(out, replace_existing or resume or epoch > 1)  # (a file put there while training is kept)
        save = functools.partial(save_checkpoint, out, model, src_vocab=src_vocab, tgt_vocab=tgt_vocab, training=info,
                                 half=True, verify=True)
        if end_epoch(save, epoch, kept,
                     epochs=opts.epochs, stop_after=opts.stop_after, out_of_time=out_of_time, deadline=deadline,
                     state_file=state_file, keep_state=keep_state, log=log):
            break
    return info



def _restore_rng(state: TrainingState, device: torch.device) -> None:
    torch.set_rng_state(state.rng)
    if state.cuda_rng is not None and device.type == "cuda":
        torch.cuda.set_rng_state(state.cuda_rng, device)




def train_kernel_regression(out: str | Path, epochs: int = KERNEL_REGRESSION_EPOCHS, seed: int = 0,
                            lr: float = KERNEL_REGRESSION_LR, replace_existing: bool = True) -> dict[str, Any]:
    """Fit the parametric Nadaraya–Watson model on the book's synthetic data and save it (checked as
    :func:`train_translation` checks its options and ``out``)."""
    from attnviz.training.live_kernel import KernelTraining

    if problems := option_problems({"epochs": epochs, "seed": seed, "lr": lr}):
        raise TrainingError(problems[0])
    check_out(out, replace_existing)
    trained = KernelTraining(epochs, lr, seed).run()
    info = trained.info
    try:
        trained.save(out)
    except (OSError, CheckpointError) as error:
        raise TrainingError(tr("the checkpoint could not be saved: {error}; {path} is as it was").format(
            error=error, path=out)) from None
    return info
