"""Masked-language-model training and evaluation of the small BERT (:mod:`attnviz.core.models.encoder_only`).

**Data.** The English side of the translators' corpus, split exactly as ``attnviz train`` splits it
(:func:`attnviz.training.data.training_split` with the shipped translators' options: at most 12 English and
20 French tokens, 1,500 held-out English sentences, seed 0), so the held-out sentences are the translators'
validation sentences. The vocabulary is the translators' English one (words seen at least twice in the
training pairs, ``Vocab.build(…, 2)``: ids 0–3 are ``<pad> <bos> <eos> <unk>``) with three tokens appended:
``[MASK]``, ``[CLS]`` and ``[SEP]`` get the ids ``n``, ``n + 1``, ``n + 2`` where ``n`` is the English
vocabulary's size (9,479 on the shipped corpus: ids 9479, 9480, 9481; :class:`SpecialIds`). The corpus repeats
an English sentence once per French translation; the model trains on each distinct English sentence once per
epoch. A sentence is read as ``[CLS] w1 … wn [SEP]``, segment 0 throughout.

**Masking** (:func:`mask_tokens`, BERT's recipe as d2l's ``_get_mlm_data_from_tokens``): in each sentence
``max(1, round(0.15 · n))`` of its ``n`` ordinary tokens are chosen to be predicted (exactly 15 % of a long
sentence; one token of a sentence shorter than 10); of those 80 % become ``[MASK]``, 10 % a random ordinary
word and 10 % stay as they are. Reserved tokens (``<pad> <bos> <eos> <unk> [MASK] [CLS] [SEP]``) are never
chosen (an ``<unk>`` is no word to learn) and never the random word. Every draw comes from one
``torch.Generator``: a seed gives the same masks. Training masks afresh every epoch (seed + epoch).

**Evaluation.** *Masked-word accuracy* (every epoch): the recipe above on the held-out sentences, always
with the same seed, and the share of chosen tokens predicted right (top-1). *Content words*
(:func:`content_word_accuracy`): in each held-out sentence ONE content word — a word the vocabulary knows
that has a letter and is not in :data:`STOP_WORDS` (so never punctuation) — chosen at random (seeded) is
replaced by ``[MASK]``; top-1 and top-5 are the shares of sentences whose word is the first, or among the
first five, of the model's predictions (reserved tokens excluded from the ranking). Sentences without a
content word are left out and counted.

Run it: ``python -m attnviz.training.mlm DATA --out DIR [--epochs N …]`` (``--help``).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

import torch
from torch import Tensor, nn

from attnviz.core.models.encoder_only import EncoderOnly, EncoderOnlyConfig
from attnviz.core.safe_output import atomic_output
from attnviz.core.text import RESERVED, Vocab
from attnviz.training.data import training_split
from attnviz.training.schedule import descend

MASK, CLS, SEP = "[MASK]", "[CLS]", "[SEP]"
MLM_TOKENS = (MASK, CLS, SEP)  # appended to the English vocabulary in this order

# The translators' options (models/MODELS.md): the same pairs, the same 1,500 held-out English sentences.
MAX_SRC_TOKENS, MAX_TGT_TOKENS, VAL_SOURCES, SRC_MIN_FREQ = 12, 20, 1500, 2

#: Words that are not content words in :func:`content_word_accuracy`: English function words (articles,
#: pronouns and their possessives, prepositions, conjunctions, auxiliaries and modals, negation, common
#: determiners and adverbs of degree), in the corpus's lowercase spelling, contractions included as they are
#: tokenized (``i'm``, ``don't``). Punctuation is never a content word (it has no letter).
_STOP_WORDS_TEXT = """
a an the one
i me my mine myself you your yours yourself yourselves he him his himself she her hers herself it its itself
we us our ours ourselves they them their theirs themselves
this that these those what which who whom whose where when why how
am is are was were be been being have has had having do does did doing done
will would shall should can could may might must cannot
not no nor n't
and or but if then than so because as while until although though
of at by for with about against between into through during before after above below to from up down in out
on off over under again further once here there
all any both each few more most other some such only own same too very just also
i'm i've i'll i'd you're you've you'll you'd he's he'll he'd she's she'll she'd it's it'll it'd we're we've
we'll we'd they're they've they'll they'd that's there's here's what's who's where's when's why's how's
let's isn't aren't wasn't weren't hasn't haven't hadn't don't doesn't didn't won't wouldn't shan't
shouldn't can't couldn't mustn't mightn't needn't
"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())


