"""The code map (docs/architecture.md, the user guide's Architecture page) against the tree: every room named
once, none stale, imports only down the table, and no import circle between modules (scripts/import_circles.py,
the command the map names)."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from tests.helpers import CHILD_CAP_S

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"`(attnviz/[\w/.]*)`")
CODE_MAP_PAGE = ROOT / "docs" / "architecture.md"


def _import_circles():
    spec = importlib.util.spec_from_file_location("import_circles", ROOT / "scripts" / "import_circles.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _code_map() -> list[tuple[list[str], list[str]]]:
    """The table's rows in order: (the room's paths, the paths it may import from)."""
    text = CODE_MAP_PAGE.read_text(encoding="utf-8")
    section = text.split("\n## Code map\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and PATH.search(cells[0]):
            rows.append((PATH.findall(cells[0]), PATH.findall(cells[2])))
    return rows


def _rooms_in_tree(module_names: dict[str, Path], named: set[str]) -> dict[str, str]:
    """Module -> its room's path as the map writes it: a file the map names by itself (a module of attnviz/
    itself, or a package's face), else its package's folder."""
    rooms = {}
    for name, path in module_names.items():
        relative = path.relative_to(ROOT).as_posix()
        rooms[name] = relative if relative in named or relative.count("/") == 1 else relative.rsplit("/", 1)[0] + "/"
    return rooms


def test_every_room_is_named_once_and_no_name_is_stale():
    circles = _import_circles()
    rows = _code_map()
    named = [path for paths, _ in rows for path in paths]
    assert len(named) == len(set(named)), sorted(p for p in named if named.count(p) > 1)
    rooms = set(_rooms_in_tree(circles.module_names(ROOT), set(named)).values())
    assert sorted(rooms - set(named)) == [], "rooms the code map does not name"
    assert sorted(set(named) - rooms) == [], "names in the code map that are not rooms of the tree"


def test_imports_run_down_the_table():
    circles = _import_circles()
    rows = _code_map()
    row_of = {path: index for index, (paths, _) in enumerate(rows) for path in paths}
    room_of = _rooms_in_tree(circles.module_names(ROOT), set(row_of))
    wrong = []
    for module, targets in circles.import_graph(ROOT).items():
        row = row_of[room_of[module]]
        allowed = set(rows[row][0]) | set(rows[row][1])
        wrong += [f"{module} -> {target} ({room_of[target]} is not in its row)" for target in sorted(targets)
                  if room_of[target] not in allowed]
    assert wrong == []
    for index, (paths, imports) in enumerate(rows):
        assert all(row_of[target] > index for target in imports), f"{paths} names a room above it or unknown"


def test_no_import_circle_between_modules():
    done = subprocess.run([sys.executable, "scripts/import_circles.py"], cwd=ROOT, capture_output=True, text=True,
                          timeout=CHILD_CAP_S)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().endswith(" 0 circles")


def test_the_circle_finder_finds_a_circle(tmp_path):
    """The checker itself: a made-up package with a circle through an import inside a function and one under
    TYPE_CHECKING is reported."""
    package = tmp_path / "attnviz"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("def f():\n    from attnviz import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from attnviz.a import f\n")
    (package / "c.py").write_text("import attnviz.a\n")
    circles = _import_circles()
    graph = circles.import_graph(tmp_path)
    assert graph["attnviz.c"] == {"attnviz.a"}
    assert circles.circles(graph) == [["attnviz.a", "attnviz.b"]]
