"""A Hugging Face model's own decoding rules, as its library's ``generate`` applies them (transformers 5.23).

:func:`library_rules` reads the model's generation config (its ``length_penalty``, ``early_stopping``,
forced end token, bad words, minimum length, …) as ``generate`` merges it, and builds the very logits
processors ``generate`` would (through :mod:`attnviz.core.hf.compat`: private methods, checked against the library's
version), with the length limit attnviz decodes to written in first — the forced end token fires one token before it,
as in ``generate``. attnviz's search (:mod:`attnviz.core.decoding.search_rules`) then ranks and stops as the library
does.
Shapes: B sentences, S source (prompt) width, R live rows, V vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import Tensor

from attnviz.core.decoding.search_rules import SearchRules
from attnviz.core.hf import compat


def left_padded(src: Tensor, valid_lens: Tensor, pad_id: int) -> tuple[Tensor, Tensor]:
    """Right-padded ids (B, S) -> left-padded ids and their mask (B, S) (1: a real token)."""
    width = src.shape[1]
    columns = torch.arange(width, device=src.device)
    start = (width - valid_lens)[:, None]
    mask = columns[None, :] >= start
    moved = torch.gather(src, 1, (columns[None, :] - start).clamp(min=0))
    return torch.where(mask, moved, torch.full_like(moved, pad_id)), mask.long()


def library_rules(model: Any, src: Tensor, src_valid_lens: Tensor, max_new_tokens: int, beam_size: int, *,
                  continues_prompt: bool, start_id: int, pad_id: int) -> SearchRules:
    """The rules ``model.generate(..., num_beams=beam_size, max_new_tokens=max_new_tokens, do_sample=False)``
    decodes ``src`` (B, S) right-padded, valid lengths (B,) by."""
    config = compat.generation_config(model, beam_size)
    prefixes: list[list[int]]
    inputs: dict[str, Tensor] = {}  # (what generate's processors see of the input: a prompt's padding)
    if continues_prompt:  # the prompt, left-padded to the batch's width, as generate pads a batch
        ids, inputs["attention_mask"] = left_padded(src, src_valid_lens, pad_id)
        prefixes, width = ids.tolist(), int(src.shape[1])
    else:
        prefixes, width = [[start_id]] * int(src.shape[0]), 1
    config.max_new_tokens = None
    config.max_length = width + max_new_tokens
    compat.prepare_special_tokens(model, config, src.device)
    processors = compat.logits_processors(model, config, width, src, inputs)

    mask = inputs.get("attention_mask")
    padding = ((mask != 0).int().argmax(dim=1).tolist() if mask is not None  # (each prompt's left padding)
               else [0] * len(prefixes))
    per_row = compat.prompt_processors(processors)

    def process(sentences: Sequence[int], generated: Sequence[Sequence[int]], log_probs: Tensor) -> Tensor:
        if not len(processors):
            return log_probs
        # (made for one row per sentence; a search has as many as it has beams)
        compat.ignore_prompt(per_row, [padding[b] for b in sentences], log_probs.device)
        rows = [[*prefixes[b], *ids] for b, ids in zip(sentences, generated, strict=True)]
        return processors(torch.tensor(rows, dtype=torch.long, device=log_probs.device), log_probs)

    penalty = float(config.length_penalty if config.length_penalty is not None else 1.0)
    ends = compat.end_ids(config)
    return SearchRules(length_penalty=penalty, library=True, early_stopping=config.early_stopping or False,
                       process=process, end_ids=ends, logits=True)
