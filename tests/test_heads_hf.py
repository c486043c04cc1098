"""Head gates, the head atlas and the pruning curve for Hugging Face folders (tiny random models of each family,
built here from a config): a gated head equals its output projection's input columns zeroed by hand, gates of one
change nothing, the statistics equal a direct computation from the library's ``output_attentions``, the importance
equals torch.autograd one pair at a time, and the pruning curve's first point is ``attnviz eval``'s BLEU."""

from __future__ import annotations

import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.heads import HeadGates, HeadMask, head_layout, masked_heads
from attnviz.core.heads.mask import Head, KindShape
from attnviz.core.hf.heads import output_projection
from tests.helpers import csv_rows, pairs_file
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
    from attnviz.core.decoding.beam_search import encode_sources, padded_rows
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


# -- the atlas: statistics against output_attentions, importance against autograd ---------------------------------

SOURCES = ["the house is big .", "he was there .", "i am at home ."]
REFERENCES = [["the houses are big ."], ["he was at home .", "he was there ."], ["i am there ."]]


def _generated(loaded, ids: list[int]) -> list[int]:
    """The library's own greedy ``generate`` of one source: its new tokens (the end token included)."""
    hf = loaded.model.hf
    source = torch.tensor([ids])
    with torch.no_grad():
        out = hf.generate(input_ids=source, attention_mask=torch.ones_like(source), num_beams=1, do_sample=False,
                          max_new_tokens=int(loaded.config.max_tgt_len))
    new = out[0, 1:] if loaded.model_kind.layout == "encoder-decoder" else out[0, len(ids):]
    ends = set(loaded.tgt_vocab.end_ids)
    tokens = new.tolist()
    return next((tokens[: i + 1] for i, t in enumerate(tokens) if t in ends), tokens)


def _reference_rows(weights: np.ndarray, tokens: list[str], end: int | None, alignment: bool = False,
                    counts: dict[str, int] | None = None) -> dict[str, np.ndarray]:
    """Each statistic's sums (L, H) over the rows of ``weights`` (L, H, Q, K), row q at key position q, written out
    plainly (core/heads/statistics.py's definitions); counts: the corpus's token frequencies (the rare-word share,
    for keys that are the source)."""
    from tests.test_heads import _reference_row

    layers, heads, rows, keys = weights.shape
    punct = {j for j, t in enumerate(tokens) if t and all(unicodedata.category(c)[0] == "P" for c in t)}
    sums: dict[str, np.ndarray] = {}
    for layer in range(layers):
        for head in range(heads):
            w = weights[layer, head]
            running = 0
            for q in range(rows):
                row = _reference_row(list(w[q]), q, {0}, set() if end is None else {end}, punct)
                if counts is not None:
                    least = min(counts.get(t, 0) for t in tokens)
                    row["rare"] = float(counts.get(tokens[int(np.argmax(w[q]))], 0) == least)
                    row["rare_chance"] = sum(counts.get(t, 0) == least for t in tokens) / len(tokens)
                if alignment:
                    row["diagonal"] = w[q, round(q * (keys - 1) / max(rows - 1, 1))]
                    running = max(running, int(np.argmax(w[q])))
                    row["monotonic"] = w[q, running]
                for name, value in row.items():
                    sums.setdefault(name, np.zeros((layers, heads)))[layer, head] += value
    return sums


def _direct(loaded, text: str, counts: dict[str, int]) -> dict[AttentionKind, tuple[dict[str, np.ndarray], int]]:
    """Each kind's statistic sums and rows of one sentence, from the library's eager ``output_attentions`` over the
    source and the greedy output (fed as the decoder's input, its end token left out: the rows that predicted it)."""
    import transformers

    split = loaded.src_vocab.split(text, int(loaded.config.max_src_len))
    ids, words = list(split.ids), list(split.words)
    new = _generated(loaded, ids)
    outputs = loaded.tgt_vocab.to_tokens(new)
    eager = transformers.AutoModelForSeq2SeqLM if loaded.model_kind.layout == "encoder-decoder" \
        else transformers.AutoModelForCausalLM
    model = eager.from_pretrained(loaded.path, attn_implementation="eager", dtype=torch.float32).eval()
    with torch.no_grad():
        if loaded.model_kind.layout == "encoder-decoder":
            out = model(input_ids=torch.tensor([ids]), decoder_input_ids=torch.tensor([[loaded.tgt_vocab.bos_id,
                                                                                        *new[:-1]]]),
                        output_attentions=True)
            stack = lambda maps: torch.cat(maps).double().numpy()  # noqa: E731  (L, H, Q, K)
            answer = [loaded.tgt_vocab.tokens[loaded.tgt_vocab.bos_id], *outputs[:-1]]
            return {ENC: (_reference_rows(stack(out.encoder_attentions), words, len(words) - 1, counts=counts),
                          len(words)),
                    DEC: (_reference_rows(stack(out.decoder_attentions), answer, None), len(new)),
                    CROSS: (_reference_rows(stack(out.cross_attentions), words, len(words) - 1, True, counts),
                            len(new))}
        out = model(input_ids=torch.tensor([[*ids, *new[:-1]]]), output_attentions=True)
    tokens = [*words, *outputs[:-1]]
    return {DEC: (_reference_rows(torch.cat(out.attentions).double().numpy(), tokens, len(words) - 1), len(tokens))}


