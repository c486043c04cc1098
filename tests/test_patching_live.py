"""Heads patched into a live decoding (core/patching/live.py): the step-by-step decoding with its cache, through the
wrapper the window uses, writes what the brute force writes (every step a fresh teacher-forced pass on each side),
on the shipped Transformer and decoder-only model; a pair whose sides read as different lengths is refused."""

from __future__ import annotations

from dataclasses import replace

import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.stepping import DecodeSession
from attnviz.core.heads.gates import head_layout
from attnviz.core.heads.mask import HeadMask
from attnviz.core.patching.live import PatchedTranslator, patched_greedy
from attnviz.core.patching.pairs import PairsError
from attnviz.paths import MODELS_DIR


@pytest.fixture(scope="module")
def shipped():
    """The shipped models, each loaded once for the module: name -> LoadedModel."""
    return {name: load_checkpoint(MODELS_DIR / f"{name}.safetensors") for name in ("transformer", "decoder-only")}


def _live(loaded, heads, clean: str, corrupt: str, beam: int = 1) -> list[str]:
    wrapper = PatchedTranslator(loaded, heads, clean, corrupt)
    try:
        decoding = DecodeSession(replace(loaded, model=wrapper), "cpu", beam_size=beam)
        decoding.encode(corrupt)
        return list(decoding.run()[-1].output_tokens)
    finally:
        wrapper.remove()


@pytest.mark.parametrize(("checkpoint", "heads", "turned"), [
    ("transformer", "cross:3.1,cross:3.4,cross:2.1,cross:3.3", ["il", "est", "seul", "."]),
    ("decoder-only", "dec-self:1.1,dec-self:1.2,dec-self:1.3,dec-self:1.4,dec-self:2.1,dec-self:2.2,dec-self:2.3,"
                     "dec-self:2.4,dec-self:3.4,dec-self:4.1", None),
])
def test_the_live_decoding_writes_what_the_brute_force_writes(shipped, checkpoint, heads, turned):
    loaded = shipped[checkpoint]
    mask = HeadMask.parse(heads, head_layout(loaded.model))
    expected = patched_greedy(loaded, mask.heads, "he is alone .", "she is alone .")
    assert _live(loaded, mask.heads, "he is alone .", "she is alone .") == expected
    if turned is not None:
        assert expected == turned  # (elle est seule . unpatched)
        assert _live(loaded, mask.heads, "he is alone .", "she is alone .", beam=3)[0] == "il"
    own = DecodeSession(loaded, "cpu")
    own.encode("she is alone .")
    assert own.run()[-1].output_tokens[0] == "elle"
    wrapper = PatchedTranslator(loaded, mask.heads, "he is", "she is")
    assert len(wrapper.handles) == len({(h.kind, h.layer) for h in mask.heads})  # (one hook per layer patched)
    wrapper.remove()
    assert not wrapper.handles


def test_sides_of_different_lengths_are_refused(shipped):
    loaded = shipped["transformer"]
    mask = HeadMask.parse("cross:3.1", head_layout(loaded.model))
    with pytest.raises(PairsError, match="same number of tokens"):
        PatchedTranslator(loaded, mask.heads, "he is alone .", "she is all alone .")
