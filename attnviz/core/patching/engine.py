"""Patching head by head: the share of a pair's logit difference each head's output carries.

For one prepared pair (:mod:`attnviz.core.patching.inputs`) with metric m = logit(answer) − logit(alternative),
m_clean on the clean side and m_corrupt on the corrupt one, Δ = m_clean − m_corrupt, and for every kind × layer ×
head h with output z_h (B, Q, Dh, every position, before the output projection), :func:`patch_pair` gives:

- ``denoise``: the corrupt run with z_h from the clean run, (m − m_corrupt) / Δ: the share h restores;
- ``noise``: the clean run with z_h from the corrupt run, (m_clean − m) / Δ: the share lost without it;
- ``pattern``: the corrupt run with z_h = A_clean · V_corrupt (the head's attention weights from the clean run, its
  own values), (m − m_corrupt) / Δ: whether the head matters for *where* it looks;
- ``values``: the corrupt run with z_h = A_corrupt · V_clean (its own weights, the clean run's values), likewise:
  whether it matters for *what* it reads;
- ``atp``: attribution patching, (z_clean − z_corrupt) · ∂m/∂z_h at the corrupt run, over Δ: the first-order
  estimate of ``denoise`` from one forward and one backward pass (Nanda 2023; Kramár et al. 2024).

And per layer × position of the residual stream (the output of each block of the stack over the input positions: a
Transformer's encoder, the one stack of the others), ``residual``: the corrupt run with that block's output at that
position from the clean run, (m − m_corrupt) / Δ (one batched pass per layer, a row per position).

A pair whose |Δ| is under :data:`MIN_DIFFERENCE` carries no behaviour to move: its shares are NaN (left out of the
means). Each head's attention entropy (nats, mean over the corrupt run's query rows) is kept beside them: where the
softmax saturates (entropy near 0) the first-order estimate fails (Kramár et al. 2024).

Every change goes through the one hook before the output projection (``intervene_heads`` of the model's chains, as
the head gates of :mod:`attnviz.core.heads.gates` do), and A and V come from the attention recording of
:mod:`attnviz.core.hf.attention` (attnviz's own multi-head attention reports to it too). One batched forward pass per
layer patches all of its heads for the four measures at once: rows 4·H of the pair's inputs. A replaced head's A and
V are those of the unpatched runs: patching head h of layer l changes nothing its own layer reads.
Shapes: B rows, Q queries, K keys, H heads, Dh a head's width, L layers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.heads.gates import _chains_by_kind, _layout_of, modules_by_kind
from attnviz.core.heads.mask import HeadLayout
from attnviz.core.hf.attention import AttentionCall, recording
from attnviz.core.patching.inputs import PreparedPair, Reader, reader_for
from attnviz.core.patching.pairs import PairsError
from attnviz.i18n import tr

MEASURES = ("denoise", "noise", "pattern", "values", "atp")
PATCHED = MEASURES[:4]  # the measures a patched forward pass gives (atp is the gradient's estimate)
MIN_DIFFERENCE = 1e-3  # |m_clean − m_corrupt| below this: the pair moves nothing, its shares are NaN

Slot = tuple[AttentionKind, int]  # (kind, layer)
Change = Callable[[Slot, Tensor], "Tensor | None"]


@dataclass(frozen=True)
class PairPatching:
    """One pair's results: its metric on each side; per measure and kind the metric (L, H) each head's patch gives
    (``atp``: m_corrupt plus the first-order estimate, the metric ``denoise`` would give to first order); each
    head's attention entropy (L, H) in the corrupt run."""

    clean_metric: float
    corrupt_metric: float
    metrics: dict[str, dict[AttentionKind, np.ndarray]]
    entropy: dict[AttentionKind, np.ndarray]
    residual: np.ndarray  # (L, S): the metric with block l's output at position s from the clean run

    def residual_shares(self) -> np.ndarray:
        """The share (L, S) of Δ each layer × position of the residual stream restores (NaN as :meth:`shares`)."""
        scale = self.difference if abs(self.difference) >= MIN_DIFFERENCE else float("nan")
        return (self.residual - self.corrupt_metric) / scale

    @property
    def difference(self) -> float:
        """Δ = m_clean − m_corrupt."""
        return self.clean_metric - self.corrupt_metric

    def shares(self, measure: str) -> dict[AttentionKind, np.ndarray]:
        """Each head's share (L, H) of Δ for ``measure``: restored (denoise, pattern, values, atp) or lost (noise);
        NaN where |Δ| < MIN_DIFFERENCE."""
        scale = self.difference if abs(self.difference) >= MIN_DIFFERENCE else float("nan")
        if measure == "noise":
            return {kind: (self.clean_metric - m) / scale for kind, m in self.metrics[measure].items()}
        return {kind: (m - self.corrupt_metric) / scale for kind, m in self.metrics[measure].items()}


