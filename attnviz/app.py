"""Entry point of ``attnviz``, ``python -m attnviz`` and ``main.py``.

``attnviz COMMAND …`` runs a CLI command (see :mod:`attnviz.cli`).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    from attnviz import cli

    if not args:
        args = ["demo"]
    return cli.main(args)
