"""Maps on demand (core/attention/on_demand.py): a decoder-only Hugging Face folder's every layer × head map,
computed from the queries and keys one forward pass kept, equals the library's own ``output_attentions`` (eager),
for GPT-2 and a grouped-query Llama (4 query heads over 2 key/value heads), a left-padded batch row included; the
scores equal what attnviz's recording attention hands the views; the memory is what the store says."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.on_demand import LayerQueryKeys, QueryKeyStore  # noqa: E402
from attnviz.core.hf.generation import left_padded  # noqa: E402
from attnviz.core.hf.load import load_hf_folder  # noqa: E402
from tests.hf_folders import make_folder  # noqa: E402

LENGTHS = torch.tensor([37, 29])  # the second row is left-padded by 8


@pytest.fixture(scope="module", params=["gpt2", "llama"])
def folder(request, tmp_path_factory):
    return make_folder(request.param, tmp_path_factory.mktemp("on_demand") / request.param, seed=5)


def _prompt(vocab_size: int) -> torch.Tensor:
    generator = torch.Generator().manual_seed(1)
    src = torch.randint(1, vocab_size, (2, int(LENGTHS.max())), generator=generator)  # (B, S) right-padded
    src[1, int(LENGTHS[1]):] = 0
    return src


def test_every_map_is_the_librarys_eager_output_attentions(folder):
    causal = load_hf_folder(folder).model
    src = _prompt(causal.hf.config.vocab_size)
    store = causal.query_keys(src, LENGTHS)

    eager = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    ids, mask = left_padded(src, LENGTHS, causal.pad_id)
    with torch.no_grad():
        attentions = eager(input_ids=ids, attention_mask=mask, position_ids=(mask.cumsum(-1) - 1).clamp(min=0),
                           output_attentions=True).attentions  # L × (B, H, S, S)
    config = causal.hf.config
    heads = getattr(config, "num_attention_heads", None) or config.n_head
    assert store.num_layers == len(attentions) == 2 and store.heads == heads and store.rows == 2
    if folder.name == "llama":
        assert store.layers[0].keys.shape[1] == heads // 2 and store.kv_head(0, 3) == 1
    real = int(LENGTHS.max() - LENGTHS[1])  # the padded row's first real position
    for layer, reference in enumerate(attentions):
        for head in range(heads):
            for row, first in ((0, 0), (1, real)):
                got = store.map(layer, head, row=row, tile_rows=16)  # (3 tiles, the last a part one)
                want = reference[row, head].numpy()
                np.testing.assert_allclose(got[first:], want[first:], atol=1e-5)  # (real queries: every key)
                np.testing.assert_allclose(got[first:, :first], 0.0, atol=0)  # padding is never read


def test_the_scores_are_what_the_recording_attention_hands_the_views(folder):
    causal = load_hf_folder(folder).model
    src = _prompt(causal.hf.config.vocab_size)
    store = causal.query_keys(src, LENGTHS)
    with torch.no_grad():
        _, recorded = causal.start(src, LENGTHS, need_attention=True)  # (B, L, H, S, S)
    for layer in range(store.num_layers):
        for head in range(store.heads):
            for row in (0, 1):
                got = store.map(layer, head, row=row, scores=True, tile_rows=16)
                want = recorded.scores[row, layer, head].numpy()
                assert np.array_equal(np.isinf(got), np.isinf(want))  # the same cells hidden (causal, padding)
                finite = np.isfinite(want)
                np.testing.assert_allclose(got[finite], want[finite], atol=1e-5)
                np.testing.assert_allclose(store.map(layer, head, row=row), recorded.weights[row, layer, head].numpy(),
                                           atol=1e-5)


def test_the_store_holds_queries_keys_and_one_shared_mask(folder):
    causal = load_hf_folder(folder).model
    src = _prompt(causal.hf.config.vocab_size)
    store = causal.query_keys(src, LENGTHS)
    first = store.layers[0]
    assert all(layer.hidden is first.hidden for layer in store.layers)  # (every layer read the same mask)
    rows, width = 2, int(LENGTHS.max())
    queries_and_keys = sum(4 * rows * width * (r.queries.shape[1] + r.keys.shape[1]) * r.queries.shape[-1]
                           for r in store.layers)
    assert store.nbytes == queries_and_keys + rows * width * width  # (float32; the mask one byte a cell)


def test_a_map_is_the_closed_formula_without_a_mask():
    generator = torch.Generator().manual_seed(0)
    queries, keys = torch.randn(1, 4, 10, 8, generator=generator), torch.randn(1, 2, 10, 8, generator=generator)
    store = QueryKeyStore([LayerQueryKeys(queries, keys, 0.5, None)])
    want = torch.softmax(queries[0, 3] @ keys[0, 1].T * 0.5, dim=-1).numpy()  # head 3 reads key head 1
    np.testing.assert_allclose(store.map(0, 3, tile_rows=3), want, atol=1e-6)
    with pytest.raises(ValueError):
        LayerQueryKeys(queries, torch.randn(1, 3, 10, 8), 0.5, None)
    with pytest.raises(IndexError):
        store.map(0, 4)


@pytest.fixture(scope="module")
def long_llama(tmp_path_factory):
    """A grouped-query Llama folder with 1,024 positions (the decoding's prompt cap stays far below)."""
    from tests.hf_folders import _byte_level_tokenizer

    folder = tmp_path_factory.mktemp("long") / "llama"
    tokenizer = _byte_level_tokenizer()
    torch.manual_seed(2)
    transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
        intermediate_size=32, max_position_embeddings=1024, bos_token_id=0, eos_token_id=0,
        pad_token_id=0)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def test_export_prompt_map_writes_one_map_of_a_prompt_longer_than_the_decoding_cap(long_llama, tmp_path, capsys):
    from tests.helpers import run_cli

    text = " ".join(["the house is big . i am at home . he was there ."] * 60)
    code, out, err = run_cli(capsys, "export", "--checkpoint", str(long_llama), "--text", text, "--prompt-map",
                             "--layer", "2", "--head", "4", "--format", "npy", "--out", str(tmp_path / "out"))
    assert code == 0 and "wrote 2 files" in out, err
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    # one map, no other, named as heads.csv and --mask-heads name a decoder-only model's heads, and so is its kind
    assert written == ["attnviz-export.json", "dec-self_layer2_head4.npy"]
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text(encoding="utf-8"))
    assert (sidecar["attention"], sidecar["attention_slug"]) == ("self-attention (prompt)", "dec-self")
    values = np.load(tmp_path / "out" / "dec-self_layer2_head4.npy")

    loaded = load_hf_folder(long_llama)
    ids = loaded.src_vocab.split(text, 1024).ids
    assert values.shape == (len(ids), len(ids)) and len(ids) > 2 * loaded.config.max_src_len  # (the cap: 448 here)
    eager = transformers.AutoModelForCausalLM.from_pretrained(long_llama, attn_implementation="eager").eval()
    with torch.no_grad():
        want = eager(input_ids=torch.tensor([ids]), output_attentions=True).attentions[1][0, 3].numpy()
    np.testing.assert_allclose(values, want, atol=1e-5)


