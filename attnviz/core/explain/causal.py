"""Explain every token a Hugging Face decoder-only model (GPT-2, Llama, Qwen2) continued a prompt with.

:func:`explain_continuation` explains a whole greedy continuation at once: one recorded forward pass over the prompt
and the answer gives every step's attention-based rows (a causal model's row for the position predicting answer
token t reads only the positions before it, so it is the row a pass over the prompt and the first t answer tokens
makes; rollout's and flow's layer matrices are lower triangular, so their leading blocks are that shorter pass's),
and each step's log-probabilities. The gradient methods and occlusion run per step, their variants (integrated
gradients' interpolation steps, occlusion's S modified prompts) batched at most ``batch_tokens`` tokens per forward
pass; the prompt's embeddings are what the gradient methods attribute to (the answer's are held fixed:
:class:`~attnviz.core.explain.attribution.ContinuationLogProb`). Each step's :class:`Explanation` is the one
:func:`attnviz.core.explain.explain_step` gives attnviz's own decoder-only model, its one kind ``self`` over the
prompt and the answer so far. Shapes: L layers, H heads, S prompt tokens, T answer tokens, P = S + T − 1 positions
of the recorded pass, E the model's width, Dh a head's width, V the vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.rollout import layer_matrices, rollout
from attnviz.core.hf.attention import recording, weights_detached
from attnviz.core.hf.heads import output_projection
from attnviz.i18n import tr

from .attribution import DEFAULT_IG_STEPS, ContinuationLogProb
from .flow import layered_flow
from .internals import AttentionKindAtStep, StepInternals
from .step import METHODS, Explanation, _check, _explain, _Problem


def _per_head_projection(module: nn.Module, loaded: Any, heads: int) -> tuple[Tensor, Tensor]:
    """Each head's slice of the layer's output projection W_O (H, Dh, E) and W_O's bias (E,) (zeros where none)."""
    architecture = loaded.model.architecture
    layer = output_projection(module, architecture)
    weight = cast(Tensor, layer.weight).detach()
    fused = architecture.projection.style == "fused"  # (GPT-2's Conv1D: weight (in, out))
    per_head = weight.unflatten(0, (heads, -1)) if fused else weight.t().unflatten(0, (heads, -1))  # (H, Dh, E)
    bias = getattr(layer, "bias", None)
    return per_head, (bias.detach() if bias is not None else per_head.new_zeros(per_head.shape[-1]))


def _np(tensor: Tensor) -> np.ndarray:
    return tensor.detach().to(device="cpu", dtype=torch.float64).numpy()


def _check_recorded_size(loaded: Any, positions: int) -> None:
    """ValueError (one sentence) before the pass when its record — every layer's maps (L, H, P, P) and f_h(x_j)
    (L, H, P, E), float64 — would take more than MAX_ATTENTION_BYTES: halving --batch-size cannot shrink it."""
    from attnviz.core.limits import MAX_ATTENTION_BYTES

    config = loaded.model.hf.config
    layers = len(loaded.model.attention_modules(AttentionKind.DECODER_SELF))
    heads = int(getattr(config, "num_attention_heads", None) or getattr(config, "n_head", None) or 1)
    width = int(getattr(config, "hidden_size", None) or getattr(config, "n_embd", None) or 1)
    needed = 8 * layers * heads * positions * (positions + width)
    if needed > MAX_ATTENTION_BYTES:
        raise ValueError(tr("explaining {tokens:,} tokens of this model would hold {gb:.1f} GB of maps and "
                            "transformed values (attnviz allows {most:.0f} GB): give shorter sentences").format(
            tokens=positions, gb=needed / 1024**3, most=MAX_ATTENTION_BYTES / 1024**3))


