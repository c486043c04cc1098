"""A Hugging Face model's heads: how many each attention module has, and gates ξ on them (Michel et al. 2019).

Every architecture attnviz decodes puts its heads side by side, (B, Q, H·D) with head h in columns h·D … (h + 1)·D,
into one output projection (BART's and Marian's ``out_proj``, Llama's and Qwen2's ``o_proj``, GPT-2's Conv1D
``c_proj``, T5's ``o``). A gate is a forward pre-hook on that projection that multiplies head h's columns by ξ_h:
ξ = 1 leaves the model as it is, ξ_h = 0 zeroes the head's output — the mechanism of attnviz's own
:class:`~attnviz.core.attention.layers.MultiHeadAttention` (``gate_heads``). The projection and a head's width are found
where the model's :class:`~attnviz.core.hf.folder.Architecture` record says (``projection.output``,
``projection.head_width``). Shapes: B rows, Q queries, H heads, D a head's width.
"""

from __future__ import annotations

from typing import Any, cast

from torch import Tensor, nn
from torch.utils.hooks import RemovableHandle

from attnviz.core.attention.layers import GateSource, HeadChange, gated
from attnviz.core.hf.folder import Architecture


def output_projection(module: nn.Module, architecture: Architecture) -> nn.Module:
    """The layer of ``module`` (an attention module) that reads its heads side by side."""
    return module.get_submodule(architecture.projection.output)


def head_count(module: nn.Module, architecture: Architecture) -> int:
    """The query heads of ``module``: the output projection's input width over a head's width (a Linear's weight is
    (out, in), GPT-2's Conv1D's (in, out))."""
    weight = cast(Tensor, output_projection(module, architecture).weight)
    width = int(weight.shape[0] if architecture.projection.style == "fused" else weight.shape[1])
    return width // int(getattr(module, architecture.projection.head_width))


def intervene_heads(module: nn.Module, architecture: Architecture, change: HeadChange) -> list[RemovableHandle]:
    """A hook handing the heads (B, Q, H, D) that the output projection of ``module`` reads to ``change`` and passing
    on what it returns (None: the heads as they are). A record that names no output projection (BERT's, whose
    projection lives outside its attention module): a forward hook on the module's first output, the heads side by
    side (B, Q, H·D), the same values."""
    if not architecture.projection.output:
        width = int(getattr(module, architecture.projection.head_width))

        def after(_module: nn.Module, _args: tuple[Any, ...], output: Any) -> Any:
            x = output[0] if isinstance(output, tuple) else output  # (B, Q, H·D)
            changed = change(x.unflatten(-1, (x.shape[-1] // width, width)))
            if changed is None:
                return None
            return (changed.flatten(-2), *output[1:]) if isinstance(output, tuple) else changed.flatten(-2)
        return [module.register_forward_hook(after)]
    count = head_count(module, architecture)

    def hook(_layer: nn.Module, args: tuple[Any, ...]) -> tuple[Any, ...] | None:
        x = args[0]  # (B, Q, H·D)
        changed = change(x.unflatten(-1, (count, x.shape[-1] // count)))  # (B, Q, H, D)
        return None if changed is None else (changed.flatten(-2), *args[1:])
    return [output_projection(module, architecture).register_forward_pre_hook(hook)]


def gate_heads(module: nn.Module, architecture: Architecture, gate: GateSource) -> list[RemovableHandle]:
    """A hook multiplying head h's output by ``gate()[..., h]`` ((H,) or (B, H)) before the output projection of
    ``module``; ``gate()`` None: the module runs as it is."""
    return intervene_heads(module, architecture, gated(gate))
