"""The head statistics and the sinks by position of a batch of documents, summed on the device the maps are made on.

:mod:`attnviz.core.heads.statistics` and :mod:`attnviz.core.heads.sinks` define the sums in numpy, one sentence's
maps at a time, on the host. Over documents a layer's maps are (B, H, P, P) — at 1,024 tokens copying them to the
host and summing them there in numpy cost about four times the forward pass itself (2 CPU threads; on a GPU the copy
alone would dwarf it). :class:`DeviceSums` computes the same sums with torch where the maps are, a chunk of query
rows at a time, mostly as matrix products over the keys (a row's shares of weight on each class of keys, in
float32; its distance in float64), and hands the host one small array per batch:

* the statistics of :data:`~attnviz.core.heads.statistics.STATISTICS` (no alignment, no rare words: documents have
  neither a target nor a corpus of sources), each row's sum over its keys, summed over the rows of real tokens;
* the argmax offsets of :data:`~attnviz.core.heads.statistics.OFFSETS`;
* the sinks' weight and norm shares by class and bin of query positions (:class:`~attnviz.core.heads.sinks.SinkSums`).

Documents are padded on the right: a padded row is not counted, a padded key has weight exactly 0 (the mask's
softmax), and a position beyond a document's own length counts as outside its keys, so every sum equals the numpy
one of the document alone (tests/test_heads_documents.py: to 1e-5 against the library's ``output_attentions``).
Shapes: B documents, H heads, P padded length, R query rows of a chunk, C classes of keys, N bins, L layers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from attnviz.core.heads.sinks import POSITION_BINS, SinkSums
from attnviz.core.heads.statistics import OFFSETS, STATISTICS, KindSums

CHUNK_VALUES = 4 * 1024 * 1024  # weights of one chunk of query rows over every document and head (16 MiB)


def summing_device(device: torch.device) -> torch.device:
    """Where a batch's sums are made: the maps' device, or the host for Apple's GPU (mps has no float64)."""
    return torch.device("cpu") if torch.device(device).type == "mps" else torch.device(device)


@dataclass(frozen=True)
class BatchKeys:
    """What the sums need of a batch's keys, on the device: each document's length (B,), its punctuation keys
    (B, P) and its keys of each class (B, C, P) (the first key, then each special token; False past its end)."""

    lengths: Tensor
    punct: Tensor
    classes: Tensor

    @classmethod
    def of(cls, lengths: list[int], punct: list[np.ndarray], classes: list[np.ndarray], device: torch.device
           ) -> BatchKeys:
        """From each document's length, punctuation mask (n,) and class masks (C, n) (as :func:`Keys.of` and
        :func:`~attnviz.core.heads.sinks.key_classes` make them), padded to the longest."""
        width = max(lengths)
        punct_all = np.zeros((len(lengths), width), bool)
        classes_all = np.zeros((len(lengths), classes[0].shape[0], width), bool)
        for b, n in enumerate(lengths):
            punct_all[b, :n] = punct[b]
            classes_all[b, :, :n] = classes[b]
        return cls(torch.tensor(lengths, device=device), torch.from_numpy(punct_all).to(device),
                   torch.from_numpy(classes_all).to(device))


