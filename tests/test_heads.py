"""The head atlas's core: statistics against a direct computation, the head gates against W_o by hand, importance
against torch.autograd one pair at a time, BLEU's sufficient statistics against sacrebleu, and HeadMask."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.layers import AdditiveAttention, MultiHeadAttention
from attnviz.core.heads import HeadGates, HeadMask, HeadMaskError, compute_atlas, head_layout
from attnviz.core.heads.corpus import plan_batches, shard
from attnviz.core.heads.gates import masked_heads
from attnviz.core.heads.mask import Head, HeadLayout, KindShape
from attnviz.core.heads.statistics import Keys, KindSums, is_punctuation, names_for
from attnviz.core.learning.bleu import bleu_from_statistics, bleu_statistics, corpus_bleu

# -- statistics --------------------------------------------------------------------------------------------------


def _reference_row(w: list[float], q: int, first: set[int], end: set[int], punct: set[int]) -> dict[str, float]:
    """One row's statistics, written out plainly (the definitions in core/heads/statistics.py)."""
    k = len(w)
    return {
        "entropy": -sum(x * math.log(x) for x in w if x > 0),
        "confidence": max(w),
        "confidence_without_end": max((x for j, x in enumerate(w) if j not in end), default=0.0),
        "previous": w[q - 1] if 0 <= q - 1 < k else 0.0,
        "same": w[q] if 0 <= q < k else 0.0,
        "next": w[q + 1] if 0 <= q + 1 < k else 0.0,
        "sink": sum(w[j] for j in first | end | punct),
        "sink_first": sum(w[j] for j in first),
        "sink_end": sum(w[j] for j in end),
        "sink_punct": sum(w[j] for j in punct),
        "distance": sum(x * abs(q - j) for j, x in enumerate(w)),
    }


def _random_rows(rng: np.random.Generator, layers: int, heads: int, rows: int, keys: int, causal: bool) -> np.ndarray:
    w = rng.random((layers, heads, rows, keys)) ** 3
    if causal:
        w *= np.tri(rows, keys, dtype=bool)
    return w / w.sum(-1, keepdims=True)


@pytest.mark.parametrize("causal", [False, True])
def test_statistics_equal_a_direct_computation_on_hand_built_maps(causal: bool) -> None:
    rng = np.random.default_rng(1)
    tokens = ("<bos>", "il", "est", ",", "là", ".") if causal else ("he", "is", ",", "here", ".")
    sums = KindSums.empty(2, 3, alignment=False)
    expected = {name: np.zeros((2, 3)) for name in names_for(False)}
    rows = 0
    for length in (len(tokens), 3):  # two sentences (the second: its first three tokens)
        words = tokens[:length]
        end = None if causal else length - 1
        w = _random_rows(rng, 2, 3, length, length, causal)
        sums.add(w, np.arange(length), Keys.of(words, end))
        rows += length
        punct = {j for j, t in enumerate(words) if t in {",", "."}}
        for layer in range(2):
            for head in range(3):
                for q in range(length):
                    row = _reference_row(list(w[layer, head, q]), q, {0}, set() if end is None else {end}, punct)
                    for name, value in row.items():
                        expected[name][layer, head] += value
    means = sums.means()
    assert sums.rows == rows
    for i, name in enumerate(sums.names):
        np.testing.assert_allclose(means[i], expected[name] / rows, rtol=1e-12, atol=1e-12, err_msg=name)


def test_cross_attention_alignment_scores_read_the_diagonal_and_the_monotone_argmax() -> None:
    # 3 target rows over 5 source words: the diagonal is 0, 2, 4; argmax 1, 0, 3 -> running max 1, 1, 3
    w = np.array([[0.1, 0.6, 0.1, 0.1, 0.1], [0.5, 0.2, 0.1, 0.1, 0.1], [0.1, 0.1, 0.1, 0.4, 0.3]])[None, None]
    sums = KindSums.empty(1, 1, alignment=True)
    sums.add(w, np.arange(3), Keys.of(("a", "b", "c", "d", "."), 4))
    means = dict(zip(sums.names, sums.means()[:, 0, 0], strict=True))
    assert means["diagonal"] == pytest.approx((0.1 + 0.1 + 0.3) / 3)
    assert means["monotonic"] == pytest.approx((0.6 + 0.2 + 0.4) / 3)


