"""The head atlas: what every head does over a corpus, and how much the model's loss depends on it.

:func:`compute_atlas` decodes the corpus (greedy or beam search), adds each sentence's attention rows to the
sums of :mod:`attnviz.core.heads.statistics` and, per kind, to the sinks by the query's position
(:mod:`attnviz.core.heads.sinks`: the first key and each special token; their norm view reads each key's
‖f_h(x_j)‖ from one teacher-forced pass over the batch's decoded output, :mod:`attnviz.core.heads.value_norms`),
sentence by sentence, no map kept past its batch; then it measures each head's importance (Michel et al. 2019):
I_h = E |∂L/∂ξ_h| over the (source, reference) pairs, with L a pair's mean token cross-entropy under teacher
forcing and ξ the head gates at 1 (:mod:`attnviz.core.heads.gates`); a corpus without references uses the
model's own output as the target, and the atlas says so. Sums are reduced across processes (a ``torchrun``
job's, :mod:`attnviz.core.heads.distributed`), so N processes give one process's numbers.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np
import torch
from torch import Tensor

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.decoding.beam_search import BeamSearch, encode_batch, encode_sources
from attnviz.core.heads.corpus import Corpus, plan_batches, shard, split_sources
from attnviz.core.heads.distributed import Reducer
from attnviz.core.heads.gates import HeadGates, modules_by_kind
from attnviz.core.heads.maps import sentence_maps
from attnviz.core.heads.mask import Head, HeadLayout
from attnviz.core.heads.sinks import FIRST, LEARNED_SINK, SinkSums, key_classes
from attnviz.core.heads.statistics import OFFSETS, POSITIONAL_SHARE, KindSums
from attnviz.core.heads.value_norms import ValueNorms
from attnviz.core.models.compact import release_freed_memory
from attnviz.core.models.translation import TranslationModel
from attnviz.core.text import RESERVED, SourceWords, preprocess, tokenize
from attnviz.i18n import tr

Progress = Callable[[int, int], bool]  # (done, total) -> False to cancel
STATS_ROWS = 64  # rows decoded together with every map recorded, at most (fewer where STATS_BATCH_BYTES says so)
PASS_TOKENS = 384  # target positions per forward/backward of the importance (the logits: PASS_TOKENS × V floats)
# The attention maps one batch of the statistics' decoding records, or one pass of the importance makes, at most (as
# :func:`row_attention_bytes` counts them): rows of long sentences are decoded a few at a time, so the peak is one
# such batch's whatever the corpus's size (a 448-token prompt of an 8 × 8-head model: 134 MB a row, one a batch).
STATS_BATCH_BYTES = 256 * 1024**2
Target = Literal["references", "model output", "none"]  # none: importance not measured (documents)


class HeadsCancelled(Exception):
    """The progress callback asked to stop; nothing was computed."""


@dataclass(frozen=True)
class KindAtlas:
    """One kind's heads: ``means`` (len(names), L, H), the mean of each statistic over ``rows`` rows;
    ``importance`` (L, H): E|∂L/∂ξ_h|; ``normalised`` (L, H): importance divided by its layer's ℓ2 norm;
    ``offsets`` (len(OFFSETS), L, H): the share of rows whose largest weight sits at each relative position
    key − query of :data:`~attnviz.core.heads.statistics.OFFSETS` (None: not counted); ``sinks``: the sums of the
    sinks by the query's position (:mod:`attnviz.core.heads.sinks`; None: not measured)."""

    kind: AttentionKind
    names: tuple[str, ...]
    means: np.ndarray
    importance: np.ndarray
    normalised: np.ndarray
    rows: int
    offsets: np.ndarray | None = None
    sinks: SinkSums | None = None

    def positional(self) -> tuple[np.ndarray, np.ndarray]:
        """(offset (L, H), share (L, H)): each head's most frequent argmax offset (the nearest to 0 of ties) and the
        share of its rows with the argmax there; Voita et al. 2019's positional head has a share ≥ 0.9."""
        shares = self.offsets if self.offsets is not None else np.zeros((len(OFFSETS), *self.importance.shape))
        order = np.argsort([abs(o) for o in OFFSETS], kind="stable")  # ties: the offset nearest to 0 wins
        best = order[np.argmax(shares[order], axis=0)]  # (L, H)
        return np.asarray(OFFSETS)[best], np.take_along_axis(shares, best[None], 0)[0]

    def statistic(self, name: str) -> np.ndarray:
        """(L, H) of one statistic (``importance`` included)."""
        if name == "importance":
            return self.importance
        return self.means[self.names.index(name)]