class DeviceSums:
    """A batch's running sums on ``device``, per layer: statistics (len(STATISTICS), L, H), argmax offsets
    (len(OFFSETS), L, H), sinks' weight, norm and rows (C, N, L, H), and the rows counted."""

    def __init__(self, layers: int, heads: int, classes: int, device: torch.device, learned_sink: int | None = None):
        device = summing_device(device)
        def zeros(*shape: int) -> Tensor:
            return torch.zeros(shape, dtype=torch.float64, device=device)

        self.stats = zeros(len(STATISTICS), layers, heads)
        self.offsets = zeros(len(OFFSETS), layers, heads)
        shape = (classes, len(POSITION_BINS), layers, heads)
        self.sink_weight, self.sink_norm, self.sink_rows = zeros(*shape), zeros(*shape), zeros(*shape)
        self.rows = 0
        self.learned_sink = learned_sink  # the class of a learned sink logit (gpt-oss): no key, 1 − Σ_j α_ij

    def add_layer(self, layer: int, weights: Tensor, key_norms: Tensor | None, keys: BatchKeys, causal: bool) -> None:
        """Layer ``layer``'s maps of the batch, weights (B, H, P, P); key_norms (B, H, P) ‖f_h(x_j)‖ (None: no norm
        view); ``causal``: row i sees keys 0 … i only (a class is counted for the rows that can see one of its keys).

        A row's sums over its keys are float32 where they are shares of weights (≤ 1: within 1e-6 of float64) and
        float64 for the distance (up to thousands of positions); the rows' sums are added in float64."""
        batch, heads, width, _ = weights.shape
        device = summing_device(weights.device)
        if device != weights.device:  # (Apple's GPU: the maps summed on the host)
            weights = weights.to(device)
            key_norms = None if key_norms is None else key_norms.to(device)
            keys = BatchKeys(keys.lengths.to(device), keys.punct.to(device), keys.classes.to(device))
        lengths = keys.lengths
        weights = weights.float()
        classes = keys.classes.float()  # (B, C, P)
        has_class = keys.classes.any(-1)  # (B, C)
        first_at = torch.where(has_class, keys.classes.to(torch.int8).argmax(-1), lengths[:, None])  # (B, C)
        key_positions = torch.arange(width, device=device)
        end_at = (lengths - 1).clamp(min=0)  # (B,)
        end = key_positions[None, :] == end_at[:, None]  # (B, P)
        first = keys.classes[:, 0]
        # (B, 1, P, 4 + C): each key's sink, first, end, punctuation and class marks: one matmul gives a row's shares
        marks = torch.cat([torch.stack([first | end | keys.punct, first, end, keys.punct], -1).float(),
                           classes.transpose(1, 2)], -1)[:, None]
        weighted_classes = None  # (B, H, P, 1 + C): n_j, then n_j on each class's keys
        if key_norms is not None:
            norms = key_norms.float()[..., None]
            weighted_classes = torch.cat([norms, norms * classes.transpose(1, 2)[:, None]], -1)
        positions = torch.stack([torch.ones(width, dtype=torch.float64, device=device),
                                 key_positions.to(torch.float64)], -1)  # (P, 2): Σ w and Σ w·j
        rows_at_once = max(1, CHUNK_VALUES // max(1, batch * heads * width))
        for begin in range(0, width, rows_at_once):
            stop = min(width, begin + rows_at_once)
            w = weights[:, :, begin:stop]  # (B, H, R, P), float32
            q = torch.arange(begin, stop, device=device)  # (R,)
            real = q[None, :] < lengths[:, None]  # (B, R): the rows of real tokens
            if not bool(real.any()):
                continue
            confidence, argmax = w.max(-1)  # (B, H, R): the first of ties, as numpy's argmax
            shares = w @ marks  # (B, H, R, 4 + C)
            moments = w.double() @ positions  # (B, H, R, 2)
            distance = q.double() * moments[..., 0] - moments[..., 1]  # Σ w_j (q − j) …
            if not causal:  # … + 2 Σ_{j>q} w_j (j − q) = Σ w_j |q − j| (a causal row holds no weight past q)
                after = (key_positions[None, :] - q[:, None]).clamp(min=0).double()  # (R, P)
                distance = distance + 2 * torch.einsum("bhrp,rp->bhr", w.double(), after)
            out = [torch.special.entr(w).sum(-1), confidence, self._without_end(w, confidence, end_at, real)]
            for shift in (-1, 0, 1):
                at = q + shift  # (R,)
                inside = (at[None, :] >= 0) & (at[None, :] < lengths[:, None])  # (B, R)
                picked = at.clamp(0, width - 1)[None, None, :, None].expand(batch, heads, -1, 1)
                out.append(w.gather(-1, picked)[..., 0] * inside[:, None, :])
            out.extend(shares[..., :4].unbind(-1))
            kept = real[:, None, :].double()  # (B, 1, R)
            self.stats[:, layer] += (torch.stack([o.double() for o in out] + [distance]) * kept[None]).sum((1, 3))
            relative = argmax - q  # (B, H, R)
            for row, offset in enumerate(OFFSETS):
                self.offsets[row, layer] += ((relative == offset) & real[:, None, :]).sum((0, 2))
            norm_shares = None if weighted_classes is None else w @ weighted_classes  # (B, H, R, 1 + C)
            on = shares[..., 4:]
            if self.learned_sink is not None:  # (the sink's column: what the keys' weights leave)
                on = on.clone()
                on[..., self.learned_sink] = 1.0 - w.sum(-1)
            self._add_sinks(layer, on, norm_shares, q, real, first_at, has_class, causal)
            if layer == 0:
                self.rows += int(real.sum())

    @staticmethod
    def _without_end(w: Tensor, confidence: Tensor, end_at: Tensor, real: Tensor) -> Tensor:
        """(B, H, R): each real row's (``real`` (B, R)) largest weight on a key other than its document's end (its
        last token; 0 where that is the only key). It differs from ``confidence`` only in the rows whose end holds
        the largest (under a causal mask, the document's last row only)."""
        batch, heads, rows, width = w.shape
        on_end = w.gather(-1, end_at[:, None, None, None].expand(batch, heads, rows, 1))[..., 0]
        out = confidence.clone()
        where = ((on_end >= confidence) & real[:, None, :]).nonzero(as_tuple=True)
        if where[0].numel():
            picked = w[where].clone()  # (k, P)
            picked[torch.arange(len(picked), device=w.device), end_at[where[0]]] = -torch.inf
            out[where] = picked.amax(-1).clamp(min=0) if width > 1 else torch.zeros_like(out[where])
        return out

    def _add_sinks(self, layer: int, on: Tensor, norm_shares: Tensor | None, q: Tensor, real: Tensor,
                   first_at: Tensor, has_class: Tensor, causal: bool) -> None:
        """The sinks' sums of one chunk of rows (as :meth:`SinkSums.add` for each document): ``on`` (B, H, R, C)
        each row's weight on each class; norm_shares (B, H, R, 1 + C) Σ_j α_ij n_j, then on each class."""
        on = on.double().permute(0, 3, 1, 2)  # (B, C, H, R)
        norm_on = None
        if norm_shares is not None:
            total = norm_shares[..., :1].double().permute(0, 3, 1, 2)  # (B, 1, H, R)
            part = norm_shares[..., 1:].double().permute(0, 3, 1, 2)  # (B, C, H, R)
            norm_on = torch.where(total > 0, part / torch.where(total > 0, total, 1.0), 0.0)
        # (B, C, R); without a causal mask every row sees every key: a class counts where the document holds it
        seen = first_at[:, :, None] <= q[None, None, :] if causal else has_class[:, :, None].expand(-1, -1, len(q))
        if self.learned_sink is not None:  # (every row reads the sink; it adds nothing to the output: norm share 0)
            seen = seen.clone()
            seen[:, self.learned_sink] = True
            if norm_on is not None:
                norm_on[:, self.learned_sink] = 0.0
        ones = q + 1
        for index, (low, high) in enumerate(POSITION_BINS):
            in_bin = (ones >= low) & (ones <= high)  # (R,)
            if not bool(in_bin.any()):
                continue
            counted = (seen & real[:, None, :] & in_bin[None, None, :]).double()  # (B, C, R)
            self.sink_weight[:, index, layer] += (on * counted[:, :, None]).sum((0, 3))
            if norm_on is not None:
                self.sink_norm[:, index, layer] += (norm_on * counted[:, :, None]).sum((0, 3))
            self.sink_rows[:, index, layer] += counted.sum((0, 2))[:, None]

    def add_to(self, stats: KindSums, sinks: SinkSums) -> None:
        """Add the batch's sums to the host's (one copy of each small array)."""
        stats.sums += self.stats.cpu().numpy()
        stats.offsets = np.asarray(stats.offsets) + self.offsets.cpu().numpy()
        stats.rows += self.rows
        sinks.weight += self.sink_weight.cpu().numpy()
        sinks.norm += self.sink_norm.cpu().numpy()
        sinks.rows += self.sink_rows.cpu().numpy()