@dataclass(frozen=True)
class SpecialIds:
    """The ids of an MLM vocabulary's reserved tokens (:func:`mlm_vocab`)."""

    pad: int
    unk: int
    mask: int
    cls: int
    sep: int
    reserved: tuple[int, ...]  # never chosen for prediction, never the random word, never ranked

    @classmethod
    def of(cls, vocab: Vocab) -> SpecialIds:
        mask, cls_id, sep = vocab.ids(MLM_TOKENS)
        if vocab.tokens[mask] != MASK or vocab.tokens[cls_id] != CLS or vocab.tokens[sep] != SEP:
            raise ValueError(f"the vocabulary lacks {' '.join(MLM_TOKENS)}")
        reserved = tuple(sorted({*vocab.ids(RESERVED), mask, cls_id, sep}))
        return cls(vocab.pad_id, vocab.unk_id, mask, cls_id, sep, reserved)


def mlm_vocab(english: Vocab) -> Vocab:
    """The English vocabulary with ``[MASK] [CLS] [SEP]`` appended (ids len(english) … len(english) + 2)."""
    return Vocab((*english.tokens, *MLM_TOKENS))


def english_sentences(data_path: str | Path, val_sources: int = VAL_SOURCES, seed: int = 0
                      ) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], Vocab]:
    """The distinct English training sentences, the held-out English sentences (first-seen order) and the
    translators' English vocabulary (without the MLM tokens), from a ``english<TAB>french`` file."""
    train, val = training_split(data_path, MAX_SRC_TOKENS, MAX_TGT_TOKENS, val_sources, seed)
    english = Vocab.build([p.src for p in train], SRC_MIN_FREQ)  # counted over pairs, as the translators'
    return list(dict.fromkeys(p.src for p in train)), list(dict.fromkeys(p.src for p in val)), english


def encode_sentences(sentences: Sequence[Sequence[str]], vocab: Vocab) -> tuple[Tensor, Tensor, Tensor]:
    """Sentences -> tokens (B, S) ``[CLS] w… [SEP]`` right-padded with ``<pad>``, segments (B, S) all 0,
    valid_lens (B,)."""
    special = SpecialIds.of(vocab)
    rows = [[special.cls, *vocab.ids(s), special.sep] for s in sentences]
    width = max((len(r) for r in rows), default=2)
    tokens = torch.full((len(rows), width), special.pad, dtype=torch.long)
    for i, row in enumerate(rows):
        tokens[i, : len(row)] = torch.tensor(row, dtype=torch.long)
    return tokens, torch.zeros_like(tokens), torch.tensor([len(r) for r in rows], dtype=torch.long)


@dataclass(frozen=True)
class Masked:
    """One batch masked for training.

    inputs: (B, S) the tokens with the chosen ones replaced ([MASK], a random word or themselves).
    positions: (B, P) the chosen columns, each row's in increasing order, padded with 0 (the [CLS] column).
    labels: (B, P) the original tokens there; -100 (ignored by ``cross_entropy``) in the padding.
    """

    inputs: Tensor
    positions: Tensor
    labels: Tensor


