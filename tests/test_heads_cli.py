"""``attnviz heads`` and ``--mask-heads``: the files it writes, its pruning row 0 against ``attnviz eval``, and bad
input (one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import assert_files_explain_themselves, csv_rows, pairs_file, run_cli
from tests.tiny import reversal_of

_pairs, _rows = pairs_file, csv_rows


def test_heads_writes_the_atlas_the_pruning_curve_and_figures(capsys, tiny_models, tmp_path) -> None:
    data, out = _pairs(tiny_models, tmp_path), tmp_path / "out"
    code, stdout, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                                   str(data), "--out", str(out), "--seeds", "2", "--format", "png,svg,pdf")
    assert code == 0, stderr
    heads = _rows(out / "heads.csv")
    assert len(heads) == 24 and [(r["kind"], r["layer"], r["head"]) for r in heads[:2]] == [
        ("enc-self", "1", "1"), ("enc-self", "1", "2")]
    for column in ("entropy", "confidence", "previous", "same", "next", "sink", "distance", "importance"):
        assert all(float(r[column]) >= 0 for r in heads), column
    assert all(0 <= float(r["confidence"]) <= 1 for r in heads)
    cross = [r for r in heads if r["kind"] == "cross"]
    assert cross and all(float(r["diagonal"]) >= 0 and float(r["monotonic"]) >= 0 for r in cross)
    assert all(r["diagonal"] == "n/a" and r["monotonic"] == "n/a" for r in heads if r["kind"] != "cross")
    assert all(r["rare"] == r["rare_chance"] == "n/a" for r in heads if r["kind"] == "dec-self")
    assert all(0 <= float(r["rare"]) <= 1 for r in heads if r["kind"] != "dec-self")
    assert all(float(r["confidence_without_end"]) <= float(r["confidence"]) + 1e-12 for r in heads)
    assert all(r["positional"] == ("yes" if float(r["positional_share"]) >= 0.9 else "no") for r in heads)
    assert_files_explain_themselves(out, ("heads.csv", "pruning.csv"))
    pruning = _rows(out / "pruning.csv")
    assert [r["heads_pruned"] for r in pruning if r["order"] == "importance"] == [str(n) for n in range(25)]
    assert [r["heads_pruned"] for r in pruning if r["order"] == "random"] == [str(n) for n in range(25)]
    first = {r["order"]: float(r["bleu"]) for r in pruning if r["heads_pruned"] == "0"}
    assert first["importance"] == first["random"] > 50
    assert {float(r["bleu"]) for r in pruning if r["heads_pruned"] == "24"} == {0.0}  # every head off: nothing left
    normalised = {(r["kind"], r["layer"], r["head"]): float(r["importance_normalised"]) for r in heads}
    for row in (r for r in pruning if r["order"] == "importance" and r["heads_pruned"] != "0"):
        kind, _, rest = row["head"].partition(":")
        layer, _, head = rest.partition(".")
        assert float(row["head_importance_normalised"]) == pytest.approx(
            normalised[(kind, layer, head)]), row["head"]
        assert float(row["percent_pruned"]) == pytest.approx(round(100 * int(row["heads_pruned"]) / 24, 1))
    for stem in ("atlas_entropy", "atlas_same", "atlas_sink", "atlas_importance", "atlas_diagonal",
                 "importance_per_head", "importance_normalised_per_head", "pruning_curve"):
        for fmt in ("png", "svg", "pdf"):
            assert (out / f"{stem}.{fmt}").stat().st_size > 500, (stem, fmt)
    sidecar = json.loads((out / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["sentences"] == len({line.split("\t")[0] for line in data.read_text().splitlines()})
    assert sidecar["importance_target"] == "references" and sidecar["processes"] == 1
    assert "24 heads" in stdout and "BLEU" in stdout


@pytest.mark.parametrize("beam", ["1", "3"])
def test_pruning_row_zero_is_evals_bleu_on_the_same_lines(capsys, tiny_models, tmp_path, beam: str) -> None:
    data, checkpoint = _pairs(tiny_models, tmp_path, 60), str(tiny_models["transformer"][0])
    code, stdout, stderr = run_cli(capsys, "eval", "--checkpoint", checkpoint, "--data", str(data), "--beam", beam)
    assert code == 0, stderr
    evaluated = float(re.search(r"BLEU ([0-9.]+)", stdout).group(1))
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", checkpoint, "--data", str(data), "--out",
                              str(tmp_path / "out"), "--beam", beam, "--seeds", "1", "--format", "png")
    assert code == 0, stderr
    row = next(r for r in _rows(tmp_path / "out" / "pruning.csv") if r["heads_pruned"] == "0")
    assert f"{float(row['bleu']):.2f}" == f"{evaluated:.2f}"


def test_source_lines_alone_give_the_atlas_with_the_models_output_as_target(capsys, tiny_models, tmp_path) -> None:
    data = tmp_path / "sources.txt"
    data.write_text("a b c\nd e f g h i j k l m n o p\n", encoding="utf-8")  # the second is over the limit of 10
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["decoder-only"][0]), "--data",
                              str(data), "--out", str(tmp_path / "out"), "--format", "png")
    assert code == 0, stderr
    assert "1 sentences were longer than the model's limit of 10 tokens" in stderr
    assert "model's own output as the target" in stderr
    assert not (tmp_path / "out" / "pruning.csv").exists()
    assert [r["kind"] for r in _rows(tmp_path / "out" / "heads.csv")] == ["dec-self"] * 12
    assert json.loads((tmp_path / "out" / "attnviz-export.json").read_text())["importance_target"] == "model output"


@pytest.mark.parametrize(("content", "says"), [
    (b"", "is empty"), (b"\n  \n", "is empty"), (b"a b\x00c\n", "not a text file"),
    (b"a b\xff\n", "line 1 is not UTF-8"), (b"a b\tbx ax\nc d\n", "line 2 has no reference but line 1 has one"),
    (b"a b\n c d\tdx cx\n", "line 2 has a reference but line 1 has none"), (b"a b\t \n", "empty reference"),
    (b"x" * (70 * 1024) + b"\n", "over 64 KiB")])
def test_bad_corpus_files_are_one_line_and_exit_2(capsys, tiny_models, tmp_path, content: bytes, says: str) -> None:
    data = tmp_path / "bad.txt"
    data.write_bytes(content)
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                              str(data), "--out", str(tmp_path / "out"))
    assert code == 2 and says in stderr and stderr.count("\n") == 1, stderr
    assert not (tmp_path / "out").exists()


def test_ctrl_c_leaves_no_output_folder(capsys, tiny_models, tmp_path, monkeypatch) -> None:
    import attnviz.core.heads as heads

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(heads, "pruning_curve", interrupted)
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                              str(_pairs(tiny_models, tmp_path)), "--out", str(tmp_path / "out"))
    assert code == 130 and "no output was left half-written" in stderr
    assert not (tmp_path / "out").exists()


def test_files_in_the_way_are_said_before_the_work(capsys, tiny_models, tmp_path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "heads.csv").write_text("mine", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                              str(_pairs(tiny_models, tmp_path)), "--out", str(out))
    assert code == 2 and "--force" in stderr
    assert (out / "heads.csv").read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize(("option", "value", "says"), [("--beam", "0", "--beam must be"),
                                                       ("--seeds", "0", "--seeds must be"),
                                                       ("--limit", "0", "--limit must be")])
def test_bad_options_are_one_line(capsys, tiny_models, tmp_path, option: str, value: str, says: str) -> None:
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                              str(_pairs(tiny_models, tmp_path)), "--out", str(tmp_path / "out"), option, value)
    assert code == 2 and says in stderr


def test_translate_with_masked_heads_changes_the_translation(capsys, tiny_models) -> None:
    checkpoint = str(tiny_models["rnn-additive"][0])
    code, plain, _ = run_cli(capsys, "translate", "--checkpoint", checkpoint, "--text", "a b c d", "--beam", "1")
    assert code == 0 and plain.strip() == reversal_of("a b c d")
    code, masked, stderr = run_cli(capsys, "translate", "--checkpoint", checkpoint, "--text", "a b c d", "--beam",
                                   "1", "--mask-heads", "cross:1.1")
    assert code == 0, stderr
    assert masked.strip() != plain.strip()  # without its one attention the decoder cannot read the source


@pytest.mark.parametrize(("heads", "says"), [("cross:3.1", "2 layer(s) of 4 head(s)"), ("cross", "kind:layer.head"),
                                             (",", "names no head")])
def test_a_mask_naming_a_head_that_does_not_exist_is_one_line(capsys, tiny_models, heads: str, says: str) -> None:
    code, _, stderr = run_cli(capsys, "translate", "--checkpoint", str(tiny_models["transformer"][0]), "--text",
                              "a b", "--mask-heads", heads)
    assert code == 2 and says in stderr and stderr.startswith("attnviz: error: --mask-heads")


def test_export_with_masked_heads_names_them(capsys, tiny_models, tmp_path) -> None:
    out = tmp_path / "export"
    code, _, stderr = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text",
                              "a b c", "--out", str(out), "--format", "csv", "--mask-heads", "cross:1.2,enc:2.1")
    assert code == 0, stderr
    sidecar = json.loads((out / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["masked_heads"] == "enc-self:2.1,cross:1.2"
