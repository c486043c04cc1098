"""Tiny Hugging Face encoder-only folders (BERT, DistilBERT, RoBERTa), made here from a config and a tokenizer
trained on a few lines and saved with ``save_pretrained``, as :mod:`tests.hf_folders` makes the others — no
download. The weights are random (seeded): the library's own ``output_attentions`` and fill-mask pipeline are the
right answers a test compares with.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from tests.hf_folders import LINES

ENCODER_ONLY = ("bert", "distilbert", "roberta")
POSITIONS = 64  # the tiny models' longest sequence, special tokens included
MASKED = {"bert": "[MASK]", "distilbert": "[MASK]", "roberta": "<mask>"}  # each tokenizer's own mask token


def word_piece_tokenizer(family: str, mask: bool = True) -> Any:
    """A lowercasing WordPiece tokenizer (BERT's kind): [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3 and, with ``mask``,
    [MASK] 4; DistilBERT's makes no token type ids."""
    import transformers
    from tokenizers import BertWordPieceTokenizer

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", *(["[MASK]"] if mask else [])]
    trained = BertWordPieceTokenizer(lowercase=True)
    trained.train_from_iterator(LINES, vocab_size=60, special_tokens=specials)
    if not mask:  # (a tokenizer that names no mask token at all)
        return transformers.PreTrainedTokenizerFast(
            tokenizer_object=trained._tokenizer, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
            sep_token="[SEP]", model_input_names=["input_ids", "token_type_ids", "attention_mask"])
    cls = transformers.DistilBertTokenizerFast if family == "distilbert" else transformers.BertTokenizerFast
    return cls(tokenizer_object=trained._tokenizer)


def byte_level_tokenizer() -> Any:
    """RoBERTa's kind: byte-level BPE with <s> 0, <pad> 1, </s> 2, <unk> 3 and <mask> 4 (which takes the space
    before it, as roberta-base's does)."""
    import transformers
    from tokenizers import AddedToken
    from tokenizers.implementations import ByteLevelBPETokenizer

    trained = ByteLevelBPETokenizer()
    trained.train_from_iterator(LINES, vocab_size=300, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    trained.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    return transformers.RobertaTokenizerFast(tokenizer_object=trained._tokenizer)


def encoder_model(family: str, vocab_size: int, head: bool = True, width: int = 16, layers: int = 2) -> Any:
    """A random model of ``family``: its *ForMaskedLM, or with ``head`` False the bare *Model."""
    import transformers

    if family == "distilbert":
        config: Any = transformers.DistilBertConfig(vocab_size=vocab_size, dim=width, n_layers=layers, n_heads=2,
                                                    hidden_dim=2 * width, max_position_embeddings=POSITIONS,
                                                    pad_token_id=0)
        return (transformers.DistilBertForMaskedLM if head else transformers.DistilBertModel)(config)
    sizes = dict(vocab_size=vocab_size, hidden_size=width, num_hidden_layers=layers, num_attention_heads=2,
                 intermediate_size=2 * width)
    if family == "roberta":  # positions count from the padding id + 1: two rows more
        config = transformers.RobertaConfig(**sizes, max_position_embeddings=POSITIONS + 2, pad_token_id=1,
                                            bos_token_id=0, eos_token_id=2, type_vocab_size=1)
        return (transformers.RobertaForMaskedLM if head else transformers.RobertaModel)(config)
    config = transformers.BertConfig(**sizes, max_position_embeddings=POSITIONS, pad_token_id=0)
    return (transformers.BertForMaskedLM if head else transformers.BertModel)(config)


def make_encoder_folder(family: str, folder: Path, seed: int = 0, head: bool = True, mask: bool = True) -> Path:
    """A ``save_pretrained`` folder of ``family`` (one of ENCODER_ONLY) with random weights and its tokenizer:
    config.json, model.safetensors, tokenizer.json, tokenizer_config.json. ``head``: the masked-language-model head
    (else the bare model); ``mask``: the tokenizer has a mask token."""
    tokenizer = byte_level_tokenizer() if family == "roberta" else word_piece_tokenizer(family, mask)
    torch.manual_seed(seed)
    model = encoder_model(family, len(tokenizer), head)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def make_long_bert_folder(folder: Path, positions: int = 1024, seed: int = 4) -> Path:
    """A BERT masked-language-model folder (2 layers, 2 heads, width 16) with ``positions`` positions: a text beyond
    the decoding cap (512) has its maps computed on demand (core/decoding/long_prompt.py)."""
    import transformers

    tokenizer = word_piece_tokenizer("bert")
    torch.manual_seed(seed)
    transformers.BertForMaskedLM(transformers.BertConfig(
        vocab_size=len(tokenizer), hidden_size=16, num_hidden_layers=2, num_attention_heads=2, intermediate_size=32,
        max_position_embeddings=positions, pad_token_id=0)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
