"""Patching head by head: the share of a pair's logit difference each head's output carries.

For one prepared pair (:mod:`attnviz.core.patching.inputs`) with metric m = logit(answer) − logit(alternative),
m_clean on the clean side and m_corrupt on the corrupt one, Δ = m_clean − m_corrupt, and for every kind × layer ×
head h with output z_h (B, Q, Dh, every position, before the output projection), :meth:`Patcher.patch_pairs` gives:

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
position from the clean run, (m − m_corrupt) / Δ (a row per position).

Only the measures asked for are computed (:data:`CHOICES`; each costs its own passes). A pair whose |Δ| is under
:data:`MIN_DIFFERENCE` carries no behaviour to move: its shares are NaN (left out of the means). Each head's attention
entropy (nats, mean over the corrupt run's query rows) is kept beside them: where the softmax saturates (entropy near
0) the first-order estimate fails (Kramár et al. 2024).

Every change goes through the one hook before the output projection (``intervene_heads`` of the model's chains, as
the head gates of :mod:`attnviz.core.heads.gates` do), and A and V come from the attention recording of
:mod:`attnviz.core.hf.attention` (attnviz's own multi-head attention reports to it too). A replaced head's A and V are
those of the unpatched runs: patching head h of layer l changes nothing its own layer reads.

How the passes are shared (the numbers are the same as one fresh pass per head, tests/test_patching.py, 1e-5):

- pairs whose inputs have the same shapes (:meth:`~attnviz.core.patching.inputs.Reader.batch_key`) are patched in
  the same batched passes: one per patched layer, a row per pair × measure × head (split where rows × positions
  exceed :data:`ROW_TOKENS`), the residual grid one per layer, a row per pair × position;
- the blocks below the patched one compute nothing a patch changes: where each block of the stack runs once per
  forward pass and returns its hidden states alone (GPT-2, Llama, Qwen2, BERT), their outputs are replayed from the
  unpatched runs (:meth:`Patcher._replaying`) and the batch's computation starts at the patched block — about half
  of a 12-layer stack's work. Elsewhere (attnviz's Transformer, whose blocks also return their attention; its
  decoder-only model, whose blocks run again for the answer) every pass is whole.

Shapes: B rows, Q queries, K keys, H heads, Dh a head's width, L layers, S input positions, P pairs, D the width.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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

MEASURES = ("denoise", "noise", "pattern", "values", "atp")  # the measures per head
PATCHED = MEASURES[:4]  # the measures a patched forward pass gives (atp is the gradient's estimate)
CHOICES = (*MEASURES, "residual")  # what can be asked for (``attnviz patch --measures``)
MIN_DIFFERENCE = 1e-3  # |m_clean − m_corrupt| below this: the pair moves nothing, its shares are NaN
ROW_TOKENS = 8192  # the most rows × input positions one batched pass takes

Slot = tuple[AttentionKind, int]  # (kind, layer)
Change = Callable[[Slot, Tensor], "Tensor | None"]


@dataclass(frozen=True)
class PairPatching:
    """One pair's results: its metric on each side; per measure computed and kind the metric (L, H) each head's
    patch gives (``atp``: m_corrupt plus the first-order estimate, the metric ``denoise`` would give to first order);
    each head's attention entropy (L, H) in the corrupt run; the residual grid's metrics (L, S) where computed."""

    clean_metric: float
    corrupt_metric: float
    metrics: dict[str, dict[AttentionKind, np.ndarray]]
    entropy: dict[AttentionKind, np.ndarray]
    residual: np.ndarray | None  # (L, S): the metric with block l's output at position s from the clean run

    @property
    def measures(self) -> tuple[str, ...]:
        """The measures computed, in :data:`CHOICES`' order."""
        return tuple(m for m in CHOICES if (m in self.metrics if m != "residual" else self.residual is not None))

    def residual_shares(self) -> np.ndarray:
        """The share (L, S) of Δ each layer × position of the residual stream restores (NaN as :meth:`shares`);
        KeyError where the residual grid was not computed."""
        if self.residual is None:
            raise KeyError("residual")
        scale = self.difference if abs(self.difference) >= MIN_DIFFERENCE else float("nan")
        return (self.residual - self.corrupt_metric) / scale

    @property
    def difference(self) -> float:
        """Δ = m_clean − m_corrupt."""
        return self.clean_metric - self.corrupt_metric

    def shares(self, measure: str) -> dict[AttentionKind, np.ndarray]:
        """Each head's share (L, H) of Δ for ``measure``: restored (denoise, pattern, values, atp) or lost (noise);
        NaN where |Δ| < MIN_DIFFERENCE; KeyError for a measure not computed."""
        scale = self.difference if abs(self.difference) >= MIN_DIFFERENCE else float("nan")
        if measure == "noise":
            return {kind: (self.clean_metric - m) / scale for kind, m in self.metrics[measure].items()}
        return {kind: (m - self.corrupt_metric) / scale for kind, m in self.metrics[measure].items()}


