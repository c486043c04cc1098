"""Attributions of one predicted token to the source tokens: gradient × input and integrated gradients (Captum,
on the source embeddings) and occlusion (the model's own log-probabilities of modified sources).

The function explained is f(source) = log p(token | source, <bos> + prefix), computed by the model's
teacher-forcing ``forward(src, src_valid_lens, tgt_in)`` (:class:`TokenLogProb`), or for an encoder-only model
log p(token at the masked position | sequence) (:class:`MaskedLogProb`). The gradient methods attribute to the
output of the model's (source) token embedding table (Captum's layer methods replace that output), summed over
the width: one number per input token. Integrated gradients' baseline is every token's ``<pad>`` embedding; its
m steps run through the model in batches of rows (all m at once unless a
batch size says fewer). Shapes: S source tokens, t target positions, m steps, D width.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.limits import MAX_IG_STEPS  # noqa: F401  (re-exported: attnviz.core.explain.MAX_IG_STEPS)

DEFAULT_IG_STEPS = 32


@dataclass(frozen=True)
class Completeness:
    """Integrated gradients' completeness check: the attributions' sum, f(x) − f(baseline), and their ratio
    (1 means complete; the Riemann sum's error shrinks as the steps grow)."""

    attribution_sum: float
    difference: float

    @property
    def ratio(self) -> float:
        return self.attribution_sum / self.difference if self.difference else float("nan")


def _newest_position_only(_module: nn.Module, args: tuple[Tensor, ...]) -> tuple[Tensor, ...] | None:
    """A pre-hook on the output projection: (B, t, D) -> (B, 1, D), the one position whose prediction is
    explained (a teacher-forced pass would otherwise project every prefix position onto the vocabulary). It
    fires where the layer is called (gradients recorded); without gradients :func:`project` multiplies itself."""
    return (args[0][:, -1:], *args[1:]) if args[0].dim() == 3 else None


class TokenLogProb:
    """f(src) for a batch of sources (B, S) of one length: log p(token | src, tgt_in) (B,)."""

    def __init__(self, model: nn.Module, tgt_in: Tensor, token: int):
        self.model, self.tgt_in, self.token = model, tgt_in, token

    def __call__(self, src: Tensor) -> Tensor:
        return self.log_probs(src)[:, self.token]

    def log_probs(self, src: Tensor) -> Tensor:
        """The whole next-token distribution's log-probabilities (B, V)."""
        rows = src.shape[0]
        valid = torch.full((rows,), src.shape[1], dtype=torch.long, device=src.device)
        handle = self.model.get_submodule("output").register_forward_pre_hook(_newest_position_only)
        try:
            logits = self.model(src, valid, self.tgt_in.expand(rows, -1))  # (B, 1, V), (B, t, V) without the hook
        finally:
            handle.remove()
        last = logits[:, -1]
        return torch.log_softmax(last.to(torch.promote_types(last.dtype, torch.float32)), dim=-1)


class MaskedLogProb:
    """f(tokens) for a batch of sequences (B, S) of an encoder-only model (a small BERT): log p(token at
    ``position``) (B,)."""

    def __init__(self, model: nn.Module, segments: Tensor, position: int, token: int):
        self.model, self.segments, self.position, self.token = model, segments, position, token

    def __call__(self, tokens: Tensor) -> Tensor:
        rows = tokens.shape[0]
        valid = torch.full((rows,), tokens.shape[1], dtype=torch.long, device=tokens.device)
        positions = torch.full((rows, 1), self.position, dtype=torch.long, device=tokens.device)
        logits = self.model(tokens, self.segments.expand(rows, -1), valid, positions)  # (B, 1, V)
        return torch.log_softmax(logits[:, 0].to(torch.promote_types(logits.dtype, torch.float32)),
                                 dim=-1)[:, self.token]


class ContinuationLogProb:
    """f(prompt) for a batch of prompts (B, S) of a Hugging Face decoder-only model: log p(token | prompt, answer)
    (B,), the answer so far fixed as its embeddings (1, t, E) (made once, outside any attribution: the token
    embedding table is called on the prompt alone, so Captum's layer methods see the prompt's embeddings only).
    Logits of the newest position only."""

    def __init__(self, hf: nn.Module, answer: Tensor, token: int):
        self.hf, self.answer, self.token = hf, answer, token
        self.embedding: nn.Module = hf.get_input_embeddings()  # type: ignore[operator]

    def __call__(self, prompts: Tensor) -> Tensor:
        return self.log_probs(prompts)[:, self.token]

    def log_probs(self, prompts: Tensor) -> Tensor:
        """The whole next-token distribution's log-probabilities (B, V)."""
        embedded = self.embedding(prompts)  # (B, S, E)
        inputs = torch.cat([embedded, self.answer.to(embedded.dtype).expand(prompts.shape[0], -1, -1)], dim=1)
        last = newest_logits(self.hf, inputs)
        return torch.log_softmax(last.to(torch.promote_types(last.dtype, torch.float32)), dim=-1)


def newest_logits(hf: nn.Module, inputs: Tensor) -> Tensor:
    """A Hugging Face causal model's logits (B, V) at the newest position of the embedded rows inputs (B, P, E): every
    forward pass of an explained continuation goes through here (B·P tokens at once)."""
    return cast(Tensor, hf(inputs_embeds=inputs, use_cache=False, logits_to_keep=1).logits[:, -1])


Explained = Callable[[Tensor], Tensor]  # ids (B, S) -> the explained log-probability (B,)


def gradient_x_input(f: Explained, embedding: nn.Module, ids: Tensor) -> np.ndarray:
    """ids (1, S) -> (S,): Σ_D ∂f/∂e_j · e_j for the output e_j of ``embedding`` at each position."""
    from captum.attr import LayerGradientXActivation  # (here: Captum and the matplotlib it loads cost every
    # process that imports attnviz.core.explain — each CLI command does — about 0.7 s of CPU)

    method = LayerGradientXActivation(f, embedding)
    with torch.enable_grad():
        attributions = method.attribute(ids)  # (1, S, E)
    return attributions[0].sum(dim=-1).detach().to(torch.float64).cpu().numpy()


@contextlib.contextmanager
def attention_detached(model: nn.Module) -> Iterator[None]:
    """Within the block, gradients do not flow through any attention weights of ``model`` (Jain & Wallace 2019
    "disconnect the computation graph at the attention module"): the weights act as constants while the values
    still carry the gradient. attnviz's attention modules compute their scores from W_q and W_k alone (multi-head
    attention) or from the queries and keys they are given (the RNN's additive and dot-product attention), so the
    outputs of those projections, or those inputs, are detached; the forward values are unchanged."""
    from attnviz.core.attention.layers import MultiHeadAttention, RecurrentQuery

    def detached_output(_module: nn.Module, _args: tuple[Any, ...], output: Tensor) -> Tensor:
        return output.detach()

    def detached_queries_keys(_module: nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]
                              ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        named = ("queries", "keys")
        args = tuple(a.detach() if i < 2 and isinstance(a, Tensor) else a for i, a in enumerate(args))
        kwargs = {k: v.detach() if k in named and isinstance(v, Tensor) else v for k, v in kwargs.items()}
        return args, kwargs

    handles = []
    try:
        for module in model.modules():
            if isinstance(module, MultiHeadAttention):
                handles += [module.W_q.register_forward_hook(detached_output),
                            module.W_k.register_forward_hook(detached_output)]
            elif isinstance(module, RecurrentQuery):
                handles.append(module.register_forward_pre_hook(detached_queries_keys, with_kwargs=True))
        yield
    finally:
        for handle in handles:
            handle.remove()


def integrated_gradients(f: Explained, embedding: nn.Module, ids: Tensor, pad_id: int,
                         steps: int = DEFAULT_IG_STEPS, rows: int | None = None) -> tuple[np.ndarray, Completeness]:
    """ids (1, S) -> (S,) integrated gradients (Gauss–Legendre points, Captum's default) from the all-``<pad>``
    input to ``ids``, on the output of ``embedding``, summed over the width; and their completeness. rows: the
    interpolation steps run through the model at once (default all ``steps``: one batch).

    Captum's ``IntegratedGradients`` on the embedding's output: the input's and the baseline's embeddings are the
    embedding module's own outputs for ``ids`` and the ``<pad>`` row (Captum's ``LayerIntegratedGradients`` would run
    the whole model twice to read them), and each interpolated batch replaces that output in f's forward pass."""
    if steps < 1:
        raise ValueError(f"integrated gradients need at least one step, got {steps}")
    from captum.attr import IntegratedGradients  # (here, as in gradient_x_input)

    baseline = torch.full_like(ids, pad_id)
    with torch.no_grad():
        embedded, blank = embedding(ids), embedding(baseline)  # (1, S, E) each

    def through(embeddings: Tensor) -> Tensor:  # (B, S, E) in place of the embedding's output -> f (B,)
        handle = embedding.register_forward_hook(lambda _module, _args, _output: embeddings)
        try:
            return f(ids.expand(embeddings.shape[0], -1))
        finally:
            handle.remove()

    with torch.enable_grad():
        attributions = IntegratedGradients(through).attribute(embedded, baselines=blank, n_steps=steps,
                                                              internal_batch_size=max(1, min(steps, rows or steps)))
    row = attributions[0].sum(dim=-1).detach().to(torch.float64).cpu().numpy()
    with torch.no_grad():
        ends = _in_batches(f, torch.cat([ids, baseline]), rows)  # f(x), f(baseline)
    return row, Completeness(float(row.sum()), float(ends[0] - ends[1]))


def _in_batches(f: Callable[[Tensor], Tensor], inputs: Tensor, rows: int | None) -> Tensor:
    """f over inputs (N, S) ``rows`` at a time (default all at once), the results (N, …) in order."""
    if rows is None or rows >= inputs.shape[0]:
        return f(inputs)
    return torch.cat([f(inputs[begin: begin + rows]) for begin in range(0, inputs.shape[0], rows)])


@torch.no_grad()
def occlusion(f: Explained, ids: Tensor, unk_id: int, remove: bool = True, rows: int | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ids (1, S) -> the drop in f when each token is replaced by ``<unk>`` (S,), and when it is removed (S,; NaN
    for a one-token input or without ``remove``); and, where f gives the whole next-token distribution
    (:class:`TokenLogProb`, :class:`ContinuationLogProb`), the total variation distance ½ Σ_v |p(v | x without
    token j) − p(v | x)| when token j is removed (S,; Jain & Wallace 2019's leave-one-out; NaN where it does not
    apply). Each runs its S inputs ``rows`` at a time (default one batch of S)."""
    length = ids.shape[1]
    replaced = ids.repeat(length + 1, 1)  # row 0: ids as they are
    replaced[torch.arange(1, length + 1), torch.arange(length)] = unk_id  # row j + 1: token j is <unk>
    whole = isinstance(f, TokenLogProb | ContinuationLogProb)  # (f gives the whole next-token distribution)
    if whole:
        log_p = _in_batches(cast(TokenLogProb, f).log_probs, replaced, rows).double()  # (1 + S, V)
        scores = log_p[:, cast(TokenLogProb, f).token]
    else:
        scores = _in_batches(f, replaced, rows)
    base = scores[0]
    drop_unk = (base - scores[1:]).to(torch.float64).cpu().numpy()
    missing = np.full(length, np.nan)
    if length < 2 or not remove:
        return drop_unk, missing, missing
    keep = ~torch.eye(length, dtype=torch.bool, device=ids.device)  # row j: every token but j
    removed = ids.expand(length, -1)[keep].view(length, length - 1)
    if not whole:
        drop_removed = (base - _in_batches(f, removed, rows)).to(torch.float64).cpu().numpy()
        return drop_unk, drop_removed, missing
    p = log_p[:1].exp()  # (1, V)
    log_q = _in_batches(cast(TokenLogProb, f).log_probs, removed, rows).double()  # (S, V)
    drop_removed = (base.double() - log_q[:, cast(TokenLogProb, f).token]).cpu().numpy()
    tvd = (0.5 * (log_q.exp() - p).abs().sum(-1)).cpu().numpy()
    return drop_unk, drop_removed, tvd
