"""Spin boxes whose number sits inside a phrase: "layer 3" in English, "第 3 层" in Chinese."""

from __future__ import annotations

from PySide6 import QtWidgets


def set_numbered(box: QtWidgets.QSpinBox, template: str) -> None:
    """Show ``box``'s value inside ``template`` (translated, with ``{n}`` where the number goes): what comes
    before ``{n}`` is the box's prefix, what follows its suffix."""
    prefix, _, suffix = template.partition("{n}")
    box.setPrefix(prefix)
    box.setSuffix(suffix)
