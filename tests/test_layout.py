"""Sequence layouts (core/layout.py): the one place that knows how a family lays its attention out."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.layout import LAYOUTS, Capability, layout_named
from attnviz.core.models.kinds import KINDS
from attnviz.core.results import DecodeStep, EncodedSource
from attnviz.figures.attention import AttentionView, attention_figure, available_kinds
from attnviz.figures.panels import causal_mask_figure

ROOT = Path(__file__).resolve().parent.parent
ENCODER_ONLY = layout_named("encoder-only")
TOKENS = ("[CLS]", "the", "[MASK]", "is", "red", "[SEP]", "it", "[MASK]", "[SEP]")


def _weights(layers: int, heads: int, size: int, seed: int) -> np.ndarray:
    raw = np.random.default_rng(seed).random((layers, heads, size, size)).astype(np.float32)
    return raw / raw.sum(axis=-1, keepdims=True)


def _pair() -> EncodedSource:
    size = len(TOKENS)
    segments = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    return EncodedSource("the [MASK] is red [SEP] it [MASK]", TOKENS, (), None, _weights(2, 3, size, 0),
                         _weights(2, 3, size, 1), np.ones(size, bool), layout=ENCODER_ONLY, segments=segments)


def _fill_step(source: EncodedSource) -> DecodeStep:
    """The first mask filled: the step holds the attention of the sentence it predicted from."""
    size = len(source.tokens)
    return DecodeStep(0, "car", False, ("the", "car", "is", "red", "[SEP]", "it", "[MASK]"), source.tokens,
                      ("car", "ball", "sky", "dog", "hat"), np.full(5, 0.2, np.float32),
                      np.zeros((2, 3, 0, size), np.float32), np.zeros((2, 3, 0, size), np.float32),
                      _weights(2, 3, size, 5), _weights(2, 3, size, 6), np.ones((size, size), bool), (), 0.0,
                      focus=2)


def test_every_registry_record_names_a_known_layout_and_the_views_ask_it_for_capabilities():
    for kind in KINDS.values():
        assert kind.sequence_layout is LAYOUTS[kind.layout]
    assert KINDS["transformer"].sequence_layout.offers(Capability.DECODER)
    assert not KINDS["kernel-regression"].sequence_layout.offers(Capability.SENTENCE)
    assert ENCODER_ONLY.offers(Capability.MASKS) and not ENCODER_ONLY.offers(Capability.DECODER)
    with pytest.raises(KeyError, match="known: "):
        layout_named("sideways")


def test_an_encoder_only_sentence_shows_self_attention_only_with_the_pair_divided_after_the_first_sep():
    source = _pair()
    assert available_kinds(source) == [AttentionKind.ENCODER_SELF]
    view = AttentionView(kind=AttentionKind.CROSS, layer=1, head=2)  # (a kind it lacks falls back to its own)
    named, matrix = attention_figure(source, None, view, "bert")
    assert matrix is not None and matrix.kind is AttentionKind.ENCODER_SELF
    np.testing.assert_array_equal(matrix.values, source.encoder_weights[1, 2])
    assert matrix.rows == matrix.cols == TOKENS
    assert matrix.prompt_rows == 6  # segment B starts at "it"
    assert named.spec.title.startswith("bert · self-attention · layer 2 · head 3")
    assert not matrix.masked.any()  # no causal mask: every token sees every token


def test_a_fill_step_shows_the_encoding_it_predicted_from_and_marks_the_mask_row():
    source = _pair()
    step = _fill_step(source)
    _, matrix = attention_figure(source, step, AttentionView(kind=AttentionKind.ENCODER_SELF), "bert")
    assert matrix is not None
    np.testing.assert_array_equal(matrix.values, step.self_weights[0, 0])
    assert ENCODER_ONLY.current_row(AttentionKind.ENCODER_SELF, len(matrix.rows), step) == 2
    assert ENCODER_ONLY.current_row(AttentionKind.ENCODER_SELF, len(matrix.rows), None) is None
    mask = causal_mask_figure(source, step)
    assert mask.values.all() and "no causal mask" in mask.title


def test_a_decoder_keeps_marking_its_newest_query_row():
    base = layout_named("encoder-decoder")
    assert base.current_row(AttentionKind.CROSS, 4, None) == 3
    assert base.current_row(AttentionKind.ENCODER_SELF, 4, None) is None


def test_outside_the_registry_and_the_layouts_no_module_reads_a_family_flag():
    """The views ask the layout: `decoder_only`, `is_translation`, `.prompt` and family names are read only in
    core/models/kinds.py and core/layout.py (the attribute names in the grep below; a task's own size table aside)."""
    found = subprocess.run(["grep", "-rnE", r"\.decoder_only\b|\.prompt\b|is_translation|\.family ?(==|!=)",
                            "attnviz", "--include=*.py"], cwd=ROOT, capture_output=True, text=True).stdout
    offenders = [line for line in found.splitlines()
                 if not line.startswith(("attnviz/core/models/kinds.py", "attnviz/core/layout.py",
                                         "attnviz/core/models/decoder_only.py"))  # (its own `self.prompt(...)` method)
                 and "from attnviz.core.models.decoder_only import" not in line  # (the module, not the flag)
                 and ".prompt(" not in line]  # (the decoder-only model's method, called by code that runs it)
    assert offenders == []


def test_views_import_no_family_module():
    """The GUI and the figures know families only through the layout (never the model modules)."""
    families = {"attnviz.core.models.decoder_only", "attnviz.core.models.encoder_only",
                "attnviz.core.models.transformer", "attnviz.core.models.seq2seq"}
    for folder in ("gui", "figures"):
        for path in (ROOT / "attnviz" / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
            assert not imported & families, path
