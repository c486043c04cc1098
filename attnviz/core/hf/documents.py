"""The atlas of a Hugging Face language model over documents: one forward pass per document, no decoding.

``attnviz heads --documents`` (and any encoder-only folder) reads ``--data`` as one document a line, each cut to the
model's positions (at most :data:`MAX_DOCUMENT_TOKENS`), and adds every self-attention row of every layer × head
to the sums of :mod:`attnviz.core.heads.statistics` and :mod:`attnviz.core.heads.sinks` as the forward pass makes
it (:func:`attnviz.core.hf.attention.consuming`), on the model's device (:mod:`attnviz.core.heads.device_sums`: the
maps never go to the host): no map outlives its layer, so memory is bounded by one layer of one batch whatever the
corpus's size. Documents are sorted by length and batched by tokens (rows × the longest ≤
``batch_tokens``, padded on the right: a real token's row reads the same keys as alone); a batch that runs the
device out of memory is tried again at half the tokens, and the rest of the corpus keeps the halved size.
Shapes: B rows, H heads, P padded length, n a document's length, D a head's width, E the model's width.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.device import out_of_memory
from attnviz.core.heads.atlas import HeadAtlas, HeadsCancelled, KindAtlas, Progress
from attnviz.core.heads.corpus import CorpusError, data_lines, shard
from attnviz.core.heads.device_sums import BatchKeys, DeviceSums
from attnviz.core.heads.distributed import Reducer
from attnviz.core.heads.sinks import LEARNED_SINK, SinkSums, key_classes
from attnviz.core.heads.statistics import OFFSETS, Keys, KindSums
from attnviz.core.heads.value_norms import HeadOutput, head_grams
from attnviz.i18n import tr

MAX_DOCUMENT_TOKENS = 4096  # a document is cut here whatever the model's positions (the sinks' last bin ends here)
DEFAULT_BATCH_TOKENS = 4096  # rows × padded length of one forward pass


class DocumentsTooLong(ValueError):
    """One document alone runs the device out of memory (the batch cannot be halved further)."""


@dataclass(frozen=True)
class Documents:
    """Token ids of each document (cut to the model's positions) and how many were cut."""

    ids: tuple[tuple[int, ...], ...]
    truncated: int

    def __len__(self) -> int:
        return len(self.ids)


@dataclass(frozen=True)
class DocumentAtlas:
    """The atlas (importance not measured: ``n/a``), the sinks' sums, the documents and tokens read, and the batch
    size in tokens the run ended with (smaller than asked where the device ran out of memory)."""

    atlas: HeadAtlas
    sinks: SinkSums
    tokens: int
    batch_tokens: int


def positions_of(loaded: Any) -> int:
    """The longest document ``loaded`` reads: its positions (a Hugging Face config's ``n_positions`` or
    ``max_position_embeddings``; an encoder's own limit), at most MAX_DOCUMENT_TOKENS."""
    config = loaded.model.hf.config
    most = getattr(config, "n_positions", None) or getattr(config, "max_position_embeddings", None) or 512
    if is_encoder(loaded):
        most = min(int(most), int(loaded.config.max_src_len))
    return min(int(most), MAX_DOCUMENT_TOKENS)


def reads_documents(loaded: Any) -> bool:
    """Whether ``loaded`` is a Hugging Face language model (decoder-only or encoder-only) whose heads
    :func:`document_atlas` maps: not an encoder–decoder, and one whose layout reads sentences (its capabilities)."""
    return bool(loaded.kind.startswith("hf-") and loaded.kind != "hf-seq2seq" and loaded.model_kind.reads_text)


def is_encoder(loaded: Any) -> bool:
    """Whether the model's one self-attention is bidirectional (an encoder-only folder: it has no decoder)."""
    return not loaded.model.attention_modules(AttentionKind.DECODER_SELF)


def read_documents(path: str | Path, loaded: Any, limit: int | None = None,
                   progress: Callable[[int, int], object] | None = None) -> Documents:
    """The documents of ``path`` (one a line, empty lines skipped, the first ``limit``) as the model's tokenizer
    splits them (its special tokens added), each cut to :func:`positions_of`; ``progress(bytes read, the file's
    bytes)`` as it is read (:func:`attnviz.core.heads.corpus.data_lines`)."""
    tokenizer = loaded.src_vocab.tokenizer
    most = positions_of(loaded)
    ids: list[tuple[int, ...]] = []
    truncated = 0
    for _number, line in data_lines(path, documents=True, progress=progress):
        if not line.strip():
            continue
        if limit is not None and len(ids) >= limit:
            break
        split = tokenizer(line, add_special_tokens=True, truncation=True, max_length=most,
                          return_overflowing_tokens=False, return_length=False)["input_ids"]
        if len(split) >= most and len(tokenizer(line, add_special_tokens=True)["input_ids"]) > most:
            truncated += 1
        ids.append(tuple(int(i) for i in split))
    if not ids:
        raise CorpusError(tr("{path} is empty: give one document a line").format(path=path))
    return Documents(tuple(ids), truncated)


def token_batches(lengths: list[int], tokens: int) -> list[list[int]]:
    """Document indices sorted by length (ties in order), in batches whose rows × longest ≤ ``tokens`` (a longer
    document alone)."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    batches: list[list[int]] = []
    for i in order:
        if batches and (len(batches[-1]) + 1) * lengths[i] <= tokens:
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def forward(model: nn.Module, ids: Tensor, mask: Tensor, causal: bool) -> None:
    """One forward pass, its attention read as it is made: a causal model's logits for the last position only (the
    statistics need none), an encoder's base model without its head."""
    if causal:
        model(input_ids=ids, attention_mask=mask, use_cache=False, logits_to_keep=1)
    else:
        model(input_ids=ids, attention_mask=mask)


