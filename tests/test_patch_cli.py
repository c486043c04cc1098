"""``attnviz patch``: the files it writes say what the core computed; two processes write the same CSV files as one;
bad pairs are one line on stderr and nothing on disk; the generated tasks use words the model knows."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.columns import described
from attnviz.core.patching.engine import Patcher
from attnviz.core.patching.pairs import PairsError, parse_pairs, read_pairs
from attnviz.core.patching.statistics import kendall_tau, mean_interval, resampled_rows
from attnviz.core.patching.tasks import task_pairs
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent
# the reversal task's pairs: the first target word is the last source word's, with an x
PAIRS = "".join(f"{a} b {c}\t{a} b {d}\t{c}x\t{d}x\n" for a, c, d in
                (("a", "c", "d"), ("e", "f", "g"), ("h", "i", "j"), ("b", "a", "e"), ("c", "d", "h"), ("d", "j", "i")))


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_patch_writes_every_file_with_the_cores_numbers(capsys, tiny_models, tmp_path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    checkpoint = str(tiny_models["transformer"][0])
    code, out, err = run_cli(capsys, "patch", "--checkpoint", checkpoint, "--pairs", str(pairs), "--out",
                             str(tmp_path / "out"), "--format", "png")
    assert code == 0, err
    assert "over 6 pairs" in out
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(["patching.csv", "pairs.csv", "disagreements.csv", "residual.csv", "COLUMNS.md",
                              "attnviz-export.json",
                              *(f"patching_{m}.png" for m in ("denoise", "noise", "pattern", "values", "atp")),
                              "atp_vs_patching.png"])
    heads = _rows(tmp_path / "out" / "patching.csv")
    assert list(heads[0]) == list(described("patching.csv"))
    assert list(_rows(tmp_path / "out" / "pairs.csv")[0]) == list(described("pairs.csv"))
    residual = _rows(tmp_path / "out" / "residual.csv")
    assert list(residual[0]) == list(described("residual.csv"))
    assert len(residual) == 6 * 2 * 3  # 6 pairs × 2 encoder layers × 3 positions
    assert [row["token"] for row in residual[:3]] == ["a", "b", "c"]
    assert (tmp_path / "out" / "disagreements.csv").read_text(encoding="utf-8").splitlines()[0].split(",") == list(
        described("disagreements.csv"))
    # the file's means are the core's, pair by pair
    loaded = load_checkpoint(checkpoint)
    with Patcher(loaded) as patcher:
        results = patcher.patch_pairs(patcher.reader.prepare(read_pairs(pairs)))  # (one group, as the command's)
    cross = next(row for row in heads if row["kind"] == "cross" and row["layer"] == "2" and row["head"] == "1")
    shares = np.array([r.shares("denoise")[patcher.layout.kinds[2].kind][1, 0] for r in results])
    mean, low, high = mean_interval(shares[:, None], resampled_rows(len(shares)))
    assert float(cross["denoise"]) == pytest.approx(mean[0], abs=1e-12)
    assert float(cross["denoise_low"]) == pytest.approx(low[0], abs=1e-12)
    assert float(cross["denoise_high"]) == pytest.approx(high[0], abs=1e-12)
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["patched"] == 6 and sidecar["processes"] == 1


def test_measures_computes_only_those_asked_for(capsys, tiny_models, tmp_path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    checkpoint = str(tiny_models["transformer"][0])
    code, out, err = run_cli(capsys, "patch", "--checkpoint", checkpoint, "--pairs", str(pairs), "--out",
                             str(tmp_path / "out"), "--format", "png", "--measures", "denoise")
    assert code == 0, err
    assert "most restored by" in out and "Kendall" not in out
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == sorted(["patching.csv", "pairs.csv", "COLUMNS.md", "attnviz-export.json",
                              "patching_denoise.png"])
    heads = _rows(tmp_path / "out" / "patching.csv")
    assert list(heads[0]) == list(described("patching.csv"))
    assert {row["noise"] for row in heads} == {row["atp_high"] for row in heads} == {"not computed"}
    assert {row["values"] for row in _rows(tmp_path / "out" / "pairs.csv")} == {"not computed"}
    columns = (tmp_path / "out" / "COLUMNS.md").read_text(encoding="utf-8")
    assert "### patching.csv" in columns and "### residual.csv" not in columns
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["measures"] == ["denoise"] and sidecar["kendall_tau_atp_vs_patching"] == "n/a"
    # the same shares as every measure computed together (other rows in the batched passes: within float error)
    loaded = load_checkpoint(checkpoint)
    with Patcher(loaded) as patcher:
        results = patcher.patch_pairs(patcher.reader.prepare(read_pairs(pairs)))
    kinds = [s.kind for s in patcher.layout.kinds]
    every = np.nanmean([np.concatenate([r.shares("denoise")[k].ravel() for k in kinds]) for r in results], axis=0)
    assert [float(row["denoise"]) for row in heads] == pytest.approx(list(every), abs=1e-5)
    # residual alone: its grid, and no head measure
    code, out, err = run_cli(capsys, "patch", "--checkpoint", checkpoint, "--pairs", str(pairs), "--out",
                             str(tmp_path / "grid"), "--format", "csv", "--measures", " Residual ,residual")
    assert code == 0, err
    assert len(_rows(tmp_path / "grid" / "residual.csv")) == 6 * 2 * 3
    assert {row["denoise"] for row in _rows(tmp_path / "grid" / "patching.csv")} == {"not computed"}


def test_a_cancel_is_heard_after_one_batched_pass_not_one_group(tiny_models) -> None:
    from attnviz.core.patching.corpus import PatchingCancelled, patch_corpus

    loaded = load_checkpoint(tiny_models["transformer"][0])
    pairs = parse_pairs(PAIRS)  # (six pairs: one group)
    asked = []

    def progress(done: int, total: int) -> bool:
        asked.append((done, total))
        return len(asked) < 2  # (stop at the second question)

    with pytest.raises(PatchingCancelled):
        patch_corpus(loaded, pairs, progress=progress, measures=("denoise",))
    assert asked == [(0, 6), (0, 6)]  # asked after each layer's pass, before the group was done


def test_an_unknown_measure_is_one_line_and_nothing_is_written(capsys, tiny_models, tmp_path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    code, _, err = run_cli(capsys, "patch", "--checkpoint", str(tiny_models["transformer"][0]), "--pairs",
                           str(pairs), "--out", str(tmp_path / "out"), "--measures", "denoise,logits")
    assert code == 2
    assert err.strip().splitlines() == [
        "attnviz: error: --measures: 'logits' is not a measure (choose from denoise, noise, pattern, values, atp, "
        "residual, comma-separated)"]
    assert not (tmp_path / "out").exists()


def test_two_processes_write_the_same_csv_as_one(capsys, tiny_models, tmp_path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS, encoding="utf-8")
    common = ["patch", "--checkpoint", str(tiny_models["decoder-only"][0]), "--pairs", str(pairs), "--format", "csv"]
    code, _, err = run_cli(capsys, *common, "--out", str(tmp_path / "one"))
    assert code == 0, err
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-m", "attnviz", *common, "--out", str(tmp_path / "two"), "--processes",
                           "2"], env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 processes" in done.stderr
    for name in ("patching.csv", "pairs.csv", "disagreements.csv", "residual.csv"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes(), name


def test_unequal_pairs_are_one_line_and_nothing_is_written(capsys, tiny_models, tmp_path) -> None:
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(PAIRS + "a b c\ta b c d\tcx\tdx\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "patch", "--checkpoint", str(tiny_models["transformer"][0]), "--pairs",
                           str(pairs), "--out", str(tmp_path / "out"))
    assert code == 2
    assert err.strip().splitlines() == [
        "attnviz: error: " + str(tiny_models["transformer"][0]) + ": line 7: the clean side reads as 3 tokens and the "
        "corrupt side as 4: a pair's two sides must read as the same number of tokens (attnviz does not align them)"]
    assert not (tmp_path / "out").exists()


def test_kendall_tau_counts_concordant_pairs() -> None:
    assert kendall_tau(np.array([1.0, 2, 3, 4]), np.array([10.0, 20, 30, 40])) == pytest.approx(1.0)
    assert kendall_tau(np.array([1.0, 2, 3, 4]), np.array([4.0, 3, 2, 1])) == pytest.approx(-1.0)
    # one discordant pair of six: (5 − 1) / 6
    assert kendall_tau(np.array([1.0, 2, 3, 4]), np.array([1.0, 2, 4, 3])) == pytest.approx(4 / 6)


def test_the_shipped_models_tasks_use_words_they_know() -> None:
    loaded = load_checkpoint(ROOT / "models" / "transformer.safetensors")
    for task, answers in (("gender", {"il", "elle"}), ("number", {"peut", "peuvent", "doit", "doivent"})):
        pairs = task_pairs(task, loaded)
        assert 100 <= len(pairs) <= 400, task
        assert {p.answer for p in pairs} == answers
        assert all(w in loaded.src_vocab for p in pairs for w in (*p.clean.split(), *p.corrupt.split()))
    agreement = task_pairs("agreement", loaded)
    assert {("fatiguée", "fatigué"), ("fatigué", "fatiguée")} <= {(p.answer, p.alternative) for p in agreement}
    assert all(p.answer in loaded.tgt_vocab and p.alternative in loaded.tgt_vocab for p in agreement)
    with pytest.raises(PairsError, match="--task ioi is for a Hugging Face decoder-only folder"):
        task_pairs("ioi", loaded)
    with pytest.raises(PairsError, match="no such task"):
        task_pairs("colour", loaded)


def test_ioi_uses_names_of_one_token(tmp_path) -> None:
    from tests.hf_folders import make_folder

    loaded = load_checkpoint(make_folder("gpt2", tmp_path / "gpt2"))
    # the tiny folder's tokenizer was trained on a few lines: no name is one token, so there is no pair to make
    with pytest.raises(PairsError, match="--task ioi: the model's vocabulary leaves 0 pairs"):
        task_pairs("ioi", loaded)
