"""Maps on demand for encoder-only and encoder–decoder Hugging Face folders (issue 49 §1): a BERT folder's
self-attention in both directions, and a Marian folder's encoder self-attention, decoder self-attention (causal, the
target teacher-forced) and cross-attention (the decoder's queries over the encoder's keys), each computed from the
queries and keys one forward pass kept, equal the library's own eager ``output_attentions`` (``attentions``,
``encoder_attentions``, ``decoder_attentions``, ``cross_attentions``) to 1e-5, padded batch rows included;
``attnviz export --prompt-map`` writes one map of a text beyond the decoding cap for both, and refuses in one line
what does not go together or would take too much memory."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.core.hf.load import load_hf_folder  # noqa: E402
from tests.helpers import run_cli  # noqa: E402

POSITIONS = 1024  # the folders' positions: beyond the decoding cap (512) as BERT-base's 512 are beyond 448
TEXT = " ".join(["the house is big . i am at home . he was there ."] * 40)
TARGET = " ".join(["i am at home . the house is big ."] * 12)


@pytest.fixture(scope="module")
def long_bert(tmp_path_factory):
    from tests.hf_encoder_folders import make_long_bert_folder

    return make_long_bert_folder(tmp_path_factory.mktemp("long-bert") / "bert", POSITIONS)


@pytest.fixture(scope="module")
def long_marian(tmp_path_factory):
    from tests.hf_folders import make_long_marian_folder

    return make_long_marian_folder(tmp_path_factory.mktemp("long-marian") / "marian", POSITIONS)


def _batch(vocab_size: int, lengths: list[int], seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(B, S) right-padded random ids (3 up: no special id) and their lengths (B,)."""
    ids = torch.randint(3, vocab_size, (len(lengths), max(lengths)), generator=torch.Generator().manual_seed(seed))
    for row, length in enumerate(lengths):
        ids[row, length:] = 0
    return ids, torch.tensor(lengths)


def _mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    return (torch.arange(width)[None, :] < lengths[:, None]).long()


