"""Hugging Face encoder-only folders (BERT, DistilBERT, RoBERTa): their attention is the library's own, a step fills
a mask with the words transformers' fill-mask pipeline ranks first, a pair is the tokenizer's own pair encoding,
``attnviz fill-mask`` and the window take them, and bad input or a folder that cannot fill masks says so in one
sentence."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch
from PySide6 import QtCore

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from attnviz.core.hf.folder import ARCHITECTURES, HFFolderError, inspect_folder  # noqa: E402
from tests.helpers import raised, run_cli  # noqa: E402
from tests.hf_encoder_folders import ENCODER_ONLY, MASKED, POSITIONS, make_encoder_folder  # noqa: E402

ENC = AttentionKind.ENCODER_SELF
SENTENCE = "the house is {mask} ."
FIRST, SECOND = "the house is {mask} .", "he was there ."


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf-encoder")
    return {family: make_encoder_folder(family, root / family, seed=3) for family in ENCODER_ONLY}


@pytest.fixture(scope="module")
def loaded(folders):
    return {family: load_checkpoint(folder) for family, folder in folders.items()}


def _filling(loaded_model):
    return loaded_model.model_kind.stepping_cls(loaded_model, loaded_model.device)


def _library(folder):
    """transformers' own masked-language model and tokenizer of ``folder`` (eager attention: its weights)."""
    model = transformers.AutoModelForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    return model, transformers.AutoTokenizer.from_pretrained(folder)


def _attentions(model, encoding) -> np.ndarray:
    """output_attentions of one encoding, (L, H, S, S)."""
    inputs = {key: torch.tensor([value]) for key, value in encoding.items()}
    with torch.no_grad():
        out = model(**inputs, output_attentions=True)
    return torch.stack([a[0] for a in out.attentions]).numpy()


@pytest.mark.parametrize("family", ENCODER_ONLY)
def test_every_layer_and_head_is_the_librarys_own_attention(family, folders, loaded):
    assert loaded[family].kind == "hf-encoder" and loaded[family].model.architecture is ARCHITECTURES[family]
    model, tokenizer = _library(folders[family])
    filling = _filling(loaded[family])
    text = f"{SENTENCE.format(mask=MASKED[family])} the houses are {MASKED[family]} ."
    source = filling.encode(text)
    expected = _attentions(model, tokenizer(text))
    assert source.encoder_weights.shape == expected.shape == (2, 2, len(source.tokens), len(source.tokens))
    np.testing.assert_allclose(source.encoder_weights, expected, atol=1e-5)
    scores = torch.from_numpy(source.encoder_scores)  # (what the softmax read)
    np.testing.assert_allclose(torch.softmax(scores, -1).numpy(), source.encoder_weights, atol=1e-6)
    step = filling.step()  # the first mask filled: the second step reads the sentence with it
    np.testing.assert_allclose(step.self_weights, expected, atol=1e-5)
    filled = list(source.ids)
    filled[step.focus] = loaded[family].src_vocab.ids([step.token])[0]
    second = filling.step()
    inputs = {key: value for key, value in tokenizer(text).items()}
    np.testing.assert_allclose(second.self_weights, _attentions(model, {**inputs, "input_ids": filled}), atol=1e-5)
    assert second.finished and filling.finished and second.query_tokens[step.focus] == step.token


@pytest.mark.parametrize("family", ENCODER_ONLY)
def test_the_top_five_are_the_fill_mask_pipelines(family, folders, loaded):
    folder = str(folders[family])
    text = SENTENCE.format(mask=MASKED[family])
    pipeline = transformers.pipeline("fill-mask", model=folder, tokenizer=folder)
    special = set(pipeline.tokenizer.all_special_ids)
    ranked = [r for r in pipeline(text, top_k=5 + len(special)) if r["token"] not in special][:5]  # (a mask is
    # filled with a word: the tokenizer's special tokens are left out, the others keep the model's probabilities)
    filling = _filling(loaded[family])
    filling.encode(text.replace(MASKED[family], "[MASK]"))  # ([MASK] is read as the tokenizer's own mask token)
    step = filling.step()
    vocab = loaded[family].src_vocab
    assert vocab.ids(list(step.topk_tokens)) == [r["token"] for r in ranked]
    np.testing.assert_allclose(step.topk_probs, [r["score"] for r in ranked], atol=1e-5)
    assert step.token == step.topk_tokens[0] and step.query_tokens[step.focus] == filling.reader.mask_token


