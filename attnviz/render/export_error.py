"""The error of a file that could not be written (:class:`ExportError`), apart from the writers so that the Qt-free
files (:mod:`attnviz.render.figure_files`) and the pictures reached lazily (:mod:`attnviz.render.offscreen`,
:mod:`attnviz.render.pictures`) share it without importing each other."""


class ExportError(Exception):
    """An export that could not be written; the message says where and why."""
