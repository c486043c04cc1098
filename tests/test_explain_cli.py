"""``attnviz explain``: the files it writes over a corpus, and bad input refused in one line, nothing written."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from tests.helpers import assert_files_explain_themselves, run_cli


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_explain_writes_agreement_sinks_and_figures(capsys, tiny_models: dict, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, err = run_cli(capsys, "explain", "--checkpoint", str(tiny_models["transformer"][0]),
                                "--data", str(tiny_models["data"]), "--out", str(out), "--limit", "3",
                                "--ig-steps", "8", "--format", "png,svg")
    assert code == 0, err
    agreement = _rows(out / "agreement.csv")
    assert len(agreement) == 10 * 9 // 2 + 4 * 5  # every pair of the ten methods once, then attention-based
    magnitudes = [r for r in agreement if r["method_b"].startswith("|")]  # rows against |signed rows|
    assert {r["method_b"] for r in magnitudes} == {"|grad_x_input|", "|grad_x_input_detached|", "|ig|", "|occlusion|",
                                                   "|leave_one_out|"}
    pair = next(r for r in agreement if (r["method_a"], r["method_b"]) == ("attention", "norm"))
    tokens = int(pair["tokens"])
    assert tokens > 3 and -1 <= float(pair["tau_q1"]) <= float(pair["tau_median"]) <= float(pair["tau_q3"]) <= 1
    sidecar = json.loads((out / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["sentences"] == 3 and sidecar["tokens"] >= tokens
    assert f"explained {sidecar['tokens']} tokens of 3 sentences" in stdout
    sinks = _rows(out / "sinks.csv")
    bos = [r for r in sinks if r["kind"] == "dec-self" and r["key"] == "<bos>"]  # (sinks_by_position.csv's names)
    assert len(bos) == 2 and all(0 <= float(r["weight_share"]) <= 1 and 0 <= float(r["norm_share"]) <= 1 for r in bos)
    layers = _rows(out / "layers.csv")
    assert {(r["method"], r["reference"]) for r in layers} >= {("attention", "occlusion"), ("flow", "occlusion")}
    assert_files_explain_themselves(out, ("agreement.csv", "layers.csv", "sinks.csv", "sinks_by_position.csv"))
    by_position = _rows(out / "sinks_by_position.csv")  # the query rows of every step, binned by position
    first = [r for r in by_position if (r["kind"], r["layer"], r["head"], r["key"]) == ("dec-self", "1", "1", "first")]
    assert [r["queries"] for r in first] == ["1-16"] and int(first[0]["rows"]) == sidecar["tokens"]
    eos = [r for r in sinks if r["key"] == "<eos>"]  # no <eos> among a Transformer's source or target prefix
    assert eos and all(r["weight_share"] == r["norm_share"] == "no such key" and r["tokens"] == "0" for r in eos)
    for stem in ("layers_spearman_vs_occlusion", "tau_attention_vs_ig"):
        assert (out / f"{stem}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (out / f"{stem}.svg").read_bytes()[:400]


@pytest.mark.parametrize("content", [b"", b"\x00\x01\xff\xfe binary", b"\n\n  \n"])
def test_bad_data_is_one_line_exit_2_and_nothing_written(capsys, tiny_models: dict, tmp_path: Path,
                                                         content: bytes) -> None:
    data, out = tmp_path / "data.txt", tmp_path / "out"
    data.write_bytes(content)
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(tiny_models["transformer"][0]),
                           "--data", str(data), "--out", str(out))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "attnviz: error:" in err
    assert not out.exists()


def test_unknown_checkpoint_is_refused(capsys, tiny_models: dict, tmp_path: Path) -> None:
    missing, out = tmp_path / "nope.safetensors", tmp_path / "out"
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(missing), "--data", str(tiny_models["data"]),
                           "--out", str(out))
    assert code == 2 and "nope.safetensors" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_interrupt_leaves_nothing_half_written(capsys, monkeypatch, tiny_models: dict, tmp_path: Path) -> None:
    import attnviz.core.explain as explain

    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        raise KeyboardInterrupt

    monkeypatch.setattr(explain, "explain_step", interrupted)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "explain", "--checkpoint", str(tiny_models["transformer"][0]),
                           "--data", str(tiny_models["data"]), "--out", str(out), "--limit", "2")
    assert calls and code == 130 and "interrupted" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


SHIPPED_BERT = Path(__file__).resolve().parents[1] / "models" / "encoder-only.safetensors"


@pytest.mark.skipif(not SHIPPED_BERT.is_file(), reason="the shipped BERT is not in this checkout")
def test_explain_masks_each_word_of_a_bert(capsys, tmp_path: Path) -> None:
    data, out = tmp_path / "english.txt", tmp_path / "out"
    data.write_text("i am happy .\nhe is tall .\n", encoding="utf-8")
    code, stdout, err = run_cli(capsys, "explain", "--checkpoint", str(SHIPPED_BERT), "--data", str(data),
                                "--out", str(out), "--ig-steps", "4", "--format", "csv")
    assert code == 0, err
    assert "explained 8 tokens of 2 sentences" in stdout  # every word masked in turn
    sinks = _rows(out / "sinks.csv")
    cls = [r for r in sinks if r["key"] == "<bos>"]  # [CLS] counts as <bos>, [SEP] as <eos>
    assert len(cls) == 3 and all(int(r["tokens"]) == 8 and 0 < float(r["weight_share"]) < 1 for r in cls)
    assert {r["kind"] for r in sinks} == {"enc-self"}  # the small BERT's self-attention, as by position
    assert "leave_one_out" not in (out / "agreement.csv").read_text(encoding="utf-8")
