"""A Hugging Face folder's values for the atlas's sinks' norm view (:mod:`attnviz.core.heads.value_norms`).

Each attention module's value heads (B, H, K, D: after any group repetition) are read from the teacher-forced pass
as attnviz's attention function hands them over (:func:`attnviz.core.hf.attention.consuming`: one call per module
in a pass without a cache, its maps not kept), and W_O is the projection the model's record names
(``projection.output``: :func:`attnviz.core.hf.heads.output_projection`; GPT-2's Conv1D holds its weight as (in,
out)).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import torch
from torch import Tensor, nn

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.heads.value_norms import ValueNorms, head_grams
from attnviz.core.hf.attention import AttentionCall, consuming
from attnviz.core.hf.heads import head_count, output_projection


class HFValueNorms(ValueNorms):
    """The values of a folder's attention modules, as its forward pass computes them."""

    def values(self, src: Tensor, valid: Tensor, tgt_in: Tensor) -> dict[int, Tensor]:
        wanted = {id(m) for found in self.modules.values() for m in found}
        values: dict[int, Tensor] = {}

        def keep(call: AttentionCall) -> None:  # (each layer's maps are dropped as soon as it has made them)
            if id(call.module) in wanted:
                values[id(call.module)] = call.value.detach()

        with consuming(keep), torch.inference_mode():
            self.model(src, valid, tgt_in)
        return values


def hf_value_norms(loaded: Any, modules: Mapping[AttentionKind, Sequence[nn.Module]]) -> ValueNorms | None:
    """The reader for a Hugging Face translation model (None where its record names no output projection)."""
    architecture = loaded.model.architecture
    if not architecture.projection.output:
        return None
    fused = architecture.projection.style == "fused"  # (a Conv1D: weight (in, out))
    grams = {}
    for found in modules.values():
        for module in found:
            weight = cast(Tensor, output_projection(module, architecture).weight)
            grams[id(module)] = head_grams(weight if fused else weight.t(), head_count(module, architecture))
    return HFValueNorms(loaded.model, modules, grams)
