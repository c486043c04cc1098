"""``attnviz explain`` on Hugging Face decoder-only folders (tiny GPT-2 and Llama, random weights): each step's rows
against the library's own numbers computed independently (``output_attentions=True`` for the attention row, Captum's
IntegratedGradients on the prompt's embeddings, occlusion one modified prompt at a time); batches of variants give
one variant at a time's files to 1e-5; a batch out of memory is halved and the files stay."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.beam_search import translate
from attnviz.core.explain import attribution
from attnviz.core.explain.causal import explain_continuation
from attnviz.core.text import source_words
from tests.helpers import run_cli
from tests.hf_folders import make_folder

SENTENCES = ["the house is big .", "i am at home .", "he was there .", "the houses are big ."]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("explain_hf")
    out = {}
    for family in ("gpt2", "llama"):
        folder = make_folder(family, base / family)
        config = json.loads((folder / "generation_config.json").read_text())
        config["max_new_tokens"] = 4  # (random weights never end: four new tokens a sentence)
        config.pop("max_length", None)
        (folder / "generation_config.json").write_text(json.dumps(config))
        out[family] = folder
    return out


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "sentences.txt"
    path.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    return path


def _decoded(loaded, sentence: str):
    split = source_words(sentence, loaded.src_vocab, loaded.config.max_src_len)
    output = translate(loaded.model, [split], loaded.src_vocab, loaded.tgt_vocab, torch.device("cpu"), beam_size=1)[0]
    return split, output


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_each_step_equals_the_library_s_attention_captum_s_ig_and_a_plain_occlusion(family, folders) -> None:
    import transformers
    from captum.attr import IntegratedGradients

    loaded = load_checkpoint(folders[family])
    split, output = _decoded(loaded, SENTENCES[0])
    assert len(output) == 4
    prompt = list(split.ids)
    explanations = explain_continuation(loaded, prompt, split.words, output, ig_steps=8)
    assert [e.token for e in explanations] == output
    model = transformers.AutoModelForCausalLM.from_pretrained(folders[family], attn_implementation="eager").eval()
    embedding = model.get_input_embeddings()
    answer = loaded.src_vocab.ids(output)
    pad, unk = loaded.src_vocab.pad_id, loaded.src_vocab.unk_id
    for t, explanation in enumerate(explanations):
        ids = torch.tensor([prompt + answer[:t]])
        with torch.no_grad():
            out = model(input_ids=ids, output_attentions=True)
        last = torch.stack(out.attentions)[-1, 0, :, -1, : len(prompt)].mean(0).double().numpy()  # last layer
        np.testing.assert_allclose(explanation.row("attention"), last, rtol=0, atol=1e-5)
        log_p = torch.log_softmax(out.logits[0, -1].double(), -1)
        assert explanation.log_prob == pytest.approx(float(log_p[answer[t]]), abs=1e-5)
        fixed = embedding(torch.tensor([answer[:t]], dtype=torch.long)).detach()

        def f(prompt_embeds: torch.Tensor, fixed=fixed, token=answer[t]) -> torch.Tensor:
            rows = torch.cat([prompt_embeds, fixed.expand(prompt_embeds.shape[0], -1, -1)], 1)
            return torch.log_softmax(model(inputs_embeds=rows).logits[:, -1], -1)[:, token]

        inputs = embedding(torch.tensor([prompt])).detach()
        baseline = embedding(torch.full((1, len(prompt)), pad)).detach()
        ig = IntegratedGradients(f).attribute(inputs, baselines=baseline, n_steps=8)[0].sum(-1).double()
        np.testing.assert_allclose(explanation.row("ig"), ig.detach().numpy(), rtol=0, atol=1e-5)
        with torch.no_grad():
            whole = f(inputs)[0]
            plain = []
            for j in range(len(prompt)):
                changed = list(prompt)
                changed[j] = unk
                plain.append(float(whole - f(embedding(torch.tensor([changed])))[0]))
        np.testing.assert_allclose(explanation.row("occlusion"), plain, rtol=0, atol=1e-5)


def _numbers(folder: Path) -> dict[str, list[list[str]]]:
    files = {}
    for name in ("agreement.csv", "layers.csv", "sinks.csv", "sinks_by_position.csv"):
        with (folder / name).open(encoding="utf-8") as handle:
            files[name] = list(csv.reader(handle))
    return files


def _assert_same_numbers(mine: dict[str, list[list[str]]], theirs: dict[str, list[list[str]]]) -> None:
    for name, rows in mine.items():
        assert len(rows) == len(theirs[name]) > 1, name
        for row, other in zip(rows, theirs[name], strict=True):
            assert len(row) == len(other)
            for a, b in zip(row, other, strict=True):
                try:
                    assert abs(float(a) - float(b)) <= 1e-5, (name, row, other)
                except ValueError:
                    assert a == b, (name, row, other)


def _explain(capsys, folder: Path, data: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    return run_cli(capsys, "explain", "--checkpoint", str(folder), "--data", str(data), "--out", str(out),
                   "--ig-steps", "8", "--format", "csv", *extra)


@pytest.mark.parametrize("family", ["gpt2", "llama"])
def test_batched_variants_give_one_variant_at_a_time_s_files(family, folders, data, tmp_path, capsys) -> None:
    code, stdout, err = _explain(capsys, folders[family], data, tmp_path / "batched")
    assert code == 0, err
    assert "explained 16 tokens of 4 sentences" in stdout
    code, _, err = _explain(capsys, folders[family], data, tmp_path / "alone", "--batch-size", "1")
    assert code == 0, err
    batched, alone = _numbers(tmp_path / "batched"), _numbers(tmp_path / "alone")
    _assert_same_numbers(batched, alone)
    pairs = {(r[0], r[1]) for r in batched["agreement.csv"][1:]}
    assert {("attention", "ig"), ("attention", "occlusion"), ("ig", "occlusion"), ("rollout", "flow")} <= pairs
    sidecar = json.loads((tmp_path / "batched" / "attnviz-export.json").read_text())
    assert sidecar["batch_tokens"] == 4096 and sidecar["tokens"] == 16


@pytest.mark.parametrize("error", [torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"),
                                   RuntimeError("MPS backend out of memory"), MemoryError()])
def test_a_batch_out_of_memory_is_halved_and_the_files_stay(error, folders, data, tmp_path, capsys, monkeypatch
                                                           ) -> None:
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "plain")
    assert code == 0, err
    real = attribution.newest_logits
    sizes: list[int] = []

    def newest_logits(hf, inputs):  # the device "runs out" for any forward pass over 40 tokens
        sizes.append(inputs.shape[0] * inputs.shape[1])
        if sizes[-1] > 40:
            raise error
        return real(hf, inputs)

    monkeypatch.setattr(attribution, "newest_logits", newest_logits)
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "halved", "--batch-size", "256")
    assert code == 0, err
    assert "out of memory on cpu: batches of 128 tokens from now on" in err
    assert max(sizes) > 40 and all(size <= 40 for size in sizes[-20:])
    _assert_same_numbers(_numbers(tmp_path / "halved"), _numbers(tmp_path / "plain"))
    assert json.loads((tmp_path / "halved" / "attnviz-export.json").read_text())["batch_tokens"] <= 40


def test_a_sentence_that_never_fits_and_another_error_are_one_line(folders, data, tmp_path, capsys,
                                                                  monkeypatch) -> None:
    def never(hf, inputs):
        raise torch.cuda.OutOfMemoryError("CUDA out of memory")

    monkeypatch.setattr(attribution, "newest_logits", never)
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "never", "--batch-size", "8")
    assert code == 2
    assert err.count("batches of") == 3  # 8 → 4 → 2 → 1 tokens, then the one line that says it cannot fit
    assert "runs cpu out of memory even one variant at a time" in err.strip().splitlines()[-1]
    assert not (tmp_path / "never").exists()

    def broken(hf, inputs):
        raise RuntimeError("shapes do not match")

    monkeypatch.setattr(attribution, "newest_logits", broken)  # not memory: said as it is, never halved
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "broken")
    assert code != 0 and "shapes do not match" in err and "out of memory" not in err
    assert not (tmp_path / "broken").exists()


def test_a_nonsense_batch_size_is_refused_before_the_model_loads(folders, data, tmp_path, capsys) -> None:
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "zero", "--batch-size", "0")
    assert code == 2 and "--batch-size must be from 1 to 10,000,000 tokens, got 0" in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "zero").exists()


def test_methods_asked_give_their_rows_of_the_whole_run_and_unknown_ones_are_refused(folders, data, tmp_path,
                                                                                     capsys) -> None:
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "all")
    assert code == 0, err
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "three", "--methods", "occlusion,attention,ig")
    assert code == 0, err
    every = {(r[0], r[1]): r for r in _numbers(tmp_path / "all")["agreement.csv"][1:]}
    three = _numbers(tmp_path / "three")["agreement.csv"]
    assert {(r[0], r[1]) for r in three[1:]} == {("attention", "ig"), ("attention", "occlusion"), ("ig", "occlusion"),
                                                  ("attention", "|ig|"), ("attention", "|occlusion|")}
    same_pairs = [three[0]] + [every[r[0], r[1]] for r in three[1:]]  # (the whole run's rows of those pairs)
    _assert_same_numbers({"agreement.csv": three}, {"agreement.csv": same_pairs})
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "bad", "--methods", "attention,shap")
    assert code == 2 and "--methods: unknown shap" in err and not (tmp_path / "bad").exists()


def test_a_sentence_whose_record_would_not_fit_is_refused_before_its_pass(folders, data, tmp_path, capsys,
                                                                         monkeypatch) -> None:
    """The recorded pass (every layer's maps and f_h(x_j)) does not shrink with --batch-size: beyond the limit it is
    one sentence before the pass, never a halving loop."""
    from attnviz.core import limits

    monkeypatch.setattr(limits, "MAX_ATTENTION_BYTES", 1000)
    code, _, err = _explain(capsys, folders["gpt2"], data, tmp_path / "big")
    assert code == 2 and "give shorter sentences" in err.strip().splitlines()[-1] and "batches of" not in err
    assert not (tmp_path / "big").exists()
