"""The small BERT (core/models/encoder_only.py) and its masked-word training (training/mlm.py): attention against
torch's scaled_dot_product_attention, the masking recipe's proportions, and learning on a synthetic corpus."""

from __future__ import annotations

import json
import random

import pytest
import torch
import torch.nn.functional as F

from attnviz.core.attention.layers import Attended
from attnviz.core.models.encoder_only import EncoderOnly, EncoderOnlyConfig
from attnviz.core.text import RESERVED, Vocab
from attnviz.training.mlm import (
    CLS,
    MASK,
    SEP,
    STOP_WORDS,
    TIED_KEY,
    MlmOptions,
    SpecialIds,
    content_positions,
    content_word_accuracy,
    encode_sentences,
    english_sentences,
    load_run,
    mask_tokens,
    masked_word_accuracy,
    mlm_vocab,
    save_run,
    train_mlm,
)

WORDS = 30  # the synthetic vocabulary: w0 … w29
VOCAB = mlm_vocab(Vocab((*RESERVED, *(f"w{i}" for i in range(WORDS)))))
CONFIG = EncoderOnlyConfig(len(VOCAB), num_hiddens=32, num_heads=4, num_layers=2, ffn_hiddens=64, dropout=0.0,
                           max_len=16)
SENTENCES = [("w1", "w2", "w3", "w4", "w5"), ("w6", "w7"), ("w8",)]  # padded to 7, 4 and 3 real tokens


@pytest.fixture(scope="module")
def model() -> EncoderOnly:
    torch.manual_seed(0)
    return EncoderOnly(CONFIG).eval()


def test_the_special_tokens_are_appended_after_the_english_vocabulary():
    special = SpecialIds.of(VOCAB)
    n = 4 + WORDS
    assert (special.mask, special.cls, special.sep) == (n, n + 1, n + 2)
    assert [VOCAB.tokens[i] for i in (special.mask, special.cls, special.sep)] == [MASK, CLS, SEP]
    assert special.reserved == (0, 1, 2, 3, n, n + 1, n + 2)
    tokens, segments, valid_lens = encode_sentences(SENTENCES, VOCAB)
    assert tokens[1].tolist() == [n + 1, VOCAB.ids(["w6"])[0], VOCAB.ids(["w7"])[0], n + 2, 0, 0, 0]
    assert valid_lens.tolist() == [7, 4, 3] and not segments.any()


@torch.no_grad()
def test_each_layers_attention_equals_torch_sdpa_from_its_own_projections(model):
    tokens, segments, valid_lens = encode_sentences(SENTENCES, VOCAB)
    segments[0, 4:] = 1  # a second segment in the first sentence
    seen: list[tuple[torch.Tensor, Attended]] = []
    hooks = [m.register_forward_hook(lambda module, args, out: seen.append((args[0], out)))
             for m in model.attention_modules()]
    try:
        hidden, weights, scores = model.encode(tokens, segments, valid_lens)
    finally:
        for hook in hooks:
            hook.remove()
    b, s = tokens.shape
    assert hidden.shape == (b, s, 32) and weights.shape == scores.shape == (b, 2, 4, s, s)
    visible = (torch.arange(s)[None, :] < valid_lens[:, None])[:, None, None, :].expand(b, 1, s, s)  # (B, 1, Q, K)
    for layer, (attention, (x, attended)) in enumerate(zip(model.attention_modules(), seen, strict=True)):
        q, k, v = (attention.split_heads(w(x)) for w in (attention.W_q, attention.W_k, attention.W_v))
        eye = torch.eye(s).expand(b, 4, s, s)  # values = the identity: the output is the weights themselves
        expected = F.scaled_dot_product_attention(q, k, eye, attn_mask=visible)
        torch.testing.assert_close(weights[:, layer], expected, atol=1e-5, rtol=0)
        heads = F.scaled_dot_product_attention(q, k, v, attn_mask=visible)  # (B, H, S, Dh)
        torch.testing.assert_close(attended.output, attention.W_o(heads.transpose(1, 2).reshape(b, s, 32)),
                                   atol=1e-5, rtol=0)
        torch.testing.assert_close(scores[:, layer], q @ k.transpose(-2, -1) / 8**0.5, atol=1e-5, rtol=0)
    for row, length in enumerate(valid_lens.tolist()):
        assert (weights[row, ..., length:] == 0).all()  # padding keys: exactly 0
        torch.testing.assert_close(weights[row].sum(-1), torch.ones(2, 4, s))