@pytest.mark.parametrize("family", ENCODER_ONLY)
def test_a_pair_is_the_tokenizers_own_pair_encoding(family, folders, loaded):
    model, tokenizer = _library(folders[family])
    first, second = FIRST.format(mask=MASKED[family]), SECOND
    expected = tokenizer(first, second)
    filling = _filling(loaded[family])
    for separator in ("[SEP]", tokenizer.sep_token):
        source = filling.encode(f"{first} {separator} {second}")
        assert source.ids == tuple(expected["input_ids"])
        start = expected.sequence_ids().index(1)  # the second sentence's first token
        assert source.tokens[start] == "he"
        assert loaded[family].layout.divider(ENC, source) == start
        if "token_type_ids" in expected:  # BERT: the token type ids as the tokenizer makes them
            assert family == "bert" and tuple(source.segments) == tuple(expected["token_type_ids"])
        else:
            assert tuple(source.segments) == tuple(int(i >= start) for i in range(len(source.ids)))
        np.testing.assert_allclose(source.encoder_weights, _attentions(model, expected), atol=1e-5)


def test_the_token_type_ids_reach_the_model(folders, loaded):
    model, tokenizer = _library(folders["bert"])
    encoding = tokenizer(FIRST.format(mask="[MASK]"), SECOND)
    source = _filling(loaded["bert"]).encode(f"{FIRST.format(mask='[MASK]')} [SEP] {SECOND}")
    untyped = _attentions(model, {**encoding, "token_type_ids": [0] * len(encoding["input_ids"])})
    assert not np.allclose(source.encoder_weights, untyped, atol=1e-4)  # (the second segment's table is used)


def test_bad_input_is_one_sentence(folders, loaded, tmp_path):
    filling = _filling(loaded["roberta"])
    filling.encode("the house is big .")  # no mask: the window shows its attention; a step says why it cannot
    assert filling.finished
    with pytest.raises(ValueError, match="There is no <mask> in the sentence"):
        filling.step()
    long = " ".join(["house"] * (POSITIONS + 5))
    with pytest.raises(ValueError, match=r"^The sentence is 7\d tokens long .*reads at most 64\.$"):
        filling.encode(f"{long} [MASK]")
    with pytest.raises(ValueError, match=r"^The two sentences are \d+ tokens long together .*at most 64\.$"):
        filling.encode(f"the [MASK] . [SEP] {' '.join(['house'] * (POSITIONS - 5))}")
    unmasked = load_checkpoint(make_encoder_folder("bert", tmp_path / "no-mask", mask=False))
    with pytest.raises(ValueError, match=r"^the tokenizer of no-mask has no mask token, so this model cannot be asked"):
        _filling(unmasked).encode("the house is [MASK] .")
    with pytest.raises(ValueError, match="the model cannot fill in 'nonsense'"):
        filling.encode("the house is [MASK] .")
        filling.step("nonsense")
    tokenizer = transformers.AutoTokenizer.from_pretrained(folders["bert"])  # (it makes token type ids)
    single = transformers.BertForMaskedLM(transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=POSITIONS, type_vocab_size=1))
    single.save_pretrained(tmp_path / "one-segment")
    tokenizer.save_pretrained(tmp_path / "one-segment")
    filling = _filling(load_checkpoint(tmp_path / "one-segment"))
    assert filling.encode("the house is [MASK] .").segments.tolist() == [0] * 7
    with pytest.raises(ValueError, match=r"^one-segment reads one sentence at a time .*: leave out \[SEP\]$"):
        filling.encode("the house is [MASK] . [SEP] he was there .")


