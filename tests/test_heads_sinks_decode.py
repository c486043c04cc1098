"""The head atlas over decoded sentences has the sinks by the query's position (issue 49 §3): per kind × layer × head,
the share of the weight on the first position and on each special token, and the same share of ‖α f(x)‖, by the bin
of the query's position. ``attnviz heads``' sinks_by_position.csv equals a recomputation by hand in numpy — the
model's own maps and values of a teacher-forced pass over each sentence and its greedy translation, one sentence at a
time, f_h by hand through W_O — for the shipped Transformer (every kind), the shipped decoder-only model and a tiny
GPT-2 folder (random weights; both read the prompt, then the answer) and a tiny Marian folder (its three kinds); the
figure of each kind is written."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
import torch

from attnviz.core.heads.sinks import POSITION_BINS, bin_labels
from tests.helpers import run_cli

LONG = ("i think that the old man who lives in the small house near the river has seen the cat of my sister "
        "yesterday .")
SENTENCES = ["i am happy .", "where is the house ?", LONG, "he is tired ."]


def _bin(position: int) -> int:
    """The bin of a query position counted from 0."""
    return next(index for index, (low, high) in enumerate(POSITION_BINS) if low <= position + 1 <= high)


class _ByHand:
    """Sums per (kind, layer, head, bin, class): rows, weight shares and norm shares (plain loops)."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, int, int, str, str], list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])

    def add(self, kind: str, layer: int, weights: np.ndarray, norms: np.ndarray, tokens: list[str],
            classes: list[str], causal: bool) -> None:
        """weights (H, Q, K), norms (H, K): one layer's rows, query i at position i."""
        heads, queries, _keys = weights.shape
        for name in classes:
            keys = [0] if name == "first" else [j for j, token in enumerate(tokens) if token == name]
            if not keys:
                continue
            for i in range(queries):
                if causal and keys[0] > i:
                    continue
                for h in range(heads):
                    row = weights[h, i, : i + 1] if causal else weights[h, i]
                    scaled = row * norms[h, : len(row)]
                    entry = self.sums[(kind, layer + 1, h + 1, bin_labels()[_bin(i)], name)]
                    entry[0] += 1
                    entry[1] += row[keys].sum()
                    entry[2] += scaled[keys].sum() / scaled.sum()

    def rows(self) -> dict[tuple[str, int, int, str, str], tuple[int, float, float]]:
        return {key: (int(n), w / n, m / n) for key, (n, w, m) in self.sums.items()}


def _written(path: Path) -> dict[tuple[str, int, int, str, str], tuple[int, float, float]]:
    with open(path, encoding="utf-8") as handle:
        return {(r["kind"], int(r["layer"]), int(r["head"]), r["queries"], r["key"]):
                (int(r["rows"]), float(r["weight_share"]), float(r["norm_share"])) for r in csv.DictReader(handle)}


def _assert_same(written: dict, expected: dict) -> None:
    assert set(written) == set(expected)
    for key, (rows, weight, norm) in expected.items():
        assert written[key][0] == rows, key
        assert written[key][1] == pytest.approx(weight, abs=1e-6), key
        assert written[key][2] == pytest.approx(norm, abs=1e-6), key


def _norms(values: np.ndarray, w_o: np.ndarray) -> np.ndarray:
    """values (H, K, D) of one layer, W_O (E, H·D) -> ‖f_h(x_j)‖ (H, K)."""
    heads, _keys, width = values.shape
    return np.stack([np.linalg.norm(values[h] @ w_o[:, h * width: (h + 1) * width].T, axis=-1)
                     for h in range(heads)])