@torch.no_grad()
def test_a_padded_batch_equals_each_sentence_alone_and_the_head_reads_the_positions(model):
    tokens, segments, valid_lens = encode_sentences(SENTENCES, VOCAB)
    hidden = model.encode(tokens, segments, valid_lens).hidden
    positions = torch.tensor([[1, 3], [2, 0], [1, 0]])
    logits = model.mlm_logits(hidden, positions)
    assert logits.shape == (3, 2, len(VOCAB))
    torch.testing.assert_close(model(tokens, segments, valid_lens, positions), logits)
    for row, length in enumerate(valid_lens.tolist()):
        alone = model.encode(tokens[row: row + 1, :length], segments[row: row + 1, :length], valid_lens[row: row + 1])
        torch.testing.assert_close(alone.hidden[0], hidden[row, :length], atol=1e-5, rtol=0)
        torch.testing.assert_close(model.mlm_logits(alone.hidden, positions[row: row + 1])[0], logits[row],
                                   atol=1e-5, rtol=0)
    with pytest.raises(ValueError, match="max_len"):
        model.encode(torch.zeros(1, 17, dtype=torch.long), torch.zeros(1, 17, dtype=torch.long), torch.tensor([17]))


def _synthetic_batch(rows: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, Vocab]:
    """Sentences of 20 ordinary words (and some <unk>) and shorter padded ones over a 1,000-word vocabulary."""
    vocab = mlm_vocab(Vocab((*RESERVED, *(f"w{i}" for i in range(1000)))))
    rng = random.Random(seed)
    sentences = []
    for i in range(rows):
        words = [f"w{rng.randrange(1000)}" for _ in range(20 if i % 2 == 0 else rng.randrange(1, 20))]
        if i % 2:
            words.insert(rng.randrange(len(words) + 1), "zzz-unknown")  # read as <unk>
        sentences.append(words)
    tokens, _, valid_lens = encode_sentences(sentences, vocab)
    return tokens, valid_lens, vocab


def test_the_masking_recipe_chooses_15_percent_and_masks_80_10_10():
    tokens, valid_lens, vocab = _synthetic_batch(10_000, seed=1)
    special = SpecialIds.of(vocab)
    masked = mask_tokens(tokens, valid_lens, special, len(vocab), torch.Generator().manual_seed(0))
    used = masked.labels != -100
    reserved = torch.tensor(special.reserved)
    # how many: exactly 3 of the 20 words of a full sentence (15 %), max(1, round(0.15 n)) of a shorter one
    ordinary = ((torch.arange(tokens.shape[1])[None] < valid_lens[:, None]) & ~torch.isin(tokens, reserved)).sum(1)
    assert (used.sum(1)[0::2] == 3).all() and (ordinary[0::2] == 20).all()
    assert used.sum(1).tolist() == torch.clamp(torch.round(ordinary * 0.15), min=1).long().tolist()
    # where: never <pad>, <unk>, [CLS] or [SEP]; the labels are the tokens there; nothing else changes
    chosen_tokens = torch.gather(tokens, 1, masked.positions)[used]
    assert not torch.isin(chosen_tokens, reserved).any()
    assert (masked.labels[used] == chosen_tokens).all()
    chosen = torch.zeros_like(tokens, dtype=torch.bool)
    chosen[torch.arange(len(tokens))[:, None].expand_as(masked.positions)[used], masked.positions[used]] = True
    assert (masked.inputs[~chosen] == tokens[~chosen]).all()
    # what: 80 % [MASK], 10 % a random ordinary word, 10 % kept (a random word may be the same word: 1 in 1,000)
    now, before = masked.inputs[chosen], tokens[chosen]
    n = len(now)
    assert n > 20_000
    assert abs((now == special.mask).sum() / n - 0.8) < 0.015
    replaced = (now != special.mask) & (now != before)
    assert abs(replaced.sum() / n - 0.1) < 0.01 and abs((now == before).sum() / n - 0.1) < 0.01
    assert not torch.isin(now[replaced], reserved).any()
    # seeded
    again = mask_tokens(tokens, valid_lens, special, len(vocab), torch.Generator().manual_seed(0))
    other = mask_tokens(tokens, valid_lens, special, len(vocab), torch.Generator().manual_seed(1))
    assert torch.equal(again.inputs, masked.inputs) and torch.equal(again.positions, masked.positions)
    assert not torch.equal(other.positions, masked.positions)


