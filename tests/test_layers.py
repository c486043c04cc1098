"""The import contract: the core, the session, the figures and training never import Qt; the GUI never
imports torch (it receives numpy arrays in plain dataclasses); the renderers import neither widgets nor the
window, and the CLI reaches them without the window's code. Checked on the source, every import
statement, also those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "attnviz"
QT = ("PySide6", "pyqtgraph", "shiboken6")
RULES = {  # package folder or module -> top-level packages it must never import
    "core": QT, "session": QT, "figures": QT, "training": QT, "paths.py": QT,
    "gui": ("torch", "safetensors", "attnviz.core.checkpoints.checkpoint", "attnviz.core.models.loaded",
            "attnviz.core.decoding.stepping", "attnviz.core.decoding.beam_search", "attnviz.training"),
    # the renderers serve the window and the CLI alike: no widgets, no window, no model
    "render": ("torch", "safetensors", "PySide6.QtWidgets", "attnviz.gui", "attnviz.session",
               "attnviz.core.checkpoints.checkpoint", "attnviz.core.models.loaded", "attnviz.core.decoding.stepping",
               "attnviz.core.decoding.beam_search", "attnviz.training"),
    "cli.py": ("attnviz.gui",),  # the CLI paints through attnviz.render, never through the window's code
    "commands": ("attnviz.gui",),
}


def imports_of(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return found


def forbidden(name: str, banned: tuple[str, ...]) -> bool:
    return any(name == b or name.startswith(b + ".") for b in banned)


@pytest.mark.parametrize("where", sorted(RULES))
def test_layer_never_imports_what_it_must_not(where):
    root = PACKAGE / where
    files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
    assert files
    broken = [f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}"
              for path in files for line, name in imports_of(path) if forbidden(name, RULES[where])]
    assert not broken, "\n".join(broken)


def test_the_contract_catches_a_violation(tmp_path):
    sample = tmp_path / "bad.py"
    sample.write_text("def late():\n    from PySide6 import QtCore\n    import torch.nn\n")
    names = [name for _, name in imports_of(sample)]
    assert forbidden(names[0], QT) and forbidden(names[1], RULES["gui"])