def test_punctuation_is_tokens_of_punctuation_only() -> None:
    assert [is_punctuation(t) for t in (".", "?!", "«", "a.", "", "<eos>")] == [True, True, True, False, False, False]


# -- gates -------------------------------------------------------------------------------------------------------


def test_masking_a_head_equals_zeroing_its_slice_before_w_o_by_hand() -> None:
    torch.manual_seed(0)
    attention = MultiHeadAttention(12, 3, bias=True).eval()
    x = torch.randn(2, 4, 12)
    h, d = 3, 4
    # by hand: each head's output, head 1 zeroed, concatenated, then W_o
    q = attention.W_q(x).view(2, 4, h, d).transpose(1, 2)
    k = attention.W_k(x).view(2, 4, h, d).transpose(1, 2)
    v = attention.W_v(x).view(2, 4, h, d).transpose(1, 2)
    heads = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d), dim=-1) @ v  # (B, H, Q, Dh)
    heads[:, 1] = 0.0
    expected = attention.W_o(heads.transpose(1, 2).reshape(2, 4, 12))
    gate = torch.tensor([1.0, 0.0, 1.0])
    handles = attention.gate_heads(lambda: gate)
    try:
        masked = attention(x, x, x).output
        gate = torch.ones(3)
        ones = attention(x, x, x).output
    finally:
        for handle in handles:
            handle.remove()
    torch.testing.assert_close(masked, expected, atol=1e-6, rtol=1e-6)
    torch.testing.assert_close(ones, attention(x, x, x).output, atol=1e-6, rtol=0)


def test_an_rnn_models_one_head_masked_reads_a_zero_context() -> None:
    attention = AdditiveAttention(6, 6, 8).eval()
    q, keys = torch.randn(2, 1, 6), torch.randn(2, 5, 6)
    handles = attention.gate_heads(lambda: torch.zeros(1))
    attended = attention(q, keys, keys)
    for handle in handles:
        handle.remove()
    assert torch.count_nonzero(attended.output) == 0
    assert torch.allclose(attended.weights.sum(-1), torch.ones(2, 1))  # (the weights themselves are unchanged)


def _log_probs(loaded, src, valid, tgt_in):
    with torch.no_grad():
        return torch.log_softmax(loaded.model(src, valid, tgt_in), -1)