def test_a_sentence_of_reserved_tokens_only_gets_nothing_to_predict():
    tokens, valid_lens = torch.tensor([[35, 3, 36, 0], [35, 10, 36, 0]]), torch.tensor([3, 3])  # [CLS] <unk> [SEP]
    masked = mask_tokens(tokens, valid_lens, SpecialIds.of(VOCAB), len(VOCAB), torch.Generator().manual_seed(0))
    assert masked.labels.tolist() == [[-100], [10]] and torch.equal(masked.inputs[0], tokens[0])


def test_content_words_leave_out_stop_words_punctuation_and_unknown_words():
    vocab = mlm_vocab(Vocab((*RESERVED, "the", "dog", "is", "hungry", ".", "i'm", "tom", "?")))
    assert {"the", "is", "i'm", "don't", "of"} <= STOP_WORDS
    words = ("the", "dog", "is", "hungry", ".", "i'm", "zebra", "tom", "?")
    assert content_positions(words, vocab) == [1, 3, 7]  # dog, hungry, tom; not "zebra": the vocabulary lacks it


def _progression_corpus(count: int, seed: int) -> list[tuple[str, ...]]:
    """Runs of consecutive words, w_i w_{i+1} … (mod 30): any one word follows from its neighbours."""
    rng = random.Random(seed)
    corpus = []
    for _ in range(count):
        start, length = rng.randrange(WORDS), rng.randrange(4, 9)
        corpus.append(tuple(f"w{(start + j) % WORDS}" for j in range(length)))
    return corpus


def test_training_on_a_synthetic_corpus_makes_masked_word_accuracy_go_up(tmp_path):
    train, val = _progression_corpus(2000, seed=0), _progression_corpus(200, seed=1)
    torch.manual_seed(0)
    model = EncoderOnly(CONFIG)
    before = masked_word_accuracy(model, VOCAB, val)
    content_before = content_word_accuracy(model, VOCAB, val)
    opts = MlmOptions(epochs=8, batch_size=64, lr=4e-3, warmup_steps=30, seed=0)  # 256 steps
    saved: list[int] = []
    history = train_mlm(model, VOCAB, train, val, opts, log=open(tmp_path / "log.txt", "w"),  # noqa: SIM115
                        on_epoch=lambda epoch, *_: saved.append(epoch), content_words=False)
    assert saved == list(range(1, 9)) and history["steps"] == 256
    accuracy = history["val_masked_accuracy_per_epoch"]
    assert len(accuracy) == 8 and before < 0.15 and accuracy[-1] > 0.8, (before, accuracy)
    assert history["train_loss_per_epoch"][-1] < history["train_loss_per_epoch"][0] / 2
    content = content_word_accuracy(model, VOCAB, val)
    assert content.sentences == 200 and content.skipped == 0
    assert content_before.top5 < 0.4 and content.top1 > 0.8 and content.top5 > 0.95, (content_before, content)

    save_run(tmp_path / "run", model, VOCAB, history)
    from safetensors.torch import load_file

    weights = load_file(tmp_path / "run" / "encoder-only.safetensors")
    assert all(w.dtype == torch.float16 for w in weights.values())
    assert set(weights) == set(model.state_dict()) - {TIED_KEY}  # the tied output is the token embedding
    assert json.loads((tmp_path / "run" / "vocab.json").read_text()) == list(VOCAB.tokens)
    loaded = load_run(tmp_path / "run")
    assert loaded.vocab == VOCAB and loaded.history == json.loads(json.dumps(history))
    assert loaded.model.config == CONFIG and loaded.model.mlm.output.weight is loaded.model.token_embedding.weight
    assert masked_word_accuracy(loaded.model, VOCAB, val) == pytest.approx(accuracy[-1], abs=0.02)  # float16


