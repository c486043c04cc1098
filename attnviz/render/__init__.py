"""The renderers: figure descriptions (:mod:`attnviz.figures`) painted with QPainter into pixels, SVG,
PDF and the flip-book's GIF. Used alike by the window (:mod:`attnviz.gui`) and the CLI (``attnviz export``,
``attnviz figures``). QtGui and QtSvg only: no widgets, no window, no torch."""
