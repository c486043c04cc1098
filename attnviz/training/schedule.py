"""The learning-rate schedule every training of attnviz follows."""

from __future__ import annotations

import math
from typing import Any


def lr_at(step: int, total_steps: int, peak: float, warmup_steps: int) -> float:
    """Linear warm-up to ``peak`` over ``warmup_steps``, then cosine decay to 0 at ``total_steps``.

    A schedule that ends at 0 after the planned number of steps gives a better model for a fixed
    compute budget than the paper's open-ended inverse-square-root decay.
    """
    step = max(step, 1)
    if step < warmup_steps:
        return peak * step / warmup_steps
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - warmup_steps))
    return peak * 0.5 * (1.0 + math.cos(math.pi * progress))


def descend(optimizer: Any, model: Any, loss: Any, step: int, total_steps: int, peak: float, warmup_steps: int,
            clip_norm: float) -> float:
    """One step of every training loop of attnviz: the learning rate of ``step`` (:func:`lr_at`), then the
    gradients of ``loss`` (a scalar tensor) clipped to ``clip_norm`` in total and the optimizer's step; returns the
    loss as a float."""
    for group in optimizer.param_groups:
        group["lr"] = lr_at(step, total_steps, peak, warmup_steps)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    from torch import nn  # (torch only where a model trains: the schedule itself is plain arithmetic)

    nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    return float(loss.item())