def test_the_english_sentences_are_distinct_and_the_held_out_ones_never_trained(tmp_path):
    lines = [f"s{i} w{i % 7} .\tf{i}\n" for i in range(200)] + [f"s{i} w{i % 7} .\tg{i}\n" for i in range(50)]
    (tmp_path / "pairs.txt").write_text("".join(lines))
    train, val, english = english_sentences(tmp_path / "pairs.txt", val_sources=20)
    assert len(val) == 20 and len(train) == 180 and len(set(train)) == 180 and not set(train) & set(val)
    assert english.tokens[:4] == RESERVED and "w3" in english and "." in english
    assert "s100" not in english and "s10" in english  # seen twice (two translations) in training, or held out


def _pairs_file(path, word: str = "s"):
    """An english<TAB>french file whose English words (s0…s39, w0…w6) are seen twice: the vocabulary keeps them."""
    lines = [f"{word}{i % 40} w{i % 7} .\tf{i}\n" for i in range(240)]
    path.write_text("".join(lines))
    return path


def test_training_can_continue_a_checkpoint_with_fresh_masks_and_says_so_in_its_history(tmp_path, capsys,
                                                                                        tiny_models):
    from attnviz.cli import main as cli_main
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.training.mlm import train_encoder_only

    data = _pairs_file(tmp_path / "pairs.txt")
    first = tmp_path / "first.safetensors"
    arch = '{"num_hiddens": 32, "num_heads": 2, "num_layers": 1, "ffn_hiddens": 64}'
    assert cli_main(["train", "encoder-only", "--task", "mlm", "--data", str(data), "--epochs", "1", "--arch", arch,
                     "--batch-size", "32", "--out", str(first)]) == 0
    capsys.readouterr()
    start = load_checkpoint(first, compact_weights=False)
    log = open(tmp_path / "log.txt", "w")  # noqa: SIM115
    same = train_encoder_only(data, None, epochs=0, opts=MlmOptions(batch_size=32), log=log, init=first)
    for name, weight in start.model.state_dict().items():  # nothing trained: the checkpoint's weights, as float32
        assert torch.equal(same.model.state_dict()[name], weight), name
    init = same.history["init"]
    assert init["file"] == "first.safetensors" and init["epochs"] == 1 and len(init["digest"]) == 64
    assert same.model.config == start.model.config  # its architecture, not the defaults

    more = train_encoder_only(data, None, epochs=2, opts=MlmOptions(batch_size=32, warmup_steps=4), log=log,
                              init=first)
    assert more.history["options"]["epochs_before"] == 1 and more.history["epochs_completed"] == 2
    assert not torch.equal(more.model.token_embedding.weight, start.model.token_embedding.weight)

    with pytest.raises(ValueError, match="vocabulary is not this data's"):
        train_encoder_only(_pairs_file(tmp_path / "other.txt", word="t"), None, epochs=0, log=log, init=first)
    with pytest.raises(ValueError, match="not an encoder-only one"):
        train_encoder_only(data, None, epochs=0, log=log, init=tiny_models["transformer"][0])
