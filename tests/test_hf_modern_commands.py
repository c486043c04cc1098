"""Every command that takes a folder, run in this process on each of today's model types (Qwen3, Qwen3-MoE, Gemma 2,
Gemma 3, Mistral, Mixtral, Phi-3, OLMo 2, SmolLM3, gpt-oss, ModernBERT: tiny random folders from
tests/hf_modern_folders.py, one per type for the whole module, 3 new tokens at most): ``translate`` (greedy, beam,
stdin), ``eval``, ``export`` and ``export --prompt-map``, ``heads`` over decoded sentences and ``heads --documents``,
``explain``, ``fill-mask`` — each with exit code 0 and the files a user reads (their names, the CSVs' columns, rows that
sum to 1 — with the ``⟨sink⟩`` column for gpt-oss —, every map's title naming its layer's type), or, where
docs/commands.md says the command is not for that type (``to-hf``, ``fill-mask`` of a decoder-only folder,
``translate``, ``eval`` and ``explain`` of ModernBERT, ``classify``), refused in one sentence with exit code 2 and
nothing written.
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")

from attnviz.figures.attention import SINK_COLUMN  # noqa: E402
from tests.helpers import run_cli  # noqa: E402
from tests.hf_modern_folders import DECODER_ONLY, MODERN, make_modern_folder  # noqa: E402

LAYERS = {family: 4 for family in DECODER_ONLY} | {"modernbert": 6}
HEADS = 4
SENTENCES = ("the house is big .", "the cat is small .")
PAIRS = ("the house is big .\tla maison est grande .", "the cat is small .\tle chat est petit .")
NEW_TOKENS = 3
# What each layer's attention does beyond the plain one, as the folder's config declares it (tests/hf_modern_folders.py:
# windows of 3; Qwen3's upper half slides; Gemma 3 three local to one global; SmolLM3 no RoPE every other layer;
# ModernBERT global every third layer, bidirectional bands between): the word every map's title and sidecar carry.
LAYER_TYPES = {
    "qwen3": ("global", "global", "sliding window 3", "sliding window 3"),
    "qwen3_moe": ("", "", "", ""),
    "gemma2": ("sliding window 3", "global") * 2,
    "gemma3_text": ("sliding window 3",) * 3 + ("global",),
    "mistral": ("sliding window 3",) * 4,
    "mixtral": ("sliding window 3",) * 4,
    "phi3": ("sliding window 3",) * 4,
    "olmo2": ("", "", "", ""),
    "smollm3": ("", "no positions") * 2,
    "gpt_oss": ("sliding window 3", "global") * 2,
    "modernbert": ("global", "bidirectional window ±3", "bidirectional window ±3") * 2,
}


@pytest.fixture(scope="module", params=MODERN)
def folder(request, tmp_path_factory) -> tuple[str, Path]:
    """(model type, its tiny folder): one per type for the whole module."""
    family = request.param
    root = tmp_path_factory.mktemp(f"commands-{family}")
    path = make_modern_folder(family, root / family, seed=5, new_tokens=NEW_TOKENS)
    (root / "sentences.txt").write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    (root / "pairs.tsv").write_text("\n".join(PAIRS) + "\n", encoding="utf-8")
    return family, path


def _read_map(path: Path) -> tuple[list[str], list[str], np.ndarray]:
    """A map's CSV: its key columns, its query rows and its values (Q, K)."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][0] == "queries \\ keys"
    return rows[0][1:], [row[0] for row in rows[1:]], np.array([[float(v) for v in row[1:]] for row in rows[1:]])


def _refused(code: int, out: str, err: str, *phrases: str) -> None:
    """Refused in one sentence: exit code 2, nothing on stdout, one line on stderr saying ``phrases``."""
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and err.startswith("attnviz: error: "), err
    for phrase in phrases:
        assert phrase in err, err


def _svg_title(path: Path) -> str:
    return re.search(r"<title>(.*?)</title>", path.read_text(encoding="utf-8")).group(1)