@dataclass(frozen=True)
class HeadAtlas:
    """Every head's statistics over a corpus: kinds in the model's order; sentences decoded; how many were cut to
    the model's length; the beam size; what the importance's loss used as targets (pairs: how many)."""

    kinds: tuple[KindAtlas, ...]
    sentences: int
    truncated: int
    beam_size: int
    target: Target
    pairs: int

    @property
    def over_documents(self) -> bool:
        """An atlas over documents (one forward pass each, nothing decoded): ``sentences`` counts documents, and
        no head has an importance (so there is no pruning curve)."""
        return self.target == "none"

    def heads(self) -> list[Head]:
        return [Head(k.kind, layer, head) for k in self.kinds for layer in range(k.importance.shape[0])
                for head in range(k.importance.shape[1])]

    def normalised_importance(self) -> np.ndarray:
        """(number of heads,) in :meth:`heads` order."""
        return np.concatenate([k.normalised.ravel() for k in self.kinds])

    def table(self) -> list[dict[str, Any]]:
        """One row per head (kind, layer and head 1-based, then every statistic and the importance), every row with
        the same columns in COLUMNS.md's order: a statistic a kind does not have reads ``n/a``."""
        from attnviz.core.columns import HEADS_CSV, NOT_APPLICABLE, described

        rows = self._rows(NOT_APPLICABLE)
        present = {name for row in rows for name in row}
        order = [name for name in described(HEADS_CSV) if name in present]
        order += [name for name in dict.fromkeys(n for row in rows for n in row) if name not in order]
        return [{name: row.get(name, NOT_APPLICABLE) for name in order} for row in rows]

    def _rows(self, missing: str) -> list[dict[str, Any]]:
        rows = []
        for k in self.kinds:
            for layer in range(k.importance.shape[0]):
                for head in range(k.importance.shape[1]):
                    row: dict[str, Any] = {"kind": k.kind.slug, "layer": layer + 1, "head": head + 1}
                    row.update({name: float(k.means[i, layer, head]) for i, name in enumerate(k.names)})
                    measured = bool(np.isfinite(k.importance[layer, head]))  # (documents: not measured, n/a)
                    row["importance"] = float(k.importance[layer, head]) if measured else missing
                    row["importance_normalised"] = float(k.normalised[layer, head]) if measured else missing
                    if k.offsets is not None:
                        offset, share = (a[layer, head] for a in k.positional())
                        row["positional_offset"] = f"{int(offset):+d}" if offset else "0"
                        row["positional_share"] = float(share)
                        row["positional"] = "yes" if share >= POSITIONAL_SHARE else "no"
                    rows.append(row)
        return rows


def corpus_of(sentences: Sequence[str], references: Sequence[Sequence[str]] | None) -> Corpus:
    """A corpus from texts (each source with its list of references, or no references at all)."""
    sources = tuple(tuple(tokenize(preprocess(s))) for s in sentences)
    refs = None if references is None else tuple(tuple(" ".join(tokenize(preprocess(r))) for r in rs)
                                                 for rs in references)
    if refs is not None and len(refs) != len(sources):
        raise ValueError(tr("{sources} sentences but {references} reference lists").format(
            sources=len(sources), references=len(refs)))
    return Corpus(sources, refs)


def decoded_outputs(search: BeamSearch, b: int, vocab: Any) -> list[str]:
    """Sentence ``b``'s best hypothesis as tokens (its end token included, as decoded)."""
    return cast(list[str], vocab.to_tokens(search.best(b).ids))


def _without_end(tokens: list[str], vocab: Any) -> list[str]:
    ends = set(vocab.to_tokens(vocab.end_ids))
    return tokens[:-1] if tokens and tokens[-1] in ends else tokens


