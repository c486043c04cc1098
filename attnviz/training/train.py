"""Training loops for the translation models and the kernel-regression checkpoint."""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import torch
from torch import nn

from attnviz.core.checkpoint import CheckpointError, build_model, model_size_problem, save_checkpoint
from attnviz.core.decoding import translate
from attnviz.core.kernel_regression import KernelRegressionConfig, KernelRegressionModel, fit_parametric
from attnviz.core.kinds import kind_named
from attnviz.core.limits import check_config_values
from attnviz.core.text import Vocab
from attnviz.training.bleu import corpus_bleu
from attnviz.training.data import Pair, describe_skipped, group_references, make_batches, training_split
from attnviz.training.options import (
    KERNEL_REGRESSION_EPOCHS,
    KERNEL_REGRESSION_LR,
    TrainOptions,
    arch_problems,
    option_problems,
)
from attnviz.training.target import check_target


class TrainingError(ValueError):
    """Training cannot start or go on (options, data, or a checkpoint that would not load); one sentence."""


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
        line = (f"{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} "
                f"loss {loss:.3f}  {self.tokens / max(elapsed, 1e-9):,.0f} tok/s  ETA {eta / 60:.1f} min")
        self.stream.write(("\r" + line) if self.tty else line + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def lr_at(step: int, total_steps: int, peak: float, warmup_steps: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup_steps``, then cosine decay to 0 at ``total_steps``.

    A schedule that ends at 0 after the planned number of steps gives a better model for a fixed
    compute budget than the paper's open-ended inverse-square-root decay.
    """
    step = max(step, 1)
    if step < warmup_steps:
        return peak * step / warmup_steps
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return peak * 0.5 * (1.0 + math.cos(math.pi * progress))


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
                      log: TextIO | None = None, replace_existing: bool = True) -> dict[str, Any]:
    """Train one translation model on a TSV of pairs and save it to ``out`` after every epoch.

    Options, ``arch`` and ``out`` are checked before the data is read, the model's config (with the
    data's vocabulary sizes) before it is built, and every checkpoint is loaded back before it takes
    its name: training never writes a file the loader refuses. ``out`` may already hold an attnviz
    checkpoint only if ``replace_existing``. Problems raise :class:`TrainingError`.
    Returns the training info stored in the checkpoint (data, sizes, time, BLEU).
    """
    log = log or sys.stderr  # looked up at call time: a redirected stderr is honoured
    model_kind = kind_named(kind)
    if problems := option_problems(vars(opts)) or arch_problems(kind, arch or {}):
        raise TrainingError(problems[0])
    _check_target(out, replace_existing)
    torch.manual_seed(opts.seed)
    skipped: Counter[str] = Counter()
    train, val = training_split(data_path, opts.max_src_tokens, opts.max_tgt_tokens, opts.val_sources, opts.seed,
                                skipped)
    if skipped:
        count = sum(skipped.values())
        log.write(f"note: {count:,} line{'s' if count != 1 else ''} of {Path(data_path).name} skipped: "
                  f"{describe_skipped(skipped)}\n")
    if not val:
        log.write(f"note: {len({p.src for p in train})} distinct source sentences are too few to hold out a "
                  "validation split (10 or more are needed); BLEU is measured on the training pairs\n")
    src_vocab = Vocab.build([p.src for p in train], opts.src_min_freq)
    tgt_vocab = Vocab.build([p.tgt for p in train], opts.tgt_min_freq)
    values = {**(arch or {}), "src_vocab_size": len(src_vocab), "tgt_vocab_size": len(tgt_vocab)}
    if problems := check_config_values(model_kind.config_cls, values, model_kind.attention_cells):
        raise TrainingError(f"{Path(data_path).name}: the model cannot be built from this data: {problems[0]}")
    config = model_kind.make_config(**values)
    if problem := model_size_problem(config):
        raise TrainingError(f"{problem} (make --arch smaller)")
    model = build_model(config).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    log.write(f"{kind}: {len(train):,} training pairs, {len(val):,} validation pairs; vocab "
              f"{len(src_vocab):,} en / {len(tgt_vocab):,} fr; {n_params:,} parameters; device {device}\n")
    scored, scored_on = (val, "validation") if val else (train, "training")
    peak_lr = opts.lr if opts.lr is not None else model_kind.default_lr
    total_steps = opts.epochs * math.ceil(len(train) / opts.batch_size)
    # foreach: one call per step for all parameters (on a CPU the default is a Python loop over them)
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, betas=(0.9, 0.98), eps=1e-9, foreach=True)
    loss_fn = nn.CrossEntropyLoss(ignore_index=tgt_vocab.pad_id, label_smoothing=opts.label_smoothing)
    started = time.perf_counter()
    step, info, history, losses = 0, {}, [], []
    deadline = started + opts.minutes * 60 if opts.minutes else None
    for epoch in range(1, opts.epochs + 1):
        model.train()
        batches = make_batches(train, src_vocab, tgt_vocab, opts.batch_size, opts.seed + epoch)
        progress = Progress(len(batches), log, f"epoch {epoch}/{opts.epochs}")
        out_of_time = False
        loss_sum, loss_batches = 0.0, 0
        for i, batch in enumerate(batches, 1):
            batch = batch.to(device)
            step += 1
            for group in optimizer.param_groups:
                group["lr"] = lr_at(step, total_steps, peak_lr, opts.warmup_steps)
            logits = model(batch.src, batch.src_valid_lens, batch.tgt_in)
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), batch.tgt_out.reshape(-1))
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), opts.clip_norm)
            optimizer.step()
            loss_sum, loss_batches = loss_sum + loss.item(), loss_batches + 1
            progress.update(i, loss.item(), int((batch.tgt_out != tgt_vocab.pad_id).sum()))
            if deadline and time.perf_counter() > deadline:
                out_of_time = True
                break
        progress.close()
        kept = f"{out} holds epoch {epoch - 1}" if epoch > 1 else f"{out} is as it was"
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
            raise TrainingError(f"training diverged in epoch {epoch}: the weights became NaN or infinite "
                                f"(try a smaller --lr than {peak_lr:g}); {kept}")
        bleu = evaluate_bleu(model, scored, src_vocab, tgt_vocab, device)
        minutes = (time.perf_counter() - started) / 60
        history.append(round(bleu, 2))
        losses.append(round(loss_sum / max(loss_batches, 1), 4))
        book = greedy_texts(model, [tuple(s.split()) for s in BOOK_SENTENCES], src_vocab, tgt_vocab, device)
        info = {"data": str(Path(data_path).name), "train_pairs": len(train), "val_pairs": len(val),
                "val_sources": len({p.src for p in val}), "epochs_completed": epoch - out_of_time,
                "steps": step, "minutes": round(minutes, 1), "device": str(device),
                "threads": torch.get_num_threads(), "val_bleu": round(bleu, 2) if val else None,
                "bleu_scored_on": scored_on, "parameters": n_params,
                "bleu_per_epoch": history, "train_loss_per_epoch": losses, "peak_lr": peak_lr,
                "book_sentences": dict(zip(BOOK_SENTENCES, book, strict=True)),
                "options": {k: v for k, v in vars(opts).items()}, "seed": opts.seed}
        if not val:
            info["train_bleu"] = round(bleu, 2)
        log.write(f"epoch {epoch}: {scored_on} BLEU {bleu:.2f} after {minutes:.1f} min; "
                  + "; ".join(f"{s} => {t}" for s, t in zip(BOOK_SENTENCES, book, strict=True)) + "\n")
        _check_target(out, replace_existing or epoch > 1)  # (a file put there while training is not replaced)
        try:
            save_checkpoint(out, model, src_vocab=src_vocab, tgt_vocab=tgt_vocab, training=info, half=True,
                            verify=True)
        except (OSError, CheckpointError) as error:
            raise TrainingError(f"epoch {epoch} could not be saved: {error}; {kept}") from None
        if out_of_time or epoch == opts.stop_after:
            break
    return info


def _check_target(out: str | Path, replace_existing: bool) -> None:
    try:
        check_target(out, replace_existing)
    except ValueError as error:
        raise TrainingError(f"--out {error}") from None


def train_kernel_regression(out: str | Path, epochs: int = KERNEL_REGRESSION_EPOCHS, seed: int = 0,
                            lr: float = KERNEL_REGRESSION_LR, replace_existing: bool = True) -> dict[str, Any]:
    """Fit the parametric Nadaraya–Watson model on the book's synthetic data and save it (checked as
    :func:`train_translation` checks its options and ``out``)."""
    if problems := option_problems({"epochs": epochs, "seed": seed, "lr": lr}):
        raise TrainingError(problems[0])
    _check_target(out, replace_existing)
    torch.manual_seed(seed)
    model = KernelRegressionModel(replace(KernelRegressionConfig(), seed=seed))
    losses = fit_parametric(model.parametric, model.x_train, model.y_train, epochs=epochs, lr=lr)
    info = {"epochs": epochs, "lr": lr, "loss_before": losses[0], "loss_after": losses[-1],
            "w": model.parametric.w.item()}
    try:
        save_checkpoint(out, model, training=info, verify=True)
    except (OSError, CheckpointError) as error:
        raise TrainingError(f"the checkpoint could not be saved: {error}; {out} is as it was") from None
    return info