# -- translate, eval -----------------------------------------------------------------------------------------------
def test_translate_continues_greedily_and_with_beams_one_line_per_sentence(folder, capsys, monkeypatch):
    family, path = folder
    if family == "modernbert":
        for command in ("translate", "eval"):
            extra = ("--text", SENTENCES[0]) if command == "translate" else ("--data", str(path.parent / "pairs.tsv"))
            _refused(*run_cli(capsys, command, "--checkpoint", str(path), *extra), "does not translate")
        return
    alone = []
    for sentence in SENTENCES:
        code, out, err = run_cli(capsys, "translate", "--checkpoint", str(path), "--beam", "1", "--text", sentence)
        assert code == 0 and out.count("\n") == 1, (code, out, err)
        alone.append(out)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(SENTENCES) + "\n"))
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(path), "--beam", "1")
    assert code == 0, err
    assert out == "".join(alone)  # (two sentences decoded together, left-padded: the same as each alone)
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(path), "--beam", "2", "--text", SENTENCES[0])
    assert code == 0 and out.count("\n") == 1, (code, out, err)


def test_eval_scores_the_pairs(folder, capsys):
    family, path = folder
    if family == "modernbert":
        pytest.skip("(refused with translate above)")
    code, out, err = run_cli(capsys, "eval", "--checkpoint", str(path), "--beam", "1", "--data",
                             str(path.parent / "pairs.tsv"))
    assert code == 0, err
    assert re.fullmatch(r"BLEU \d+\.\d\d on 2 source sentences\n", out), out


# -- export --------------------------------------------------------------------------------------------------------
def test_export_writes_every_map_titled_with_its_layers_type(folder, capsys, tmp_path):
    family, path = folder
    out_dir = tmp_path / "export"
    code, _out, err = run_cli(capsys, "export", "--checkpoint", str(path), "--text", SENTENCES[0], "--out",
                             str(out_dir), "--format", "csv,svg")
    assert code == 0, err
    sidecar = json.loads((out_dir / "attnviz-export.json").read_text(encoding="utf-8"))
    assert sidecar["model"] == family and sidecar["values"] == "attention weights"
    layers = LAYERS[family]
    if family == "modernbert":
        kinds = {"enc-self": ""}
        assert sidecar["source_tokens"][0] == "[CLS]" and sidecar["source_tokens"][-1] == "[SEP]"
    else:
        steps = sidecar["steps"]
        assert steps == [len(sidecar["query_tokens"])] and 1 <= steps[0] <= NEW_TOKENS + 1
        kinds = {"dec-self": "", "dec-self@": f"_step{steps[0]:02d}", "cross": f"_step{steps[0]:02d}"}
    expected = {"attnviz-export.json"}
    for kind, suffix in kinds.items():
        for layer in range(1, layers + 1):
            for head in range(1, HEADS + 1):
                stem = f"{kind.rstrip('@')}_layer{layer}_head{head}{suffix}"
                expected |= {f"{stem}.csv", f"{stem}.svg"}
    assert {p.name for p in out_dir.iterdir()} == expected
    tokens = tuple(sidecar["source_tokens"])
    for layer in range(1, layers + 1):
        kind = "enc-self" if family == "modernbert" else "dec-self"
        for head in (1, HEADS):
            cols, rows, values = _read_map(out_dir / f"{kind}_layer{layer}_head{head}.csv")
            sink = [SINK_COLUMN] if family == "gpt_oss" else []
            assert cols == [*tokens, *sink] and rows == list(tokens)
            np.testing.assert_allclose(values.sum(-1), 1.0, atol=1e-5)  # (a row and its sink: the whole softmax)
            if family == "gpt_oss":
                assert np.all(values[:, :-1].sum(-1) < 1 - 1e-4)  # (without the sink a row falls short)
        title = _svg_title(out_dir / f"{kind}_layer{layer}_head1.svg")
        note = LAYER_TYPES[family][layer - 1]
        assert f"layer {layer} · {note} · head 1" in title if note else f"layer {layer} · head 1" in title, title
    if family != "modernbert":  # the whole sequence's rows sum to 1; the source view's to the prompt's share
        stepped = f"_step{sidecar['steps'][0]:02d}"
        cols, rows, whole = _read_map(out_dir / f"dec-self_layer2_head3{stepped}.csv")
        np.testing.assert_allclose(whole.sum(-1), 1.0, atol=1e-5)
        source_cols, source_rows, source = _read_map(out_dir / f"cross_layer2_head3{stepped}.csv")
        answer = len(source_rows)
        assert source_cols[: len(tokens)] == list(tokens) and source_rows == rows[-answer:]
        np.testing.assert_allclose(source[:, : len(tokens)], whole[-answer:, : len(tokens)], atol=1e-6)
        if family == "gpt_oss":  # (the sink's weight in both: the step's whole row's rest)
            assert source_cols[-1] == SINK_COLUMN
            np.testing.assert_allclose(source[:, -1], whole[-answer:, -1], atol=1e-6)
        assert np.all(source.sum(-1) <= 1 + 1e-5)