@dataclass
class _Run:
    """What one unpatched run leaves: each slot's heads z per call (1, Q, H, Dh), its attention calls, the metric."""

    heads: dict[Slot, list[Tensor]]
    calls: dict[Slot, list[AttentionCall]]
    metric: Tensor
    blocks: list[Tensor]  # each block's output at its first call (1, S, D)


class Patcher:
    """Hooks on every head of a loaded model (live until :meth:`remove`) and the pair loop that uses them.

    PairsError for a model whose heads cannot be patched (an RNN's one attention gives no per-head weights and
    values to the recording)."""

    def __init__(self, loaded: Any, device: torch.device | str = "cpu"):
        self.device = torch.device(device)
        self.loaded = loaded
        loaded.model.to(self.device).eval()
        self.reader: Reader = reader_for(loaded, self.device)
        chains = _chains_by_kind(loaded.model)
        self.layout: HeadLayout = _layout_of(chains)
        self._slot_of = {id(module): (kind, layer) for kind, modules in modules_by_kind(loaded.model).items()
                         for layer, module in enumerate(modules)}
        self._change: Change | None = None
        self._handles = [handle for kind, kind_chains in chains.items() for layer, chain in enumerate(kind_chains)
                         for handle in chain.intervene_heads(self._hook((kind, layer)))]
        blocks = getattr(loaded.model, "residual_blocks", None)
        if blocks is None:
            self.remove()
            raise PairsError(tr("patching reads each head's attention weights and values: this model's attention "
                                "does not give them"))
        self.blocks: list[nn.Module] = list(blocks())
        self._block_change: Callable[[int, Tensor], Tensor | None] | None = None
        self._handles += [block.register_forward_hook(self._block_hook(layer)) for layer, block in
                          enumerate(self.blocks)]

    def _block_hook(self, layer: int) -> Callable[..., Any]:
        def hook(_module: nn.Module, _args: tuple[Any, ...], output: Any) -> Any:
            if self._block_change is None:
                return None
            x = output[0] if isinstance(output, tuple) else output  # (B, S, D)
            changed = self._block_change(layer, x)
            if changed is None:
                return None
            return (changed, *output[1:]) if isinstance(output, tuple) else changed
        return hook

    def _hook(self, slot: Slot) -> Callable[[Tensor], Tensor | None]:
        def change(heads: Tensor) -> Tensor | None:
            return None if self._change is None else self._change(slot, heads)
        return change

    @contextmanager
    def changing(self, change: Change) -> Iterator[None]:
        """Inside the block every head passes through ``change(slot, heads (B, Q, H, Dh))`` (None: as it is)."""
        self._change = change
        try:
            yield
        finally:
            self._change = None

    def remove(self) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles = []

    def __enter__(self) -> Patcher:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.remove()

    @property
    def slots(self) -> list[Slot]:
        return [(s.kind, layer) for s in self.layout.kinds for layer in range(s.layers)]

    # -- one pair -------------------------------------------------------------------------------------------
    def _run(self, prepared: PreparedPair, clean: bool, gradient: bool) -> tuple[_Run, list[Tensor], list[Slot]]:
        """One unpatched run of one side; ``gradient``: with a zero leaf added to every head's output (the
        tensors returned, in the order of the slots returned) to take ∂m/∂z."""
        heads: dict[Slot, list[Tensor]] = {slot: [] for slot in self.slots}
        leaves: list[Tensor] = []
        order: list[Slot] = []

        outputs: list[Tensor | None] = [None] * len(self.blocks)

        def keep_block(layer: int, x: Tensor) -> None:
            if outputs[layer] is None:  # (the first call: the input positions)
                outputs[layer] = x.detach()

        def keep(slot: Slot, z: Tensor) -> Tensor | None:
            heads[slot].append(z.detach())
            if not gradient:
                return None
            leaf = torch.zeros_like(z, requires_grad=True)
            leaves.append(leaf)
            order.append(slot)
            return z + leaf

        self._block_change = keep_block
        try:
            with torch.set_grad_enabled(gradient), self.changing(keep), recording() as recorded:
                metric = self.reader.metric(prepared, prepared.rows([clean]))
        finally:
            self._block_change = None
        calls: dict[Slot, list[AttentionCall]] = {slot: [] for slot in self.slots}
        for call in recorded:
            slot = self._slot_of.get(id(call.module))
            if slot is not None:
                calls[slot].append(call)
        for slot in self.slots:
            if len(calls[slot]) != len(heads[slot]):
                raise PairsError(tr("patching reads each head's attention weights and values: this model's attention "
                                    "does not give them"))
        return _Run(heads, calls, metric, [x for x in outputs if x is not None]), leaves, order

    def patch_pair(self, prepared: PreparedPair) -> PairPatching:
        """Every measure of the module docstring for every head, for one pair."""
        clean, _, _ = self._run(prepared, clean=True, gradient=False)
        corrupt, leaves, order = self._run(prepared, clean=False, gradient=True)
        gradients = torch.autograd.grad(corrupt.metric.sum(), leaves, allow_unused=True)
        m_clean, m_corrupt = float(clean.metric[0]), float(corrupt.metric[0].detach())
        atp: dict[Slot, Tensor] = {}
        seen: dict[Slot, int] = {}
        for slot, gradient in zip(order, gradients, strict=True):
            call = seen.get(slot, 0)
            seen[slot] = call + 1
            if gradient is None:  # (an output the metric does not read)
                continue
            moved = clean.heads[slot][call] - corrupt.heads[slot][call]  # (1, Q, H, Dh)
            term = (moved.double() * gradient.double()).sum(dim=(0, 1, 3))  # (H,)
            atp[slot] = atp[slot] + term if slot in atp else term
        metrics = {measure: {s.kind: np.zeros((s.layers, s.heads)) for s in self.layout.kinds} for measure in MEASURES}
        entropy = {s.kind: np.zeros((s.layers, s.heads)) for s in self.layout.kinds}
        for slot in self.slots:
            kind, layer = slot
            patched = self._patched_layer(prepared, slot, clean, corrupt)  # (4, H)
            for measure, row in zip(PATCHED, patched, strict=True):
                metrics[measure][kind][layer] = row
            estimate = atp.get(slot)
            metrics["atp"][kind][layer] = m_corrupt + (estimate.cpu().numpy() if estimate is not None else 0.0)
            entropy[kind][layer] = _entropy(corrupt.calls[slot])
        residual = np.stack([self._patched_block(prepared, layer, clean) for layer in range(len(self.blocks))])
        return PairPatching(m_clean, m_corrupt, metrics, entropy, residual)

    @torch.no_grad()
    def _patched_block(self, prepared: PreparedPair, layer: int, clean: _Run) -> np.ndarray:
        """One batched pass of S rows, row s the corrupt run with block ``layer``'s output at position s from the
        clean run (its first call: the input positions) -> the metrics (S,)."""
        source = clean.blocks[layer]  # (1, S, D)
        positions = source.shape[1]
        chosen = torch.eye(positions, dtype=torch.bool, device=self.device)[:, :, None]  # (S, S, 1)
        calls = [0]

        def patch(at: int, x: Tensor) -> Tensor | None:
            if at != layer:
                return None
            calls[0] += 1
            return torch.where(chosen, source.expand(positions, -1, -1), x) if calls[0] == 1 else None

        self._block_change = patch
        try:
            metrics = self.reader.metric(prepared, prepared.rows([False] * positions))
        finally:
            self._block_change = None
        return metrics.double().cpu().numpy()

    @torch.no_grad()
    def _patched_layer(self, prepared: PreparedPair, slot: Slot, clean: _Run, corrupt: _Run) -> np.ndarray:
        """One batched forward pass of 4·H rows patching every head of ``slot`` for the four patched measures ->
        their metrics (4, H): denoise, noise, pattern, values."""
        heads = clean.heads[slot][0].shape[2]
        chosen = torch.eye(heads, dtype=torch.bool, device=self.device).repeat(4, 1)[:, None, :, None]  # (4H,1,H,1)
        sources = []
        for call, (z_clean, z_corrupt) in enumerate(zip(clean.heads[slot], corrupt.heads[slot], strict=True)):
            a_clean, a_corrupt = clean.calls[slot][call], corrupt.calls[slot][call]
            pattern = (a_clean.weights.to(a_corrupt.value.dtype) @ a_corrupt.value).transpose(1, 2)  # (1, Q, H, Dh)
            values = (a_corrupt.weights.to(a_clean.value.dtype) @ a_clean.value).transpose(1, 2)
            parts = [z_clean, z_corrupt, pattern.to(z_clean.dtype), values.to(z_clean.dtype)]
            sources.append(torch.cat([p.expand(heads, -1, -1, -1) for p in parts]))  # (4H, Q, H, Dh)
        calls = iter(range(len(sources)))

        def patch(at: Slot, z: Tensor) -> Tensor | None:
            if at != slot:
                return None
            return torch.where(chosen, sources[next(calls)], z)

        sides = [False] * heads + [True] * heads + [False] * (2 * heads)
        with self.changing(patch):
            metrics = self.reader.metric(prepared, prepared.rows(sides))
        return metrics.double().cpu().numpy().reshape(4, heads)


def _entropy(calls: list[AttentionCall]) -> np.ndarray:
    """Each head's attention entropy (H,) in nats, the mean over every query row of the calls."""
    total, rows = None, 0
    for call in calls:
        weights = call.weights[0].double()  # (H, Q, K)
        row_entropy = -(weights * torch.log(weights.clamp_min(1e-30))).sum(-1)  # (H, Q)
        total = row_entropy.sum(-1) if total is None else total + row_entropy.sum(-1)
        rows += weights.shape[1]
    return (total / max(rows, 1)).cpu().numpy() if total is not None else np.zeros(0)
