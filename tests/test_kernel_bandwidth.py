"""The kernel-regression bandwidth h a person may pick is one range: the window's Bandwidth h box, a saved
session and ``attnviz export --bandwidth`` take the same values and refuse the same ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.paths import MODELS_DIR
from attnviz.session import InlineRunner
from attnviz.session_file import SavedKernel, SavedSession, SessionFileError, read_session, write_session
from tests.helpers import run_cli

KERNEL_MODEL = MODELS_DIR / "kernel-regression.safetensors"
TRIED = (0.01, 0.04, 0.05, 1.0, 5.0, 5.05, 10.0, 100.0)  # (two decimals at most: what the box shows)


def _kernel_window(qtbot, tmp_path: Path, name: str) -> MainWindow:
    window = MainWindow(Settings(tmp_path / f"{name}.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    window.load(KERNEL_MODEL)
    return window


@pytest.mark.parametrize("end", ["minimum", "maximum"])
def test_a_session_saved_at_either_end_of_the_bandwidth_box_restores(qtbot, tmp_path, end):
    window = _kernel_window(qtbot, tmp_path, "saved")
    box = window.panels.panels["kernel"].bandwidth
    bandwidth = getattr(box, end)()
    box.setValue(bandwidth)  # the user's pick: the session fits it
    assert window.session.state.kernel.bandwidth == bandwidth
    path = window.save_session(tmp_path / "k.attnviz.json")

    other = _kernel_window(qtbot, tmp_path, "opened")
    assert other.open_session(path)
    assert other.session.state.kernel.bandwidth == bandwidth
    assert other.panels.panels["kernel"].bandwidth.value() == bandwidth


def test_the_window_a_session_and_the_cli_take_the_same_bandwidths(qtbot, tmp_path, capsys):
    box = _kernel_window(qtbot, tmp_path, "w").panels.panels["kernel"].bandwidth
    taken = []
    for bandwidth in TRIED:
        box.setValue(bandwidth)
        in_window = box.value() == bandwidth  # (the box keeps a value outside its range at its nearest end)
        code, _, err = run_cli(capsys, "export", "--checkpoint", str(KERNEL_MODEL), "--out",
                               str(tmp_path / f"out-{bandwidth}"), "--format", "csv", "--bandwidth", str(bandwidth))
        assert (code == 0) == in_window, (bandwidth, err)
        if not in_window:
            assert "--bandwidth must be from 0.05 to 5" in err
        path = write_session(SavedSession(KERNEL_MODEL, "", kernel=SavedKernel("gaussian", bandwidth, 2.5)),
                             tmp_path / f"s-{bandwidth}.attnviz.json")
        try:
            in_session = read_session(path).kernel == SavedKernel("gaussian", bandwidth, 2.5)
        except SessionFileError as error:
            in_session = False
            assert "bandwidth must be from 0.05 to 5.0" in str(error)
        assert in_session == in_window, bandwidth
        taken += [bandwidth] if in_window else []
    assert taken == [0.05, 1.0, 5.0]  # both ends in, a value refused beyond each
