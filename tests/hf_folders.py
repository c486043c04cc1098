"""Tiny Hugging Face model folders, made here from a config and a tokenizer trained on a few lines and saved
with ``save_pretrained`` — what a user's fine-tuned folder looks like, without a download.

``make_folder(family, folder)`` builds one of ``FAMILIES``; the weights are random (seeded), so the
library's own ``generate`` is the only right answer a test can compare with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

LINES = ["the house is big .", "the houses are big .", "i am at home .", "he was there ."] * 20
TEXT = "the house is there ."
ENCODER_DECODER = ("marian", "bart", "mbart", "t5")
DECODER_ONLY = ("gpt2", "llama", "qwen2")
FAMILIES = ENCODER_DECODER + DECODER_ONLY


def _sentencepiece_tokenizer() -> Any:
    """A Metaspace (▁) BPE tokenizer with <pad> 0, </s> 1, <unk> 2 that ends every source with </s>."""
    import transformers
    from tokenizers import SentencePieceBPETokenizer
    from tokenizers.processors import TemplateProcessing

    trained = SentencePieceBPETokenizer()
    trained.train_from_iterator(LINES, vocab_size=60, special_tokens=["<pad>", "</s>", "<unk>"])
    trained._tokenizer.post_processor = TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    return transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, pad_token="<pad>",
                                                eos_token="</s>", unk_token="<unk>")


def _byte_level_tokenizer() -> Any:
    """A byte-level (Ġ) BPE tokenizer whose one special token <|endoftext|> (id 0) is <bos>, <eos> and <pad>."""
    import transformers
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(LINES, vocab_size=300, special_tokens=["<|endoftext|>"])
    return transformers.PreTrainedTokenizerFast(tokenizer_object=trained._tokenizer, eos_token="<|endoftext|>",
                                                bos_token="<|endoftext|>", pad_token="<|endoftext|>")


def _model(family: str, vocab_size: int, width: int, layers: int) -> Any:
    import transformers

    heads = 2 if width < 64 else 8
    if family in ENCODER_DECODER:
        sizes = dict(vocab_size=vocab_size, d_model=width, encoder_layers=layers, decoder_layers=layers,
                     encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=2 * width,
                     decoder_ffn_dim=2 * width, max_position_embeddings=128, pad_token_id=0, eos_token_id=1,
                     decoder_start_token_id=0, forced_eos_token_id=None)
        if family == "marian":
            model = transformers.MarianMTModel(transformers.MarianConfig(**sizes))
        elif family == "mbart":
            model = transformers.MBartForConditionalGeneration(transformers.MBartConfig(**sizes))
        elif family == "t5":  # a relative position bias instead of position vectors
            model = transformers.T5ForConditionalGeneration(transformers.T5Config(
                vocab_size=vocab_size, d_model=width, d_kv=width // heads, d_ff=2 * width, num_layers=layers,
                num_heads=heads, relative_attention_num_buckets=8, pad_token_id=0, eos_token_id=1,
                decoder_start_token_id=0))
        else:
            model = transformers.BartForConditionalGeneration(
                transformers.BartConfig(**sizes, bos_token_id=0, forced_bos_token_id=None))
        model.generation_config.bad_words_ids = [[0]]  # as opus-mt's: <pad> is never an output
        model.generation_config.forced_eos_token_id = None
        return model
    if family == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(
            vocab_size=vocab_size, n_embd=width, n_layer=layers, n_head=heads, n_positions=256, bos_token_id=0,
            eos_token_id=0))
    config_class, model_class = {"llama": (transformers.LlamaConfig, transformers.LlamaForCausalLM),
                                 "qwen2": (transformers.Qwen2Config, transformers.Qwen2ForCausalLM)}[family]
    return model_class(config_class(  # grouped-query attention: twice as many query heads as key/value heads
        vocab_size=vocab_size, hidden_size=width, num_hidden_layers=layers, num_attention_heads=2 * heads,
        num_key_value_heads=heads, intermediate_size=2 * width, max_position_embeddings=256, bos_token_id=0,
        eos_token_id=0, pad_token_id=0))


def make_folder(family: str, folder: Path, seed: int = 0, width: int = 16, layers: int = 2) -> Path:
    """A ``save_pretrained`` folder of ``family`` (one of FAMILIES) with random weights: config.json,
    generation_config.json, model.safetensors, tokenizer.json and tokenizer_config.json."""
    tokenizer = _sentencepiece_tokenizer() if family in ENCODER_DECODER else _byte_level_tokenizer()
    torch.manual_seed(seed)
    model = _model(family, len(tokenizer), width, layers)
    model.generation_config.max_length = 64
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def make_opus_mt_folder(folder: Path, seed: int = 0) -> Path:
    """A Marian folder laid out as the hub's opus-mt ones are: no tokenizer.json, but ``source.spm`` and
    ``target.spm`` (SentencePiece models) with a shared ``vocab.json``, read by ``MarianTokenizer``."""
    import io
    import json

    import sentencepiece
    import transformers

    folder.mkdir(parents=True)
    trained = io.BytesIO()
    sentencepiece.SentencePieceTrainer.train(
        sentence_iterator=iter(LINES), model_writer=trained, vocab_size=27, hard_vocab_limit=False,
        model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, minloglevel=2)
    for name in ("source.spm", "target.spm"):
        (folder / name).write_bytes(trained.getvalue())
    pieces = sentencepiece.SentencePieceProcessor(model_proto=trained.getvalue())
    (folder / "vocab.json").write_text(json.dumps({pieces.id_to_piece(i): i for i in range(pieces.get_piece_size())}))
    tokenizer = transformers.MarianTokenizer(source_spm=str(folder / "source.spm"),
                                             target_spm=str(folder / "target.spm"), vocab=str(folder / "vocab.json"))
    torch.manual_seed(seed)
    model = _model("marian", len(tokenizer), 16, 2)
    model.generation_config.max_length = 64
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def make_long_marian_folder(folder: Path, positions: int = 1024, seed: int = 5) -> Path:
    """A Marian folder (2 + 2 layers, 2 heads, width 16) with ``positions`` positions, source and target: a source
    beyond the decoding cap (512) has its maps computed on demand (core/decoding/long_prompt.py)."""
    import transformers

    tokenizer = _sentencepiece_tokenizer()
    torch.manual_seed(seed)
    transformers.MarianMTModel(transformers.MarianConfig(
        vocab_size=len(tokenizer), d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=positions,
        pad_token_id=0, eos_token_id=1, decoder_start_token_id=0, forced_eos_token_id=None)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def make_long_llama_folder(folder: Path, positions: int = 1024, heads: int = 16, layers: int = 2, width: int = 32,
                           head_dim: int | None = None, new_tokens: int | None = 2, seed: int = 7) -> Path:
    """A Llama folder with ``positions`` positions (1,024: prompts cut to 448 tokens), ``heads`` query heads over a
    quarter as many key/value heads, ``layers`` layers of width ``width`` (``head_dim``: each head's width, the
    config's own; default width / heads) and a generation config that writes ``new_tokens`` tokens at most: many
    maps per row from a model of a few hundred kB (a long prompt's memory shows, its decoding takes seconds)."""
    import transformers

    tokenizer = _byte_level_tokenizer()
    torch.manual_seed(seed)
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=width, num_hidden_layers=layers, num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 4), intermediate_size=2 * width, max_position_embeddings=positions,
        head_dim=head_dim or width // heads, bos_token_id=0, eos_token_id=0, pad_token_id=0))
    if new_tokens is not None:
        model.generation_config.max_new_tokens = new_tokens
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
