"""The main window's construction: the docks' panels built when first needed vs every panel built with the window.

    .venv/bin/python bench/window_start.py            # medians of 8 windows each
    .venv/bin/python bench/window_start.py --quick    # a smoke run (tests/test_bench.py)

The real main window (offscreen), the session run synchronously, in one process: a first window (not counted)
measures every panel's sizes, as the first window of a process does; then, alternately, a window built as the
app and the tests build it (``MainWindow(...)``: the panels of the docks not on screen are not built) and one
whose panels are all built on the spot (``Docks.build_all()`` after it: what every window cost before). CPU
seconds of this process (``time.process_time``), per window: construction alone, and construction, show and the
shipped Transformer loaded and laid out (what a GUI test's ``window`` fixture does).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--windows", type=int, default=8, help="windows of each kind (default 8)")
    parser.add_argument("--quick", action="store_true", help="two windows of each kind: a smoke run")
    args = parser.parse_args()
    count = 2 if args.quick else args.windows
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtWidgets

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    from attnviz.gui.docks import PANELS
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.paths import MODELS_DIR
    from attnviz.session import InlineRunner
    from tests.helpers import settle

    def one(build_all: bool) -> tuple[float, float, int]:
        """(construction CPU s, construction + show + Transformer loaded CPU s, panels built once loaded)."""
        start = time.process_time()
        window = MainWindow(Settings(Path(tempfile.mkdtemp()) / "settings.ini"), InlineRunner())
        if build_all:
            assert window.panels is not None
            window.panels.build_all()
        built = time.process_time()
        window.show()
        window.load(MODELS_DIR / "transformer.safetensors")
        settle(window)
        loaded = time.process_time()
        assert window.panels is not None
        panels = window.panels.panels
        count = sum(panels.built(name) for name in panels)
        window.close()
        window.deleteLater()
        app.processEvents()
        gc.collect()
        return built - start, loaded - start, count

    one(False)  # (the process's first window measures every panel)
    runs: dict[bool, list[tuple[float, float, int]]] = {False: [], True: []}
    for _ in range(count):
        for build_all in (False, True):
            runs[build_all].append(one(build_all))
    load = os.getloadavg()
    print(f"| window | panels built | construction, CPU s | + show, Transformer loaded, CPU s |  "
          f"(medians of {count}; load {load[0]:.2f})")
    print("| --- | --- | --- | --- |")
    medians = {}
    for build_all, label in ((True, "every panel built (before)"), (False, "panels built when needed")):
        rows = runs[build_all]
        medians[build_all] = (statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows))
        print(f"| {label} | {rows[-1][2]} of {len(PANELS)} | {medians[build_all][0]:.3f} | "
              f"{medians[build_all][1]:.3f} |")
    print(f"| ratio | | {medians[True][0] / medians[False][0]:.2f}× | {medians[True][1] / medians[False][1]:.2f}× |")


if __name__ == "__main__":
    main()
