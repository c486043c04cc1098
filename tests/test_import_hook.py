"""PySide6's import hook keeps no module's source in memory once attnviz's GUI is imported, and still tells
modules that use PySide6 from the others (attnviz/gui/import_hook.py). Without it, the app held 19 MB of
source text (~40 MB resident) once torch was imported."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import CHILD_CAP_S

ROOT = Path(__file__).resolve().parent.parent

# A fresh process, imported in the app's order: Qt, the window's modules, then torch (the session loads it).
PROBE = """
import linecache, sys
sys.path.insert(0, {folder!r})
from PySide6 import QtWidgets
import attnviz.gui.main_window, attnviz.session, torch
import uses_qt, plain
feature = sys.modules["shibokensupport.feature"].pyside_feature_dict
print(sorted(path for path in linecache.cache if path.startswith({folder!r})))
print(feature["uses_qt"], feature["plain"])
print(sum(len(line) for entry in linecache.cache.values() if len(entry) > 2 for line in entry[2]))
"""


def test_imported_modules_leave_no_source_in_memory_and_pyside_still_knows_which_use_it(tmp_path):
    (tmp_path / "uses_qt.py").write_text("from PySide6 import QtCore\n" + "x = 1\n" * 1000)
    (tmp_path / "plain.py").write_text("y = 2\n" * 1000)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE.format(folder=str(tmp_path))], capture_output=True,
                          text=True, timeout=CHILD_CAP_S, env=env)
    assert done.returncode == 0, done.stderr
    cached, answers, text = done.stdout.splitlines()
    assert cached == "[]"  # neither module's lines are kept
    assert answers == "0 -1"  # PySide6's verdicts: "uses PySide6" (0) and "ignore this module" (-1)
    assert int(text) < 2_000_000  # what else is cached (torch reads a few of its files itself): was 19 MB
