"""A decoding's recorded attention maps take memory growing with the square of its length, not the cube
(attnviz/core/attention/row_stack.py), and sharing it never changes a map a step already handed out."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.stepping import DecodeSession

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.flipbook_memory import make_checkpoint  # a random Transformer that never stops

MAPS = ("cross_weights", "cross_scores", "self_weights", "self_scores")


@pytest.fixture(scope="module")
def long_decoding(tmp_path_factory):
    return load_checkpoint(make_checkpoint(tmp_path_factory.mktemp("long"), steps=150, width=16))


def held_bytes(steps) -> int:
    """Bytes of the distinct memory behind the steps' maps (a view counts its whole buffer once)."""
    buffers = {}
    for step in steps:
        for name in MAPS:
            array = getattr(step, name)
            base = array if array.base is None else array.base
            buffers[id(base)] = base
    return sum(base.nbytes for base in buffers.values())


def copies(steps) -> list[dict[str, np.ndarray]]:
    return [{name: getattr(step, name).copy() for name in MAPS} for step in steps]


def test_a_long_decoding_keeps_its_maps_in_square_not_cubic_memory(long_decoding):
    session = DecodeSession(long_decoding)
    session.encode("w1 w2 w3")
    steps = session.run()
    assert len(steps) == 150 and not any(step.token == "<eos>" for step in steps[:-1])
    last = steps[-1]
    one_full_set = sum(getattr(last, name).size * 4 for name in MAPS)  # the last step's maps, T×S and T×T
    # Stacked afresh at every step they took Σ t² cells: about T/3 = 50 times the last step's maps.
    assert held_bytes(steps) <= 3 * one_full_set
    assert last.self_weights.shape == (1, 1, 150, 150) and last.cross_weights.shape[2] == 150


def test_shared_maps_never_change_after_a_rewind_a_forced_word_or_a_step_decoded_ahead(long_decoding):
    session = DecodeSession(long_decoding)
    session.encode("w1 w2 w3")
    for _ in range(20):
        session.step()
    before, kept = copies(session.steps), list(session.steps)
    session.prefetch()  # step 21 decoded ahead, then not taken: the user forces another word there
    session.step(force="w7")
    session.rewind(10)  # and goes back to step 10 to force a third word
    session.step(force="w9")
    for _ in range(5):
        session.step()
    for step, saved in zip(kept, before, strict=True):  # what earlier steps handed out stays as it was
        for name in MAPS:
            np.testing.assert_array_equal(getattr(step, name), saved[name])
    fresh = DecodeSession(long_decoding, record_attention=True)  # the same path decoded in one go
    fresh.encode("w1 w2 w3")
    for token in session.forced_tokens:
        fresh.step(token)
    for ours, theirs in zip(session.steps, fresh.steps, strict=True):
        assert ours.token == theirs.token
        for name in MAPS:
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name))
    assert session.steps[10].token == "w9" and not session.steps[5].self_weights.flags.writeable