def mask_tokens(tokens: Tensor, valid_lens: Tensor, special: SpecialIds, vocab_size: int,
                generator: torch.Generator, mask_prob: float = 0.15) -> Masked:
    """BERT's masking of tokens (B, S) with valid_lens (B,): see the module's docstring. Deterministic for a
    generator's state; the generator must be on the tokens' device."""
    device = tokens.device
    columns = torch.arange(tokens.shape[1], device=device)
    reserved = torch.tensor(special.reserved, device=device)
    candidate = (columns[None, :] < valid_lens[:, None]) & ~torch.isin(tokens, reserved)  # (B, S)
    count = candidate.sum(dim=1)
    chosen_count = torch.where(count > 0, torch.clamp(torch.round(count * mask_prob), min=1), 0).long()  # (B,)
    keys = torch.rand(tokens.shape, generator=generator, device=device).masked_fill(~candidate, 2.0)
    rank = keys.argsort(dim=1).argsort(dim=1)  # each column's place in its row's random order
    chosen = rank < chosen_count[:, None]  # (B, S): a random subset of the candidates, of the right size
    action = torch.rand(tokens.shape, generator=generator, device=device)
    ordinary = torch.tensor([i for i in range(vocab_size) if i not in set(special.reserved)], device=device)
    random_words = ordinary[torch.randint(len(ordinary), tokens.shape, generator=generator, device=device)]
    inputs = torch.where(chosen & (action < 0.8), torch.full_like(tokens, special.mask), tokens)
    inputs = torch.where(chosen & (action >= 0.8) & (action < 0.9), random_words, inputs)
    width = max(1, int(chosen_count.max()) if len(chosen_count) else 1)
    # chosen columns first, in column order: sort by (not chosen, column)
    order = ((~chosen).long() * tokens.shape[1] + columns[None, :]).argsort(dim=1)[:, :width]  # (B, P)
    used = torch.arange(width, device=device)[None, :] < chosen_count[:, None]
    positions = torch.where(used, order, 0)
    labels = torch.where(used, torch.gather(tokens, 1, positions), -100)
    return Masked(inputs, positions, labels)


def length_buckets(lengths: Sequence[int], batch_size: int, seed: int) -> list[list[int]]:
    """Indices in batches of similar length (less padding), the batches in a seeded random order."""
    rng = random.Random(seed)
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], rng.random()))
    chunks = [order[i: i + batch_size] for i in range(0, len(order), batch_size)]
    rng.shuffle(chunks)
    return chunks


def content_positions(words: Sequence[str], vocab: Vocab) -> list[int]:
    """Indices of the content words of a sentence: known to ``vocab``, with a letter, not in STOP_WORDS."""
    return [i for i, w in enumerate(words)
            if w in vocab and w not in STOP_WORDS and w not in RESERVED and w not in MLM_TOKENS
            and any(ch.isalpha() for ch in w)]


@dataclass(frozen=True)
class ContentWordScore:
    """One content word masked per sentence: top-1 and top-5 accuracy over ``sentences`` scored ones;
    ``skipped`` sentences had no content word."""

    top1: float
    top5: float
    sentences: int
    skipped: int


def _ranked(model: EncoderOnly, tokens: Tensor, segments: Tensor, valid_lens: Tensor, positions: Tensor,
            special: SpecialIds, k: int, device: torch.device | str) -> Tensor:
    """The k best ordinary ids at positions (B, P) -> (B, P, k) on the CPU (reserved tokens never ranked)."""
    logits = model(tokens.to(device), segments.to(device), valid_lens.to(device), positions.to(device)).float()
    logits[..., list(special.reserved)] = -math.inf
    return logits.topk(k, dim=-1).indices.cpu()