def test_export_prompt_map_computes_one_map_on_demand_as_the_recorded_one(folder, capsys, tmp_path):
    family, path = folder
    kind = "enc-self" if family == "modernbert" else "dec-self"
    code, _out, err = run_cli(capsys, "export", "--checkpoint", str(path), "--text", SENTENCES[0], "--out",
                             str(tmp_path / "recorded"), "--format", "csv")
    assert code == 0, err
    for layer in (1, 2):
        out_dir = tmp_path / f"prompt{layer}"
        code, _out, err = run_cli(capsys, "export", "--checkpoint", str(path), "--text", SENTENCES[0], "--prompt-map",
                                 "--layer", str(layer), "--head", "2", "--out", str(out_dir), "--format", "csv")
        assert code == 0, err
        name = f"{kind}_layer{layer}_head2.csv"
        assert {p.name for p in out_dir.iterdir()} == {name, "attnviz-export.json"}
        sidecar = json.loads((out_dir / "attnviz-export.json").read_text(encoding="utf-8"))
        assert sidecar["layer"] == layer and sidecar["attention_slug"] == kind
        assert sidecar["layer_type"] == (LAYER_TYPES[family][layer - 1] or "full")
        cols, rows, values = _read_map(out_dir / name)
        recorded_cols, recorded_rows, recorded = _read_map(tmp_path / "recorded" / name)
        assert (cols, rows) == (recorded_cols, recorded_rows) and (cols[-1] == SINK_COLUMN) == (family == "gpt_oss")
        np.testing.assert_allclose(values, recorded, atol=1e-5)  # (on demand = recorded, sink column included)
        np.testing.assert_allclose(values.sum(-1), 1.0, atol=1e-5)


# -- heads ---------------------------------------------------------------------------------------------------------
def _heads_csv(out_dir: Path) -> list[dict[str, str]]:
    with (out_dir / "heads.csv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


HEADS_COLUMNS = ["kind", "layer", "head", "entropy", "confidence", "confidence_without_end", "previous", "same", "next",
                 "sink", "sink_first", "sink_end", "sink_punct", "distance", "importance", "importance_normalised",
                 "positional_offset", "positional_share", "positional"]


@pytest.mark.parametrize("documents", [False, True], ids=["decoded", "documents"])
def test_heads_writes_every_heads_statistics(folder, capsys, tmp_path, documents):
    family, path = folder
    out_dir = tmp_path / "heads"
    code, out, err = run_cli(capsys, "heads", "--checkpoint", str(path), "--data", str(path.parent / "sentences.txt"),
                             "--out", str(out_dir), "--format", "csv", "--no-pruning",
                             *(("--documents",) if documents else ()))
    assert code == 0, err
    rows = _heads_csv(out_dir)
    assert list(rows[0]) == HEADS_COLUMNS
    kind = "enc-self" if family == "modernbert" else "dec-self"
    assert [(r["kind"], int(r["layer"]), int(r["head"])) for r in rows] == \
        [(kind, layer, head) for layer in range(1, LAYERS[family] + 1) for head in range(1, HEADS + 1)]
    for row in rows:
        shares = [float(row[name]) for name in ("confidence", "previous", "same", "sink")]
        assert all(0.0 <= share <= 1.0 + 1e-9 for share in shares), row
    decoded = not documents and family != "modernbert"  # (an encoder-only folder is always read as documents)
    assert all(r["importance"] != "n/a" for r in rows) == decoded
    assert f"over 2 {'sentences' if decoded else 'documents'}" in out
    with (out_dir / "sinks_by_position.csv").open(encoding="utf-8", newline="") as handle:
        sinks = list(csv.DictReader(handle))
    classes = {row["key"] for row in sinks}
    assert "first" in classes and ("learned sink" in classes) == (family == "gpt_oss")
    if family == "gpt_oss":  # (the learned sink's share: what the keys leave, never a key's norm)
        learned = [row for row in sinks if row["key"] == "learned sink"]
        assert all(0.0 < float(row["weight_share"]) < 1.0 and float(row["norm_share"]) == 0.0 for row in learned)


# -- explain -------------------------------------------------------------------------------------------------------
def test_explain_writes_the_agreement_of_attention_with_the_gradients(folder, capsys, tmp_path):
    family, path = folder
    out_dir = tmp_path / "explain"
    args = ("explain", "--checkpoint", str(path), "--data", str(path.parent / "sentences.txt"), "--out", str(out_dir),
            "--format", "csv", "--methods", "attention,rollout,grad_x_input,occlusion", "--limit", "1")
    code, out, err = run_cli(capsys, *args)
    if family == "modernbert":
        _refused(code, out, err, "Hugging Face decoder-only folders, not a hf-encoder model")
        assert not out_dir.exists()
        return
    assert code == 0, err
    names = {p.name for p in out_dir.iterdir()}
    assert {"agreement.csv", "layers.csv", "sinks.csv", "attnviz-export.json", "tau_attention_vs_rollout.csv",
            "tau_attention_vs_grad_x_input.csv", "tau_attention_vs_occlusion.csv"} <= names
    assert "tau_attention_vs_ig.csv" not in names  # (only the methods asked for)
    with (out_dir / "agreement.csv").open(encoding="utf-8", newline="") as handle:
        agreement = list(csv.DictReader(handle))
    pairs = {(r["method_a"], r["method_b"]) for r in agreement}
    assert {("attention", "rollout"), ("attention", "grad_x_input"), ("attention", "occlusion")} <= pairs
    assert all(-1.0 <= float(r["tau_mean"]) <= 1.0 and int(r["tokens"]) > 0 for r in agreement)
    assert re.match(r"explained \d+ tokens of 1 sentences?", out), out


# -- fill-mask, to-hf, classify ------------------------------------------------------------------------------------
def test_fill_mask_fills_modernberts_mask_and_refuses_a_decoder_only_folder(folder, capsys):
    family, path = folder
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(path), "--text", "the [MASK] is big .")
    if family != "modernbert":
        _refused(code, out, err, "a hf-causal model does not fill masks", "ModernBERT")
        return
    assert code == 0, err
    words = out.rstrip("\n").split("\t")
    assert out.count("\n") == 1 and len(words) == 5 and len(set(words)) == 5 and "[MASK]" not in words


