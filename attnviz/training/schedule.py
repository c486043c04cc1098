"""The learning-rate schedule every training of attnviz follows."""

from __future__ import annotations

import math


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
