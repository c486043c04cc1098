"""A settings file edited by hand, corrupted or unwritable never stops the app and is reported once."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.session import InlineRunner

ROOT = Path(__file__).resolve().parent.parent

CORRUPTED = """[General]
geometry=hello
state=hello
beam_size=1180591620717411303424
export_scale=nan
device=rm -rf /
last_checkpoint={long_name}
recent_files=@Invalid()
export_formats=exe, png
"""


def _corrupted(tmp_path: Path) -> Path:
    path = tmp_path / "bad.ini"
    path.write_text(CORRUPTED.format(long_name="/" + "x" * 300 + ".safetensors"))
    return path


def test_every_bad_value_falls_back_to_its_default_and_is_reported_once(qtbot, tmp_path):
    settings = Settings(_corrupted(tmp_path))
    window = MainWindow(settings, InlineRunner())
    qtbot.addWidget(window)
    window.show()
    assert window.beam_box.value() == 1 and window.session.state.beam_size == 1
    assert settings.export_scale == 2.0 and settings.device == "auto" and settings.export_formats == ["png"]
    assert window.session.state.device == "auto"
    message = window.statusBar().full_message
    for key in ("beam_size", "geometry", "device"):  # read at start-up, so reported at once
        assert key in message
    assert any("export_scale" in problem for problem in settings.problems)
    assert len(settings.problems) == len(set(settings.problems))


def test_a_huge_beam_in_the_settings_is_clamped_not_allocated(qtbot, tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[General]\nbeam_size=100000\n")
    settings = Settings(path)
    assert settings.beam_size == 1 and "beam_size" in settings.problems[0]


def test_the_app_starts_from_a_corrupted_settings_file(tmp_path):
    """No --checkpoint: the remembered 300-character path is unusable, so the shipped model opens."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--text", "i am home .", "--settings", str(_corrupted(tmp_path)),
         "--log", str(tmp_path / "app.log"), "--quit-when-decoded"],
        capture_output=True, text=True, timeout=600, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    log = (tmp_path / "app.log").read_text()
    assert "setting beam_size" in log and "unexpected error" not in log.lower()


def test_an_unwritable_settings_file_is_reported_once(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the settings folder should be")
    settings = Settings(blocker / "attnviz.ini")
    settings.beam_size = 3
    first = settings.sync()
    assert first is not None and "cannot be saved" in first and str(blocker) in first
    settings.beam_size = 4
    assert settings.sync() is None  # said once


@pytest.mark.parametrize("content", [
    b"\x00\xff\xfe garbage \x00",  # binary
    b"[General\nbeam_size=3\n",  # a section never closed
    b"[General]\njust a line\n",  # a line that is no setting
    "[General]\nbeam_size=2\n".encode("utf-16"),  # another encoding
])
def test_a_damaged_but_writable_settings_file_is_said_to_be_rewritten(tmp_path, content):
    path = tmp_path / "attnviz.ini"
    path.write_bytes(content)
    settings = Settings(path)
    assert settings.beam_size in (1, 2, 3)  # read: a default or what could be read
    settings.beam_size = 4
    message = settings.sync()
    assert message is not None and "not writable" not in message
    assert str(path) in message and "damaged" in message and "rewritten with your current settings" in message
    assert Settings(path).beam_size == 4  # what the message says happened
    settings.beam_size = 5
    assert settings.sync() is None  # said once


def test_a_last_image_that_has_gone_is_passed_over_quietly(qtbot, tmp_path, errors):
    """The image shown last is opened again by the next image model; one deleted since is not (a sample shows)."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    settings = Settings(tmp_path / "settings.ini")
    settings.last_image = str(tmp_path / "gone.png")
    window = MainWindow(settings, InlineRunner())
    qtbot.addWidget(window)
    assert window.session.image_path is None and not errors