@dataclass
class _Run:
    """What one unpatched run leaves: each slot's heads z per call (1, Q, H, Dh), its attention calls, the metric,
    each block's output at its first call (1, S, D), and whether that output can be replayed (every block ran once
    and returned its hidden states alone: its tuple length, None for a bare tensor, per block)."""

    heads: dict[Slot, list[Tensor]]
    calls: dict[Slot, list[AttentionCall]]
    metric: Tensor
    blocks: list[Tensor]
    replayable: bool
    shapes: list[int | None]


@dataclass
class _Batch:
    """Pairs patched together (their inputs of the same shapes): P pairs, their runs, and the inputs and block
    outputs of both sides stacked, clean sides first — row k of the stacks is pair k's clean side, row P + k its
    corrupt one."""

    pairs: list[PreparedPair]
    clean: list[_Run]
    corrupt: list[_Run]
    inputs: tuple[Tensor, ...]  # each (2P, …)
    blocks: list[Tensor]  # each (2P, S, D); empty where not replayable
    answers: Tensor  # (2P,)
    alternatives: Tensor  # (2P,)

    @property
    def replayable(self) -> bool:
        return bool(self.blocks)

    def row(self, pair: int, clean: bool) -> int:
        """The stacks' row of one side of pair ``pair``."""
        return pair if clean else len(self.pairs) + pair


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
        modules = modules_by_kind(loaded.model)
        self._slot_of = {id(module): (kind, layer) for kind, kind_modules in modules.items()
                         for layer, module in enumerate(kind_modules)}
        self._change: Change | None = None
        self._handles = [handle for kind, kind_chains in chains.items() for layer, chain in enumerate(kind_chains)
                         for handle in chain.intervene_heads(self._hook((kind, layer)))]
        blocks = getattr(loaded.model, "residual_blocks", None)
        if blocks is None:
            self.remove()
            raise PairsError(tr("patching reads each head's attention weights and values: this model's attention "
                                "does not give them"))
        self.blocks: list[nn.Module] = list(blocks())
        inside = {id(sub): number for number, block in enumerate(self.blocks) for sub in block.modules()}
        # the block holding each slot's attention (None: outside the stack, every pass whole)
        self._block_of: dict[Slot, int | None] = {(kind, layer): inside.get(id(module))
                                                  for kind, kind_modules in modules.items()
                                                  for layer, module in enumerate(kind_modules)}
        output = self.reader.output_layer()
        self._output = output if output is not None and "forward" not in output.__dict__ else None
        self._block_change: Callable[[int, Tensor], Tensor | None] | None = None
        self._block_seen: Callable[[int, Any], None] | None = None
        self._handles += [block.register_forward_hook(self._block_hook(layer)) for layer, block in
                          enumerate(self.blocks)]

    def _block_hook(self, layer: int) -> Callable[..., Any]:
        def hook(_module: nn.Module, _args: tuple[Any, ...], output: Any) -> Any:
            if self._block_seen is not None:
                self._block_seen(layer, output)
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

    @contextmanager
    def _replaying(self, until: int, outputs: Sequence[Tensor], shapes: Sequence[int | None]) -> Iterator[None]:
        """Inside the block, blocks 0 … ``until`` − 1 of the stack compute nothing: each returns ``outputs[l]``
        (B, S, D) (a tuple of that length, its other members None, where ``shapes[l]`` says so). Their forward hooks
        still run (the residual grid's patch is one)."""
        replaced = []
        for layer in range(until):
            block, value, shape = self.blocks[layer], outputs[layer], shapes[layer]
            result: Any = value if shape is None else (value, *([None] * (shape - 1)))
            replaced.append((block, block.__dict__.get("forward")))
            object.__setattr__(block, "forward", lambda *_args, _result=result, **_kwargs: _result)
        try:
            yield
        finally:
            for block, own in replaced:
                if own is None:
                    object.__delattr__(block, "forward")
                else:
                    object.__setattr__(block, "forward", own)

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

    # -- the unpatched runs ---------------------------------------------------------------------------------
    def _run(self, prepared: PreparedPair, clean: bool, gradient: bool) -> tuple[_Run, list[Tensor], list[Slot]]:
        """One unpatched run of one side; ``gradient``: with a zero leaf added to every head's output (the
        tensors returned, in the order of the slots returned) to take ∂m/∂z."""
        heads: dict[Slot, list[Tensor]] = {slot: [] for slot in self.slots}
        leaves: list[Tensor] = []
        order: list[Slot] = []
        outputs: list[Tensor | None] = [None] * len(self.blocks)
        counts = [0] * len(self.blocks)
        shapes: list[int | None] = [None] * len(self.blocks)
        plain = [True]

        def seen(layer: int, output: Any) -> None:
            counts[layer] += 1
            if isinstance(output, tuple):
                shapes[layer] = len(output)
                plain[0] = plain[0] and all(part is None for part in output[1:])
            x = output[0] if isinstance(output, tuple) else output
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

        self._block_seen = seen
        try:
            with torch.set_grad_enabled(gradient), self.changing(keep), recording() as recorded:
                metric = self.reader.metric(prepared, prepared.rows([clean]))
        finally:
            self._block_seen = None
        calls: dict[Slot, list[AttentionCall]] = {slot: [] for slot in self.slots}
        for call in recorded:
            slot = self._slot_of.get(id(call.module))
            if slot is not None:
                calls[slot].append(call)
        for slot in self.slots:
            if len(calls[slot]) != len(heads[slot]):
                raise PairsError(tr("patching reads each head's attention weights and values: this model's attention "
                                    "does not give them"))
        replayable = plain[0] and all(count == 1 for count in counts)
        return (_Run(heads, calls, metric, [x for x in outputs if x is not None], replayable, shapes), leaves,
                order)

    def _runs(self, prepared: PreparedPair, atp: bool) -> tuple[_Run, _Run, dict[Slot, Tensor]]:
        """Both unpatched runs of a pair, and (``atp``) each slot's first-order estimate (H,) of the change
        denoising it makes to the metric."""
        clean, _, _ = self._run(prepared, clean=True, gradient=False)
        corrupt, leaves, order = self._run(prepared, clean=False, gradient=atp)
        estimates: dict[Slot, Tensor] = {}
        if not atp:
            return clean, corrupt, estimates
        gradients = torch.autograd.grad(corrupt.metric.sum(), leaves, allow_unused=True)
        corrupt.metric = corrupt.metric.detach()
        seen: dict[Slot, int] = {}
        for slot, gradient in zip(order, gradients, strict=True):
            call = seen.get(slot, 0)
            seen[slot] = call + 1
            if gradient is None:  # (an output the metric does not read)
                continue
            moved = clean.heads[slot][call] - corrupt.heads[slot][call]  # (1, Q, H, Dh)
            term = (moved.double() * gradient.double()).sum(dim=(0, 1, 3))  # (H,)
            estimates[slot] = estimates[slot] + term if slot in estimates else term
        return clean, corrupt, estimates

    # -- the pairs ------------------------------------------------------------------------------------------
    def patch_pair(self, prepared: PreparedPair, measures: Sequence[str] = CHOICES) -> PairPatching:
        """The ``measures`` (of :data:`CHOICES`) for every head, for one pair."""
        return self.patch_pairs([prepared], measures)[0]

    def patch_pairs(self, prepared: Sequence[PreparedPair], measures: Sequence[str] = CHOICES,
                    between: Callable[[], None] | None = None) -> list[PairPatching]:
        """The ``measures`` (of :data:`CHOICES`) for every head, for each pair, in order; pairs whose inputs have the
        same shapes share batched passes (a pair's numbers can differ in the last bits with the pairs passed with it:
        :func:`~attnviz.core.patching.corpus.patch_corpus` passes fixed groups). ``between()`` is called after each
        batched pass (a caller stops the work by raising there)."""
        unknown = [m for m in measures if m not in CHOICES]
        if unknown:
            raise ValueError(f"no such measure: {', '.join(unknown)}")
        patched = [m for m in PATCHED if m in measures]
        keep_calls = "pattern" in measures or "values" in measures
        shapes = {s.kind: (s.layers, s.heads) for s in self.layout.kinds}
        heads = max((s.heads for s in self.layout.kinds), default=1)
        results: list[PairPatching | None] = [None] * len(prepared)
        together: dict[Any, list[int]] = {}
        for number, one in enumerate(prepared):
            together.setdefault(self.reader.batch_key(one), []).append(number)
        for numbers in together.values():
            # as many pairs as fill one pass of denoising (rows × positions ≤ ROW_TOKENS): their unpatched runs
            # (each layer's attention maps) are held together
            positions = max(int(part.shape[-1]) for part in prepared[numbers[0]].clean)
            per = max(1, ROW_TOKENS // max(1, positions * heads))
            for begin in range(0, len(numbers), per):
                chosen = numbers[begin: begin + per]
                for number, result in zip(chosen, self._patch_batch([prepared[n] for n in chosen], measures,
                                                                    patched, keep_calls, shapes, between),
                                          strict=True):
                    results[number] = result
        return [result for result in results if result is not None]

    def _patch_batch(self, prepared: list[PreparedPair], measures: Sequence[str], patched: list[str],
                     keep_calls: bool, shapes: dict[AttentionKind, tuple[int, int]],
                     between: Callable[[], None] | None = None) -> list[PairPatching]:
        """:meth:`patch_pairs` for pairs of one batch key, their passes shared."""
        runs, entropies = [], []
        for one in prepared:
            clean, corrupt, estimates = self._runs(one, "atp" in measures)
            entropy = {kind: np.zeros(shape) for kind, shape in shapes.items()}
            for kind, layer in self.slots:
                entropy[kind][layer] = _entropy(corrupt.calls[(kind, layer)])
            if not keep_calls:  # (the attention maps: only pattern and values read them again)
                clean.calls, corrupt.calls = {}, {}
            runs.append((clean, corrupt, estimates))
            entropies.append(entropy)
        metrics: list[dict[str, dict[AttentionKind, np.ndarray]]] = [
            {m: {kind: np.zeros(shape) for kind, shape in shapes.items()} for m in MEASURES if m in measures}
            for _ in prepared]
        residual: list[np.ndarray | None] = [None] * len(prepared)
        batch = self._batch(prepared, [run[0] for run in runs], [run[1] for run in runs])
        for slot in self.slots if patched else ():
            values = self._patched_layer(batch, slot, patched)  # (P, M, H)
            if between is not None:
                between()
            for k in range(len(prepared)):
                for measure, row in zip(patched, values[k], strict=True):
                    metrics[k][measure][slot[0]][slot[1]] = row
        if "residual" in measures:
            layers = []
            for layer in range(len(self.blocks)):
                layers.append(self._patched_block(batch, layer))
                if between is not None:
                    between()
            grid = np.stack(layers, axis=1)
            for k in range(len(prepared)):
                residual[k] = grid[k]  # (L, S)
        results = []
        for k, (clean, corrupt, estimates) in enumerate(runs):
            m_corrupt = float(corrupt.metric[0])
            if "atp" in measures:
                for kind, layer in self.slots:
                    estimate = estimates.get((kind, layer))
                    metrics[k]["atp"][kind][layer] = m_corrupt + (
                        estimate.cpu().numpy() if estimate is not None else 0.0)
            results.append(PairPatching(float(clean.metric[0]), m_corrupt, metrics[k], entropies[k], residual[k]))
        return results

    def _batch(self, pairs: list[PreparedPair], clean: list[_Run], corrupt: list[_Run]) -> _Batch:
        inputs = tuple(torch.cat([*(p.clean[i] for p in pairs), *(p.corrupt[i] for p in pairs)])
                       for i in range(len(pairs[0].clean)))
        replayable = all(run.replayable and run.shapes == clean[0].shapes for run in (*clean, *corrupt))
        blocks = [torch.cat([*(run.blocks[layer] for run in clean), *(run.blocks[layer] for run in corrupt)])
                  for layer in range(len(self.blocks))] if replayable else []
        answers = torch.tensor([p.answer_id for p in pairs] * 2, device=self.device)
        alternatives = torch.tensor([p.alternative_id for p in pairs] * 2, device=self.device)
        return _Batch(pairs, clean, corrupt, inputs, blocks, answers, alternatives)

    def _metric_rows(self, batch: _Batch, rows: Tensor, start: int) -> Tensor:
        """The metric (B,) of a batched pass whose row r is row ``rows[r]`` of the batch's stacks, blocks below
        ``start`` replayed from the unpatched runs (0: the whole pass); the patches set up by the caller."""
        inputs = tuple(part[rows] for part in batch.inputs)
        start = start if batch.replayable else 0
        answers, alternatives = batch.answers[rows], batch.alternatives[rows]
        tokens = torch.unique(torch.cat([answers, alternatives]))  # (U,) sorted: the logits' columns read
        with self._replaying(start, [block[rows] for block in batch.blocks[:start]], batch.clean[0].shapes), \
                self._narrowing(tokens):
            logits = self.reader.logits(inputs)  # (B, U) where narrowed, else (B, V)
        if self._output is not None:
            answers, alternatives = torch.searchsorted(tokens, answers), torch.searchsorted(tokens, alternatives)
        logits = logits.to(torch.promote_types(logits.dtype, torch.float32))
        every = torch.arange(len(rows), device=logits.device)
        return (logits[every, answers] - logits[every, alternatives]).double()

    @contextmanager
    def _narrowing(self, tokens: Tensor) -> Iterator[None]:
        """Inside the block the output layer (:meth:`~attnviz.core.patching.inputs.Reader.output_layer`) computes the
        logits of ``tokens`` (U,) alone: (…, U) in their order, not the whole vocabulary (GPT-2's 50,257 rows of 768
        cost as much as a tenth of a patched pass). Nothing where the reader names no such layer."""
        layer = self._output
        if layer is None:
            yield
            return
        weight = layer.weight[tokens]  # (U, D)
        bias = None if layer.bias is None else layer.bias[tokens]
        object.__setattr__(layer, "forward", lambda x: nn.functional.linear(x, weight, bias))
        try:
            yield
        finally:
            object.__delattr__(layer, "forward")

    @torch.inference_mode()
    def _patched_block(self, batch: _Batch, layer: int) -> np.ndarray:
        """Rows pair × position s: the corrupt run with block ``layer``'s output at s from the clean run (its first
        call: the input positions) -> the metrics (P, S)."""
        pairs = len(batch.pairs)
        sources = torch.cat([run.blocks[layer] for run in batch.clean])  # (P, S, D)
        positions = sources.shape[1]
        out = torch.empty(pairs * positions, dtype=torch.float64)
        chunk = max(1, ROW_TOKENS // max(1, positions))
        for begin in range(0, pairs * positions, chunk):
            numbers = torch.arange(begin, min(begin + chunk, pairs * positions), device=self.device)
            pair, position = numbers // positions, numbers % positions
            chosen = (torch.arange(positions, device=self.device)[None, :] == position[:, None])[:, :, None]
            source = sources[pair]  # (B, S, D)
            calls = [0]

            def patch(at: int, x: Tensor, source: Tensor = source, chosen: Tensor = chosen,
                      calls: list[int] = calls) -> Tensor | None:
                if at != layer:
                    return None
                calls[0] += 1
                return torch.where(chosen, source, x) if calls[0] == 1 else None

            self._block_change = patch
            try:
                out[begin: begin + len(numbers)] = self._metric_rows(batch, pairs + pair, layer + 1).cpu()
            finally:
                self._block_change = None
        return out.numpy().reshape(pairs, positions)

    @torch.inference_mode()
    def _patched_layer(self, batch: _Batch, slot: Slot, measures: Sequence[str]) -> np.ndarray:
        """Batched passes of a row per pair × measure × head patching every head of ``slot`` for each of the
        ``measures`` (of :data:`PATCHED`) -> their metrics (P, M, H)."""
        calls = len(batch.clean[0].heads[slot])
        heads = batch.clean[0].heads[slot][0].shape[2]
        # each (pair, measure)'s source of every call, stacked (P·M, Q, H, Dh) per call
        sources = [torch.cat([self._source(batch, k, slot, call, m) for k in range(len(batch.pairs))
                              for m in measures]) for call in range(calls)]
        total = len(batch.pairs) * len(measures) * heads
        numbers = torch.arange(total, device=self.device)
        which, head = numbers // heads, numbers % heads  # (the source's row, the head it replaces)
        pair = which // len(measures)
        clean_side = torch.tensor([m == "noise" for m in measures], device=self.device)[which % len(measures)]
        rows = torch.where(clean_side, pair, pair + len(batch.pairs))
        block = self._block_of[slot]
        positions = max(z.shape[1] for z in batch.clean[0].heads[slot])
        chunk = max(1, ROW_TOKENS // max(1, positions))
        out = torch.empty(total, dtype=torch.float64)
        for begin in range(0, total, chunk):
            part = slice(begin, begin + chunk)
            chosen = (torch.arange(heads, device=self.device)[None, :] == head[part][:, None])[:, None, :, None]
            order = iter(range(calls))
            chunk_sources = [s[which[part]] for s in sources]  # (B, Q, H, Dh) per call

            def patch(at: Slot, z: Tensor, chosen: Tensor = chosen, chunk_sources: list[Tensor] = chunk_sources,
                      order: Iterator[int] = order) -> Tensor | None:
                if at != slot:
                    return None
                return torch.where(chosen, chunk_sources[next(order)], z)

            with self.changing(patch):
                out[part] = self._metric_rows(batch, rows[part], 0 if block is None else block).cpu()
        return out.numpy().reshape(len(batch.pairs), len(measures), heads)

    @staticmethod
    def _source(batch: _Batch, pair: int, slot: Slot, call: int, measure: str) -> Tensor:
        """What replaces a head's output (1, Q, H, Dh) at one call of ``slot`` for ``measure``."""
        clean, corrupt = batch.clean[pair], batch.corrupt[pair]
        if measure == "denoise":
            return clean.heads[slot][call]
        if measure == "noise":
            return corrupt.heads[slot][call]
        a_clean, a_corrupt = clean.calls[slot][call], corrupt.calls[slot][call]
        z = clean.heads[slot][call]
        if measure == "pattern":  # the clean run's weights, the corrupt run's values
            return (a_clean.weights.to(a_corrupt.value.dtype) @ a_corrupt.value).transpose(1, 2).to(z.dtype)
        return (a_corrupt.weights.to(a_clean.value.dtype) @ a_clean.value).transpose(1, 2).to(z.dtype)


def _entropy(calls: list[AttentionCall]) -> np.ndarray:
    """Each head's attention entropy (H,) in nats, the mean over every query row of the calls."""
    total, rows = None, 0
    for call in calls:
        weights = call.weights[0].double()  # (H, Q, K)
        row_entropy = -(weights * torch.log(weights.clamp_min(1e-30))).sum(-1)  # (H, Q)
        total = row_entropy.sum(-1) if total is None else total + row_entropy.sum(-1)
        rows += weights.shape[1]
    return (total / max(rows, 1)).cpu().numpy() if total is not None else np.zeros(0)