@pytest.mark.parametrize("args, message", [
    (["--step", "1"], "--step does not go with --prompt-map"),
    (["--layer", "3"], "--layer 3: this model has 2"),
    (["--head", "5"], "--head 5: this model has 4"),
])
def test_export_prompt_map_refuses_in_one_line(long_llama, tmp_path, capsys, args, message):
    from tests.helpers import run_cli

    code, _, err = run_cli(capsys, "export", "--checkpoint", str(long_llama), "--text", "the house", "--prompt-map",
                           *args, "--out", str(tmp_path / "out"))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_export_prompt_map_is_for_models_whose_maps_come_on_demand(tmp_path, capsys):
    from tests.helpers import run_cli

    code, _, err = run_cli(capsys, "export", "--text", "the house", "--prompt-map", "--out",
                           str(tmp_path / "out"))  # (the shipped Transformer)
    assert code == 2 and ("--prompt-map computes the maps of a Hugging Face decoder-only, encoder-only or "
                          "encoder–decoder model on demand") in err


def test_the_query_key_bound_refuses_before_the_forward_pass(long_llama, monkeypatch, tmp_path, capsys):
    from attnviz.core import limits
    from tests.helpers import run_cli

    monkeypatch.setattr(limits, "MAX_QUERY_KEY_BYTES", 1000)
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(long_llama), "--text", "the house is big . " * 10,
                           "--prompt-map", "--out", str(tmp_path / "out"))
    assert code == 2 and "would take" in err and "give a shorter prompt" in err


def test_a_storing_pass_in_tiles_of_query_rows_keeps_every_map(folder, monkeypatch):
    """The storing pass computes each layer's output a tile of query rows at a time (bounded memory whatever the
    length): with tiles of 3 rows the later layers' queries and keys, and so their maps, are the same as in one."""
    from attnviz.core.hf import attention

    causal = load_hf_folder(folder).model
    src = _prompt(causal.hf.config.vocab_size)
    whole = causal.query_keys(src, LENGTHS)
    heads = whole.heads
    monkeypatch.setattr(attention, "STORED_TILE_VALUES", 3 * src.shape[0] * heads * src.shape[1])
    tiled = causal.query_keys(src, LENGTHS)
    for layer in range(whole.num_layers):
        for head in range(heads):
            np.testing.assert_allclose(tiled.map(layer, head, row=1), whole.map(layer, head, row=1), atol=1e-6)


def test_export_prompt_map_refuses_to_replace_files_before_the_forward_pass(long_llama, tmp_path, capsys,
                                                                             monkeypatch):
    from attnviz.core.decoding import long_prompt
    from tests.helpers import run_cli

    out = tmp_path / "out"
    out.mkdir()
    (out / "dec-self_layer1_head1.png").write_bytes(b"mine")

    def no_pass(*args, **kwargs):
        raise AssertionError("the forward pass ran before --out was checked")

    monkeypatch.setattr(long_prompt, "query_keys", no_pass)
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(long_llama), "--text", "the house is big .",
                           "--prompt-map", "--out", str(out))
    assert code == 2 and "would be replaced" in err and (out / "dec-self_layer1_head1.png").read_bytes() == b"mine"
