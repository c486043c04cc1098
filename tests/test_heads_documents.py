"""``attnviz heads --documents``: a Hugging Face language model's heads over documents, batched by tokens (tiny GPT-2
and BERT folders, random weights): batches give one document at a time's numbers and the library's own
``output_attentions`` numbers; a batch out of memory is halved and the numbers stay; the sinks by the query's
position equal the closed formula on hand-made maps; the CLI writes heads.csv and sinks_by_position.csv."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
import torch

pytest.importorskip("transformers")

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.heads.sinks import POSITION_BINS, SinkSums, key_classes, position_bin
from attnviz.core.heads.statistics import Keys, argmax_offsets, row_sums
from attnviz.core.hf import documents as documents_module
from attnviz.core.hf.documents import document_atlas, read_documents, token_batches
from tests.hf_encoder_folders import make_encoder_folder
from tests.hf_folders import make_folder

TEXTS = ["the house is big .", "he was there , and she was not .", "a", "where is the cat ? it sleeps .",
         "we go home now .", "the cat and the dog , the house and the tree : all are here ."]


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("documents")
    return {"gpt2": make_folder("gpt2", base / "gpt2"), "bert": make_encoder_folder("bert", base / "bert")}


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    path = tmp_path / "documents.txt"
    path.write_text("\n".join(TEXTS * 2) + "\n\n", encoding="utf-8")
    return path


def _library(folder: Path, family: str, ids: tuple[tuple[int, ...], ...], tokens) -> tuple[np.ndarray, np.ndarray]:
    """The plain loop: the library's eager model, one document at a time, output_attentions -> the statistics'
    means (n, L, H) and the argmax offsets' shares."""
    import transformers

    model_class = transformers.AutoModel if family == "bert" else transformers.AutoModelForCausalLM
    model = model_class.from_pretrained(folder, attn_implementation="eager").eval()
    sums = offsets = None
    rows = 0
    for doc in ids:
        with torch.no_grad():
            out = model(input_ids=torch.tensor([doc]), output_attentions=True)
        w = torch.stack(out.attentions, 1)[0].double().numpy()  # (L, H, n, n)
        keys = Keys.of([tokens[i] for i in doc], len(doc) - 1)
        q = np.arange(len(doc))
        s, o = row_sums(w, q, keys), argmax_offsets(w, q)
        sums, offsets = (s, o) if sums is None else (sums + s, offsets + o)
        rows += len(doc)
    return sums / rows, offsets / rows


@pytest.mark.parametrize("family", ["gpt2", "bert"])
def test_batches_give_one_document_at_a_time_and_the_library_s_numbers(family: str, folders, data) -> None:
    loaded = load_checkpoint(folders[family])
    docs = read_documents(data, loaded)
    assert len(docs) == 2 * len(TEXTS)
    alone = document_atlas(loaded, docs, "cpu", batch_tokens=1)
    batched = document_atlas(loaded, docs, "cpu", batch_tokens=64)
    assert len(token_batches([len(d) for d in docs.ids], 64)) < len(docs)  # (several rows a batch, padded)
    a, b = alone.atlas.kinds[0], batched.atlas.kinds[0]
    assert a.rows == b.rows == sum(len(d) for d in docs.ids) == batched.tokens
    np.testing.assert_allclose(b.means, a.means, rtol=0, atol=1e-5)
    np.testing.assert_allclose(b.offsets, a.offsets, rtol=0, atol=1e-12)
    for mine, theirs in zip(batched.sinks.means(), alone.sinks.means(), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-5)
    means, offsets = _library(folders[family], family, docs.ids, loaded.src_vocab.tokens)
    np.testing.assert_allclose(b.means, means, rtol=0, atol=1e-5)
    np.testing.assert_allclose(b.offsets, offsets, rtol=0, atol=1e-12)
    assert b.kind.slug == ("enc-self" if family == "bert" else "dec-self")


@pytest.mark.parametrize("error", [torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"),
                                   RuntimeError("MPS backend out of memory"), MemoryError()])
