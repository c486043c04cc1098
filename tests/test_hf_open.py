"""A folder made by ``save_pretrained`` opens as a model: the loader, the app's stepping and ``attnviz translate``
take it, decode it through attnviz's loop and say what the library's own ``generate`` says (tiny models and
tokenizers made here; nothing is downloaded)."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

transformers = pytest.importorskip("transformers")
from tokenizers import SentencePieceBPETokenizer  # noqa: E402
from tokenizers.implementations import ByteLevelBPETokenizer  # noqa: E402
from tokenizers.processors import TemplateProcessing  # noqa: E402

from attnviz.core.checkpoints.checkpoint import load_checkpoint  # noqa: E402
from attnviz.core.decoding.stepping import DecodeSession  # noqa: E402
from tests.helpers import run_cli  # noqa: E402

LINES = ["the house is big .", "the houses are big .", "i am at home .", "he was there ."] * 20
TEXT = "the house is there ."


def marian_folder(folder: Path) -> Path:
    trained = SentencePieceBPETokenizer()
    trained.train_from_iterator(LINES, vocab_size=60, special_tokens=["<pad>", "</s>", "<unk>"])
    trained._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, pad_token="<pad>",
                                                     eos_token="</s>", unk_token="<unk>")
    torch.manual_seed(0)
    config = transformers.MarianConfig(vocab_size=len(tokenizer), d_model=16, encoder_layers=2, decoder_layers=2,
                                       encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32,
                                       decoder_ffn_dim=32, max_position_embeddings=64, pad_token_id=0, eos_token_id=1,
                                       decoder_start_token_id=0, forced_eos_token_id=None)
    model = transformers.MarianMTModel(config)
    model.generation_config.bad_words_ids = [[0]]
    model.generation_config.max_length = 64
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def gpt2_folder(folder: Path) -> Path:
    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(LINES, vocab_size=300, special_tokens=["<|endoftext|>"])
    tokenizer = transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|endoftext|>",
                                                     bos_token="<|endoftext|>")
    torch.manual_seed(0)
    config = transformers.GPT2Config(vocab_size=len(tokenizer), n_embd=16, n_layer=2, n_head=2, n_positions=128,
                                     bos_token_id=0, eos_token_id=0)
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def library_answer(folder: Path, steps: int) -> tuple[list[int], str]:
    model = transformers.AutoModelForSeq2SeqLM if "marian" in folder.name else transformers.AutoModelForCausalLM
    model = model.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    inputs = tokenizer(TEXT, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=steps, num_beams=1, do_sample=False,
                             pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
    new = out[0, 1:] if "marian" in folder.name else out[0, inputs["input_ids"].shape[1]:]
    ids = new.tolist()
    return ids, tokenizer.decode(ids, skip_special_tokens=True).strip()


@pytest.mark.parametrize("make", [marian_folder, gpt2_folder], ids=["marian", "gpt2"])
def test_a_saved_folder_steps_and_translates_as_generate_does(tmp_path, capsys, make):
    folder = make(tmp_path / make.__name__.removesuffix("_folder"))
    loaded = load_checkpoint(folder)
    assert loaded.kind == ("hf-seq2seq" if "marian" in folder.name else "hf-causal")
    session = DecodeSession(loaded, "cpu")
    source = session.encode(TEXT)
    assert source.tokens[:3] == ("the", "house", "is")  # words, not ▁the / Ġhouse
    steps = session.run()
    vocab = loaded.tgt_vocab
    ended = steps[-1].token == vocab.tokens[vocab.eos_id]
    ours = vocab.ids(steps[-1].output_tokens) + ([vocab.eos_id] if ended else [])
    first = source.tokens[-1] if loaded.kind == "hf-causal" else vocab.tokens[vocab.bos_id]
    assert steps[-1].query_tokens[0] == first  # (GPT-2: the prompt's last token predicts the first new one)
    ids, text = library_answer(folder, len(steps))
    ids = ids[: ids.index(loaded.tgt_vocab.eos_id) + 1] if loaded.tgt_vocab.eos_id in ids else ids
    assert ours == ids
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", TEXT, "--beam", "1")
    assert code == 0, err
    assert out == text + "\n"


def test_an_opus_mt_folder_with_sentencepiece_models_translates_as_generate_does(tmp_path, capsys):
    """The hub's opus-mt folders carry source.spm / target.spm and vocab.json, no tokenizer.json."""
    from tests.hf_folders import make_opus_mt_folder

    folder = make_opus_mt_folder(tmp_path / "opus-mt-xx-yy")
    assert not (folder / "tokenizer.json").exists()
    loaded = load_checkpoint(folder)
    assert type(loaded.src_vocab.tokenizer).__name__ == "MarianTokenizer"
    session = DecodeSession(loaded, "cpu")
    assert session.encode(TEXT).tokens[:2] == ("the", "house")
    steps = session.run()
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    inputs = tokenizer(TEXT, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=64, num_beams=1, do_sample=False)
    library = out[0, 1:].tolist()
    vocab = loaded.tgt_vocab
    ours = vocab.ids(steps[-1].output_tokens) + ([vocab.eos_id] if steps[-1].ended else [])
    assert ours == library[: len(ours)] and len(ours) == len([t for t in library if t != vocab.pad_id])
    code, out_text, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", TEXT, "--beam", "1")
    assert code == 0 and err == "", err
    assert out_text == tokenizer.decode(library, skip_special_tokens=True).strip() + "\n"


