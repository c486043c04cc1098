"""No display needed (issue 49 §4): the commands that write numbers (CSV, NPY, JSON, lines on stdout) never import
PySide6 or pyqtgraph, and a picture asked for where Qt cannot start is one sentence naming the missing library and
the CSV-only way, exit 2, nothing written.

One child process with PySide6 and pyqtgraph made unimportable (a meta-path finder that refuses them: PySide6 as a
machine without libEGL refuses it, pyqtgraph as not installed) runs every command in turn, as ``attnviz`` would;
its files and lines must equal a normal run's, made in this process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import CHILD_CAP_S, pairs_file, run_cli

ROOT = Path(__file__).resolve().parent.parent
MISSING = "libEGL.so.1: cannot open shared object file: No such file or directory"

# The child: Qt refused, each command run through attnviz.cli.main, what each printed and returned as JSON on the
# real stdout, with the Qt modules that got imported anyway.
CHILD = f"""
import contextlib, io, json, sys

class NoQt:
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in ("PySide6", "shiboken6"):
            raise ImportError({MISSING!r}, name=name)
        if top == "pyqtgraph":
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NoQt())
from attnviz.cli import main

runs = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    runs.append({{"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()}})
qt = sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph"))
print(json.dumps({{"runs": runs, "qt": qt}}))
"""


def _without_qt(runs: list[list[str]]) -> tuple[list[dict], list[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", LANGUAGE="en")
    done = subprocess.run([sys.executable, "-c", CHILD, json.dumps(runs)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=CHILD_CAP_S, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.splitlines()[-1])
    return said["runs"], said["qt"]


def _numbers(folder: Path) -> dict[str, str]:
    """Every file the run wrote but the sidecar (it holds the seconds taken), as text (NPY as its values)."""
    files = {}
    for path in sorted(folder.iterdir()):
        if path.suffix == ".npy":
            files[path.name] = repr(np.load(path).tolist())
        elif path.name != "attnviz-export.json":
            files[path.name] = path.read_text(encoding="utf-8")
    return files


def test_numbers_need_no_qt_and_pictures_without_it_are_one_sentence(capsys, tiny_models, tmp_path):
    from PIL import Image

    from attnviz.paths import MODELS_DIR

    transformer = str(tiny_models["transformer"][0])
    pairs = str(pairs_file(tiny_models, tmp_path, 12))
    image = tmp_path / "one.png"
    Image.fromarray(np.random.default_rng(2).integers(0, 256, (28, 28), dtype=np.uint8), mode="L").save(image)
    writing = {  # command -> its arguments but --out
        "heads": ["heads", "--checkpoint", transformer, "--data", pairs, "--format", "csv", "--seeds", "1"],
        "explain": ["explain", "--checkpoint", transformer, "--data", pairs, "--limit", "3", "--ig-steps", "2",
                    "--format", "csv"],
        "export": ["export", "--checkpoint", transformer, "--text", "a b c", "--step", "all", "--format",
                   "csv,npy"],
        "export-kernel": ["export", "--checkpoint", str(MODELS_DIR / "kernel-regression.safetensors"),
                          "--format", "csv"],
        "figures": ["figures", "--only", "10.6", "--format", "csv"],
    }
    printing = {  # command -> its arguments (what it prints on stdout is its output)
        "eval": ["eval", "--checkpoint", transformer, "--data", pairs, "--beam", "2"],
        "translate": ["translate", "--checkpoint", transformer, "--text", "a b c d"],
        "fill-mask": ["fill-mask", "--checkpoint", str(MODELS_DIR / "encoder-only.safetensors"), "--device", "cpu",
                      "--text", "the [MASK] is on the table ."],
        "classify": ["classify", "--checkpoint", str(MODELS_DIR / "vit.safetensors"), "--device", "cpu",
                     str(image)],
    }
    pictures = {  # a picture asked for: refused before any work, with the CSV-only way
        "heads": ["heads", "--checkpoint", transformer, "--data", pairs, "--format", "png,csv"],
        "export": ["export", "--checkpoint", transformer, "--text", "a b c"],  # (its default: png,csv)
        "figures": ["figures", "--only", "10.6", "--format", "svg"],
        "explain": ["explain", "--checkpoint", transformer, "--data", pairs, "--format", "pdf"],
    }
    runs = [[*args, "--out", str(tmp_path / "no-qt" / name)] for name, args in writing.items()]
    runs += list(printing.values())
    runs += [[*args, "--out", str(tmp_path / "refused" / name)] for name, args in pictures.items()]
    said, qt = _without_qt(runs)
    assert qt == []  # not even a module of it imported (transitively)
    for (name, args), run in zip(writing.items(), said, strict=False):
        assert run["code"] == 0, (name, run["stderr"])
        code, _, stderr = run_cli(capsys, *args, "--out", str(tmp_path / "normal" / name))
        assert code == 0, stderr
        normal, blocked = _numbers(tmp_path / "normal" / name), _numbers(tmp_path / "no-qt" / name)
        assert any(file.endswith(".csv") for file in normal), name
        assert blocked == normal, name
    for (name, args), run in zip(printing.items(), said[len(writing):], strict=False):
        code, stdout, stderr = run_cli(capsys, *args)
        assert code == 0 and stdout.strip(), (name, stderr)
        assert (run["code"], run["stdout"]) == (0, stdout), name
    for name, run in zip(pictures, said[len(writing) + len(printing):], strict=True):
        lines = run["stderr"].strip().splitlines()
        assert run["code"] == 2 and len(lines) == 1, (name, run["stderr"])
        assert lines[0] == ("attnviz: error: pictures (png, svg, pdf) are drawn with Qt, which cannot start on this "
                            "machine: the system library libEGL.so.1 is missing (on Debian or Ubuntu: apt-get "
                            "install libegl1); write the numbers alone with --format csv, which needs no display")
        assert not (tmp_path / "refused" / name).exists()


@pytest.mark.parametrize(("error", "reason"), [
    (ImportError("libxkbcommon.so.0: cannot open shared object file: No such file or directory"),
     "the system library libxkbcommon.so.0 is missing (on Debian or Ubuntu: apt-get install libxkbcommon0)"),
    (ImportError("libGL.so.1: cannot open shared object file"),
     "the system library libGL.so.1 is missing (on Debian or Ubuntu: apt-get install libgl1)"),
    (ModuleNotFoundError("No module named 'PySide6.QtGui'", name="PySide6.QtGui"),
     "the Python package PySide6 is not installed"),
])
def test_the_sentence_names_what_is_missing(error, reason):
    from attnviz.render.offscreen import unavailable_message

    assert unavailable_message(error) == (
        f"pictures (png, svg, pdf) are drawn with Qt, which cannot start on this machine: {reason}; write the "
        "numbers alone with --format csv, which needs no display")
