"""Python's cyclic garbage collector, run on the GUI thread only.

The interpreter collects on whichever thread allocates when a threshold is crossed. When that is the
worker (loading a model allocates a lot), Qt objects left in reference cycles are destroyed there, off
the GUI thread: Qt forbids it, and PySide6 can hang for good waiting for the GIL inside the destructor
(seen here: a worker loading a checkpoint froze the process). So automatic collection is turned off and
a timer on the GUI thread collects instead, generation by generation as the interpreter would
(pyqtgraph's ``GarbageCollector`` does the same).
"""

from __future__ import annotations

import gc

from PySide6 import QtCore

INTERVAL_MS = 500


class GuiThreadCollector(QtCore.QObject):
    """Turns automatic collection off and collects on a timer of the thread it lives on."""

    def __init__(self, parent: QtCore.QObject):
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.timer = QtCore.QTimer(self, interval=INTERVAL_MS)
        self.timer.timeout.connect(self.collect)
        gc.disable()
        self.timer.start()

    def collect(self) -> None:
        """Collect the oldest generation whose count passed its threshold (and the younger ones)."""
        counts = gc.get_count()
        generation = -1
        for index, (count, threshold) in enumerate(zip(counts, self.thresholds, strict=True)):
            if count <= threshold:
                break
            generation = index
        if generation >= 0:
            gc.collect(generation)


def collect_on_gui_thread() -> GuiThreadCollector | None:
    """Install the collector on the running QApplication (once; None without an application)."""
    app = QtCore.QCoreApplication.instance()
    if app is None:
        return None
    found = app.findChild(GuiThreadCollector)
    return found if found is not None else GuiThreadCollector(app)
