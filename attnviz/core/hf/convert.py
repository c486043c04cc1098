"""attnviz's Transformer as a Hugging Face Marian folder: the same network, run by transformers.

The book's Transformer and Marian are the same architecture — post-norm blocks, embeddings scaled by √d plus
a fixed sinusoidal table, ReLU feed-forward layers, a tied output layer — with one difference of layout:
the book interleaves the table's sines and cosines (columns 2i, 2i + 1), Marian puts the sines in the first
half and the cosines in the second. Permuting the width of the residual stream the same way everywhere (rows
of what writes to it, columns of what reads it, LayerNorm's scale and shift) gives a network that computes
exactly the same function with Marian's table, so the converted folder translates as attnviz does and
its attention maps are the same numbers (tests/test_hf_convert.py).

The two vocabularies become one word-level tokenizer (``tokenizer.json``, attnviz's own preprocessing:
lowercase, punctuation split off): a word only the French side knows reads as the encoder's ``<unk>``, as
in attnviz, and a word only the English side knows is never output (its logit bias is −10⁹).
Shapes: d width, V = |English ∪ French| tokens.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from attnviz.core.text import BOS, EOS, PAD, UNK
from attnviz.i18n import tr

NEVER = -1e9  # the logit bias of a token the model must never output


def width_order(width: int) -> Tensor:
    """Marian's order of the book's stream dimensions: the even ones (sines), then the odd ones (cosines)."""
    return torch.cat([torch.arange(0, width, 2), torch.arange(1, width, 2)])


def _tokenizer(tokens: list[str]) -> Any:
    """A word-level tokenizer over ``tokens`` that reads text as attnviz's preprocessing does."""
    import transformers
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers

    words = Tokenizer(models.WordLevel({token: i for i, token in enumerate(tokens)}, unk_token=UNK))
    words.normalizer = normalizers.Sequence([normalizers.Replace("\u202f", " "), normalizers.Replace("\xa0", " "),
                                             normalizers.Lowercase(), normalizers.Strip()])
    # attnviz puts a space before , . ! ? that follow a character, then splits on spaces
    words.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(),
                                                   pre_tokenizers.Split(Regex("[,.!?]"), "merged_with_next")])
    words.decoder = decoders.WordPiece(prefix="\u0000", cleanup=False)  # (joins words with spaces)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=words, pad_token=PAD, bos_token=BOS, eos_token=EOS,
                                                unk_token=UNK)