@pytest.mark.parametrize("family", ["marian", "t5", "gpt2", "llama"])
def test_statistics_equal_a_direct_computation_from_output_attentions(family: str, folders) -> None:
    from attnviz.core.heads import compute_atlas

    loaded = load_checkpoint(folders[family])
    atlas = compute_atlas(loaded, SOURCES, None, "cpu")
    expected: dict[AttentionKind, tuple[dict[str, np.ndarray], int]] = {}
    max_len = int(loaded.config.max_src_len)
    counts = Counter(w for text in SOURCES for w in loaded.src_vocab.split(text, max_len).words)
    for text in SOURCES:
        for kind, (sums, rows) in _direct(loaded, text, counts).items():
            total, count = expected.get(kind, ({}, 0))
            expected[kind] = ({n: total.get(n, 0) + v for n, v in sums.items()}, count + rows)
    assert [k.kind for k in atlas.kinds] == list(expected)
    for k in atlas.kinds:
        sums, rows = expected[k.kind]
        assert k.rows == rows
        for name in k.names:
            np.testing.assert_allclose(k.statistic(name), sums[name] / rows, rtol=1e-5, atol=1e-6,
                                       err_msg=f"{k.kind.slug} {name}")


@pytest.mark.parametrize("family", ["bart", "t5", "gpt2", "qwen2"])
def test_importance_is_the_mean_absolute_gate_gradient_of_each_reference_pairs_loss(family: str, folders) -> None:
    from attnviz.core.heads import compute_atlas

    loaded = load_checkpoint(folders[family])
    atlas = compute_atlas(loaded, SOURCES, REFERENCES, "cpu")
    assert atlas.target == "references" and atlas.pairs == 4
    vocab, hf = loaded.tgt_vocab, loaded.model.hf
    expected = {s.kind: np.zeros((s.layers, s.heads)) for s in head_layout(loaded.model).kinds}
    for text, references in zip(SOURCES, REFERENCES, strict=True):
        source = list(loaded.src_vocab.split(text, 64).ids)
        for reference in references:  # one pair at a time, gates (L, H), the library's forward, torch's loss
            target = [*vocab.tokenizer(text_target=reference, add_special_tokens=False)["input_ids"], vocab.eos_id]
            with HeadGates(loaded.model) as gates:
                values = gates.ones(requires_grad=True)
                if family in ENCODER_DECODER:
                    logits = hf(input_ids=torch.tensor([source]),
                                decoder_input_ids=torch.tensor([[vocab.bos_id, *target[:-1]]])).logits[0]
                else:  # the prompt, then the answer: the prompt's last position predicts the answer's first token
                    logits = hf(input_ids=torch.tensor([[*source, *target[:-1]]])).logits[0, len(source) - 1:]
                loss = torch.nn.functional.cross_entropy(logits, torch.tensor(target))
                grads = torch.autograd.grad(loss, list(values.values()))
            for kind, grad in zip(values, grads, strict=True):
                expected[kind] += grad.abs().numpy() / 4
    for k in atlas.kinds:
        assert k.importance.max() > 0
        np.testing.assert_allclose(k.importance, expected[k.kind], rtol=1e-4, atol=1e-9)


# -- attnviz heads on a folder: the converted Transformer is the same network, so the same atlas ------------------


_pairs, _rows = pairs_file, csv_rows