def _np(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().double().cpu().numpy()


@pytest.mark.parametrize("pass_tokens", [384, 1])  # (1: the norms' teacher-forced pass a row at a time)
def test_the_transformers_sinks_by_position_equal_a_recomputation_by_hand(capsys, tmp_path, monkeypatch,
                                                                          pass_tokens) -> None:
    from attnviz.core.heads import value_norms

    monkeypatch.setattr(value_norms, "PASS_TOKENS", pass_tokens)
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.text import preprocess, tokenize
    from attnviz.paths import DEFAULT_CHECKPOINT

    data = tmp_path / "sentences.txt"
    data.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(DEFAULT_CHECKPOINT), "--data", str(data),
                              "--out", str(tmp_path / "out"), "--format", "csv,png")
    assert code == 0, stderr

    loaded = load_checkpoint(DEFAULT_CHECKPOINT)
    model = loaded.model.eval()
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    classes = ["first", "<pad>", "<bos>", "<eos>", "<unk>"]
    by_hand = _ByHand()
    inputs: list[torch.Tensor] = []
    for sentence in SENTENCES:
        words = tokenize(preprocess(sentence))
        output = translate(model, [words], src_vocab, tgt_vocab, torch.device("cpu"))[0]
        assert len(output) < loaded.config.max_tgt_len  # (it ended with <eos>: its steps read <bos> + output)
        src = torch.tensor([src_vocab.ids(words)])
        tgt_in = torch.tensor([[tgt_vocab.bos_id, *tgt_vocab.ids(output)]])
        inputs.clear()
        hooks = [block.register_forward_pre_hook(lambda _m, args: inputs.append(args[0]))
                 for block in model.encoder_blocks]
        with torch.no_grad():
            encoding = model.encode(src, torch.tensor([len(words)]), need_scores=True)
            _, state, attention = model.decode(tgt_in, encoding.state, need_scores=True)
        for hook in hooks:
            hook.remove()
        keys = ["<bos>", *output]
        for layer, block in enumerate(model.encoder_blocks):
            mha = block.attention
            x = _np(inputs[layer][0])  # (S, E): what the layer's W_V reads
            v = x @ _np(mha.W_v.weight).T + (_np(mha.W_v.bias) if mha.W_v.bias is not None else 0.0)
            v = v.reshape(len(words), mha.num_heads, -1).transpose(1, 0, 2)  # (H, S, D)
            by_hand.add("enc-self", layer, _np(encoding.attention[layer].weights[0]), _norms(v, _np(mha.W_o.weight)),
                        words, classes, False)
        for layer, block in enumerate(model.decoder_blocks):
            by_hand.add("dec-self", layer, _np(attention.self_attention[layer].weights[0]),
                        _norms(_np(state.caches[layer].self_values[0]), _np(block.self_attention.W_o.weight)), keys,
                        classes, True)
            by_hand.add("cross", layer, _np(attention.cross_attention[layer].weights[0]),
                        _norms(_np(state.caches[layer].cross_values[0]), _np(block.cross_attention.W_o.weight)),
                        words, classes, False)
    expected = by_hand.rows()
    assert {key[3] for key in expected} == {"1-16", "17-128"}  # (the long sentence's source passes position 16)
    assert {key[4] for key in expected} == {"first", "<bos>"}
    _assert_same(_written(tmp_path / "out" / "sinks_by_position.csv"), expected)
    out = tmp_path / "out"
    for kind in ("enc-self", "dec-self", "cross"):
        for view in ("weight", "norm"):
            assert (out / f"sinks_first_{view}_{kind}.png").stat().st_size > 0
            assert (out / f"sinks_first_{view}_{kind}.csv").is_file()
    assert "sinks_first_weight_KIND.csv" in (out / "COLUMNS.md").read_text(encoding="utf-8")


