"""Tiny random folders of today's decoder-only and encoder-only architectures (Qwen3, Gemma 2/3, Mistral, Phi-3,
OLMo 2, SmolLM3, gpt-oss, ModernBERT …), each with its attention's twist switched on at a size the tests can run past:
sliding windows of 3 (so an 8-token input reads past them), soft-capping low enough to bite, QK-norm, a learned sink
per head, layers without RoPE. Built from the library's config classes, saved with ``save_pretrained`` (no download).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

WINDOW = 3  # every sliding-window layer's window: an 8-token prompt reads past it
DECODER_ONLY = ("qwen3", "qwen3_moe", "gemma2", "gemma3_text", "mistral", "mixtral", "phi3", "olmo2", "smollm3",
                "gpt_oss")
ENCODER_ONLY = ("modernbert",)
MODERN = DECODER_ONLY + ENCODER_ONLY


def modern_model(family: str, vocab_size: int = 40, seed: int = 0, pad: int = 0, eos: int = 2, bos: int = 1,
                 width: int = 16, layers: int = 4) -> Any:
    """A random ``family`` model (eval mode): width 16, 4 query heads over 2 key/value heads (grouped), 4 layers
    whose types alternate or follow the family's pattern, every twist on."""
    import transformers

    torch.manual_seed(seed)
    common = dict(vocab_size=vocab_size, hidden_size=width, num_hidden_layers=layers, num_attention_heads=4,
                  num_key_value_heads=2, intermediate_size=2 * width, max_position_embeddings=256, pad_token_id=pad,
                  eos_token_id=eos, bos_token_id=bos, head_dim=width // 4)
    sliding = ["sliding_attention", "full_attention"] * (layers // 2)
    if family == "qwen3":
        config = transformers.Qwen3Config(**common, use_sliding_window=True, sliding_window=WINDOW,
                                          max_window_layers=layers // 2)
        model_class = transformers.Qwen3ForCausalLM
    elif family == "qwen3_moe":
        config = transformers.Qwen3MoeConfig(**common, num_experts=4, num_experts_per_tok=2,
                                             moe_intermediate_size=width, decoder_sparse_step=1)
        model_class = transformers.Qwen3MoeForCausalLM
    elif family == "gemma2":
        config = transformers.Gemma2Config(**common, sliding_window=WINDOW, layer_types=sliding,
                                           attn_logit_softcapping=0.5, final_logit_softcapping=3.0,
                                           query_pre_attn_scalar=2)
        model_class = transformers.Gemma2ForCausalLM
    elif family == "gemma3_text":
        types = ["sliding_attention"] * (layers - 1) + ["full_attention"]
        config = transformers.Gemma3TextConfig(**common, sliding_window=WINDOW, layer_types=types,
                                               rope_parameters={"sliding_attention": {"rope_type": "default",
                                                                                      "rope_theta": 10000.0},
                                                                "full_attention": {"rope_type": "default",
                                                                                   "rope_theta": 1000000.0}})
        model_class = transformers.Gemma3ForCausalLM
    elif family == "mistral":
        config = transformers.MistralConfig(**common, sliding_window=WINDOW)
        model_class = transformers.MistralForCausalLM
    elif family == "mixtral":
        config = transformers.MixtralConfig(**common, sliding_window=WINDOW, num_local_experts=4,
                                            num_experts_per_tok=2)
        model_class = transformers.MixtralForCausalLM
    elif family == "phi3":
        config = transformers.Phi3Config(**{k: v for k, v in common.items() if k != "head_dim"},
                                         sliding_window=WINDOW, original_max_position_embeddings=256)
        model_class = transformers.Phi3ForCausalLM
    elif family == "olmo2":
        config = transformers.Olmo2Config(**{k: v for k, v in common.items() if k != "head_dim"})
        model_class = transformers.Olmo2ForCausalLM
    elif family == "smollm3":
        config = transformers.SmolLM3Config(**common, no_rope_layers=[1, 0] * (layers // 2))
        model_class = transformers.SmolLM3ForCausalLM
    elif family == "gpt_oss":
        config = transformers.GptOssConfig(**common, sliding_window=WINDOW, layer_types=sliding, num_local_experts=4,
                                           num_experts_per_tok=2, rope_parameters={"rope_type": "default",
                                                                                   "rope_theta": 10000.0})
        model_class = transformers.GptOssForCausalLM
    elif family == "modernbert":
        config = transformers.ModernBertConfig(
            vocab_size=vocab_size, hidden_size=width, num_hidden_layers=layers + 2, num_attention_heads=4,
            intermediate_size=2 * width, max_position_embeddings=256, pad_token_id=pad, local_attention=2 * WINDOW,
            global_attn_every_n_layers=3, cls_token_id=bos, sep_token_id=eos, bos_token_id=bos, eos_token_id=eos)
        model_class = transformers.ModernBertForMaskedLM
    else:
        raise ValueError(family)
    model = model_class(config)
    if family == "gemma2":  # (random projections of std 0.02 make scores far below any cap: make the cap bite)
        with torch.no_grad():
            for block in model.model.layers:
                block.self_attn.q_proj.weight.mul_(30.0)
                block.self_attn.k_proj.weight.mul_(30.0)
    if family == "gpt_oss":  # (the library starts sinks at zero: make them bite)
        with torch.no_grad():
            for block in model.model.layers:
                block.self_attn.sinks.normal_(0.0, 1.0)
    return model.eval()


def make_modern_folder(family: str, folder: Path, seed: int = 0, new_tokens: int | None = None) -> Path:
    """A ``save_pretrained`` folder of ``family`` (one of MODERN) with random weights and a small trained tokenizer
    (tests/hf_folders.py's byte-level one; ModernBERT's with [CLS] [SEP] [MASK]); ``new_tokens``: a decoder-only
    folder's own length limit (its generation config's ``max_new_tokens``: a random model seldom ends by itself),
    else 64 tokens in all."""
    from tests.hf_folders import _byte_level_tokenizer

    if family in ENCODER_ONLY:
        from tests.hf_encoder_folders import word_piece_tokenizer

        tokenizer = word_piece_tokenizer("bert")
        tokenizer.model_input_names = ["input_ids", "attention_mask"]  # (ModernBERT reads no token types)
        model = modern_model(family, len(tokenizer), seed, pad=tokenizer.pad_token_id, bos=tokenizer.cls_token_id,
                             eos=tokenizer.sep_token_id)
    else:
        tokenizer = _byte_level_tokenizer()
        model = modern_model(family, len(tokenizer), seed, pad=0, eos=0, bos=0)
        model.generation_config.max_length = 64
        if new_tokens is not None:
            model.generation_config.max_new_tokens = new_tokens
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