def compute_atlas(loaded: Any, sentences: Sequence[str] | Corpus, references: Sequence[Sequence[str]] | None,
                  device: torch.device | str, progress: Progress | None = None, *, beam_size: int = 1,
                  reducer: Reducer | None = None) -> HeadAtlas:
    """The atlas of ``loaded`` (an attnviz translation model or a Hugging Face folder's) over ``sentences`` (texts,
    or a :class:`Corpus` with its references), decoded with ``beam_size``. progress(done, total) after each batch;
    False cancels (:class:`HeadsCancelled`). reducer: the processes to add sums across (default: this one alone).
    Safe on a worker thread: nothing is shared with the caller but the model (its gates are removed after)."""
    reducer = reducer or Reducer()
    corpus = sentences if isinstance(sentences, Corpus) else corpus_of(sentences, references)
    device = torch.device(device)
    model = cast(TranslationModel, loaded.model.to(device).eval())
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    splits, truncated = split_sources(corpus, src_vocab, loaded.config.max_src_len)
    gates = HeadGates(model)
    layout = gates.layout
    output = int(loaded.config.max_tgt_len)
    mine = shard(plan_batches([len(s.words) for s in splits], beam_size, STATS_ROWS,
                              lambda tokens: row_attention_bytes(layout, tokens, output), STATS_BATCH_BYTES),
                 reducer.rank, reducer.world)
    try:
        reads_source = (AttentionKind.ENCODER_SELF, AttentionKind.CROSS)  # (keys: source tokens, with frequencies)
        sums = {s.kind: KindSums.empty(s.layers, s.heads, s.kind is AttentionKind.CROSS, s.kind in reads_source)
                for s in layout.kinds}
        counts = Counter(word for split in splits for word in split.words)  # (every process: the whole corpus)
        special = special_tokens(loaded)
        sinks = {s.kind: SinkSums.empty((FIRST, *special), s.layers, s.heads) for s in layout.kinds}
        values = loaded.model_kind.value_norms_of(loaded, modules_by_kind(model))
        total = 2 * len(mine)
        outputs: dict[int, list[str]] = {}
        kinds = tuple(s.kind for s in layout.kinds)
        for done, batch in enumerate(mine, 1):
            search, width = decode_batch(model, [splits[i] for i in batch], loaded, device, beam_size, record=True)
            encoder = search.encoder_attention
            host = None if encoder is None else encoder.weights.float().cpu().numpy()
            norms = _key_norms(values, search, [splits[i] for i in batch], loaded, device)
            for b, i in enumerate(batch):
                tokens = decoded_outputs(search, b, tgt_vocab)
                if corpus.references is None:  # (the importance's targets: kept only when there are no references)
                    outputs[i] = _without_end(tokens, tgt_vocab)
                for kind_map in sentence_maps(kinds, search.best(b), splits[i].words, tokens,
                                              None if host is None else host[b], width, loaded.layout.pads_left,
                                              bool(loaded.shared_rows), counts):
                    sums[kind_map.kind].add(kind_map.weights, kind_map.positions, kind_map.keys)
                    _add_sinks(sinks[kind_map.kind], kind_map, special, None if norms is None else
                               [layer[b][:, kind_map.where] for layer in norms[kind_map.kind]])
            release_freed_memory()  # (a batch's maps and caches go back to the system: the peak is one batch's)
            if progress is not None and not progress(done, total):
                raise HeadsCancelled
        target: Target = "references" if corpus.references is not None else "model output"
        importance, pairs = _importance(model, gates, layout, corpus, splits, mine, outputs, loaded, device,
                                        progress, len(mine), total)
    finally:
        gates.remove()
    return _reduced(layout, sums, importance, pairs, reducer, len(corpus), truncated, beam_size, target, sinks,
                    values is not None)


def special_tokens(loaded: Any) -> tuple[str, ...]:
    """The tokens a sink class is kept for (beside the first position): attnviz's reserved ``<pad>``, ``<bos>``,
    ``<eos>``, ``<unk>`` and, for a Hugging Face folder, every special token of its tokenizers."""
    found = list(RESERVED)
    for vocab in (loaded.src_vocab, loaded.tgt_vocab):
        tokenizer = getattr(vocab, "tokenizer", None)
        if tokenizer is not None:
            found += [str(t) for t in tokenizer.all_special_tokens]
    if any(variant.sink for variant in getattr(loaded.model, "variants", ())):  # (gpt-oss: its sink, a class too)
        found.append(LEARNED_SINK)
    return tuple(dict.fromkeys(found))


def _key_norms(values: ValueNorms | None, search: BeamSearch, splits: list[SourceWords], loaded: Any,
               device: torch.device) -> dict[AttentionKind, list[np.ndarray]] | None:
    """‖f_h(x_j)‖ per kind and layer (B, H, K) of one decoded batch's keys, from a teacher-forced pass over its
    sources and best hypotheses (``<bos>`` + every decoded token but the last: the keys its steps read); None where
    the model's norm view is not known."""
    if values is None:
        return None
    src, valid = encode_sources(splits, loaded.src_vocab)
    vocab = loaded.tgt_vocab
    rows = [[vocab.bos_id, *search.best(b).ids[: max(len(search.best(b).rows) - 1, 0)]] for b in range(len(splits))]
    tgt_in = torch.full((len(rows), max(len(r) for r in rows)), vocab.pad_id, dtype=torch.long)
    for b, row in enumerate(rows):
        tgt_in[b, : len(row)] = torch.tensor(row, dtype=torch.long)
    return values(src.to(device), valid.to(device), tgt_in.to(device))


