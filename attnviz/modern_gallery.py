"""A supplement to the book's figures: "Attention in today's models" (``attnviz figures --only modern``).

The book stops at the 2017 Transformer; the models a class meets today compute their attention with twists:
sliding windows, grouped-query heads sharing keys, QK-norm, soft-capped scores, a learned sink. Each figure here is
drawn from a tiny random model of the library's own classes (Gemma 3, Qwen3, Gemma 2, gpt-oss, ModernBERT, built from
their config classes with a fixed seed; nothing is downloaded), run through attnviz's recording attention
(:mod:`attnviz.core.hf.attention`) — the numbers are what those architectures compute, at a size a slide can show.
Qt-free: each builder returns figure descriptions (attnviz.figures.spec).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import torch

from attnviz.figures.panels import MASK_MAP
from attnviz.figures.spec import AnyFigure, FigureSpec, GridSpec, LineSpec, Series
from attnviz.i18n import tr

POSITIONS = 12  # the tokens each tiny model reads
WINDOW = 4  # the sliding window of the tiny models' local layers


def _labels(count: int = POSITIONS) -> tuple[str, ...]:
    return tuple(str(i + 1) for i in range(count))


@functools.cache
def _tiny(family: str) -> Any:
    """A tiny random model of ``family`` (eval mode, attnviz's recording attention set): width 32, 4 query heads
    over 2 key/value heads, 4 layers, windows of 4."""
    import transformers

    from attnviz.core.hf.attention import IMPLEMENTATION, register

    torch.manual_seed(7)
    common: dict[str, Any] = dict(vocab_size=64, hidden_size=32, num_hidden_layers=4, num_attention_heads=4,
                                  num_key_value_heads=2, intermediate_size=64, max_position_embeddings=64, head_dim=8)
    if family == "gemma3":
        model: Any = transformers.Gemma3ForCausalLM(transformers.Gemma3TextConfig(
            **common, sliding_window=WINDOW, layer_types=["sliding_attention"] * 3 + ["full_attention"]))
    elif family == "qwen3":
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(**common))
    elif family == "gemma2":
        model = transformers.Gemma2ForCausalLM(transformers.Gemma2Config(
            **common, attn_logit_softcapping=2.0, query_pre_attn_scalar=8, sliding_window=WINDOW))
        with torch.no_grad():  # (random projections make tiny scores: scaled so that the cap bites, as trained ones do)
            for block in model.model.layers:
                block.self_attn.q_proj.weight.mul_(20.0)
                block.self_attn.k_proj.weight.mul_(20.0)
    elif family == "gpt_oss":
        model = transformers.GptOssForCausalLM(transformers.GptOssConfig(
            **common, sliding_window=WINDOW, num_local_experts=2, num_experts_per_tok=1))
        with torch.no_grad():  # (the library starts the sinks at zero; a trained model's are learned)
            for block in model.model.layers:
                block.self_attn.sinks.normal_(0.0, 1.5)
    else:  # modernbert
        bert: dict[str, Any] = dict(global_attn_every_n_layers=3)  # (a keyword its type stubs do not name)
        model = transformers.ModernBertModel(transformers.ModernBertConfig(
            **bert, vocab_size=64, hidden_size=32, num_hidden_layers=3, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=64, local_attention=2 * WINDOW, pad_token_id=0,
            bos_token_id=1, eos_token_id=2, cls_token_id=1, sep_token_id=2))
    register()
    model.set_attn_implementation(IMPLEMENTATION)
    return model.eval()


def _calls(family: str) -> list[Any]:
    """Every layer's recorded attention call of ``family``'s tiny model over POSITIONS tokens."""
    from attnviz.core.hf.attention import recording

    ids = torch.arange(1, POSITIONS + 1)[None]
    with torch.no_grad(), recording() as calls:
        _tiny(family)(input_ids=ids)
    return list(calls)


def _mask_panel(allowed: np.ndarray, title: str) -> FigureSpec:
    return FigureSpec(allowed.astype(np.float32), _labels(), _labels(), title, (0.0, 1.0), MASK_MAP,
                      colour_bar=False, row_axis=tr("queries"), col_axis=tr("keys"))


def masks() -> AnyFigure:
    """Full causal, sliding-window causal and bidirectional-window masks, as the models' own masks hid the cells
    (Gemma 3's global and local layers, ModernBERT's local layer)."""
    gemma = _calls("gemma3")
    bert = _calls("modernbert")
    panels = [_mask_panel(np.isfinite(gemma[3].scores[0, 0].numpy()), tr("global layer: every earlier key")),
              _mask_panel(np.isfinite(gemma[0].scores[0, 0].numpy()),
                          tr("sliding window {window}: the last {window} keys").format(window=WINDOW)),
              _mask_panel(np.isfinite(bert[1].scores[0, 0].numpy()),
                          tr("bidirectional window ±{half}: keys on both sides").format(half=WINDOW))]
    names = tuple(p.title for p in panels)
    return GridSpec(tuple(panels), 3, tr("Which keys a query may read: full, sliding window, bidirectional window"),
                    (0.0, 1.0), ("",), names, colormap=MASK_MAP, shared_bar=False)


def grouped_query() -> AnyFigure:
    """Qwen3's 4 query heads over 2 key/value heads: the maps of one layer, each titled with the keys it shares."""
    call = _calls("qwen3")[1]
    weights = call.weights[0].numpy()  # (H, S, S)
    heads, groups = weights.shape[0], 2
    panels = [FigureSpec(weights[h], _labels(), _labels(), tr("query head {head} · key/value head {group}").format(
        head=h + 1, group=h // (heads // groups) + 1), (0.0, 1.0), colour_bar=False, max_grid_px=240)
        for h in range(heads)]
    return GridSpec(tuple(panels), heads, tr("Grouped-query attention: 4 query heads share 2 key/value heads (heads "
                                             "1–2 read the same keys, 3–4 the other ones)"),
                    (0.0, 1.0), ("",), tuple(p.title for p in panels))


def qk_norm() -> AnyFigure:
    """Qwen3's QK-norm: each query's length per position before and after the RMSNorm of its head (layer 2)."""
    model = _tiny("qwen3")
    attention = model.model.layers[1].self_attn
    seen: dict[str, torch.Tensor] = {}

    def keep(_module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        seen.setdefault("hidden", args[0] if args else kwargs["hidden_states"])

    hook = attention.register_forward_pre_hook(keep, with_kwargs=True)
    try:
        _calls("qwen3")
    finally:
        hook.remove()
    with torch.no_grad():
        raw = attention.q_proj(seen["hidden"])[0].view(POSITIONS, -1, attention.head_dim)[:, 0]  # (S, d): head 1
        normed = attention.q_norm(raw)
    x = np.arange(1, POSITIONS + 1, dtype=np.float64)
    before, after = raw.norm(dim=-1).numpy(), normed.norm(dim=-1).numpy()
    return LineSpec((Series(tr("‖q‖ before the norm"), x, before),
                     Series(tr("‖q‖ after RMSNorm"), x, after, "dashed")),
                    tr("QK-norm: every query (and key) rescaled to one length before RoPE, so no score can grow "
                       "without bound"), tr("position"), tr("length of head 1's query"),
                    (0.0, 1.15 * float(max(before.max(), after.max()))))


def softcap() -> AnyFigure:
    """Gemma 2's soft-capping: the curve c·tanh(s/c) and the tiny model's own raw and capped scores on it."""
    call = _calls("gemma2")[1]
    cap = float(_tiny("gemma2").config.attn_logit_softcapping)
    visible = np.isfinite(call.scores[0].numpy())
    raw, capped = call.raw_scores[0].numpy()[visible], call.scores[0].numpy()[visible]
    line = np.linspace(min(-3 * cap, float(raw.min())), max(3 * cap, float(raw.max())), 200)
    return LineSpec((Series(tr("{cap:g}·tanh(s / {cap:g})").format(cap=cap), line, cap * np.tanh(line / cap)),
                     Series(tr("no cap: s"), line, line, "dashed"),
                     Series(tr("the model's scores"), raw.astype(np.float64), capped.astype(np.float64), "points")),
                    tr("Soft-capping: a score s becomes {cap:g}·tanh(s / {cap:g}), never beyond ±{cap:g}").format(
                        cap=cap), tr("raw score q·k / √d"), tr("score the softmax reads"))


def learned_sink() -> AnyFigure:
    """gpt-oss's learned sink: one head's map with the sink's weight as a column of its own (each row sums to 1)."""
    from attnviz.figures.attention import with_sink_column

    call = _calls("gpt_oss")[1]
    weights = call.weights[0, 0].numpy()
    values, cols, _ = with_sink_column(weights, _labels(), np.zeros(weights.shape, bool))
    return FigureSpec(values, _labels(), cols, tr("A learned sink: each head's own logit joins every row's softmax "
                                                  "and takes its share (the last column) — weight a query may put "
                                                  "nowhere"), (0.0, 1.0), row_axis=tr("queries"), col_axis=tr("keys"))