def _output_layers(loaded: Any, modules: list[nn.Module]) -> list[nn.Module] | None:
    """Each layer's output projection W_O (reading the heads side by side), or None where it cannot be found."""
    from attnviz.core.hf.heads import output_projection

    architecture = loaded.model.architecture
    if architecture.projection.output:
        return [output_projection(m, architecture) for m in modules]
    found: list[nn.Module] = []
    named = dict(loaded.model.hf.named_modules())
    where = {id(m): name for name, m in named.items()}
    for module in modules:  # BERT's W_O sits beside its self-attention: attention.self → attention.output.dense
        parent = where[id(module)].rpartition(".")[0]
        layer = named.get(f"{parent}.output.dense") or named.get(f"{where[id(module)]}.out_lin")
        if not isinstance(layer, nn.Linear):
            return None
        found.append(layer)
    return found


def _grams(loaded: Any, modules: list[nn.Module], heads: int) -> list[HeadOutput] | None:
    """Per layer what ‖v W_O^h‖ is computed from (:class:`HeadOutput`: G_h = W_O^h W_O^hᵀ, so ‖v W_O^h‖² = v G_h vᵀ,
    or W_O^h itself for a head wider than the model): Kobayashi's ‖f_h(x_j)‖ without making f."""
    layers = _output_layers(loaded, modules)
    if layers is None:
        return None
    fused = loaded.model.architecture.projection.style == "fused"  # (GPT-2's Conv1D: weight (in, out))
    return [head_grams(cast(Tensor, layer.weight) if fused else cast(Tensor, layer.weight).t(), heads)
            for layer in layers]


class _Batch:
    """One batch's sums (added to the run's only when its forward pass has finished)."""

    def __init__(self, layers: int, heads: int, classes: tuple[str, ...]):
        self.stats = KindSums.empty(layers, heads, False)
        self.sinks = SinkSums.empty(classes, layers, heads)


