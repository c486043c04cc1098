import numpy as np
import pytest
import torch

from attnviz.core import causal_mask, masked_softmax, padding_mask


def test_one_d_valid_lens_zero_beyond_and_sum_to_one(device):
    scores = torch.randn(2, 3, 5, device=device)
    weights = masked_softmax(scores, torch.tensor([2, 4], device=device))
    assert torch.all(weights[0, :, 2:] == 0) and torch.all(weights[1, :, 4:] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, device=device))
    # Over the valid keys the weights equal a plain softmax of those keys alone.
    torch.testing.assert_close(weights[0, :, :2], torch.softmax(scores[0, :, :2], -1))


def test_two_d_valid_lens_are_per_query(device):
    scores = torch.randn(1, 3, 4, device=device)
    weights = masked_softmax(scores, torch.tensor([[1, 2, 4]], device=device))
    assert weights[0, 0].tolist()[1:] == [0.0, 0.0, 0.0]
    assert weights[0, 0, 0].item() == pytest.approx(1.0)
    assert torch.all(weights[0, 1, 2:] == 0)
    torch.testing.assert_close(weights[0, 2], torch.softmax(scores[0, 2], -1))


def test_zero_valid_length_gives_zero_row_and_finite_gradient(device):
    scores = torch.randn(2, 2, 3, device=device, requires_grad=True)
    weights = masked_softmax(scores, torch.tensor([0, 3], device=device))
    assert torch.all(weights[0] == 0)
    assert not torch.isnan(weights).any()
    (weights * torch.randn_like(weights)).sum().backward()
    assert torch.isfinite(scores.grad).all()
    assert torch.all(scores.grad[0] == 0)


def test_four_d_scores_share_valid_lens_across_heads(device):
    scores = torch.randn(2, 4, 3, 6, device=device)
    weights = masked_softmax(scores, torch.tensor([3, 5], device=device))
    assert torch.all(weights[0, :, :, 3:] == 0) and torch.all(weights[1, :, :, 5:] == 0)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 4, 3, device=device))


def test_boolean_mask_combines_with_valid_lens(device):
    scores = torch.zeros(1, 4, 4, device=device)
    weights = masked_softmax(scores, torch.tensor([3], device=device),
                             mask=causal_mask(4, device=device))
    expected = torch.tensor([[1, 0, 0, 0], [1 / 2, 1 / 2, 0, 0], [1 / 3] * 3 + [0],
                             [1 / 3] * 3 + [0]], device=device)
    torch.testing.assert_close(weights[0], expected)


def test_masks_are_boolean_matrices_the_gui_can_draw():
    causal = causal_mask(3).numpy()
    assert causal.dtype == np.bool_
    np.testing.assert_array_equal(causal, np.tril(np.ones((3, 3), dtype=bool)))
    np.testing.assert_array_equal(causal_mask(1, offset=2).numpy(), [[True, True, True]])
    pad = padding_mask(torch.tensor([1, 3]), 4).numpy()
    np.testing.assert_array_equal(pad, [[1, 0, 0, 0], [1, 1, 1, 0]])


def test_bad_valid_lens_shape_is_explained():
    with pytest.raises(ValueError, match="valid_lens"):
        masked_softmax(torch.zeros(1, 2, 3), torch.zeros(1, 2, 2, dtype=torch.long))


@pytest.mark.parametrize("valid", [0, 1, 3, 5, 9])
def test_numpy_masked_softmax_row_matches_torch(valid):
    from attnviz.core.results import masked_softmax_row

    scores = torch.tensor([[[2.0, -1.0, 0.5, 3.0, 0.0]]])
    expected = masked_softmax(scores, torch.tensor([min(valid, 5)]))[0, 0].numpy()
    np.testing.assert_allclose(masked_softmax_row(scores[0, 0].numpy(), valid), expected, rtol=1e-6, atol=1e-7)