def test_the_decoder_only_models_sinks_read_the_prompt_then_the_answer(capsys, tmp_path) -> None:
    """attnviz's own decoder-only model: one self-attention over the prompt, ``<bos>`` and the answer; its values by
    hand from what each block's W_V reads (its first norm's output), the prompt's pass then the answer's."""
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.text import preprocess, tokenize
    from attnviz.paths import MODELS_DIR

    checkpoint = MODELS_DIR / "decoder-only.safetensors"
    data = tmp_path / "sentences.txt"
    data.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(checkpoint), "--data", str(data),
                              "--out", str(tmp_path / "out"), "--format", "csv")
    assert code == 0, stderr

    loaded = load_checkpoint(checkpoint)
    model = loaded.model.eval()
    src_vocab, tgt_vocab = loaded.src_vocab, loaded.tgt_vocab
    by_hand = _ByHand()
    read: list[torch.Tensor] = []
    hooks = [block.norm1.register_forward_hook(lambda _m, _a, out: read.append(out)) for block in model.blocks]
    for sentence in SENTENCES:
        words = tokenize(preprocess(sentence))
        output = translate(model, [words], src_vocab, tgt_vocab, torch.device("cpu"))[0]
        assert len(output) < loaded.config.max_tgt_len
        src = torch.tensor([src_vocab.ids(words)])
        tgt_in = torch.tensor([[tgt_vocab.bos_id, *tgt_vocab.ids(output)]])
        read.clear()
        with torch.no_grad():
            state, prompt = model.prompt(src, torch.tensor([len(words)]), need_scores=True)
            _, _, answer = model.decode(tgt_in, state, need_scores=True)
        layers = len(model.blocks)
        tokens = [*words, "<bos>", *output]
        for layer, block in enumerate(model.blocks):
            mha = block.attention
            h = np.concatenate([_np(read[layer][0]), _np(read[layers + layer][0])])  # (S + T, E): prompt, answer
            v = h @ _np(mha.W_v.weight).T + (_np(mha.W_v.bias) if mha.W_v.bias is not None else 0.0)
            v = v.reshape(len(tokens), mha.num_heads, -1).transpose(1, 0, 2)  # (H, S + T, D)
            rows = _np(prompt[layer].weights[0])  # (H, S, S), then the answer's (H, T, S + T)
            full = np.concatenate([np.pad(rows, ((0, 0), (0, 0), (0, tgt_in.shape[1]))),
                                   _np(answer[layer].weights[0])], axis=1)
            by_hand.add("dec-self", layer, full, _norms(v, _np(mha.W_o.weight)), tokens,
                        ["first", "<pad>", "<bos>", "<eos>", "<unk>"], True)
    for hook in hooks:
        hook.remove()
    expected = by_hand.rows()
    assert {key[3] for key in expected} == {"1-16", "17-128"} and {key[4] for key in expected} == {"first", "<bos>"}
    _assert_same(_written(tmp_path / "out" / "sinks_by_position.csv"), expected)


def test_a_decoder_only_folders_sinks_read_the_prompt_then_the_answer(capsys, tmp_path) -> None:
    pytest.importorskip("transformers")
    import transformers

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.text import source_words
    from tests.hf_folders import make_folder

    folder = make_folder("gpt2", tmp_path / "gpt2")
    data = tmp_path / "prompts.txt"
    texts = ["the house is big .", "where is the cat ?", "we go home now ."]
    data.write_text("\n".join(texts) + "\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(folder), "--data", str(data),
                              "--out", str(tmp_path / "out"), "--format", "csv")
    assert code == 0, stderr

    loaded = load_checkpoint(folder)
    hf = transformers.AutoModelForCausalLM.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = loaded.src_vocab.tokenizer
    classes = ["first", *dict.fromkeys(["<pad>", "<bos>", "<eos>", "<unk>", *tokenizer.all_special_tokens])]
    by_hand = _ByHand()
    values: list[torch.Tensor] = []
    for text in texts:
        split = source_words(text, loaded.src_vocab, loaded.config.max_src_len)
        output = translate(loaded.model, [split], loaded.src_vocab, loaded.tgt_vocab, torch.device("cpu"))[0]
        if len(output) >= loaded.config.max_tgt_len:  # (no end token: the last step's token is read by no step)
            output = output[:-1]
        answer_ids = loaded.tgt_vocab.ids(output)
        prompt_ids = list(split.ids) if split.ids is not None else loaded.src_vocab.ids(split.words)
        ids = torch.tensor([prompt_ids + answer_ids])  # the prompt, then every answer token its steps read
        values.clear()
        hooks = [block.attn.c_attn.register_forward_hook(lambda _m, _a, out: values.append(out))
                 for block in hf.transformer.h]
        with torch.no_grad():
            attentions = hf(input_ids=ids, output_attentions=True).attentions
        for hook in hooks:
            hook.remove()
        tokens = [*split.words, *output]
        assert len(tokens) == ids.shape[1]
        width = hf.config.n_embd
        heads = hf.config.n_head
        for layer, block in enumerate(hf.transformer.h):
            v = _np(values[layer][0, :, 2 * width:]).reshape(ids.shape[1], heads, -1).transpose(1, 0, 2)
            norms = _norms(v, _np(block.attn.c_proj.weight).T)  # (Conv1D: weight (in, out))
            by_hand.add("dec-self", layer, _np(attentions[layer][0]), norms, tokens, classes, True)
    _assert_same(_written(tmp_path / "out" / "sinks_by_position.csv"), by_hand.rows())