def test_a_batch_out_of_memory_is_halved_and_the_numbers_stay(error: BaseException, folders, data, monkeypatch
                                                               ) -> None:
    loaded = load_checkpoint(folders["gpt2"])
    docs = read_documents(data, loaded)
    plain = document_atlas(loaded, docs, "cpu", batch_tokens=256)
    real = documents_module.forward
    widths: list[int] = []

    def forward(model, ids, mask, causal):  # the device "runs out" for any batch over 40 tokens
        widths.append(ids.numel())
        if ids.numel() > 40:
            raise error
        return real(model, ids, mask, causal)

    monkeypatch.setattr(documents_module, "forward", forward)
    said: list[str] = []
    halved = document_atlas(loaded, docs, "cpu", batch_tokens=256, notice=said.append)
    assert said and "out of memory" in said[0] and halved.batch_tokens <= 40 < 256
    assert max(widths) > 40 and all(w <= 40 for w in widths[-3:])
    np.testing.assert_allclose(halved.atlas.kinds[0].means, plain.atlas.kinds[0].means, rtol=0, atol=1e-5)
    for mine, theirs in zip(halved.sinks.means(), plain.sinks.means(), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=0, atol=1e-5)
    assert halved.atlas.kinds[0].rows == plain.atlas.kinds[0].rows


def test_another_error_is_not_taken_for_memory(folders, data, monkeypatch) -> None:
    loaded = load_checkpoint(folders["gpt2"])
    docs = read_documents(data, loaded)

    def forward(model, ids, mask, causal):
        raise RuntimeError("shapes do not match")

    monkeypatch.setattr(documents_module, "forward", forward)
    with pytest.raises(RuntimeError, match="shapes"):
        document_atlas(loaded, docs, "cpu")


def test_sinks_by_position_equal_the_closed_formula_on_hand_made_maps() -> None:
    n = 200  # uniform causal rows: α_ij = 1/(i+1) for j ≤ i; key norms n_0 = c, n_j = 1 otherwise
    c = 3.0
    weights = np.tril(np.ones((n, n))) / np.arange(1, n + 1)[:, None]
    norms = np.ones(n)
    norms[0] = c
    tokens = ["<s>"] + ["x"] * (n - 2) + ["</s>"]
    sums = SinkSums.empty(("first", "</s>"), 1, 1)
    sums.add(0, weights[None], norms[None], np.arange(n), key_classes(tokens, ("</s>",)), causal=True)
    weight, norm = sums.means()
    positions = np.arange(1, n + 1)  # counted from 1; row at position p has p keys
    for index, (low, high) in enumerate(POSITION_BINS):
        p = positions[(positions >= low) & (positions <= high)]
        if not p.size:
            assert np.isnan(weight[0, index, 0, 0]) and sums.rows[0, index, 0, 0] == 0
            continue
        assert weight[0, index, 0, 0] == pytest.approx(np.mean(1 / p), abs=1e-12)
        assert norm[0, index, 0, 0] == pytest.approx(np.mean(c / (c + p - 1)), abs=1e-12)
    assert sums.rows[1].sum() == 1  # only the last row sees </s>: its share there 1/n
    assert weight[1, 2, 0, 0] == pytest.approx(1 / n) and np.isnan(weight[1, 0, 0, 0])
    bidirectional = SinkSums.empty(("first", "</s>"), 1, 1)
    bidirectional.add(0, np.full((1, 4, 4), 0.25), None, np.arange(4), key_classes(["a", "b", "c", "</s>"],
                                                                                    ("</s>",)), causal=False)
    assert bidirectional.means()[0][:, 0, 0, 0] == pytest.approx([0.25, 0.25]) and bidirectional.rows[1, 0] == 4
    assert list(position_bin(np.array([0, 15, 16, 127, 128, 1023, 1024, 4095, 4096]))) == [0, 0, 1, 1, 2, 2, 3, 3, -1]