@torch.inference_mode()
def content_word_accuracy(model: EncoderOnly, vocab: Vocab, sentences: Sequence[Sequence[str]], *,
                          seed: int = 0, device: torch.device | str = "cpu", batch_size: int = 256
                          ) -> ContentWordScore:
    """Mask one content word (chosen with ``random.Random(seed)``) of each sentence; top-1 / top-5 accuracy."""
    special = SpecialIds.of(vocab)
    rng = random.Random(seed)
    picked: list[tuple[Sequence[str], int]] = []
    skipped = 0
    for words in sentences:
        if where := content_positions(words, vocab):
            picked.append((words, rng.choice(where)))
        else:
            skipped += 1
    was_training = model.training
    model.eval()
    top1 = top5 = 0
    for start in range(0, len(picked), batch_size):
        chunk = picked[start: start + batch_size]
        tokens, segments, valid_lens = encode_sentences([w for w, _ in chunk], vocab)
        columns = torch.tensor([[i + 1] for _, i in chunk])  # +1: [CLS]
        answers = tokens.gather(1, columns)  # (B, 1)
        tokens = tokens.scatter(1, columns, special.mask)
        best = _ranked(model, tokens, segments, valid_lens, columns, special, 5, device)
        top1 += int((best[:, 0, 0] == answers[:, 0]).sum())
        top5 += int((best[:, 0] == answers).any(dim=1).sum())
    model.train(was_training)
    n = len(picked)
    return ContentWordScore(top1 / max(n, 1), top5 / max(n, 1), n, skipped)


@torch.inference_mode()
def masked_word_accuracy(model: EncoderOnly, vocab: Vocab, sentences: Sequence[Sequence[str]], *, seed: int = 0,
                         device: torch.device | str = "cpu", batch_size: int = 256) -> float:
    """Top-1 accuracy on the tokens the masking recipe chooses in ``sentences`` (the same masks for a seed)."""
    special = SpecialIds.of(vocab)
    generator = torch.Generator().manual_seed(seed)
    was_training = model.training
    model.eval()
    right = total = 0
    for start in range(0, len(sentences), batch_size):
        tokens, segments, valid_lens = encode_sentences(sentences[start: start + batch_size], vocab)
        masked = mask_tokens(tokens, valid_lens, special, len(vocab), generator)
        best = _ranked(model, masked.inputs, segments, valid_lens, masked.positions, special, 1, device)[..., 0]
        used = masked.labels != -100
        right += int((best == masked.labels)[used].sum())
        total += int(used.sum())
    model.train(was_training)
    return right / max(total, 1)


@dataclass(frozen=True)
class MlmOptions:
    """Optimisation settings of :func:`train_mlm`."""

    epochs: int = 12
    batch_size: int = 256
    lr: float = 1e-3  # peak, after the linear warm-up; cosine decay to 0 at the end of the last epoch
    warmup_steps: int = 400
    weight_decay: float = 0.01  # AdamW's decoupled weight decay (Adam's update otherwise)
    clip_norm: float = 1.0
    mask_prob: float = 0.15
    seed: int = 0
    epochs_before: int = 0  # epochs a warm-started model already had: its masks and batch orders are not reused


EpochCallback = Callable[[int, EncoderOnly, Vocab, dict[str, Any]], None]


