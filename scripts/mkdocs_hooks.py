"""MkDocs hooks of the user guide (mkdocs.yml: ``hooks``).

A page's prose may name a token such as <eos> or <pad> outside a code span (the column tables of
``attnviz/core/columns.py`` do): Markdown would pass it on as an HTML tag and the browser would show nothing.
``on_page_markdown`` writes every ``<`` outside code as ``&lt;``, so the reader sees what the page says.
(The guide's pages hold no HTML of their own.)
"""

from __future__ import annotations

import re

CODE = re.compile(r"(```.*?```|`[^`\n]*`)", re.S)  # fenced blocks and code spans, kept as they are


def escape_angle_brackets(markdown: str) -> str:
    """``markdown`` with each ``<`` outside fenced code and code spans written ``&lt;`` (indented code blocks
    are left alone too: a line of four leading spaces after a blank line)."""
    pieces = CODE.split(markdown)
    for index in range(0, len(pieces), 2):  # the even pieces are outside code
        lines = pieces[index].split("\n")
        for number, line in enumerate(lines):
            indented_code = line.startswith("    ") and not line.lstrip().startswith(("-", "|"))
            if not indented_code:
                lines[number] = line.replace("<", "&lt;")
        pieces[index] = "\n".join(lines)
    return "".join(pieces)


def on_page_markdown(markdown: str, **_: object) -> str:
    return escape_angle_brackets(markdown)