@torch.no_grad()
def _recorded(loaded: Any, ids: Tensor, answers: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One pass over ids (1, P): every layer's weights (L, H, P, P), f_h(x_j) (L, H, P, E), W_O's biases (L, E)
    and the log-probabilities (answers, V) of the last ``answers`` positions."""
    wrapper = loaded.model
    order = {id(module): layer for layer, module in enumerate(wrapper.attention_modules(AttentionKind.DECODER_SELF))}
    with recording() as calls:
        out = wrapper.hf(input_ids=ids, use_cache=False, logits_to_keep=answers)
    ordered = sorted((c for c in calls if id(c.module) in order), key=lambda c: order[id(c.module)])
    weights, transformed, biases = [], [], []
    for call in ordered:
        heads = call.weights.shape[1]
        per_head, bias = _per_head_projection(call.module, loaded, heads)
        weights.append(_np(call.weights[0]))  # (H, P, P)
        transformed.append(_np(torch.einsum("hkd,hde->hke", call.value[0].to(per_head.dtype), per_head)))
        biases.append(_np(bias))
    logits = out.logits[0, -answers:]
    log_probs = _np(torch.log_softmax(logits.to(torch.promote_types(logits.dtype, torch.float32)), dim=-1))
    return np.stack(weights), np.stack(transformed), np.stack(biases), log_probs


def explain_continuation(loaded: Any, prompt_ids: Sequence[int], labels: Sequence[str], answer: Sequence[str],
                         device: torch.device | str = "cpu", methods: Sequence[str] = METHODS,
                         ig_steps: int = DEFAULT_IG_STEPS, batch_tokens: int | None = None,
                         every_layer: bool = True) -> list[Explanation]:
    """Explain each token of ``answer`` (the model's readable tokens, as greedy decoding wrote them, <eos> included
    where it ended so) after the prompt ``prompt_ids`` (S,) whose tokens read ``labels`` (S,): one
    :class:`Explanation` per answer token, in order, each the last layer's heads' mean (rollout and flow average the
    heads). every_layer: attention flow after every layer too (else NaN rows below the last). batch_tokens: at most
    this many tokens per forward pass of the gradient and occlusion methods (default each method's variants at
    once); the numbers do not depend on it. Runs on ``device`` (the model is moved there, eval mode)."""
    _check(methods, labels)
    if len(prompt_ids) != len(labels):
        raise ValueError(f"{len(prompt_ids)} prompt ids for {len(labels)} labels")
    if not answer:
        return []
    device = torch.device(device)
    vocab = loaded.src_vocab
    wrapper = loaded.model.to(device).eval()
    hf = wrapper.hf
    answer_ids = vocab.ids(list(answer))
    width, count = len(prompt_ids), len(answer_ids)
    ids = torch.tensor([[*prompt_ids, *answer_ids[:-1]]], device=device)  # (1, P)
    _check_recorded_size(loaded, ids.shape[1])
    weights, transformed, biases, log_probs = _recorded(loaded, ids, count)
    matrices = layer_matrices(weights)  # (L, P, P) head-averaged, residual modelled, first layer first
    rolled = rollout(weights)  # (L, P, P)
    prompt = ids[:, :width]
    with torch.no_grad():
        embedded = hf.get_input_embeddings()(ids[:, width:])  # (1, T − 1, E): the answer, held fixed
    out = []
    for t, token_id in enumerate(answer_ids):
        keys = width + t  # the step's query reads positions 0 … keys − 1 (the newest is keys − 1)
        query = keys - 1
        w = weights[:, :, query, :keys]  # (L, H, K)
        f = transformed[:, :, :keys]
        kind = AttentionKindAtStep("self", w, f, np.einsum("lhk,lhke->le", w, f) + biases, biases,
                                   (*labels, *answer[:t]))
        block = matrices[:, :keys, :keys]

        def flow(layer: int, block: np.ndarray = block, query: int = query) -> np.ndarray:
            return layered_flow(block[layer, query], list(block[:layer][::-1]), range(width))

        internals = StepInternals(log_probs[t], (kind,), slice(0, width), rolled[:, query, :width], flow)
        explained = ContinuationLogProb(hf, embedded[:, :t], token_id)
        problem = _Problem(explained, explained.embedding, prompt, tuple(labels), int(vocab.pad_id),
                           int(vocab.unk_id), True, weights_detached, keys)
        out.append(_explain(problem, internals, token_id, vocab.tokens[token_id], methods, None, None, ig_steps,
                            every_layer, {"self": ("dec-self", query, True)}, batch_tokens))
    return out
