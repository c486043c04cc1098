"""The CJK font the app carries (Noto Sans CJK SC, a GB 2312 subset under a family name of its own, "attnviz
CJK SC": ``resources/fonts``), registered with Qt's font database so that Chinese text renders everywhere Qt
draws it — the window, PNG, SVG and PDF exports, the flip-book — whether or not the system has a CJK font. Fonts
made with :func:`with_cjk_fallback` name it right after their own family, so Latin text keeps the system's font
and every Chinese glyph comes from the carried Simplified Chinese face: never from whatever the system's fallback
prefers (with Debian's ``fonts-noto-cjk`` installed that is the Japanese variant, whose glyphs differ and which a
PDF would embed), nor from a system face of the original name."""

from __future__ import annotations

import re

from PySide6 import QtGui

from attnviz.paths import RESOURCES_DIR

CJK_FONT_FILE = RESOURCES_DIR / "fonts" / "NotoSansCJKsc-Regular-subset.otf"
CJK_FAMILY = "attnviz CJK SC"  # its own name: a system "Noto Sans CJK SC" could shadow the original name
# What an exported SVG names after the font Qt drew with, for a viewer on another machine: the same font
# (where installed), the usual Chinese system fonts of Linux, Windows and macOS, then any sans-serif.
SVG_FALLBACK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "Microsoft YaHei",
                         "PingFang SC", "WenQuanYi Micro Hei", "sans-serif")

_unloadable = False  # the file could not be registered once: do not retry on every paint
_registered_with: object | None = None  # the application whose font database holds the carried font


def ensure_cjk_font() -> bool:
    """Register the carried CJK font with the running QGuiApplication (again after an application was
    replaced: its font database goes with it). Its family name is its own, so no system font can stand in for
    it and exports embed the app's own font on every machine. False when there is
    no application yet or the file is missing or unreadable (Chinese then draws only where the system has a
    font for it)."""
    global _unloadable, _registered_with
    app = QtGui.QGuiApplication.instance()
    if app is None:
        return False
    if _registered_with is app:
        return True
    if _unloadable or not CJK_FONT_FILE.is_file() or QtGui.QFontDatabase.addApplicationFont(str(CJK_FONT_FILE)) < 0:
        _unloadable = True
        return QtGui.QFontDatabase.hasFamily(CJK_FAMILY)
    _registered_with = app
    return True


def with_cjk_fallback(font: QtGui.QFont) -> QtGui.QFont:
    """A copy of ``font`` that draws Latin text in the family it resolves to and every glyph that family lacks
    (Chinese) from the carried font, by name, instead of from the system's fallback order."""
    ensure_cjk_font()
    chosen = QtGui.QFont(font)
    own = QtGui.QFontInfo(font).family()
    chosen.setFamilies([own, CJK_FAMILY] if own and own != CJK_FAMILY else [CJK_FAMILY])
    return chosen


_SVG_FONT_FAMILY = re.compile(rb'font-family="([^"\']*)"')


def name_fonts_in_svg(svg: bytes) -> bytes:
    """Qt's SVG writer names the font it drew with by Qt's alias ("Sans Serif"), which no SVG viewer knows:
    name the family actually used, then the CJK fonts (the glyphs Qt drew from the carried font), then
    ``sans-serif``, so another machine's viewer finds a font for every character."""
    attributes = {named: _svg_families(named) for named in set(_SVG_FONT_FAMILY.findall(svg))}
    return _SVG_FONT_FAMILY.sub(lambda match: attributes[match.group(1)], svg)


def _svg_families(named: bytes) -> bytes:
    """The font-family attribute for the family Qt wrote as ``named`` (resolved once per figure, not per text)."""
    name = named.decode("utf-8", "replace")
    resolved = QtGui.QFontInfo(QtGui.QFont(name)).family() or name
    listed = [resolved, *[family for family in SVG_FALLBACK_FAMILIES if family != resolved]]
    text = ", ".join(family if family == "sans-serif" else f"'{family}'" for family in listed)
    return b'font-family="' + text.encode("utf-8") + b'"'