@pytest.fixture(scope="module")
def converted(tiny_models: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny Transformer written as a Marian folder (``attnviz to-hf``: the same function, tests/test_hf_convert)."""
    from attnviz.core.hf.convert import save_marian_folder

    return save_marian_folder(load_checkpoint(tiny_models["transformer"][0]),
                              tmp_path_factory.mktemp("to-hf") / "tiny-marian")


@pytest.mark.parametrize("beam", ["1", "3"])
def test_heads_on_a_folder_matches_the_transformer_it_was_converted_from_and_evals_bleu(
        capsys, tiny_models, converted, tmp_path, beam: str) -> None:
    import re

    from tests.helpers import run_cli

    data = _pairs(tiny_models, tmp_path, 40)
    code, stdout, stderr = run_cli(capsys, "eval", "--checkpoint", str(converted), "--data", str(data), "--beam", beam)
    assert code == 0, stderr
    evaluated = float(re.search(r"BLEU ([0-9.]+)", stdout).group(1))
    tables = {}
    for name, checkpoint in (("folder", converted), ("ours", tiny_models["transformer"][0])):
        out = tmp_path / name
        code, stdout, stderr = run_cli(capsys, "heads", "--checkpoint", str(checkpoint), "--data", str(data),
                                       "--out", str(out), "--beam", beam, "--seeds", "1", "--format", "png")
        assert code == 0, stderr
        tables[name] = (_rows(out / "heads.csv"), _rows(out / "pruning.csv"))
    (heads, pruning), (our_heads, our_pruning) = tables["folder"], tables["ours"]
    row = next(r for r in pruning if r["heads_pruned"] == "0" and r["order"] == "importance")
    assert evaluated > 50 and f"{float(row['bleu']):.2f}" == f"{evaluated:.2f}"
    assert [(r["kind"], r["layer"], r["head"]) for r in heads] == [(r["kind"], r["layer"], r["head"])
                                                                   for r in our_heads] and len(heads) == 24
    for column in ("entropy", "confidence", "same", "sink", "distance", "importance", "diagonal"):
        theirs = np.array([float(r[column]) if r[column] != "n/a" else 0.0 for r in heads])
        ours = np.array([float(r[column]) if r[column] != "n/a" else 0.0 for r in our_heads])
        np.testing.assert_allclose(theirs, ours, rtol=1e-3, atol=1e-5, err_msg=column)
    # the same heads off in the same order: the same translations (with most heads off a near-tie may fall the other
    # way in the library's float path: a token of 40 sentences)
    np.testing.assert_allclose([float(r["bleu"]) for r in pruning], [float(r["bleu"]) for r in our_pruning],
                               atol=0.5)


def test_mask_heads_on_a_folder_translates_as_the_transformer_with_those_heads_off(capsys, tiny_models,
                                                                                     converted) -> None:
    from tests.helpers import run_cli

    outputs = {}
    for name, checkpoint in (("folder", converted), ("ours", tiny_models["transformer"][0])):
        for mask in ("", "cross:1.1,cross:1.2,cross:2.1,enc:1.3"):
            code, stdout, stderr = run_cli(capsys, "translate", "--checkpoint", str(checkpoint), "--text",
                                           "a b c d e f", *(["--mask-heads", mask] if mask else []))
            assert code == 0, stderr
            outputs[name, mask] = stdout
    assert outputs["folder", ""] == outputs["ours", ""] != outputs["ours", "cross:1.1,cross:1.2,cross:2.1,enc:1.3"]
    assert outputs["folder", "cross:1.1,cross:1.2,cross:2.1,enc:1.3"] == outputs[
        "ours", "cross:1.1,cross:1.2,cross:2.1,enc:1.3"]


def test_heads_on_a_decoder_only_folder_maps_its_one_self_attention(capsys, folders, tmp_path) -> None:
    from tests.helpers import run_cli

    data = tmp_path / "sources.txt"
    data.write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    code, stdout, stderr = run_cli(capsys, "heads", "--checkpoint", str(folders["gpt2"]), "--data", str(data),
                                   "--out", str(out), "--format", "png")
    assert code == 0, stderr
    heads = _rows(out / "heads.csv")
    assert [(r["kind"], r["layer"], r["head"]) for r in heads] == [("dec-self", str(layer), str(head))
                                                                   for layer in (1, 2) for head in (1, 2)]
    assert all(float(r["importance"]) > 0 for r in heads) and "model's own output as the target" in stderr
    assert not (out / "pruning.csv").exists() and "4 heads over 3 sentences" in stdout


def test_two_processes_on_a_folder_give_one_process_numbers(capsys, tiny_models, converted, tmp_path) -> None:
    from tests.helpers import assert_same_atlas, run_cli, torchrun

    data = _pairs(tiny_models, tmp_path, 90)
    common = ["--checkpoint", str(converted), "--data", str(data), "--seeds", "1", "--beam", "2", "--format", "png"]
    code, _, stderr = run_cli(capsys, "heads", *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    done = torchrun("heads", *common, "--out", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 processes" in done.stderr
    assert_same_atlas(tmp_path / "one", tmp_path / "two")
