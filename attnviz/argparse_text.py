"""argparse's own words ("usage:", "options", its error messages) in the interface's language. argparse
asks ``gettext`` for them at the moment it prints; :func:`translate_argparse` routes those calls through
:func:`attnviz.i18n.tr`. Qt-free. The strings are listed with ``N_`` so the catalogue carries them."""

from __future__ import annotations

import argparse

from attnviz.i18n import N_, tr

ARGPARSE_STRINGS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"), N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"), N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"), N_("expected one argument"),
    N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("%(prog)s: error: %(message)s\n"),
    N_("can't open '%(filename)s': %(error)s"), N_("ignored explicit argument %r"),
    N_("expected %s argument"), N_("expected %s arguments"),
)


def _ngettext(singular: str, plural: str, count: int) -> str:
    return tr(singular if count == 1 else plural)


def translate_argparse() -> None:
    """From now on argparse prints its own words through :func:`tr` (English stays English)."""
    argparse._ = tr  # type: ignore[attr-defined]  # argparse looks its gettext up at call time
    argparse.ngettext = _ngettext  # type: ignore[attr-defined]


def take_language_option(argv: list[str]) -> tuple[list[str], str | None]:
    """``argv`` without its ``--lang CODE`` / ``--lang=CODE`` (anywhere before a ``--``), and that code (None
    when absent). Taken out before any parser is built: the parsers' help is written in that language."""
    rest: list[str] = []
    code: str | None = None
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            rest += argv[index:]
            break
        if arg == "--lang" and index + 1 < len(argv):
            code, index = argv[index + 1], index + 2
            continue
        if arg.startswith("--lang="):
            code = arg.split("=", 1)[1]
        else:
            rest.append(arg)
        index += 1
    return rest, code
