"""``attnviz PATH`` with a path that is not a regular file (a named pipe, a folder, a device, a missing file):
one line saying what it is and why it cannot be opened, exit code 2 — never argparse's "invalid choice", never
a read that blocks. With ``--open PATH`` (the desktop entry) the window starts and shows that message.
The FIFOs here are made with os.mkfifo and never opened: opening one with no writer would block.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz.unopenable import why_unopenable
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parent.parent


def test_a_named_pipe_is_named_as_one_and_exits_2(tmp_path):
    pipe = tmp_path / "pipe.safetensors"
    os.mkfifo(pipe)
    done = subprocess.run([sys.executable, "-m", "attnviz", str(pipe)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT, stdin=subprocess.DEVNULL)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr == (f"attnviz: error: {pipe} is a named pipe (FIFO), not a file: reading a pipe can wait "
                           "forever for a writer; attnviz opens a checkpoint (.safetensors), a saved session "
                           "(.json) or a Hugging Face model folder\n")


@pytest.mark.parametrize(("make", "says"), [
    (lambda tmp: str(tmp), "is a folder, not a file, with no config.json (not a Hugging Face model)"),
    (lambda tmp: str(tmp) + os.sep, "is a folder, not a file"),
    (lambda tmp: "/dev/null", "/dev/null is a character device, not a file: reading a device can block"),
    (lambda tmp: str(tmp / "missing.safetensors"), "missing.safetensors: no such file or folder"),
    (lambda tmp: "missing-session.json", "missing-session.json: no such file or folder"),
    (lambda tmp: (tmp / "link").symlink_to(tmp / "gone") or str(tmp / "link"), "which does not exist"),
])
def test_a_path_that_is_not_a_regular_file_is_one_line_and_exit_2(capsys, tmp_path, make, says):
    code, out, err = run_cli(capsys, make(tmp_path))
    assert code == 2 and out == ""
    assert err.startswith("attnviz: error: ") and says in err and len(err.splitlines()) == 1
    assert "invalid choice" not in err and "COMMAND" not in err


def test_a_mistyped_command_still_lists_the_commands(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no file of that name here
    code, _, err = run_cli(capsys, "tranlsate")
    assert code == 2 and "invalid choice: 'tranlsate'" in err and "translate" in err


def test_control_characters_in_the_path_are_escaped(capsys, tmp_path):
    folder = tmp_path / "a\x1b]0;owned\x07b"
    folder.mkdir()
    code, _, err = run_cli(capsys, str(folder))
    assert code == 2 and "\x1b" not in err and "\\x1b" in err and "is a folder" in err


def _run_window(tmp_path: Path, *args: str) -> int:
    """The real start-up (attnviz.app.main → run_gui) in this process, until the start-up sentence is decoded."""
    from attnviz.app import main

    root = logging.getLogger()
    handlers = list(root.handlers)
    try:
        return main([*args, "--text", "a b c", "--quit-when-decoded", "--settings", str(tmp_path / "s.ini"),
                     "--log", str(tmp_path / "app.log")])
    finally:
        for handler in set(root.handlers) - set(handlers):  # run_gui logs to stderr and its file: undo
            root.removeHandler(handler)
            handler.close()


def test_the_desktop_entry_passing_a_named_pipe_shows_why_in_the_window(qapp, tmp_path, tiny_models, errors):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    checkpoint = tiny_models["transformer"][0]
    assert _run_window(tmp_path, "--open", str(pipe), "--checkpoint", str(checkpoint)) == 0
    assert errors == [f"{pipe} is a named pipe (FIFO), not a file: reading a pipe can wait forever for a writer; "
                      "attnviz opens a checkpoint (.safetensors), a saved session (.json) or a Hugging Face model "
                      "folder"]
    assert f"last_checkpoint={checkpoint}" in (tmp_path / "s.ini").read_text()  # the window still works


def test_the_desktop_entry_passing_a_checkpoint_opens_it(qapp, tmp_path, tiny_models, errors):
    checkpoint = tiny_models["rnn-dot"][0]
    assert _run_window(tmp_path, "--open", str(checkpoint)) == 0
    assert errors == []
    assert f"last_checkpoint={checkpoint}" in (tmp_path / "s.ini").read_text()


def test_the_desktop_entry_passing_a_hugging_face_model_folder_opens_it(qapp, tmp_path, errors):
    pytest.importorskip("transformers")
    from tests.hf_folders import make_folder

    folder = make_folder("marian", tmp_path / "my-marian")
    assert why_unopenable(folder) is None and why_unopenable(tmp_path) is not None  # (a folder without config.json)
    assert _run_window(tmp_path, "--open", str(folder)) == 0
    assert errors == []
    assert f"last_checkpoint={folder}" in (tmp_path / "s.ini").read_text()