def test_every_bert_map_is_the_librarys_eager_output_attentions(long_bert):
    encoder = load_hf_folder(long_bert).model
    ids, lengths = _batch(encoder.hf.config.vocab_size, [41, 30], seed=1)
    types = torch.zeros_like(ids)
    types[:, 20:] = 1  # (a pair: the second sentence's segment)
    store = encoder.query_keys(ids, lengths, types)
    eager = transformers.BertForMaskedLM.from_pretrained(long_bert, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = eager(input_ids=ids, attention_mask=_mask(lengths, ids.shape[1]), token_type_ids=types,
                           output_attentions=True).attentions  # L × (B, H, S, S)
    assert store.num_layers == len(attentions) == 2 and store.heads == 2 and store.rows == 2
    for layer, reference in enumerate(attentions):
        for head in range(2):
            for row in (0, 1):
                real = int(lengths[row])
                got = store.map(layer, head, row=row, tile_rows=16)  # (3 tiles, the last a part one)
                np.testing.assert_allclose(got[:real], reference[row, head, :real].numpy(), atol=1e-5)
                np.testing.assert_array_equal(got[:real, real:], 0.0)  # padding keys are never read
                assert store.hidden(layer, row)[:, real:].all() and not store.hidden(layer, row)[:, :real].any()


def test_every_marian_map_of_the_three_kinds_is_the_librarys_eager_attention(long_marian):
    model = load_hf_folder(long_marian).model
    src, lengths = _batch(model.hf.config.vocab_size, [37, 25], seed=2)
    tgt, _ = _batch(model.hf.config.vocab_size, [19, 19], seed=3)
    tgt[:, 0] = model.start_id
    stores = model.query_keys(src, lengths, tgt)
    eager = transformers.MarianMTModel.from_pretrained(long_marian, attn_implementation="eager").eval()
    with torch.no_grad():
        out = eager(input_ids=src, attention_mask=_mask(lengths, src.shape[1]), decoder_input_ids=tgt,
                    output_attentions=True)
    references = {AttentionKind.ENCODER_SELF: out.encoder_attentions, AttentionKind.DECODER_SELF:
                  out.decoder_attentions, AttentionKind.CROSS: out.cross_attentions}
    shapes = {AttentionKind.ENCODER_SELF: (37, 37), AttentionKind.DECODER_SELF: (19, 19), AttentionKind.CROSS: (19, 37)}
    for kind, attentions in references.items():
        store = stores[kind]
        assert store.num_layers == 2 and store.heads == 2
        for layer, reference in enumerate(attentions):
            for head in range(2):
                for row in (0, 1):
                    got = store.map(layer, head, row=row, tile_rows=8)
                    assert got.shape == shapes[kind]
                    real = int(lengths[row]) if kind is AttentionKind.ENCODER_SELF else got.shape[0]  # (real queries)
                    np.testing.assert_allclose(got[:real], reference[row, head, :real].numpy(), atol=1e-5)
                    if kind is not AttentionKind.DECODER_SELF:  # the source's padding is never read
                        np.testing.assert_array_equal(got[:real, int(lengths[row]):], 0.0)
    decoder_hidden = stores[AttentionKind.DECODER_SELF].hidden(0)
    assert decoder_hidden[0, 1] and not decoder_hidden[1, 0]  # (causal)
    encoder_only = model.query_keys(src, lengths)  # without a target: the encoder's pass alone
    assert list(encoder_only) == [AttentionKind.ENCODER_SELF]
    np.testing.assert_array_equal(encoder_only[AttentionKind.ENCODER_SELF].map(1, 1),
                                  stores[AttentionKind.ENCODER_SELF].map(1, 1))


def test_the_bounds_count_what_the_stores_hold(long_bert, long_marian):
    encoder = load_hf_folder(long_bert).model
    ids, lengths = _batch(encoder.hf.config.vocab_size, [50, 40], seed=4)  # (a padded row: the mask is kept)
    assert encoder.query_keys(ids, lengths).nbytes == 2 * encoder.query_key_bytes(50)  # (two rows)
    model = load_hf_folder(long_marian).model
    src, lengths = _batch(model.hf.config.vocab_size, [30, 20], seed=5)
    tgt, _ = _batch(model.hf.config.vocab_size, [9, 9], seed=6)
    stores = model.query_keys(src, lengths, tgt)
    assert sum(store.nbytes for store in stores.values()) == 2 * model.query_key_bytes(30, 9)


def test_export_prompt_map_writes_one_bert_map_beyond_the_cap(long_bert, tmp_path, capsys):
    code, out, err = run_cli(capsys, "export", "--checkpoint", str(long_bert), "--text", TEXT, "--prompt-map",
                             "--layer", "2", "--head", "2", "--format", "npy", "--out", str(tmp_path / "out"))
    assert code == 0 and "wrote 2 files" in out, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["attnviz-export.json", "enc-self_layer2_head2.npy"]
    values = np.load(tmp_path / "out" / "enc-self_layer2_head2.npy")
    tokenizer = transformers.AutoTokenizer.from_pretrained(long_bert)
    ids = tokenizer(TEXT)["input_ids"]
    assert values.shape == (len(ids), len(ids)) and len(ids) > load_hf_folder(long_bert).config.max_src_len == 512
    eager = transformers.BertForMaskedLM.from_pretrained(long_bert, attn_implementation="eager").eval()
    with torch.no_grad():
        want = eager(input_ids=torch.tensor([ids]), output_attentions=True).attentions[1][0, 1].numpy()
    np.testing.assert_allclose(values, want, atol=1e-5)


@pytest.mark.parametrize("kind", ["enc-self", "dec-self", "cross"])
def test_export_prompt_map_writes_each_marian_kind_with_a_teacher_forced_target(long_marian, tmp_path, capsys,
                                                                                  kind):
    target = [] if kind == "enc-self" else ["--target", TARGET]
    code, out, err = run_cli(capsys, "export", "--checkpoint", str(long_marian), "--text", TEXT, "--prompt-map",
                             "--kind", kind, *target, "--layer", "2", "--head", "1", "--format", "npy",
                             "--out", str(tmp_path / "out"))
    assert code == 0 and "wrote 2 files" in out, err
    values = np.load(tmp_path / "out" / f"{kind}_layer2_head1.npy")
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text())
    tokenizer = transformers.AutoTokenizer.from_pretrained(long_marian)
    src = tokenizer(TEXT)["input_ids"]
    tgt = [0, *tokenizer(text_target=TARGET, add_special_tokens=False)["input_ids"]]  # (the start token, the target)
    assert len(src) > load_hf_folder(long_marian).config.max_src_len == 512
    assert len(sidecar["source_tokens"]) == len(src)
    eager = transformers.MarianMTModel.from_pretrained(long_marian, attn_implementation="eager").eval()
    with torch.no_grad():
        out = eager(input_ids=torch.tensor([src]), decoder_input_ids=torch.tensor([tgt]), output_attentions=True)
    want = {"enc-self": out.encoder_attentions, "dec-self": out.decoder_attentions,
            "cross": out.cross_attentions}[kind][1][0, 0].numpy()
    np.testing.assert_allclose(values, want, atol=1e-5)
    if kind != "enc-self":
        assert sidecar["target"] == TARGET and len(sidecar["target_tokens"]) == len(tgt)


@pytest.mark.parametrize("folder, args, message", [
    ("marian", ["--kind", "cross"], "--kind cross reads a target: give the translation with --target"),
    ("marian", ["--target", "the house"], "--target is read by the decoder: add --kind dec-self or --kind cross"),
    ("marian", ["--kind", "dec-self", "--target", "the house", "--layer", "3"], "--layer 3: this model has 2"),
    ("marian", ["--kind", "cross", "--target", "the house " * 600], "the target is"),
    ("bert", ["--kind", "cross"], "--kind is for an encoder–decoder folder's --prompt-map"),
    ("bert", ["--text", "the house " * 600], "this model reads at most 1024"),
])
def test_export_prompt_map_refuses_in_one_line(long_bert, long_marian, tmp_path, capsys, folder, args, message):
    checkpoint = long_bert if folder == "bert" else long_marian
    text = [] if "--text" in args else ["--text", "the house"]
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(checkpoint), *text, "--prompt-map", *args,
                           "--out", str(tmp_path / "out"))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()


