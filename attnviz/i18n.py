"""The interface's language: every string a user reads goes through :func:`tr`. Qt- and torch-free.

One catalogue per language, ``resources/i18n/attnviz_<code>.ts`` (Qt Linguist's format: edit it in
``pyside6-linguist``; ``scripts/i18n.py update`` adds the strings new code asks for). The window translates
through Qt's own system: the set-up compiles the ``.ts`` into a ``.qm`` with ``pyside6-lrelease``, the app
loads it with a ``QTranslator`` and routes :func:`tr` to ``QCoreApplication.translate`` (:func:`set_backend`).
Outside the window (the CLI, figures drawn for an export, the gallery's ``index.html``) the same ``.ts`` is
read here with the standard library. Why not Qt's ``self.tr``: the core, the figures and the CLI must not
import Qt, and ``pyside6-lupdate`` only extracts strings from QObject methods, so one plain function serves
every layer and ``scripts/i18n.py`` extracts its calls (``tr("…")`` and ``N_("…")``) from the source.

Rules for callers: translate when the string is shown, not at import (the language is chosen after the
modules load): a module-level constant is marked with :func:`N_` and passed through :func:`tr` where it is
used. Translate the template, then format it: ``tr("Loaded {name}").format(name=name)``.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

from attnviz.paths import RESOURCES_DIR

ENGLISH = "en"
CHINESE = "zh_CN"
LANGUAGES = {ENGLISH: "English", CHINESE: "简体中文"}  # each named in its own language, as menus do
CONTEXT = "attnviz"  # the one Qt translation context every string lives in
I18N_DIR = RESOURCES_DIR / "i18n"

Backend = Callable[[str, str, "str | None"], str]  # (context, source, disambiguation) -> translation

_language = ENGLISH
_backend: Backend | None = None


def catalogue_path(code: str, suffix: str = ".ts") -> Path:
    return I18N_DIR / f"attnviz_{code}{suffix}"


def normalise(code: str | None) -> str | None:
    """``zh_CN.UTF-8``, ``zh-Hans``, ``zh`` → ``"zh_CN"``; ``en_GB``, ``C``, ``POSIX`` → ``"en"``; anything
    else → None (a language attnviz does not speak). Traditional Chinese (zh_TW, zh_HK) is not offered."""
    if not code:
        return None
    base = code.split(".")[0].split("@")[0].replace("-", "_").lower()
    if base in ("zh", "zh_cn", "zh_sg", "zh_hans", "zh_hans_cn"):
        return CHINESE
    if base in ("c", "posix") or base == "en" or base.startswith("en_"):
        return ENGLISH
    return None


def system_language(environ: Mapping[str, str] | None = None) -> str:
    """The language the system asks for, as POSIX looks it up (LANGUAGE, LC_ALL, LC_MESSAGES, LANG); English
    when none names a language attnviz speaks. (The window asks Qt's ``QLocale`` instead on Windows/macOS.)"""
    environ = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable, "")
        for candidate in value.split(":"):  # LANGUAGE is a list: the first attnviz speaks wins
            found = normalise(candidate)
            if found is not None:
                return found
        if value and variable != "LANGUAGE":
            return ENGLISH  # the first variable set decides, as setlocale does
    return ENGLISH


def set_language(code: str | None) -> str:
    """Speak ``code`` from now on (None or "": the system's language); returns the language chosen.
    Raises ValueError for a language attnviz does not speak."""
    global _language
    chosen = system_language() if not code else normalise(code)
    if chosen is None:
        raise ValueError(tr("attnviz speaks {languages}; not {code}").format(languages=", ".join(LANGUAGES),
                                                                             code=repr(code)))
    _language = chosen
    return chosen


def language() -> str:
    return _language


def set_backend(backend: Backend | None) -> None:
    """Route :func:`tr` through ``backend`` (the window: ``QCoreApplication.translate``); None: the ``.ts``."""
    global _backend
    _backend = backend


def tr(text: str, disambiguation: str | None = None) -> str:
    """``text`` in the interface's language (``text`` itself in English, or when the catalogue lacks it).
    ``disambiguation`` tells apart one English string that needs two translations."""
    if _language == ENGLISH or not text:
        return text
    if _backend is not None:
        return _backend(CONTEXT, text, disambiguation)
    return messages(_language).get((text, disambiguation or ""), text)


def N_(text: str) -> str:
    """Marks ``text`` for the catalogue without translating it: for module-level constants, which are
    translated with :func:`tr` where they are shown."""
    return text


@cache
def messages(code: str) -> dict[tuple[str, str], str]:
    """{(source, disambiguation): translation} of the finished messages in ``code``'s ``.ts`` ({} when it is
    missing or unreadable: the interface then stays in English rather than failing)."""
    try:
        root = ElementTree.parse(catalogue_path(code)).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    found = {}
    for message in root.iter("message"):
        source, translation = message.findtext("source"), message.find("translation")
        if source is None or translation is None or translation.get("type") in ("unfinished", "obsolete",
                                                                                 "vanished"):
            continue
        found[(source, message.findtext("comment") or "")] = translation.text or ""
    return {key: text for key, text in found.items() if text}