def train_mlm(model: EncoderOnly, vocab: Vocab, train: Sequence[Sequence[str]], val: Sequence[Sequence[str]],
              opts: MlmOptions = MlmOptions(), *, device: torch.device | str = "cpu", log: TextIO | None = None,
              on_epoch: EpochCallback | None = None, content_words: bool = True) -> dict[str, Any]:
    """Train ``model`` (already on ``device``) on masked words of ``train``; score ``val`` after every epoch.

    AdamW (β = 0.9, 0.98), linear warm-up then cosine decay (:func:`attnviz.training.train.lr_at`), batches of
    similar length in a seeded order, fresh masks every epoch, gradient norm clipped. ``on_epoch(epoch, model,
    vocab, history)`` runs after each epoch. Returns the history, a JSON-ready dict: training loss, validation
    masked-word accuracy, content-word top-1/top-5 (``content_words``) and seconds, one entry per epoch.
    """
    log = log or sys.stderr
    device = torch.device(device)
    special = SpecialIds.of(vocab)
    torch.manual_seed(opts.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=opts.lr, betas=(0.9, 0.98), eps=1e-6,
                                  weight_decay=opts.weight_decay, foreach=True)
    steps_per_epoch = math.ceil(len(train) / opts.batch_size)
    total_steps = opts.epochs * steps_per_epoch
    generator = torch.Generator(device=device)
    history: dict[str, Any] = {"train_loss_per_epoch": [], "val_masked_accuracy_per_epoch": [],
                               "val_content_top1_per_epoch": [], "val_content_top5_per_epoch": [],
                               "seconds_per_epoch": [], "steps": 0}
    step = 0
    started = time.perf_counter()
    lengths = [len(s) for s in train]
    for epoch in range(1, opts.epochs + 1):
        epoch_start = time.perf_counter()
        model.train()
        draw = opts.seed + opts.epochs_before + epoch  # the seed of this epoch's masks and batch order
        generator.manual_seed(draw)
        loss_sum, batches, last_print = 0.0, 0, time.perf_counter()
        for chunk in length_buckets(lengths, opts.batch_size, draw):
            tokens, segments, valid_lens = (t.to(device) for t in encode_sentences([train[i] for i in chunk], vocab))
            masked = mask_tokens(tokens, valid_lens, special, len(vocab), generator, opts.mask_prob)
            step += 1
            logits = model(masked.inputs, segments, valid_lens, masked.positions)
            loss = nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), masked.labels.reshape(-1))
            value = descend(optimizer, model, loss, step, total_steps, opts.lr, opts.warmup_steps, opts.clip_norm)
            loss_sum, batches = loss_sum + value, batches + 1
            if time.perf_counter() - last_print > 60:
                last_print = time.perf_counter()
                log.write(f"epoch {epoch}/{opts.epochs} batch {batches}/{steps_per_epoch} loss {loss_sum / batches:.3f}"
                          f" lr {optimizer.param_groups[0]['lr']:.2e} {(last_print - started) / 60:.1f} min\n")
                log.flush()
        if not all(bool(torch.isfinite(p).all()) for p in model.parameters()):
            raise ValueError(f"training diverged in epoch {epoch}: the weights became NaN or infinite")
        history["steps"] = step
        history["train_loss_per_epoch"].append(round(loss_sum / max(batches, 1), 4))
        history["seconds_per_epoch"].append(round(time.perf_counter() - epoch_start, 1))
        accuracy = masked_word_accuracy(model, vocab, val, seed=opts.seed, device=device)
        history["val_masked_accuracy_per_epoch"].append(round(accuracy, 4))
        line = f"epoch {epoch}: loss {history['train_loss_per_epoch'][-1]:.3f}, validation masked-word accuracy " \
               f"{accuracy:.3f}"
        if content_words:
            score = content_word_accuracy(model, vocab, val, seed=opts.seed, device=device)
            history["val_content_top1_per_epoch"].append(round(score.top1, 4))
            history["val_content_top5_per_epoch"].append(round(score.top5, 4))
            line += f", one content word: top-1 {score.top1:.3f} top-5 {score.top5:.3f} ({score.sentences} sentences)"
        history["minutes"] = round((time.perf_counter() - started) / 60, 1)
        log.write(f"{line}; {history['minutes']:.1f} min\n")
        log.flush()
        if on_epoch is not None:
            on_epoch(epoch, model, vocab, history)
    return history


@dataclass
class TrainedEncoder:
    """What :func:`train_encoder_only` returns: the model (eval mode), its vocabulary, the history."""

    model: EncoderOnly
    vocab: Vocab
    history: dict[str, Any]


WEIGHTS, VOCAB_FILE, HISTORY_FILE = "encoder-only.safetensors", "vocab.json", "history.json"
TIED_KEY = "mlm.output.weight"  # the token embedding itself when the config ties them: not saved twice