def test_target_goes_with_prompt_map_and_enc_self_not_with_flipbook(long_marian, tmp_path, capsys):
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(long_marian), "--text", "the house", "--target",
                           "the house", "--out", str(tmp_path / "out"))
    assert code == 2 and "add --prompt-map" in err
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(long_marian), "--text", "the house", "--flipbook",
                           "--kind", "enc-self", "--out", str(tmp_path / "out"))
    assert code == 2 and "--flipbook shows cross or dec-self" in err


def test_t5_has_no_maps_on_demand(tmp_path, capsys):
    from tests.hf_folders import make_folder

    folder = make_folder("t5", tmp_path / "t5")
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(folder), "--text", "the house", "--prompt-map",
                           "--out", str(tmp_path / "out"))
    assert code == 2 and "relative position bias" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("folder", ["bert", "marian"])
def test_the_query_key_bound_refuses_before_the_forward_pass(long_bert, long_marian, monkeypatch, tmp_path, capsys,
                                                             folder):
    from attnviz.core import limits

    monkeypatch.setattr(limits, "MAX_QUERY_KEY_BYTES", 1000)
    checkpoint = long_bert if folder == "bert" else long_marian
    passes = []
    monkeypatch.setattr(type(load_hf_folder(checkpoint).model), "query_keys", lambda *a, **k: passes.append(a))
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(checkpoint), "--text", "the house is big . " * 10,
                           "--prompt-map", "--out", str(tmp_path / "out"))
    assert code == 2 and "would take" in err and "give a shorter prompt" in err and not passes


@pytest.mark.parametrize("family", ["distilbert", "roberta"])
def test_distilbert_and_roberta_maps_are_the_librarys_too(tmp_path, family):
    from tests.hf_encoder_folders import make_encoder_folder

    folder = make_encoder_folder(family, tmp_path / family, seed=6)
    loaded = load_hf_folder(folder)
    encoder = loaded.model
    assert encoder.prompt_positions == 64  # (RoBERTa's 66 rows: its positions start after the padding id)
    ids, lengths = _batch(encoder.hf.config.vocab_size, [30, 22], seed=7)
    ids[ids == encoder.hf.config.pad_token_id] = 5  # (RoBERTa counts positions past its padding id: none inside)
    for row, length in enumerate(lengths.tolist()):
        ids[row, length:] = encoder.hf.config.pad_token_id
    store = encoder.query_keys(ids, lengths)
    eager = transformers.AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        attentions = eager(input_ids=ids, attention_mask=_mask(lengths, ids.shape[1]),
                           output_attentions=True).attentions
    for layer, reference in enumerate(attentions):
        for head in range(store.heads):
            for row in (0, 1):
                real = int(lengths[row])
                np.testing.assert_allclose(store.map(layer, head, row=row)[:real], reference[row, head, :real].numpy(),
                                           atol=1e-5)


def test_an_encoder_only_pairs_map_on_demand_keeps_the_divider_between_its_sentences():
    from attnviz.core.layout import layout_named
    from attnviz.core.results import EncodedSource, OnDemandMaps

    layout = layout_named("encoder-only")
    values, hidden = np.full((5, 5), 0.2, np.float32), np.zeros((5, 5), bool)
    source = EncodedSource("a [SEP] b", ("[CLS]", "a", "[SEP]", "b", "[SEP]"), (), None, None, None, np.ones(5, bool),
                           layout=layout, segments=np.array([0, 0, 0, 1, 1]),
                           on_demand=OnDemandMaps(2, 2, 1, 0, False, values, hidden))
    matrix = layout.matrix(AttentionKind.ENCODER_SELF, 1, 0, source, None)
    assert matrix.divider == 3 and matrix.values is values and layout.extent(AttentionKind.ENCODER_SELF, source,
                                                                             None) == (2, 2)
    with pytest.raises(ValueError, match="Not at this length"):
        layout.stack(AttentionKind.ENCODER_SELF, source, None)


def test_positions_beyond_the_bound_read_at_most_max_prompt_map_tokens(tmp_path, capsys):
    """A config that claims 10,000 positions: a sentence is read up to MAX_PROMPT_MAP_TOKENS (8,192), a longer one
    refused in one line before any forward pass."""
    from attnviz.core.decoding.long_prompt import longest_prompt
    from attnviz.core.limits import MAX_PROMPT_MAP_TOKENS
    from tests.hf_encoder_folders import make_long_bert_folder

    folder = make_long_bert_folder(tmp_path / "bert", positions=10_000)
    assert longest_prompt(load_hf_folder(folder)) == MAX_PROMPT_MAP_TOKENS == 8192
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(folder), "--text", "the house " * 6000,
                           "--prompt-map", "--out", str(tmp_path / "out"))
    assert code == 2 and "this model reads at most 8192" in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out").exists()
