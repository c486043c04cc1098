"""Attention itself, family-free: the scoring layers and multi-head attention, masks and the masked softmax,
positional encodings, attention rollout, the kinds of attention map, and the numbers of one query's computation
stage by stage (numpy, for the views; :mod:`attnviz.core.decoding.query_computation` recomputes them from a
trained model). It imports nothing else of attnviz but :mod:`attnviz.i18n`."""