@pytest.mark.parametrize("causal", [True, False])
def test_the_device_sums_of_a_padded_batch_equal_numpy_s_of_each_document_alone(causal: bool) -> None:
    """heads --documents sums where the maps are made (core/heads/device_sums.py): a padded batch of random rows,
    key norms and classes gives numpy's row_sums, argmax_offsets and SinkSums.add of each document alone."""
    from attnviz.core.heads.device_sums import BatchKeys, DeviceSums

    rng = np.random.default_rng(3)
    lengths, heads, width = [1, 5, 140, 37], 3, 140
    tokens = [["<s>"] + [rng.choice(["x", ".", "</s>", "y", ","]) for _ in range(n - 1)] for n in lengths]
    special = ("<s>", "</s>")
    weights = np.zeros((len(lengths), heads, width, width))
    norms = np.zeros((len(lengths), heads, width))
    stats, offsets = np.zeros((11, 1, heads)), np.zeros((9, 1, heads))
    sinks = SinkSums.empty(("first", *special), 1, heads)
    for b, n in enumerate(lengths):
        raw = rng.random((heads, n, n)) ** 4
        if causal:
            raw = np.tril(raw)
        w = raw / raw.sum(-1, keepdims=True)  # (H, n, n): real rows, zero past the document (as the mask makes)
        weights[b, :, :n, :n] = w
        norms[b, :, :n] = rng.random((heads, n)) * 3
        keys, q = Keys.of(tokens[b], n - 1), np.arange(n)
        stats += row_sums(w[None], q, keys)
        offsets += argmax_offsets(w[None], q)
        sinks.add(0, w, norms[b, :, :n], q, key_classes(tokens[b], special), causal)
    batch = BatchKeys.of(lengths, [Keys.of(t, len(t) - 1).punct for t in tokens],
                         [key_classes(t, special) for t in tokens], torch.device("cpu"))
    device = DeviceSums(1, heads, 1 + len(special), torch.device("cpu"))
    device.add_layer(0, torch.tensor(weights, dtype=torch.float32), torch.tensor(norms, dtype=torch.float32), batch,
                     causal)
    assert device.rows == sum(lengths)
    np.testing.assert_allclose(device.stats.numpy(), stats, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(device.offsets.numpy(), offsets)
    np.testing.assert_allclose(device.sink_weight.numpy(), sinks.weight, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(device.sink_norm.numpy(), sinks.norm, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(device.sink_rows.numpy(), sinks.rows)
    assert sinks.rows[:, 1].sum() > 0 and sinks.weight.any() and sinks.norm.any()  # (the 17-128 bin is reached)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.mark.parametrize("family", ["gpt2", "bert"])
def test_the_cli_writes_heads_and_sinks_by_position(family: str, folders, data, tmp_path, capsys) -> None:
    from attnviz.core.columns import SINKS_BY_POSITION_CSV, described
    from tests.helpers import run_cli

    out = tmp_path / "out"
    extra = ["--documents"] if family == "gpt2" else []  # (an encoder-only folder: always documents)
    code, stdout, stderr = run_cli(capsys, "heads", "--checkpoint", str(folders[family]), "--data", str(data),
                                   "--out", str(out), "--format", "csv", "--batch-size", "32", *extra)
    assert code == 0, stderr
    assert "4 heads over 12 documents" in stdout
    heads = _rows(out / "heads.csv")
    assert len(heads) == 4 and all(r["importance"] == "n/a" for r in heads)
    sinks = _rows(out / SINKS_BY_POSITION_CSV)
    assert list(sinks[0]) == list(described(SINKS_BY_POSITION_CSV))
    first = [r for r in sinks if r["key"] == "first" and r["queries"] == "1-16"]
    assert len(first) == 4 and all(0 < float(r["weight_share"]) <= 1 and 0 < float(r["norm_share"]) <= 1
                                   for r in first)
    if family == "bert":
        assert {r["key"] for r in sinks} >= {"first", "[CLS]", "[SEP]"}
        cls = [r for r in sinks if r["key"] == "[CLS]"]
        assert [r["weight_share"] for r in cls] == [r["weight_share"] for r in sinks if r["key"] == "first"]
    assert (out / "sinks_first_weight.csv").exists() and (out / "sinks_first_norm.csv").exists()
    columns = (out / "COLUMNS.md").read_text(encoding="utf-8")
    assert "sinks_by_position.csv" in columns
    # heads.csv's section describes exactly the columns the file has (no `rare`, `diagonal`, … of decoding)
    section = columns.split("### heads.csv")[1].split("###")[0]
    described_there = [line.split("`")[1] for line in section.splitlines() if line.startswith("| `")]
    assert described_there == list(heads[0]) and "rare" not in described_there and "diagonal" not in described_there


def test_the_sums_of_apple_s_gpu_are_made_on_the_host() -> None:
    """mps has no float64: a batch's sums are made on the host there, where the maps are anywhere else."""
    from attnviz.core.heads.device_sums import summing_device

    assert summing_device(torch.device("mps")).type == "cpu"
    assert summing_device(torch.device("cpu")).type == "cpu" and summing_device(torch.device("cuda:1")).index == 1
