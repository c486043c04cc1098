"""Does attention explain? Attention beside rollout, attention flow, norm-based attention, gradients,
integrated gradients and occlusion for one decoded step, and their rank agreement (torch + numpy, no Qt).
The entry points are :func:`explain_step` (a translation model's step), :func:`explain_mask` (an encoder-only
model's masked position) and :func:`explain_image` (an image model's predicted class, over its patches)."""

from .agreement import agreement_matrices, average_ranks, kendall_tau, spearman_rho
from .attribution import DEFAULT_IG_STEPS, MAX_IG_STEPS, Completeness
from .flow import layered_flow, max_flow
from .image import IMAGE_METHODS, explain_image
from .step import LAYERED, METHODS, SINK_CLASSES, Explanation, explain_mask, explain_step, is_punctuation

__all__ = ["DEFAULT_IG_STEPS", "IMAGE_METHODS", "LAYERED", "MAX_IG_STEPS", "METHODS", "SINK_CLASSES", "Completeness",
           "Explanation", "agreement_matrices", "average_ranks", "explain_image", "explain_mask", "explain_step",
           "is_punctuation", "kendall_tau", "layered_flow", "max_flow", "spearman_rho"]