def document_atlas(loaded: Any, documents: Documents, device: torch.device | str, progress: Progress | None = None,
                   *, batch_tokens: int = DEFAULT_BATCH_TOKENS, reducer: Reducer | None = None,
                   notice: Callable[[str], None] | None = None) -> DocumentAtlas:
    """Every self-attention head's statistics and sinks over ``documents`` (this process's share of the batches;
    the sums added across ``reducer``'s processes). progress(done, total) after each batch (documents); False
    cancels (:class:`HeadsCancelled`). notice(text): a batch size halved after the device ran out of memory."""
    reducer = reducer or Reducer()
    device = torch.device(device)
    wrapper = loaded.model.to(device).eval()
    encoder = is_encoder(loaded)
    hf: nn.Module = wrapper.architecture.root(wrapper.hf) if encoder else wrapper.hf  # (an encoder: no head)
    kind = AttentionKind.ENCODER_SELF if encoder else AttentionKind.DECODER_SELF
    modules = list(wrapper.attention_modules(kind))
    layer_of = {id(m): index for index, m in enumerate(modules)}
    heads = int(getattr(hf.config, "num_attention_heads", None) or getattr(hf.config, "n_head", None)
                or loaded.config.heads)
    vocab = loaded.src_vocab
    special = tuple(dict.fromkeys(str(t) for t in vocab.tokenizer.all_special_tokens))
    readable = {int(i): str(t) for i, t in zip(vocab.tokenizer.all_special_ids, vocab.tokenizer.all_special_tokens,
                                                strict=False)}
    if any(variant.sink for variant in getattr(wrapper, "variants", ())):  # (gpt-oss: its sink a class of its own)
        special = (*special, LEARNED_SINK)
    classes = ("first", *special)
    total = KindSums.empty(len(modules), heads, False)
    sinks = SinkSums.empty(classes, len(modules), heads)
    with torch.no_grad():
        grams = _grams(loaded, modules, heads)
    lengths = [len(d) for d in documents.ids]
    mine = [i for batch in shard(token_batches(lengths, batch_tokens), reducer.rank, reducer.world) for i in batch]
    pad = int(vocab.pad_id)
    size, done, tokens = max(1, batch_tokens), 0, 0
    pending = token_batches([lengths[i] for i in mine], size)
    queue = [[mine[j] for j in batch] for batch in pending]
    while queue:
        batch = queue.pop(0)
        run = _Batch(len(modules), heads, classes)
        try:
            _run_batch(hf, [documents.ids[i] for i in batch], pad, device, run, layer_of, grams, vocab, special,
                       readable, encoder)
        except Exception as error:  # (MemoryError is an Exception too)
            if not out_of_memory(error):
                raise
            if len(batch) == 1:
                raise DocumentsTooLong(tr("one document of {tokens:,} tokens alone runs {device} out of memory: "
                                          "give shorter documents").format(tokens=lengths[batch[0]],
                                                                           device=device)) from None
            del run
            _free(device)
            size = max(1, min(size, len(batch) * max(lengths[i] for i in batch)) // 2)
            if notice is not None:
                notice(tr("out of memory on {device}: batches of {tokens:,} tokens from now on").format(
                    device=device, tokens=size))
            rest = [i for b in [batch, *queue] for i in b]
            queue = [[rest[j] for j in b] for b in token_batches([lengths[i] for i in rest], size)]
            continue
        total.sums += run.stats.sums
        total.offsets = cast(np.ndarray, total.offsets) + cast(np.ndarray, run.stats.offsets)
        total.rows += run.stats.rows
        sinks += run.sinks
        done += len(batch)
        tokens += sum(lengths[i] for i in batch)
        if progress is not None and not progress(done, len(mine)):
            raise HeadsCancelled
    return _reduced(kind, total, sinks, reducer, len(documents), documents.truncated, tokens, size, grams is not None)


def _free(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()


def _run_batch(hf: nn.Module, docs: list[tuple[int, ...]], pad: int, device: torch.device, run: _Batch,
               layer_of: dict[int, int], grams: list[HeadOutput] | None, vocab: Any, special: tuple[str, ...],
               readable: dict[int, str], encoder: bool) -> None:
    """One batch's forward pass, each layer's rows added to ``run`` as the layer makes them."""
    from attnviz.core.hf.attention import AttentionCall, consuming

    width = max(len(d) for d in docs)
    ids = torch.full((len(docs), width), pad, dtype=torch.long)
    mask = torch.zeros((len(docs), width), dtype=torch.long)
    for b, doc in enumerate(docs):
        ids[b, : len(doc)] = torch.tensor(doc, dtype=torch.long)
        mask[b, : len(doc)] = 1
    punct, class_masks = [], []
    for doc in docs:
        tokens = [vocab.tokens[i] if 0 <= i < len(vocab) else "" for i in doc]
        names = [readable.get(i, "\0") for i in doc]  # (a special token's class is its tokenizer text)
        punct.append(Keys.of(tokens, len(doc) - 1).punct)
        class_masks.append(key_classes(names, special))
    keys = BatchKeys.of([len(d) for d in docs], punct, class_masks, device)
    sink = 1 + special.index(LEARNED_SINK) if LEARNED_SINK in special else None  # (after "first")
    sums = DeviceSums(run.stats.sums.shape[1], run.stats.sums.shape[2], len(class_masks[0]), device, sink)

    def consume(call: AttentionCall) -> None:
        layer = layer_of.get(id(call.module))
        if layer is None:
            return
        weights = call.weights.float()  # (B, H, P, P)
        norms = None
        if grams is not None:
            norms = grams[layer].norms(call.value)  # (B, H, P)
        sums.add_layer(layer, weights, norms, keys, causal=not encoder)

    with consuming(consume), torch.inference_mode():  # (no autograd: nothing of a layer outlives it)
        forward(hf, ids.to(device), mask.to(device), not encoder)
    sums.add_to(run.stats, run.sinks)


def _reduced(kind: AttentionKind, total: KindSums, sinks: SinkSums, reducer: Reducer, documents: int,
             truncated: int, tokens: int, size: int, norms: bool) -> DocumentAtlas:
    """Every process's sums added (one all-reduce), as the atlas's means."""
    offsets = cast(np.ndarray, total.offsets)
    flat = reducer.sum(np.concatenate([[total.rows, float(tokens)], total.sums.ravel(), offsets.ravel(),
                                       sinks.flat()]))
    rows, tokens_all = float(flat[0]), int(flat[1])
    at = 2
    sums = flat[at: at + total.sums.size].reshape(total.sums.shape)
    at += total.sums.size
    offset_sums = flat[at: at + offsets.size].reshape(offsets.shape)
    at += offsets.size
    added = sinks.from_flat(flat[at:])
    if not norms:
        added.norm[:] = np.nan
    layers, heads = int(total.sums.shape[1]), int(total.sums.shape[2])
    nan = np.full((layers, heads), np.nan)
    means = sums / rows if rows else np.full_like(sums, np.nan)
    shares = offset_sums / rows if rows else np.full_like(offset_sums, np.nan)
    atlas = HeadAtlas((KindAtlas(kind, total.names, means, nan, nan.copy(), int(rows), shares, added),), documents,
                      truncated, 1, "none", 0)
    assert shares.shape[0] == len(OFFSETS)
    return DocumentAtlas(atlas, added, tokens_all, size)
