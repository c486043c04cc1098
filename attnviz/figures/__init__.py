"""Qt-free descriptions of every figure attnviz shows or writes, and the functions that build them.

A :class:`~attnviz.figures.spec.FigureSpec` says what a figure shows (values, labels, title, colour
range, masked cells); the screen (:mod:`attnviz.gui.heatmap`), the clipboard and every export
(:mod:`attnviz.render.figure_painter`, :mod:`attnviz.render.figure_files`, ``attnviz export``) render the
same description, so what is saved is what is seen. numpy only: no Qt, no torch.
"""