def _add_sinks(sinks: SinkSums, kind_map: Any, special: tuple[str, ...], norms: list[np.ndarray] | None) -> None:
    """One sentence's rows of one kind (its maps (L, H, Q, K), norms per layer (H, K) or None) added to ``sinks``;
    a decoder's self-attention reads causally (row i the keys up to its own position)."""
    masks = key_classes(kind_map.tokens, special)
    causal = kind_map.kind is AttentionKind.DECODER_SELF
    for layer in range(kind_map.weights.shape[0]):
        sinks.add(layer, kind_map.weights[layer], None if norms is None else norms[layer], kind_map.positions,
                  masks, causal)


def decode_batch(model: TranslationModel, splits: list[SourceWords], loaded: Any, device: torch.device,
                 beam_size: int, record: bool) -> tuple[BeamSearch, int]:
    """Decode one batch (as core.decoding.translate does: the same batch, the same numbers); the search done, and
    the batch's padded source width."""
    src, valid = encode_sources(splits, loaded.src_vocab)
    vocab = loaded.tgt_vocab
    with torch.inference_mode():
        search = BeamSearch(model, src.to(device), valid.to(device), bos_id=vocab.bos_id, eos_id=vocab.eos_id,
                            pad_id=vocab.pad_id, beam_size=beam_size, max_len=int(loaded.config.max_tgt_len),
                            record_attention=record, banned=vocab.banned)
        search.run()
    return search, int(src.shape[1])


def _importance(model: Any, gates: HeadGates, layout: HeadLayout, corpus: Corpus, splits: list[SourceWords],
                mine: list[list[int]], outputs: dict[int, list[str]], loaded: Any, device: torch.device,
                progress: Progress | None, done: int, total: int) -> tuple[dict[AttentionKind, np.ndarray], int]:
    """Sums over this process's (source, target) pairs of |∂L/∂ξ| per kind (L, H), and the number of pairs."""
    sums = {s.kind: np.zeros((s.layers, s.heads)) for s in layout.kinds}
    pairs = 0
    limit = int(loaded.config.max_tgt_len)
    for batch in mine:
        pairs_of_batch: list[tuple[SourceWords, list[str]]] = []
        for i in batch:
            targets = ([loaded.tgt_vocab.target_tokens(r) for r in corpus.references[i]]
                       if corpus.references is not None else [outputs[i]])
            pairs_of_batch.extend((splits[i], target[:limit]) for target in targets)
        for chosen in passes(pairs_of_batch, lambda source, target: row_attention_bytes(layout, source, target)):
            _add_gradients(model, gates, chosen, loaded, device, sums)
        pairs += len(pairs_of_batch)
        release_freed_memory()
        done += 1
        if progress is not None and not progress(done, total):
            raise HeadsCancelled
    return sums, pairs


def row_attention_bytes(layout: HeadLayout, source: int, output: int) -> int:
    """At most the bytes of attention maps one row makes over a ``source``-token input and an ``output``-token
    answer: weights and scores (float32, 8 bytes a cell) of every head of every kind of ``layout``, each at most
    (source + output)² cells (no kind's queries or keys outnumber the input and the answer together: a
    decoder-only model's one sequence; an encoder–decoder's kinds are each smaller)."""
    heads = sum(shape.layers * shape.heads for shape in layout.kinds)
    return 8 * heads * (source + output) ** 2


def passes(pairs: list[tuple[SourceWords, list[str]]], row_bytes: Callable[[int, int], int] | None = None
           ) -> list[list[tuple[SourceWords, list[str]]]]:
    """A batch's pairs by target length, in passes of at most PASS_TOKENS target positions (pairs × the longest
    target + 1): the logits (pairs × T × V) of a pass stay small whatever the sentences' lengths. Given
    ``row_bytes`` (source tokens, target tokens -> a pair's attention bytes), a pass's pairs × row_bytes(its longest
    source, its longest target + 1) also stays within STATS_BATCH_BYTES (a pair that passes it alone: a pass alone)."""
    ordered = sorted(pairs, key=lambda pair: len(pair[1]))
    chunks: list[list[tuple[SourceWords, list[str]]]] = []
    longest_source = 0
    for pair in ordered:
        source, target = len(pair[0].words), len(pair[1]) + 1
        fits = chunks and (len(chunks[-1]) + 1) * target <= PASS_TOKENS and (
            row_bytes is None or (len(chunks[-1]) + 1) * row_bytes(max(longest_source, source), target)
            <= STATS_BATCH_BYTES)
        if fits:
            chunks[-1].append(pair)
            longest_source = max(longest_source, source)
        else:
            chunks.append([pair])
            longest_source = source
    return chunks