@pytest.mark.parametrize("pass_tokens", [384, 1])  # (1: the norms' teacher-forced pass a row at a time)
def test_an_encoder_decoder_folders_sinks_cover_its_three_kinds(capsys, tmp_path, monkeypatch, pass_tokens) -> None:
    from attnviz.core.heads import value_norms

    monkeypatch.setattr(value_norms, "PASS_TOKENS", pass_tokens)
    """A tiny Marian folder (random weights): the encoder's, the decoder's and the cross-attention's sinks, the source's
    ``</s>`` among the keys; values by hand from each module's ``v_proj``, W_O its ``out_proj``."""
    pytest.importorskip("transformers")
    import transformers

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.beam_search import translate
    from attnviz.core.text import source_words
    from tests.hf_folders import make_folder

    folder = make_folder("marian", tmp_path / "marian")
    data = tmp_path / "sentences.txt"
    texts = ["the house is big .", "where is the cat ?", "we go home now ."]
    data.write_text("\n".join(texts) + "\n", encoding="utf-8")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", str(folder), "--data", str(data),
                              "--out", str(tmp_path / "out"), "--format", "csv")
    assert code == 0, stderr

    loaded = load_checkpoint(folder)
    hf = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager").eval()
    tokenizer = loaded.src_vocab.tokenizer
    classes = ["first", *dict.fromkeys(["<pad>", "<bos>", "<eos>", "<unk>", *tokenizer.all_special_tokens])]
    encoder, decoder = hf.model.encoder.layers, hf.model.decoder.layers
    modules = {"enc-self": [layer.self_attn for layer in encoder], "dec-self": [layer.self_attn for layer in decoder],
               "cross": [layer.encoder_attn for layer in decoder]}
    read: dict[int, torch.Tensor] = {}
    hooks = [m.v_proj.register_forward_hook(lambda layer, _a, out: read.__setitem__(id(layer), out))
             for found in modules.values() for m in found]
    by_hand = _ByHand()
    for text in texts:
        split = source_words(text, loaded.src_vocab, loaded.config.max_src_len)
        output = translate(loaded.model, [split], loaded.src_vocab, loaded.tgt_vocab, torch.device("cpu"))[0]
        if len(output) >= loaded.config.max_tgt_len:  # (no end token: the last step's token is read by no step)
            output = output[:-1]
        src = torch.tensor([list(split.ids)])
        tgt_in = torch.tensor([[loaded.tgt_vocab.bos_id, *loaded.tgt_vocab.ids(output)]])
        with torch.no_grad():
            out = hf(input_ids=src, decoder_input_ids=tgt_in, output_attentions=True)
        maps = {"enc-self": out.encoder_attentions, "dec-self": out.decoder_attentions, "cross": out.cross_attentions}
        keys = {"enc-self": list(split.words), "dec-self": ["<bos>", *output], "cross": list(split.words)}
        for kind, found in modules.items():
            for layer, module in enumerate(found):
                v = _np(read[id(module.v_proj)][0])  # (K, H·D)
                v = v.reshape(v.shape[0], module.num_heads, -1).transpose(1, 0, 2)
                by_hand.add(kind, layer, _np(maps[kind][layer][0]), _norms(v, _np(module.out_proj.weight)),
                            keys[kind], classes, kind == "dec-self")
    for hook in hooks:
        hook.remove()
    expected = by_hand.rows()
    assert {key[0] for key in expected} == {"enc-self", "dec-self", "cross"}
    assert "</s>" in {key[4] for key in expected if key[0] == "cross"}
    _assert_same(_written(tmp_path / "out" / "sinks_by_position.csv"), expected)
