"""Causal patching over minimal pairs, head by head (issue 58): which heads carry a behaviour.

A minimal pair is a *clean* input and a *corrupt* one that differ in one thing (:mod:`.pairs`); the behaviour is the
logit difference logit(answer) − logit(alternative) where the model writes the answer (:mod:`.inputs`). Each head's
output before its output projection is taken from one run into the other (activation patching), or only its
attention weights or only its values are (pattern-only patching), and the attribution-patching estimate
(z_clean − z_corrupt)·∂m/∂z sits beside it (:mod:`.engine`): all through the one intervention hook of
:mod:`attnviz.core.heads.gates`' chains (``intervene_heads``) and the attention recording of
:mod:`attnviz.core.hf.attention`. Statistics over pairs (bootstrap intervals, Kendall τ): :mod:`.statistics`.
Torch and numpy only, never Qt.
"""
