"""Head gates, the head atlas and the pruning curve for Hugging Face folders (tiny random models of each family,
built here from a config): a gated head equals its output projection's input columns zeroed by hand, gates of one
change nothing, the statistics equal a direct computation from the library's ``output_attentions``, the importance
equals torch.autograd one pair at a time, and the pruning curve's first point is ``attnviz eval``'s BLEU."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

pytest.importorskip("transformers")

from attnviz.core.checkpoint import load_checkpoint
from attnviz.core.heads import HeadGates, HeadMask, head_layout, masked_heads
from attnviz.core.heads.mask import Head, KindShape
from attnviz.core.hf.heads import output_projection
from attnviz.core.kinds import AttentionKind
from tests.hf_folders import ENCODER_DECODER, FAMILIES, make_folder

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One tiny folder per family, made when a test first asks for it."""
    made: dict[str, Path] = {}

    class Folders(dict):
        def __missing__(self, family: str) -> Path:
            made[family] = make_folder(family, tmp_path_factory.mktemp(family) / family)
            self[family] = made[family]
            return made[family]
    return Folders()


def _batch(loaded) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Two sources (the second shorter: padded) and two teacher-forced targets, as the importance feeds them."""
    from attnviz.core.decoding import encode_sources, padded_rows
    from attnviz.core.text import source_words

    splits = [source_words(text, loaded.src_vocab, 32) for text in ("the house is big .", "he was there .")]
    src, valid = encode_sources(splits, loaded.src_vocab)
    vocab = loaded.tgt_vocab
    tgt, _ = padded_rows([[vocab.bos_id, 5, 6, 7, vocab.eos_id], [vocab.bos_id, 8, vocab.eos_id]], vocab.pad_id)
    return src, valid, tgt[:, :-1]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_gated_head_equals_its_columns_of_the_output_projection_zeroed_by_hand(family: str, folders) -> None:
    loaded = load_checkpoint(folders[family])
    model = loaded.model
    src, valid, tgt_in = _batch(loaded)
    with torch.no_grad():
        plain = model(src, valid, tgt_in)
        with HeadGates(model) as gates:
            gates.ones()
            ones = model(src, valid, tgt_in)
        torch.testing.assert_close(ones, plain, rtol=0, atol=1e-6)  # gates of one change nothing
        layout = head_layout(model)
        for shape in layout.kinds:
            head = Head(shape.kind, shape.layers - 1, shape.heads - 1)
            with masked_heads(model, HeadMask(frozenset([head]))):
                gated = model(src, valid, tgt_in)
            module = model.attention_modules(shape.kind)[head.layer]
            layer = output_projection(module, model.architecture)
            width = getattr(module, model.architecture.projection.head_width)
            columns = slice(head.head * width, (head.head + 1) * width)
            kept = layer.weight.detach().clone()
            fused = model.architecture.projection.style == "fused"  # (GPT-2's Conv1D: weight (in, out))
            (layer.weight[columns] if fused else layer.weight[:, columns]).zero_()
            by_hand = model(src, valid, tgt_in)
            layer.weight.copy_(kept)
            torch.testing.assert_close(gated, by_hand, rtol=0, atol=1e-6)
            effect, error = (gated - plain).abs().max(), (gated - by_hand).abs().max()
            assert effect > 100 * error and effect > 0, (effect, error)  # (the head mattered: it was switched off)
    assert not any(m._forward_pre_hooks for m in model.modules())  # (the gates came off)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_hugging_face_model_says_its_heads_by_kind(family: str, folders) -> None:
    loaded = load_checkpoint(folders[family])
    heads = 4 if family in ("llama", "qwen2") else 2  # (tests/hf_folders.py: query heads, twice the key/value heads)
    kinds = (ENC, DEC, CROSS) if family in ENCODER_DECODER else (DEC,)
    assert head_layout(loaded.model).kinds == tuple(KindShape(kind, 2, heads) for kind in kinds)