@pytest.mark.parametrize(("positions", "dim"), [(512, 512), (64, 16), (7, 5)])
def test_the_quick_marian_table_is_the_librarys_table(positions, dim):
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding as Embedding

    from attnviz.core.hf.load import marian_table

    library = getattr(Embedding, "_attnviz_library_create_weight", Embedding.create_weight)  # (before attnviz's)
    assert torch.equal(marian_table(positions, dim), library(Embedding(positions, dim)))


def test_eval_scores_a_folder_on_what_generate_says(tmp_path, capsys, monkeypatch):
    from attnviz.core.learning import bleu
    from attnviz.core.text import preprocess

    folder = gpt2_folder(tmp_path / "gpt2")
    model = transformers.AutoModelForCausalLM.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    pairs = {"the house is big .": "la maison est grande .", "i am at home .": "je suis chez moi ."}
    said = []
    for english in pairs:
        inputs = tokenizer(english, return_tensors="pt")
        with torch.no_grad():
            out = model.generate(**inputs, max_new_tokens=64, num_beams=1, do_sample=False, pad_token_id=0)
        said.append(preprocess(tokenizer.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)))
    data = tmp_path / "pairs.tsv"
    data.write_text("".join(f"{en}\t{fr}\n" for en, fr in pairs.items()), encoding="utf-8")
    scored = []
    monkeypatch.setattr(bleu, "corpus_bleu", lambda hyps, refs: scored.append((hyps, refs)) or 12.5)
    code, out, err = run_cli(capsys, "eval", "--checkpoint", str(folder), "--data", str(data), "--beam", "1")
    assert code == 0, err
    assert out == "BLEU 12.50 on 2 source sentences\n"
    assert scored == [(said, [[french] for french in pairs.values()])]  # generate's answers, as the references read


def test_a_small_decoder_only_model_shares_its_positions_between_prompt_and_answer(tmp_path):
    import json

    from tests.hf_folders import make_folder

    folder = make_folder("llama", tmp_path / "small-llama")
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "max_position_embeddings": 64}))
    loaded = load_checkpoint(folder)
    assert (loaded.config.max_src_len, loaded.config.max_tgt_len) == (32, 32)  # (not a 1-token prompt)
    source = DecodeSession(loaded, "cpu").encode(TEXT)
    assert source.truncated_from is None and source.tokens[:2] == ("the", "house")