def marian_from_transformer(loaded: Any) -> tuple[Any, Any]:
    """(MarianMTModel, its tokenizer) computing what ``loaded`` (attnviz's Transformer) computes."""
    import transformers

    c, ours = loaded.config, loaded.model
    src, tgt = list(loaded.src_vocab.tokens), list(loaded.tgt_vocab.tokens)
    tokens = [*src, *(t for t in tgt if t not in set(src))]
    index = {t: i for i, t in enumerate(tokens)}
    config = transformers.MarianConfig(
        vocab_size=len(tokens), decoder_vocab_size=len(tokens), share_encoder_decoder_embeddings=False,
        d_model=c.num_hiddens, encoder_layers=c.num_encoder_layers, decoder_layers=c.num_decoder_layers,
        encoder_attention_heads=c.num_heads, decoder_attention_heads=c.num_heads, encoder_ffn_dim=c.ffn_hiddens,
        decoder_ffn_dim=c.ffn_hiddens, activation_function="relu", scale_embedding=True,
        max_position_embeddings=max(c.max_src_len, c.max_tgt_len, 256) + 2, dropout=0.0, attention_dropout=0.0,
        activation_dropout=0.0, pad_token_id=index[PAD], eos_token_id=index[EOS], bos_token_id=index[BOS],
        decoder_start_token_id=index[BOS], forced_eos_token_id=None, tie_word_embeddings=bool(c.tie_output))
    marian = transformers.MarianMTModel(config).eval()
    order = width_order(c.num_hiddens)
    to_stream = lambda w: w[order]  # noqa: E731  (rows of a layer that writes the stream)
    from_stream = lambda w: w[:, order]  # noqa: E731  (columns of a layer that reads it)
    weights: dict[str, Tensor] = {}

    def embedding(table: Tensor, vocab: list[str], fill: Tensor | None) -> Tensor:
        out = torch.zeros(len(tokens), c.num_hiddens) if fill is None else fill.expand(len(tokens), -1).clone()
        out[[index[t] for t in vocab]] = table
        return from_stream(out)

    src_table, tgt_table = ours.src_embedding.weight.detach(), ours.tgt_embedding.weight.detach()
    weights["model.encoder.embed_tokens.weight"] = embedding(src_table, src, src_table[loaded.src_vocab.unk_id])
    weights["model.decoder.embed_tokens.weight"] = embedding(tgt_table, tgt, None)
    if not c.tie_output:
        weights["lm_head.weight"] = embedding(ours.output.weight.detach(), tgt, None)
    bias = torch.full((1, len(tokens)), NEVER)
    bias[0, [index[t] for t in tgt]] = 0.0
    weights["final_logits_bias"] = bias

    def attention(prefix: str, block: Any) -> None:
        for mine, theirs in (("W_q", "q_proj"), ("W_k", "k_proj"), ("W_v", "v_proj")):
            layer = getattr(block, mine)
            weights[f"{prefix}.{theirs}.weight"] = from_stream(layer.weight.detach())
            weights[f"{prefix}.{theirs}.bias"] = torch.zeros(c.num_hiddens) if layer.bias is None else layer.bias
        weights[f"{prefix}.out_proj.weight"] = to_stream(block.W_o.weight.detach())
        weights[f"{prefix}.out_proj.bias"] = torch.zeros(c.num_hiddens) if block.W_o.bias is None \
            else to_stream(block.W_o.bias.detach())

    def norm(name: str, layer: Any) -> None:
        weights[f"{name}.weight"], weights[f"{name}.bias"] = to_stream(layer.weight.detach()), to_stream(
            layer.bias.detach())

    def ffn(prefix: str, block: Any) -> None:
        weights[f"{prefix}.fc1.weight"] = from_stream(block.dense1.weight.detach())
        weights[f"{prefix}.fc1.bias"] = block.dense1.bias.detach()
        weights[f"{prefix}.fc2.weight"] = to_stream(block.dense2.weight.detach())
        weights[f"{prefix}.fc2.bias"] = to_stream(block.dense2.bias.detach())

    for i, block in enumerate(ours.encoder_blocks):
        prefix = f"model.encoder.layers.{i}"
        attention(f"{prefix}.self_attn", block.attention)
        norm(f"{prefix}.self_attn_layer_norm", block.addnorm1.norm)
        ffn(prefix, block.ffn)
        norm(f"{prefix}.final_layer_norm", block.addnorm2.norm)
    for i, block in enumerate(ours.decoder_blocks):
        prefix = f"model.decoder.layers.{i}"
        attention(f"{prefix}.self_attn", block.self_attention)
        norm(f"{prefix}.self_attn_layer_norm", block.addnorm1.norm)
        attention(f"{prefix}.encoder_attn", block.cross_attention)
        norm(f"{prefix}.encoder_attn_layer_norm", block.addnorm2.norm)
        ffn(prefix, block.ffn)
        norm(f"{prefix}.final_layer_norm", block.addnorm3.norm)
    missing, unexpected = marian.load_state_dict({k: v.float() for k, v in weights.items()}, strict=False)
    left = [k for k in missing if "embed_positions" not in k and k != "lm_head.weight"]
    if left or unexpected:
        raise RuntimeError(f"the Marian model has other weights than converted: missing {left}, extra {unexpected}")
    generation = marian.generation_config
    generation.bad_words_ids = [[index[PAD]], [index[BOS]]]  # never output, as attnviz never decodes them
    generation.length_penalty = 0.75  # attnviz's beam ranking: log p / T^0.75
    generation.max_length = c.max_tgt_len + 1
    generation.num_beams = 4
    return marian, _tokenizer(tokens)


def save_marian_folder(loaded: Any, out: str | Path) -> Path:
    """Write ``loaded`` as a Marian folder at ``out`` (which must not exist): whole or not at all."""
    out = Path(out)
    if out.exists() or out.is_symlink():
        raise FileExistsError(tr("{path} exists: give a new folder name (nothing is overwritten)").format(path=out))
    if loaded.kind != "transformer":
        raise ValueError(tr("{name} is a {kind} model: only attnviz's Transformer converts to a Hugging Face "
                            "(Marian) folder").format(name=loaded.path.name if loaded.path else loaded.kind,
                                                      kind=loaded.kind))
    try:
        import transformers
    except ImportError:
        raise ValueError(tr("writing a Hugging Face folder needs the transformers package, which the standalone build "
                            "leaves out: install attnviz from source (README: bash scripts/run.sh)")) from None
    transformers.utils.logging.disable_progress_bar()  # (its "Writing model shards" bar is noise on stderr)
    model, tokenizer = marian_from_transformer(loaded)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        try:
            model.save_pretrained(partial)
            tokenizer.save_pretrained(partial)
        except Exception as error:  # (a full disk reaches safetensors as its own SafetensorError)
            raise OSError(tr("cannot write {path}: {error}").format(path=out, error=error)) from None
        umask = os.umask(0)
        os.umask(umask)
        partial.chmod(0o777 & ~umask)  # (mkdtemp makes it 0700: the folder gets the permissions mkdir would give)
        if out.exists() or out.is_symlink():  # made while it was written (even an empty folder is not replaced)
            raise FileExistsError(tr("{path} appeared while the model was written; nothing was overwritten").format(
                path=out))
        os.rename(partial, out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return out