@pytest.mark.parametrize("family", ENCODER_ONLY)
def test_a_bare_model_shows_its_attention_but_fills_no_mask(family, tmp_path):
    folder = make_encoder_folder(family, tmp_path / f"bare-{family}", head=False)
    bare = load_checkpoint(folder)
    assert bare.kind == "hf-encoder" and not bare.model.has_head
    filling = _filling(bare)
    text = SENTENCE.format(mask=MASKED[family])
    source = filling.encode(text)
    library = transformers.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    np.testing.assert_allclose(source.encoder_weights, _attentions(library, tokenizer(text)), atol=1e-5)
    with pytest.raises(ValueError, match=f"^bare-{family} holds the bare {ARCHITECTURES[family].bare} without a "
                                         "masked-language-model head: .*cannot fill a mask"):
        filling.step()


def test_fill_mask_prints_the_top_five_and_refuses_in_one_line(folders, loaded, tmp_path, capsys):
    folder = str(folders["bert"])
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", folder, "--text", "the house is [MASK] .")
    assert code == 0, err
    filling = _filling(loaded["bert"])
    filling.encode("the house is [MASK] .")
    assert out == "\t".join(filling.step().topk_tokens) + "\n"
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", folder, "--text", "the house is big .")
    assert code == 2 and not out and err.count("\n") == 1 and "no [MASK] to fill" in err
    unmasked = make_encoder_folder("distilbert", tmp_path / "no-mask", mask=False)
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(unmasked), "--text", "the house is [MASK] .")
    assert code == 2 and not out and err.count("\n") == 1 and "has no mask token" in err
    bare = make_encoder_folder("roberta", tmp_path / "bare", head=False)
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(bare), "--text", "the house is <mask> .")
    assert code == 2 and not out and err.count("\n") == 1 and "without a masked-language-model head" in err


def test_a_folder_of_another_head_or_an_impossible_padding_id_is_refused(folders, tmp_path):
    classifier = shutil.copytree(folders["bert"], tmp_path / "classifier")
    config = json.loads((classifier / "config.json").read_text())
    (classifier / "config.json").write_text(json.dumps({**config, "architectures": ["BertForSequenceClassification"]}))
    with pytest.raises(HFFolderError, match="architectures = \\['BertForSequenceClassification'\\] is not a model "
                                            "attnviz opens; of model_type 'bert' it opens BertForMaskedLM, "
                                            "BertForPreTraining, BertModel"):
        inspect_folder(classifier)
    padded = shutil.copytree(folders["roberta"], tmp_path / "padded")
    config = json.loads((padded / "config.json").read_text())
    (padded / "config.json").write_text(json.dumps({**config, "pad_token_id": 1000}))
    with pytest.raises(CheckpointError, match="pad_token_id = 1000 is not a whole number from 0 to 63"):
        load_checkpoint(padded)


def test_a_pretraining_folder_opens_without_its_pooler_and_next_sentence_head(tmp_path, folders, loaded):
    """bert-base-uncased's weights hold the pooler and the next-sentence head beside the masked-word head: they are
    not the masked-language model's, and are left unused (any other unexpected weight is refused)."""
    torch.manual_seed(5)
    tokenizer = transformers.AutoTokenizer.from_pretrained(folders["bert"])
    config = transformers.AutoConfig.from_pretrained(folders["bert"])
    model = transformers.BertForPreTraining(config)
    folder = tmp_path / "pretraining"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    opened = load_checkpoint(folder)
    filling = _filling(opened)
    filling.encode("the house is [MASK] .")
    library = transformers.BertForMaskedLM.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        logits = library(**tokenizer("the house is [MASK] .", return_tensors="pt")).logits[0, 4]
    step = filling.step()
    np.testing.assert_allclose(step.topk_probs[0], filling.reader.proposable(torch.softmax(logits, -1).numpy()).max(),
                               atol=1e-6)


@pytest.mark.parametrize("family", ENCODER_ONLY)
def test_the_positional_panel_draws_the_learned_table(family, loaded):
    from attnviz.core.hf.positional import describe_positions

    hf = loaded[family].model.hf
    described = describe_positions(hf, ARCHITECTURES[family].name)
    table = hf.base_model.embeddings.position_embeddings.weight.detach().numpy()
    offset = 2 if family == "roberta" else 0  # (RoBERTa counts positions from its padding id + 1)
    assert described.kind == "learned" and np.array_equal(described.table, table[offset:])
    assert ("after the padding id" in described.note) == (family == "roberta")


