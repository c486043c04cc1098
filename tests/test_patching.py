"""Patching head by head (core/patching), checked by brute force: a fresh forward pass per head with one hook of its
own replacing that head's output, on tiny trained attnviz models and tiny random Hugging Face folders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from torch import Tensor, nn

from attnviz.core.attention.layers import MultiHeadAttention
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.heads.gates import modules_by_kind
from attnviz.core.hf.attention import recording
from attnviz.core.hf.heads import output_projection
from attnviz.core.patching.engine import PATCHED, Patcher
from attnviz.core.patching.inputs import PreparedPair
from attnviz.core.patching.pairs import MinimalPair, PairsError, parse_pairs, read_pairs
from tests.hf_encoder_folders import make_encoder_folder
from tests.hf_folders import make_folder

TOLERANCE = 1e-5


def _hook_heads(loaded: Any, module: nn.Module, replace: Any) -> Any:
    """The test's own hook on ``module``'s heads (B, Q, H·Dh) before its output projection: ``replace(x)`` returns
    the projection's input (written here apart from the engine's ``intervene_heads``)."""
    if isinstance(module, MultiHeadAttention):
        return module.W_o.register_forward_pre_hook(lambda _m, args: (replace(args[0]),))
    architecture = loaded.model.architecture
    if architecture.projection.output:
        projection = output_projection(module, architecture)
        return projection.register_forward_pre_hook(lambda _m, args: (replace(args[0]), *args[1:]))
    return module.register_forward_hook(lambda _m, _a, out: (replace(out[0]), *out[1:]))


def _slots(loaded: Any) -> list[tuple[Any, int, nn.Module]]:
    return [(kind, layer, module) for kind, modules in modules_by_kind(loaded.model).items()
            for layer, module in enumerate(modules)]


def _one_head(heads: int, head: int, source: list[Tensor], epsilon: Tensor | None = None) -> Any:
    """A replacement for the heads side by side (B, Q, H·Dh) at each call: head ``head``'s columns from
    ``source[call]``; with ``epsilon``: x + ε·source on those columns instead."""
    calls = iter(range(len(source)))

    def replace(x: Tensor) -> Tensor:
        source_now = source[next(calls)]
        width = x.shape[-1] // heads
        columns = slice(head * width, (head + 1) * width)
        if epsilon is not None:
            moved = torch.zeros_like(x)
            moved[..., columns] = source_now[..., columns]
            return x + epsilon * moved
        x = x.clone()
        x[..., columns] = source_now[..., columns]
        return x
    return replace


def _brute_run(patcher: Patcher, prepared: PreparedPair, clean: bool) -> tuple[float, dict, dict]:
    """An unpatched run of one side, batch of one: the metric, every module's inputs to its output projection per
    call (1, Q, H·Dh), and its recorded attention calls."""
    loaded = patcher.loaded
    inputs: dict[int, list[Tensor]] = {}
    handles = []
    for _kind, _layer, module in _slots(loaded):
        def keep(x: Tensor, key: int = id(module)) -> Tensor:
            inputs.setdefault(key, []).append(x.detach().clone())
            return x
        handles.append(_hook_heads(loaded, module, keep))
    try:
        with torch.no_grad(), recording() as calls:
            metric = float(patcher.reader.metric(prepared, prepared.rows([clean]))[0])
    finally:
        for handle in handles:
            handle.remove()
    by_module: dict[int, list[Any]] = {}
    for call in calls:
        by_module.setdefault(id(call.module), []).append(call)
    return metric, inputs, by_module


def _brute_force(patcher: Patcher, prepared: PreparedPair) -> dict[str, dict]:
    """Every patched measure's metric (L, H) per kind, one fresh forward pass per head; and the attribution
    estimate as the exact derivative d m / d ε of the corrupt run with z_h = z_corrupt + ε (z_clean − z_corrupt)."""
    loaded = patcher.loaded
    _, clean_in, clean_calls = _brute_run(patcher, prepared, True)
    m_corrupt, corrupt_in, corrupt_calls = _brute_run(patcher, prepared, False)
    out: dict[str, dict] = {m: {} for m in (*PATCHED, "atp")}
    for kind, layer, module in _slots(loaded):
        heads = next(s.heads for s in patcher.layout.kinds if s.kind is kind)
        for measure in (*PATCHED, "atp"):
            out[measure].setdefault(kind, np.zeros((len(modules_by_kind(loaded.model)[kind]), heads)))
        key = id(module)

        def pattern_of(weights_from: list[Any], values_from: list[Any]) -> list[Tensor]:
            return [(w.weights @ v.value).transpose(1, 2).flatten(-2)
                    for w, v in zip(weights_from, values_from, strict=True)]

        sources = {"denoise": (False, clean_in[key]), "noise": (True, corrupt_in[key]),
                   "pattern": (False, pattern_of(clean_calls[key], corrupt_calls[key])),
                   "values": (False, pattern_of(corrupt_calls[key], clean_calls[key]))}
        for head in range(heads):
            for measure, (side, source) in sources.items():
                handle = _hook_heads(loaded, module, _one_head(heads, head, source))
                try:
                    with torch.no_grad():
                        out[measure][kind][layer, head] = float(patcher.reader.metric(
                            prepared, prepared.rows([side]))[0])
                finally:
                    handle.remove()
            epsilon = torch.zeros((), requires_grad=True)
            moved = [c - k for c, k in zip(clean_in[key], corrupt_in[key], strict=True)]
            handle = _hook_heads(loaded, module, _one_head(heads, head, moved, epsilon))
            try:
                with torch.enable_grad():
                    metric = patcher.reader.metric(prepared, prepared.rows([False]))[0]
                    (derivative,) = torch.autograd.grad(metric, [epsilon])
            finally:
                handle.remove()
            out["atp"][kind][layer, head] = m_corrupt + float(derivative)
    return out


def _first_output(module: nn.Module, change: Any) -> Any:
    """The test's own forward hook on a block: ``change(x)`` of its first call's output x (B, S, D) (later calls, a
    decoder-only model's answer positions, pass as they are)."""
    calls = [0]

    def hook(_m: nn.Module, _a: Any, out: Any) -> Any:
        calls[0] += 1
        if calls[0] > 1:
            return None
        x = out[0] if isinstance(out, tuple) else out
        changed = change(x)
        return (changed, *out[1:]) if isinstance(out, tuple) else changed
    return module.register_forward_hook(hook)


def _brute_residual(patcher: Patcher, prepared: PreparedPair) -> np.ndarray:
    """The metric (L, S) of the corrupt run with one block's output at one position from the clean run, one fresh
    forward pass each."""
    blocks = patcher.loaded.model.residual_blocks()
    clean: list[Tensor] = []
    handles = [_first_output(block, lambda x: clean.append(x.detach().clone()) or x) for block in blocks]
    try:
        with torch.no_grad():
            patcher.reader.metric(prepared, prepared.rows([True]))
    finally:
        for handle in handles:
            handle.remove()
    out = np.zeros((len(blocks), clean[0].shape[1]))
    for layer, block in enumerate(blocks):
        for position in range(clean[0].shape[1]):
            def replace(x: Tensor, layer: int = layer, position: int = position) -> Tensor:
                x = x.clone()
                x[:, position] = clean[layer][:, position]
                return x
            handle = _first_output(block, replace)
            try:
                with torch.no_grad():
                    out[layer, position] = float(patcher.reader.metric(prepared, prepared.rows([False]))[0])
            finally:
                handle.remove()
    return out


def _check_exact(loaded: Any, pairs: list[MinimalPair], batched: bool = False) -> None:
    """Every measure of every pair against brute force; the pairs are patched in one call (``batched``: at least two
    of them read as the same shapes, so they share batched passes)."""
    torch.manual_seed(0)
    with Patcher(loaded) as patcher:
        prepared = patcher.reader.prepare(pairs)
        keys = [patcher.reader.batch_key(one) for one in prepared]
        assert not batched or len(set(keys)) < len(keys), keys
        moved = False
        for one, result in zip(prepared, patcher.patch_pairs(prepared), strict=True):
            expected = _brute_force(patcher, one)
            for measure, kinds in expected.items():
                for kind, values in kinds.items():
                    np.testing.assert_allclose(result.metrics[measure][kind], values, rtol=0, atol=TOLERANCE,
                                               err_msg=f"{measure} {kind}")
            residual = _brute_residual(patcher, one)
            np.testing.assert_allclose(result.residual, residual, rtol=0, atol=TOLERANCE, err_msg="residual")
            assert np.abs(residual - result.corrupt_metric).max() > 1e-3  # (a position that moves the metric)
            moved = moved or bool(np.abs(result.metrics["denoise"][next(iter(expected["denoise"]))]
                                         - result.corrupt_metric).max() > 1e-3)
        assert moved, "no head moved the metric: the check would hold for a patch that does nothing"
    # the hooks are gone: the model's logits are its own again
    assert not any(m._forward_pre_hooks or m._forward_hooks for m in loaded.model.modules() if isinstance(m, nn.Linear))


@pytest.mark.parametrize("kind", ["transformer", "decoder-only"])
def test_patching_matches_brute_force_on_trained_models(tiny_models: dict, kind: str) -> None:
    loaded = load_checkpoint(tiny_models[kind][0])
    # the reversal task: the first target word is the last source word's, suffixed with x
    _check_exact(loaded, [MinimalPair("a b c", "a b d", "cx", "dx", 1),
                          MinimalPair("e f g h", "e f g i", "hx", "ix", 2)])


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_patching_matches_brute_force_on_decoder_only_folders(tmp_path: Path, family: str) -> None:
    loaded = load_checkpoint(make_folder(family, tmp_path / family))
    _check_exact(loaded, [MinimalPair("the house is big", "he was there .", "big", "there", 1),
                          MinimalPair("he was big .", "the house is there", "there", "big", 2)], batched=True)


def test_the_blocks_below_a_patched_layer_are_not_computed_again(tmp_path: Path) -> None:
    """GPT-2's blocks return their hidden states alone: a patched pass replays the blocks below the patched one
    from the unpatched runs, so the first block computes only in those runs and the pass that patches it."""
    loaded = load_checkpoint(make_folder("gpt2", tmp_path / "gpt2"))
    pairs = [MinimalPair("the house is big", "he was there .", "big", "there", 1),
             MinimalPair("he was big .", "the house is there", "there", "big", 2)]
    with Patcher(loaded) as patcher:
        prepared = patcher.reader.prepare(pairs)
        first = next(patcher.blocks[0].children())  # (GPT-2's ln_1: runs only when the block computes)
        calls = [0]
        handle = first.register_forward_hook(lambda *_: calls.__setitem__(0, calls[0] + 1))
        try:
            patcher.patch_pairs(prepared, ["denoise"])
        finally:
            handle.remove()
    assert len(patcher.blocks) > 1
    assert calls[0] == 2 * len(prepared) + 1  # the clean and corrupt runs of each pair, and layer 1's one pass


def test_patching_matches_brute_force_on_a_bert_folder(tmp_path: Path) -> None:
    loaded = load_checkpoint(make_encoder_folder("bert", tmp_path / "bert"))
    torch.manual_seed(1)
    with torch.no_grad():  # BERT's initial weights (std 0.02) move the logits by less than the tolerance: wider ones
        for parameter in loaded.model.parameters():
            if parameter.dim() == 2:
                parameter.normal_(0, 0.3)
    _check_exact(loaded, [MinimalPair("the house is [MASK] .", "i am at [MASK] home", "big", "there", 1)])


def test_a_translation_pair_reads_the_answer_after_the_clean_prefix(tiny_models: dict) -> None:
    loaded = load_checkpoint(tiny_models["transformer"][0])
    with Patcher(loaded) as patcher:
        # the answer is the second word the model writes (reversal: "cx bx ax"): the first is fed to both runs
        (prepared,) = patcher.reader.prepare([MinimalPair("a b c", "a d c", "bx", "dx", 1)])
        assert prepared.prefix == ("cx",)
        result = patcher.patch_pair(prepared)
        assert result.clean_metric > 0 > result.corrupt_metric  # the model copies the middle word it reads
        # an answer the clean translation never writes: read where it writes the alternative instead
        (other,) = patcher.reader.prepare([MinimalPair("a b c", "a d c", "dx", "bx", 2)])
        assert other.prefix == ("cx",)


def test_unequal_lengths_are_refused_with_the_line(tiny_models: dict) -> None:
    loaded = load_checkpoint(tiny_models["transformer"][0])
    with Patcher(loaded) as patcher, pytest.raises(PairsError, match="line 7: the clean side reads as 3 tokens and "
                                                                       "the corrupt side as 4"):
        patcher.reader.prepare([MinimalPair("a b c", "a b c d", "cx", "dx", 7)])


def test_pairs_files_are_read_or_refused_by_line(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("# minimal pairs\nhe is here .\tshe is here .\til\telle\n\n", encoding="utf-8")
    assert read_pairs(path) == [MinimalPair("he is here .", "she is here .", "il", "elle", 2)]
    with pytest.raises(PairsError, match="line 2: a pair is four fields"):
        parse_pairs("a\tb\tc\td\nonly\tthree\tfields\n")
    with pytest.raises(PairsError, match="line 1: the answer and the alternative are the same"):
        parse_pairs("a\tb\tc\tc\n")
    with pytest.raises(PairsError, match="has no pair"):
        parse_pairs("# nothing\n")
    (tmp_path / "latin1.tsv").write_bytes("a\tb\tc\td\nt\u00e9\tb\tc\td\n".encode("latin-1"))
    with pytest.raises(PairsError, match="line 2: not UTF-8"):
        read_pairs(tmp_path / "latin1.tsv")