def save_run(out_dir: str | Path, model: EncoderOnly, vocab: Vocab, history: dict[str, Any]) -> None:
    """Write ``encoder-only.safetensors`` (float16 weights; metadata: the config; without ``TIED_KEY`` when the
    output is tied to the token embedding), ``vocab.json`` (the token list, id order) and ``history.json`` into
    ``out_dir``. :func:`load_run` reads them back."""
    from safetensors.torch import save_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    weights = {k: v.detach().to("cpu", torch.float16).contiguous() for k, v in model.state_dict().items()
               if not (model.config.tie_output and k == TIED_KEY)}
    with atomic_output(out / WEIGHTS) as tmp:  # (each file whole or not at all: a run is saved after every epoch)
        save_file(weights, str(tmp), metadata={"config": json.dumps(asdict(model.config))})
    for name, content in ((VOCAB_FILE, list(vocab.tokens)), (HISTORY_FILE, history)):
        with atomic_output(out / name) as tmp:
            tmp.write_text(json.dumps(content, indent=1, ensure_ascii=False), encoding="utf-8")


def load_run(out_dir: str | Path) -> TrainedEncoder:
    """The model (float32, eval mode), vocabulary and history that :func:`save_run` wrote to ``out_dir``."""
    from safetensors import safe_open
    from safetensors.torch import load_file

    folder = Path(out_dir)
    with safe_open(str(folder / WEIGHTS), "pt") as handle:
        config = EncoderOnlyConfig(**json.loads(handle.metadata()["config"]))
    model = EncoderOnly(config)
    weights = {k: v.float() for k, v in load_file(str(folder / WEIGHTS)).items()}
    if config.tie_output:
        weights[TIED_KEY] = weights["token_embedding.weight"]
    model.load_state_dict(weights)
    vocab = Vocab(tuple(json.loads((folder / VOCAB_FILE).read_text(encoding="utf-8"))))
    history = json.loads((folder / HISTORY_FILE).read_text(encoding="utf-8"))
    return TrainedEncoder(model.eval(), vocab, history)


def train_encoder_only(data_path: str | Path, out: str | Path | EpochCallback | None = None, *,
                       epochs: int = MlmOptions.epochs, opts: MlmOptions | None = None,
                       arch: dict[str, Any] | None = None, device: torch.device | str = "cpu",
                       threads: int | None = 1, log: TextIO | None = None,
                       init: str | Path | None = None) -> TrainedEncoder:
    """Train the small BERT on the English of ``data_path`` (a ``english<TAB>french`` file).

    ``out``: a folder that gets :func:`save_run`'s files after every epoch, or a callback
    ``(epoch, model, vocab, history)``, or None. ``opts`` (its ``epochs`` replaced by ``epochs``) and ``arch``
    (:class:`EncoderOnlyConfig` fields) override the defaults; ``threads``: torch's CPU threads (None: as is).
    The history (:func:`train_mlm`'s) also records the data, sizes, config, options, special ids, device and
    the final content-word score.

    ``init``: an encoder-only checkpoint (``models/encoder-only.safetensors``) to continue from instead of
    fresh weights: its vocabulary must be this data's, ``arch`` is then its config, and the masks and batch
    orders go on from the epochs it had (``epochs_before``). The history records it under ``"init"``.
    """
    log = log or sys.stderr
    if threads is not None:
        torch.set_num_threads(threads)
    opts = MlmOptions(**{**asdict(opts or MlmOptions()), "epochs": epochs})
    device = torch.device(device)
    train, val, english = english_sentences(data_path, seed=opts.seed)
    vocab = mlm_vocab(english)
    special = SpecialIds.of(vocab)
    torch.manual_seed(opts.seed)
    started_from: dict[str, Any] = {}
    if init is not None:
        model, started_from = _warm_start(init, vocab)
        opts = MlmOptions(**{**asdict(opts), "epochs_before": started_from["epochs"]})
        config = model.config
        model = model.to(device)
    else:
        config = EncoderOnlyConfig(vocab_size=len(vocab), **(arch or {}))
        model = EncoderOnly(config).to(device)
    n_params = model.num_parameters()
    log.write(f"encoder-only: {len(train):,} distinct English training sentences, {len(val):,} held out; vocab "
              f"{len(vocab):,} ([MASK] {special.mask}, [CLS] {special.cls}, [SEP] {special.sep}); {n_params:,} "
              f"parameters; device {device}, {torch.get_num_threads()} threads; {opts}\n")
    log.flush()
    base = {"data": Path(data_path).name, "train_sentences": len(train), "val_sentences": len(val),
            "vocab_size": len(vocab), "special_ids": {"<pad>": special.pad, "<unk>": special.unk,
                                                      MASK: special.mask, CLS: special.cls, SEP: special.sep},
            "parameters": n_params, "config": asdict(config), "options": asdict(opts), "device": str(device),
            "threads": torch.get_num_threads(), **({"init": started_from} if started_from else {})}

    def on_epoch(epoch: int, model: EncoderOnly, vocab: Vocab, history: dict[str, Any]) -> None:
        history.update(base, epochs_completed=epoch)
        if callable(out):
            out(epoch, model, vocab, history)
        elif out is not None:
            save_run(out, model, vocab, history)

    history = train_mlm(model, vocab, train, val, opts, device=device, log=log, on_epoch=on_epoch)
    score = content_word_accuracy(model, vocab, val, seed=opts.seed, device=device)
    history.update(base, content_word_top1=round(score.top1, 4), content_word_top5=round(score.top5, 4),
                   content_word_sentences=score.sentences, content_word_skipped=score.skipped)
    if out is not None and not callable(out):
        save_run(out, model, vocab, history)
    return TrainedEncoder(model.eval(), vocab, history)