def _add_gradients(model: Any, gates: HeadGates, chosen: list[tuple[SourceWords, list[str]]], loaded: Any,
                   device: torch.device, sums: dict[AttentionKind, np.ndarray]) -> None:
    """Add |∂L_p/∂ξ| of each pair p of ``chosen`` to ``sums`` (one forward and backward pass, one gate per pair)."""
    src, valid = encode_sources([c[0] for c in chosen], loaded.src_vocab)
    tgt, lengths = encode_batch([c[1] for c in chosen], loaded.tgt_vocab, add_bos=True, add_eos=True)
    tgt_in, tgt_out = tgt[:, :-1].to(device), tgt[:, 1:].to(device)
    counted = (torch.arange(tgt_out.shape[1])[None, :] < (lengths - 1)[:, None]).to(device)  # (B, T): not padding
    values = gates.ones(len(chosen), device, requires_grad=True)  # (GPT-2's padding is its end token: by lengths)
    with torch.enable_grad():
        logits = model(src.to(device), valid.to(device), tgt_in)  # (B, T, V)
        losses = torch.nn.functional.cross_entropy(logits.float().transpose(1, 2), tgt_out, reduction="none")
        per_pair = (losses * counted).sum(-1) / counted.sum(-1).clamp_min(1)  # (B,): each pair's mean cross-entropy
        kinds = list(values)
        grads = torch.autograd.grad(per_pair.sum(), [values[k] for k in kinds])
    for kind, grad in zip(kinds, grads, strict=True):
        sums[kind] += cast(Tensor, grad).abs().sum(0).double().cpu().numpy()
    gates.values = {}


def _reduced(layout: HeadLayout, sums: dict[AttentionKind, KindSums], importance: dict[AttentionKind, np.ndarray],
             pairs: int, reducer: Reducer, sentences: int, truncated: int, beam_size: int, target: Target,
             sinks: dict[AttentionKind, SinkSums] | None = None, norms: bool = False) -> HeadAtlas:
    """Every process's sums added (one all-reduce of one flat vector), as means; ``sinks``: each kind's sums of the
    sinks by the query's position (added the same way; their norm view NaN where ``norms`` is False)."""
    parts = [np.array([float(pairs)])]
    for s in layout.kinds:
        parts += [np.array([sums[s.kind].rows]), sums[s.kind].sums.ravel(), importance[s.kind].ravel(),
                  cast(np.ndarray, sums[s.kind].offsets).ravel()]
    if sinks is not None:
        parts += [sinks[s.kind].flat() for s in layout.kinds]
    flat = reducer.sum(np.concatenate(parts))
    total_pairs, at = float(flat[0]), 1
    kinds = []
    for s in layout.kinds:
        names = sums[s.kind].names
        rows = float(flat[at])
        at += 1
        size = len(names) * s.layers * s.heads
        stat_sums = flat[at: at + size].reshape(len(names), s.layers, s.heads)
        at += size
        grad_sums = flat[at: at + s.layers * s.heads].reshape(s.layers, s.heads)
        at += s.layers * s.heads
        offset_sums = flat[at: at + len(OFFSETS) * s.layers * s.heads].reshape(len(OFFSETS), s.layers, s.heads)
        at += len(OFFSETS) * s.layers * s.heads
        means = stat_sums / rows if rows else np.full_like(stat_sums, np.nan)
        imp = grad_sums / total_pairs if total_pairs else np.zeros_like(grad_sums)
        layer_norms = np.linalg.norm(imp, axis=1, keepdims=True)
        kinds.append(KindAtlas(s.kind, names, means, imp, np.divide(imp, layer_norms, out=np.zeros_like(imp),
                                                                      where=layer_norms > 0), int(rows),
                               offset_sums / rows if rows else np.full_like(offset_sums, np.nan)))
    if sinks is not None:
        for index, s in enumerate(layout.kinds):
            size = sinks[s.kind].flat().size
            added = sinks[s.kind].from_flat(flat[at: at + size])
            at += size
            if not norms:
                added.norm[:] = np.nan
            kinds[index] = dataclasses.replace(kinds[index], sinks=added)
    return HeadAtlas(tuple(kinds), sentences, truncated, beam_size, target, int(total_pairs))
