"""Attention primitives against independent references."""

import math

import pytest
import torch
import torch.nn.functional as F

from attnviz.core import AdditiveAttention, DotProductAttention, MultiHeadAttention
from attnviz.core.attention.masking import padding_mask


def test_dot_product_matches_torch_sdpa(device):
    q, k, v = (torch.randn(3, 4, 8, device=device), torch.randn(3, 6, 8, device=device),
               torch.randn(3, 6, 5, device=device))
    valid = torch.tensor([6, 2, 4], device=device)
    attended = DotProductAttention().eval()(q, k, v, valid, need_scores=True)
    keep = padding_mask(valid, 6)[:, None, :].expand(-1, 4, -1)  # (B, Q, K)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    torch.testing.assert_close(attended.output, expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(attended.scores, q @ k.transpose(1, 2) / math.sqrt(8))
    assert torch.all(attended.weights[1, :, 2:] == 0)


def test_dot_product_unpacks_as_output_and_weights(device):
    q = torch.randn(1, 2, 4, device=device)
    output, weights = DotProductAttention()(q, q, q)
    assert output.shape == (1, 2, 4) and weights.shape == (1, 2, 2)
    assert DotProductAttention()(q, q, q).scores is None


def test_additive_matches_closed_formula_with_different_widths(device):
    attention = AdditiveAttention(query_size=20, key_size=2, num_hiddens=8).to(device).eval()
    q, k = torch.randn(2, 1, 20, device=device), torch.randn(2, 10, 2, device=device)
    v = torch.randn(2, 10, 4, device=device)
    valid = torch.tensor([2, 6], device=device)
    attended = attention(q, k, v, valid, need_scores=True)
    Wq, Wk, wv = attention.W_q.weight, attention.W_k.weight, attention.w_v.weight[0]
    for b in range(2):
        for j in range(10):
            score = wv @ torch.tanh(Wq @ q[b, 0] + Wk @ k[b, j])
            torch.testing.assert_close(attended.scores[b, 0, j], score, rtol=1e-5, atol=1e-5)
        n = int(valid[b])
        expected_w = torch.softmax(attended.scores[b, 0, :n], -1)
        torch.testing.assert_close(attended.weights[b, 0, :n], expected_w)
        assert torch.all(attended.weights[b, 0, n:] == 0)
        torch.testing.assert_close(attended.output[b, 0], expected_w @ v[b, :n])


@pytest.mark.parametrize("bias", [False, True])
def test_multi_head_matches_torch_multihead_attention(device, bias):
    d, h = 16, 4
    ours = MultiHeadAttention(d, h, bias=bias).to(device).eval()
    ref = torch.nn.MultiheadAttention(d, h, bias=bias, batch_first=True).to(device).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        ref.out_proj.weight.copy_(ours.W_o.weight)
        if bias:
            ref.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
            ref.out_proj.bias.copy_(ours.W_o.bias)
    q, kv = torch.randn(2, 3, d, device=device), torch.randn(2, 7, d, device=device)
    valid = torch.tensor([7, 3], device=device)
    attended = ours(q, kv, kv, valid)
    out_ref, w_ref = ref(q, kv, kv, key_padding_mask=~padding_mask(valid, 7),
                         need_weights=True, average_attn_weights=False)
    torch.testing.assert_close(attended.output, out_ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(attended.weights, w_ref, rtol=1e-5, atol=1e-5)
    assert attended.weights.shape == (2, h, 3, 7)


def test_multi_head_causal_mask_matches_torch(device):
    d, h, t = 8, 2, 5
    ours = MultiHeadAttention(d, h).to(device).eval()
    ref = torch.nn.MultiheadAttention(d, h, bias=False, batch_first=True).to(device).eval()
    with torch.no_grad():
        ref.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        ref.out_proj.weight.copy_(ours.W_o.weight)
    x = torch.randn(1, t, d, device=device)
    causal = torch.ones(t, t, dtype=torch.bool, device=device).tril()
    attended = ours(x, x, x, mask=causal)
    out_ref, w_ref = ref(x, x, x, attn_mask=~causal, average_attn_weights=False)
    torch.testing.assert_close(attended.output, out_ref, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(attended.weights, w_ref, rtol=1e-5, atol=1e-5)
    assert torch.all(attended.weights[0][:, ~causal] == 0)


def test_multi_head_additive_scoring_matches_per_head_formula(device):
    d, h = 8, 2
    mha = MultiHeadAttention(d, h, scoring="additive").to(device).eval()
    q, kv = torch.randn(1, 2, d, device=device), torch.randn(1, 3, d, device=device)
    attended = mha(q, kv, kv, torch.tensor([2], device=device), need_scores=True)
    qh = (q @ mha.W_q.weight.T).view(1, 2, h, 4)
    kh = (kv @ mha.W_k.weight.T).view(1, 3, h, 4)
    sc = mha.additive
    for head in range(h):
        for i in range(2):
            for j in range(3):
                expected = sc.w_v[head] @ torch.tanh(qh[0, i, head] @ sc.W_q[head]
                                                     + kh[0, j, head] @ sc.W_k[head])
                torch.testing.assert_close(attended.scores[0, head, i, j], expected,
                                           rtol=1e-5, atol=1e-5)
    assert torch.all(attended.weights[..., 2] == 0)


def test_attention_keeps_no_state_on_the_module():
    mha = MultiHeadAttention(8, 2)
    before = set(vars(mha))
    mha(torch.randn(1, 2, 8), torch.randn(1, 3, 8), torch.randn(1, 3, 8))
    assert set(vars(mha)) == before


def test_bad_head_count_is_explained():
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(10, 3)