def test_to_hf_and_classify_refuse_a_folder_in_one_sentence(folder, capsys, tmp_path):
    family, path = folder
    kind = "hf-encoder" if family == "modernbert" else "hf-causal"
    code, out, err = run_cli(capsys, "to-hf", "--checkpoint", str(path), "--out", str(tmp_path / "marian"))
    _refused(code, out, err, f"{family} is a {kind} model: only attnviz's Transformer converts")
    assert not (tmp_path / "marian").exists()
    image = Path(__file__).resolve().parent.parent / "resources"
    pictures = sorted(image.rglob("*.png"))
    code, out, err = run_cli(capsys, "classify", "--checkpoint", str(path), str(pictures[0]))
    _refused(code, out, err, "does not classify images")


# -- patch ---------------------------------------------------------------------------------------------------------
PATCH_PAIRS = {  # clean<TAB>corrupt<TAB>answer<TAB>alternative, both sides the same number of tokens for the folder
    "decoder-only": ("the cat sat\tthe dog sat\ta\tb", "the cat ran\tthe dog ran\ta\tb"),
    "modernbert": ("the [MASK] was big\tthe [MASK] are big\thouse\thome",
                   "the [MASK] are there\tthe [MASK] was there\thouses\thouse"),
}


def test_patch_patches_every_head_of_the_pairs(folder, capsys, tmp_path):
    family, path = folder
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("\n".join(PATCH_PAIRS["modernbert" if family == "modernbert" else "decoder-only"]) + "\n",
                     encoding="utf-8")
    out_dir = tmp_path / "patch"
    code, out, err = run_cli(capsys, "patch", "--checkpoint", str(path), "--pairs", str(pairs), "--out", str(out_dir),
                             "--format", "csv")
    assert code == 0, err
    assert {"patching.csv", "pairs.csv", "attnviz-export.json"} <= {p.name for p in out_dir.iterdir()}
    with (out_dir / "patching.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    kind = "enc-self" if family == "modernbert" else "dec-self"
    assert [(r["kind"], int(r["layer"]), int(r["head"])) for r in rows] == \
        [(kind, layer, head) for layer in range(1, LAYERS[family] + 1) for head in range(1, HEADS + 1)]
    with (out_dir / "pairs.csv").open(encoding="utf-8", newline="") as handle:
        per_pair = list(csv.DictReader(handle))
    assert {(r["pair"], r["clean"]) for r in per_pair} == {(str(n), line.split("\t")[0]) for n, line in enumerate(
        PATCH_PAIRS["modernbert" if family == "modernbert" else "decoder-only"], 1)}
    assert f"{LAYERS[family] * HEADS} heads over" in out