def _warm_start(path: str | Path, vocab: Vocab) -> tuple[EncoderOnly, dict[str, Any]]:
    """The float32 model of the encoder-only checkpoint ``path`` (in train mode) and what the history says of it:
    file name, tensor digest, epochs and final scores. ValueError when it is no encoder-only model of ``vocab``."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    loaded = load_checkpoint(path, compact_weights=False)
    if not isinstance(loaded.model, EncoderOnly):
        raise ValueError(f"{path}: a {loaded.kind} model, not an encoder-only one to continue")
    if loaded.src_vocab is None or tuple(loaded.src_vocab.tokens) != tuple(vocab.tokens):
        raise ValueError(f"{path}: its vocabulary is not this data's (train it afresh)")
    before = loaded.training
    epochs = int(before.get("options", {}).get("epochs_before", 0)) + int(before.get("epochs_completed", 0))
    record = {"file": Path(path).name, "digest": _digest_of(path), "epochs": epochs,
              "content_word_top5": before.get("content_word_top5")}
    return loaded.model.float().train(), record


def _digest_of(path: str | Path) -> str | None:
    """The tensor digest stored in the checkpoint's header, if any."""
    from safetensors import safe_open

    with safe_open(str(path), "pt") as handle:
        return (handle.metadata() or {}).get("tensor_digest")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Train the small BERT on masked English words.")
    parser.add_argument("data", help="english<TAB>french file (fra.txt)")
    parser.add_argument("--out", required=True, help="folder for the weights, vocabulary and history")
    parser.add_argument("--epochs", type=int, default=MlmOptions.epochs)
    parser.add_argument("--lr", type=float, default=MlmOptions.lr)
    parser.add_argument("--batch-size", type=int, default=MlmOptions.batch_size)
    parser.add_argument("--warmup-steps", type=int, default=MlmOptions.warmup_steps)
    parser.add_argument("--arch", default="{}", help='JSON of EncoderOnlyConfig fields, e.g. {"num_layers": 4}')
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--init", help="an encoder-only checkpoint to continue from (its vocabulary must match)")
    args = parser.parse_args(argv)
    opts = MlmOptions(lr=args.lr, batch_size=args.batch_size, warmup_steps=args.warmup_steps)
    trained = train_encoder_only(args.data, args.out, epochs=args.epochs, opts=opts, arch=json.loads(args.arch),
                                 device=args.device, threads=args.threads, log=sys.stdout, init=args.init)
    h = trained.history
    print(f"done: content-word top-1 {h['content_word_top1']:.3f}, top-5 {h['content_word_top5']:.3f} "
          f"({h['content_word_sentences']} sentences); {h['minutes']} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