@pytest.mark.parametrize("kind", ["transformer", "decoder-only", "rnn-dot"])
def test_gates_of_ones_leave_every_model_unchanged_and_a_mask_changes_it(kind: str, tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import encode_batch

    loaded = load_checkpoint(tiny_models[kind][0])
    src, valid = encode_batch([("a", "b", "c"), ("d", "e")], loaded.src_vocab)
    tgt, _ = encode_batch([("cx", "bx", "ax"), ("ex", "dx")], loaded.tgt_vocab, add_bos=True)
    plain = _log_probs(loaded, src, valid, tgt)
    with HeadGates(loaded.model) as gates:
        gates.ones()
        torch.testing.assert_close(_log_probs(loaded, src, valid, tgt), plain, atol=1e-6, rtol=0)
        gates.ones(batch=2)
        torch.testing.assert_close(_log_probs(loaded, src, valid, tgt), plain, atol=1e-6, rtol=0)
    first = next(head_layout(loaded.model).heads())
    with masked_heads(loaded.model, HeadMask(frozenset([first]))):
        assert not torch.allclose(_log_probs(loaded, src, valid, tgt), plain, atol=1e-4)
    torch.testing.assert_close(_log_probs(loaded, src, valid, tgt), plain, atol=0, rtol=0)  # (hooks removed)


def test_each_family_says_its_heads(tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    described = {kind: head_layout(load_checkpoint(tiny_models[kind][0]).model).describe()
                 for kind in ("transformer", "decoder-only", "rnn-additive")}
    assert described == {"transformer": "enc-self 2×4, dec-self 2×4, cross 2×4", "decoder-only": "dec-self 3×4",
                         "rnn-additive": "cross 1×1"}


# -- importance --------------------------------------------------------------------------------------------------


def test_importance_is_the_mean_absolute_gate_gradient_of_each_pairs_loss(tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import encode_batch

    loaded = load_checkpoint(tiny_models["transformer"][0])
    pairs = [("a b c", ["cx bx ax", "cx bx"]), ("d e", ["ex dx"]), ("f g h i", ["ix hx gx fx"])]
    atlas = compute_atlas(loaded, [p[0] for p in pairs], [p[1] for p in pairs], "cpu")
    assert atlas.target == "references" and atlas.pairs == 4
    expected = {s.kind: np.zeros((s.layers, s.heads)) for s in head_layout(loaded.model).kinds}
    for source, references in pairs:  # one pair at a time, gates (L, H), the loss as torch computes it
        for reference in references:
            src, valid = encode_batch([source.split()], loaded.src_vocab)
            tgt, _ = encode_batch([reference.split()], loaded.tgt_vocab, add_bos=True, add_eos=True)
            with HeadGates(loaded.model) as gates:
                values = gates.ones(requires_grad=True)
                logits = loaded.model(src, valid, tgt[:, :-1])
                loss = torch.nn.functional.cross_entropy(logits[0], tgt[0, 1:])
                grads = torch.autograd.grad(loss, list(values.values()))
            for kind, grad in zip(values, grads, strict=True):
                expected[kind] += grad.abs().numpy() / 4
    for k in atlas.kinds:
        np.testing.assert_allclose(k.importance, expected[k.kind], rtol=1e-4, atol=1e-7)


def test_without_references_the_importance_says_it_used_the_models_output(tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    atlas = compute_atlas(load_checkpoint(tiny_models["rnn-additive"][0]), ["a b c", "d e f g"], None, "cpu")
    assert atlas.target == "model output" and atlas.pairs == 2
    assert [k.kind for k in atlas.kinds] == [AttentionKind.CROSS] and atlas.kinds[0].importance[0, 0] > 0


def test_progress_returning_false_cancels(tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.heads import HeadsCancelled

    loaded = load_checkpoint(tiny_models["transformer"][0])
    with pytest.raises(HeadsCancelled):
        compute_atlas(loaded, ["a b c"], None, "cpu", lambda done, total: False)
    assert not loaded.model._forward_hooks and not loaded.model._forward_pre_hooks  # (gates gone)


# -- BLEU's sufficient statistics, batches -----------------------------------------------------------------------


def test_bleu_statistics_of_parts_add_up_to_the_corpus_bleu() -> None:
    rng = random.Random(3)
    words = ["le", "chat", "est", "sur", "la", "table", "un", "chien", "dort", "ici"]
    hyps = [" ".join(rng.choices(words, k=rng.randint(1, 8))) for _ in range(40)]
    refs = [[" ".join(rng.choices(words, k=rng.randint(2, 8))) for _ in range(rng.randint(1, 3))] for _ in hyps]
    whole = corpus_bleu(hyps, refs)
    parts = bleu_statistics(hyps[:13], refs[:13]) + bleu_statistics(hyps[13:], refs[13:])
    assert bleu_from_statistics(parts) == whole
    assert bleu_from_statistics(bleu_statistics(hyps, refs)) == whole


def test_every_process_takes_whole_batches_and_together_they_take_all() -> None:
    batches = plan_batches([5, 1, 3, 3, 2] * 100, beam_size=4)  # 64 sentences a batch
    assert all(len(b) == 64 for b in batches[:-1])
    taken = sorted(i for rank in range(3) for b in shard(batches, rank, 3) for i in b)
    assert taken == list(range(500))



def test_batches_of_long_sentences_stop_at_the_byte_budget_and_each_sentence_is_taken_once() -> None:
    lengths = [10, 400, 20, 400, 400, 30, 400, 400]
    batches = plan_batches(lengths, beam_size=2, rows=64, row_bytes=lambda tokens: tokens * 100, budget=200_000)
    assert batches == [[0, 2, 5], [1, 3], [4, 6], [7]]  # rows × 2 beams × 100 B × the longest ≤ 200,000
    assert plan_batches([5000], 1, row_bytes=lambda tokens: tokens, budget=10) == [[0]]  # too big alone: alone


def test_the_importance_passes_of_long_sources_stop_at_the_byte_budget() -> None:
    from attnviz.core.heads.atlas import STATS_BATCH_BYTES, passes, row_attention_bytes
    from attnviz.core.text import SourceWords

    layout = HeadLayout((KindShape(AttentionKind.DECODER_SELF, 8, 8), KindShape(AttentionKind.CROSS, 8, 8)))
    assert row_attention_bytes(layout, 448, 64) == 8 * 128 * 512**2  # every head, (S + T)² cells, 8 B a cell
    long, short = SourceWords(tuple(["w"] * 448), (), None), SourceWords(tuple(["w"] * 20), (), None)
    pairs = [(long, ["a", "b"]) for _ in range(3)] + [(short, ["a"] * 5) for _ in range(4)]
    chosen = passes(pairs, lambda s, t: row_attention_bytes(layout, s, t))
    assert row_attention_bytes(layout, 448, 3) <= STATS_BATCH_BYTES < 2 * row_attention_bytes(layout, 448, 3)
    assert [len(c) for c in chosen] == [1, 1, 1, 4]  # a 448-token pair alone (208 MB); the short ones together
    assert [len(c) for c in passes(pairs)] == [7]  # (counted by target positions alone: one pass)


# -- HeadMask ----------------------------------------------------------------------------------------------------

LAYOUT = HeadLayout((KindShape(AttentionKind.ENCODER_SELF, 3, 4), KindShape(AttentionKind.CROSS, 3, 4)))


def test_a_mask_parses_as_users_name_heads_and_prints_back() -> None:
    mask = HeadMask.parse(" cross:2.1, enc:1.3 ,enc-self:3.4", LAYOUT)
    assert mask.heads == {Head(AttentionKind.CROSS, 1, 0), Head(AttentionKind.ENCODER_SELF, 0, 2),
                          Head(AttentionKind.ENCODER_SELF, 2, 3)}
    assert str(mask) == "enc-self:1.3,enc-self:3.4,cross:2.1"
    assert HeadMask.parse(str(mask), LAYOUT) == mask


@pytest.mark.parametrize(("text", "says"), [
    ("cross:4.1", "3 layer(s) of 4 head(s)"), ("cross:1.0", "counted from 1"), ("dec:1.1", "has no dec-self"),
    ("cross:1", "kind:layer.head"), ("heads:1.1", "kinds: enc"), ("cross:a.b", "whole numbers")])
def test_a_mask_naming_a_head_the_model_lacks_says_which(text: str, says: str) -> None:
    with pytest.raises(HeadMaskError, match=None) as raised:
        HeadMask.parse(text, LAYOUT)
    assert says in str(raised.value)


def test_decode_masked_gives_the_windows_steps_with_those_heads_off(tiny_models: dict) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession
    from attnviz.core.heads import decode_masked

    loaded = load_checkpoint(tiny_models["rnn-additive"][0])
    session = DecodeSession(loaded)
    session.encode("a b c d")
    plain = session.run()[-1]
    same = decode_masked(loaded, "a b c d", HeadMask())[-1]
    assert same.output_tokens == plain.output_tokens and np.array_equal(same.cross_weights, plain.cross_weights)
    masked = decode_masked(loaded, "a b c d", HeadMask.parse("cross:1.1", head_layout(loaded.model)))
    assert masked[-1].output_tokens != plain.output_tokens
    assert masked[-1].cross_weights.shape[-1] == 4  # (its maps are recorded as ever: the weights, not the context)
    session.encode("a b c d")
    assert session.run()[-1].output_tokens == plain.output_tokens  # (the mask is gone after the call)


def test_batches_are_dealt_back_and_forth_so_each_process_gets_short_and_long_ones() -> None:
    batches = [[k] for k in range(6)]
    assert [shard(batches, rank, 2) for rank in (0, 1)] == [[[0], [3], [4]], [[1], [2], [5]]]
    assert [shard(batches, rank, 3) for rank in (0, 1, 2)] == [[[0], [5]], [[1], [4]], [[2], [3]]]