def test_the_window_shows_self_attention_and_step_fills_the_mask(window, errors, qtbot, folders):
    window.load(folders["roberta"])
    state = window.session.state
    assert not errors, errors
    assert state.model.kind == "hf-encoder"
    assert window.statusBar().currentMessage().startswith("Loaded roberta: a Hugging Face RoBERTa model")
    window.set_sentence("the house is [MASK] . [SEP] he was there .")
    source = window.session.state.source
    attention = window.attention
    assert [attention.kind_box.itemText(i) for i in range(attention.kind_box.count())] == ["Self-attention"]
    attention.select_view(ENC, 1, 1)
    np.testing.assert_array_equal(attention.current.values, source.encoder_weights[1, 1])
    assert attention.current.prompt_rows == source.tokens.index("he")  # (the divider: the second sentence)
    assert window.step_button.isEnabled()
    qtbot.mouseClick(window.step_button, QtCore.Qt.MouseButton.LeftButton)
    state = window.session.state
    step = state.step
    assert step is not None and step.focus == source.tokens.index("<mask>")
    assert step.query_tokens[step.focus] == "<mask>" and step.output_tokens[step.focus] == step.token
    assert state.finished
    np.testing.assert_array_equal(attention.current.values, step.self_weights[1, 1])
    positional = raised(window, "positional")
    assert "learned table" in positional.note.text()
    from attnviz.gui.docks import PANELS

    shown = [entry.name for entry in PANELS if entry.applies(state.model)]  # every panel an encoder-only model has
    assert {"attention", "masks", "positional"} <= set(shown) and "beams" not in shown
    for name in shown:
        raised(window, name)
    assert not errors, errors


def test_a_folder_with_only_vocab_txt_reads_as_with_tokenizer_json(folders, loaded, tmp_path):
    """Older BERT folders carry WordPiece's vocab.txt and no tokenizer.json; its pieces read as words (##s: ·s)."""
    folder = shutil.copytree(folders["bert"], tmp_path / "vocab-txt")
    vocab = transformers.AutoTokenizer.from_pretrained(folder).get_vocab()
    (folder / "vocab.txt").write_text("".join(f"{token}\n" for token in sorted(vocab, key=vocab.get)))
    (folder / "tokenizer.json").unlink()
    text = "the houses are [MASK] ."
    reads = []
    for model in (load_checkpoint(folder), loaded["bert"]):
        filling = _filling(model)
        source = filling.encode(text)
        reads.append((source.ids, source.tokens, filling.step().topk_tokens))
    assert reads[0] == reads[1]
    pieces = loaded["bert"].src_vocab.tokens
    assert not any(token.startswith("##") for token in pieces) and any(token.startswith("·") for token in pieces)


@pytest.mark.parametrize("family", ["bert", "distilbert", "roberta"])
def test_the_computation_of_every_query_equals_the_folders_own_attention(family, tmp_path):
    """The Computation view of a Hugging Face encoder-only folder: q, k, v from the folder's own projections give
    every row of every head that the folder's attention gave (1e-5)."""
    from attnviz.core.decoding.query_computation import compute_query
    from attnviz.session.loading import load_model

    loaded, _, _, _ = load_model(make_encoder_folder(family, tmp_path / family), "cpu", False)
    session = loaded.model_kind.stepping_cls(loaded, loaded.device)
    source = session.encode("a b <mask> c [SEP] d a" if family == "roberta" else "a b [MASK] c [SEP] d a")
    segments = None if source.segments is None else list(source.segments)
    for layer, head, query in ((0, 0, 0), (1, 1, 3), (1, 0, len(source.tokens) - 1)):
        comp = compute_query(loaded, source.tokens, (), "enc-self", layer, head, query, source_ids=source.ids,
                             source_segments=segments)
        np.testing.assert_allclose(comp.model_weights, source.encoder_weights[layer, head, query], atol=1e-6)
        np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
