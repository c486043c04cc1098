"""What the papers' own measures need, checked against independent computations on tiny inputs: Kendall τ's
p-value (Jain & Wallace 2019's "significant fraction") against the permutation distribution counted out, and the
gradient with the attention detached (their gradient) against the same gradient with every attention weight
detached inside the softmax instead of at the projections."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.explain import Explanation, agreement_matrices, explain_step
from attnviz.core.explain.agreement import kendall_p
from attnviz.core.explain.corpus import CorpusTally, agreement_csv
from attnviz.core.models.loaded import LoadedModel

SOURCE = ["a", "c", "e", "b", "d"]
PREFIX = ["dx", "bx"]


def _s(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's S: concordant minus discordant pairs, counted pair by pair."""
    return float(sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in itertools.combinations(range(len(x)), 2)))


@pytest.mark.parametrize("y", [[3, 1, 2, 5, 4, 6], [6, 5, 4, 3, 2, 1], [2, 1, 4, 3, 6, 5], [1, 2, 3, 4, 6, 5]])
def test_exact_p_without_ties_is_the_share_of_permutations_at_least_as_extreme(y: list[int]) -> None:
    x, observed = np.arange(6.0), np.array(y, np.float64)
    s = abs(_s(x, observed))
    extreme = sum(abs(_s(x, np.array(p, np.float64))) >= s - 1e-9 for p in itertools.permutations(observed))
    assert kendall_p(x, observed) == pytest.approx(min(1.0, extreme / math.factorial(6)), abs=1e-12)


def test_p_with_ties_uses_the_permutation_variance_of_s() -> None:
    x = np.array([1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 4.0])
    y = np.array([0.2, 0.5, 0.5, 0.9, 0.1, 0.9, 0.9])
    values = [_s(x, np.array(p)) for p in itertools.permutations(y)]
    variance = float(np.mean(np.square(values)))  # the mean of S is 0 under independence
    assert kendall_p(x, y) == pytest.approx(math.erfc(abs(_s(x, y)) / math.sqrt(2 * variance)), rel=1e-9)
    assert math.isnan(kendall_p(x, np.ones(7)))


def _step(attention: list[float], occlusion: list[float]) -> Explanation:
    rows = np.array([attention, occlusion])
    tau, rho = agreement_matrices(rows)
    return Explanation(("attention", "occlusion"), tuple("abcde"), rows, tau, rho, {}, "x", -1.0, None, 0, None, {})


def test_the_significant_share_counts_tokens_whose_tau_has_p_below_five_percent() -> None:
    tally = CorpusTally()
    tally.add(_step([0.1, 0.2, 0.3, 0.15, 0.25], [1.0, 2.0, 3.0, 4.0, 5.0]))  # τ 0.2: p 0.82
    tally.add(_step([0.1, 0.2, 0.3, 0.4, 0.5], [1.0, 2.0, 3.0, 4.0, 5.0]))  # τ 1: p 2/120
    tally.add(_step([0.5, 0.4, 0.3, 0.2, 0.1], [1.0, 2.0, 3.0, 4.0, 5.0]))  # τ −1: p 2/120
    assert kendall_p(np.arange(5.0), np.arange(5.0)) == pytest.approx(2 / 120)
    pair = tally.pairs(magnitudes=False)[0]
    assert pair.count == 3 and pair.significant == pytest.approx(2 / 3)
    assert agreement_csv(tally).splitlines()[1].endswith(",0.6667")


@pytest.fixture(params=["transformer", "rnn-additive", "rnn-dot", "decoder-only"])
def loaded(request: pytest.FixtureRequest, tiny_models: dict) -> LoadedModel:
    return load_checkpoint(tiny_models[request.param][0])


def _gradient_x_input_with_softmax_detached(loaded: LoadedModel, token: str, monkeypatch: pytest.MonkeyPatch
                                            ) -> np.ndarray:
    """Σ_D ∂f/∂e_j · e_j by plain autograd, every attention weight detached where the softmax makes it."""
    import attnviz.core.attention.layers as attention
    from attnviz.core.attention.masking import masked_softmax

    monkeypatch.setattr(attention, "masked_softmax", lambda *a, **k: masked_softmax(*a, **k).detach())
    assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
    model = loaded.model
    src = torch.tensor([loaded.src_vocab.ids(SOURCE)])
    tgt_in = torch.tensor([[loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(PREFIX)]])
    kept: list[torch.Tensor] = []

    def keep(_module: torch.nn.Module, _args: tuple, output: torch.Tensor) -> torch.Tensor:
        output = output.detach().requires_grad_(True)
        kept.append(output)
        return output
    handle = model.get_submodule("src_embedding").register_forward_hook(keep)
    try:
        with torch.enable_grad():
            logits = model(src, torch.tensor([len(SOURCE)]), tgt_in)
            f = torch.log_softmax(logits[0, -1].double(), -1)[loaded.tgt_vocab.ids([token])[0]]
            (grad,) = torch.autograd.grad(f, kept[0])
    finally:
        handle.remove()
        monkeypatch.undo()
    return (grad * kept[0]).sum(-1)[0].detach().double().numpy()


def test_the_detached_gradient_holds_every_attention_weight_constant(loaded: LoadedModel,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    explanation = explain_step(loaded, SOURCE, PREFIX, methods=("grad_x_input", "grad_x_input_detached"))
    detached = explanation.row("grad_x_input_detached")
    expected = _gradient_x_input_with_softmax_detached(loaded, explanation.token, monkeypatch)
    np.testing.assert_allclose(detached, expected, rtol=1e-4, atol=1e-6)
    assert not np.allclose(detached, explanation.row("grad_x_input"), rtol=1e-3, atol=1e-5)  # the weights mattered


def _distribution_by_steps(loaded: LoadedModel, source: list[str]) -> np.ndarray:
    """p(· | source, PREFIX) (V,) through the decoder interface (start, then one cached step per token)."""
    assert loaded.src_vocab is not None and loaded.tgt_vocab is not None
    src = torch.tensor([loaded.src_vocab.ids(source)])
    tgt_in = [loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(PREFIX)]
    with torch.no_grad():
        state, _ = loaded.model.start(src, torch.tensor([len(source)]))
        for token in tgt_in:
            log_probs, state, _ = loaded.model.step(torch.tensor([token]), state)
    return log_probs[0].double().exp().numpy()


def test_leave_one_out_tvd_is_the_total_variation_distance_of_the_next_token_distribution(loaded: LoadedModel
                                                                                          ) -> None:
    explanation = explain_step(loaded, SOURCE, PREFIX, methods=("leave_one_out", "leave_one_out_tvd"))
    whole = _distribution_by_steps(loaded, SOURCE)
    expected = [0.5 * np.abs(_distribution_by_steps(loaded, SOURCE[:j] + SOURCE[j + 1:]) - whole).sum()
                for j in range(len(SOURCE))]
    np.testing.assert_allclose(explanation.row("leave_one_out_tvd"), expected, atol=1e-5)
    assert (explanation.row("leave_one_out_tvd") >= 0).all() and max(expected) > 0.01
