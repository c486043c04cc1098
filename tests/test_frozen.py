"""The standalone app (``bash packaging/build.sh`` → dist/attnviz/) works without Python: every command
(translate, export, eval, train, figures, demo, --help) runs to exit code 0 and writes what it says, the
GUI starts and quits, it writes nothing inside its own folder, a path it cannot open is one clear line,
and the desktop entry installs per user. (A module PyInstaller misses, one a command imports lazily such
as sacrebleu's lxml or torch's sympy, fails exactly these runs.)

CI builds the app before the suite (.ci/run); elsewhere these tests run when a build newer than the
sources is in dist/attnviz (or ATTNVIZ_FROZEN_APP names one) and are skipped, with the reason, if not.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.helpers import colour_count, pixels

ROOT = Path(__file__).resolve().parent.parent


def _built_app() -> Path | None:
    named = os.environ.get("ATTNVIZ_FROZEN_APP")
    binary = Path(named) if named else ROOT / "dist" / "attnviz" / "attnviz"
    if not binary.is_file():
        return None
    newest_source = max(path.stat().st_mtime for path in (ROOT / "attnviz").rglob("*.py"))
    return binary if named or binary.stat().st_mtime >= newest_source else None


APP = _built_app()
pytestmark = pytest.mark.skipif(APP is None, reason="no standalone build newer than the sources in dist/attnviz "
                                                    "(bash packaging/build.sh makes one)")


def _run(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    assert APP is not None
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run([str(APP), *args], capture_output=True, text=True, timeout=timeout,
                          env={**clean, **(env or {})}, cwd="/")


def _ok(*args: str, env: dict[str, str] | None = None, timeout: int = 600) -> str:
    """Run the frozen app; its stdout, once it has exited with 0 and without a traceback."""
    done = _run(*args, env=env, timeout=timeout)
    assert done.returncode == 0, f"attnviz {' '.join(args)}: exit {done.returncode}\n{done.stderr}"
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    return done.stdout


def _snapshot(folder: Path) -> dict[str, float]:
    return {str(path.relative_to(folder)): path.lstat().st_mtime for path in folder.rglob("*")}


def test_the_frozen_cli_translates_and_exports_a_real_png(tmp_path):
    assert APP is not None
    before = _snapshot(APP.parent)
    done = _run("translate", "--text", "i'm home .")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and done.stdout.count("\n") == 1  # one French line
    out = tmp_path / "figures"
    done = _run("export", "--text", "i'm home .", "--out", str(out), "--format", "png", "--step", "1",
                env={"HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    pngs = sorted(out.glob("*.png"))
    assert pngs and pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert colour_count(pixels(pngs[0])) > 20  # a heatmap, not a blank page
    assert _snapshot(APP.parent) == before  # nothing written inside the app's own folder


def test_the_frozen_gui_starts_decodes_and_quits(tmp_path):
    assert APP is not None
    before = _snapshot(APP.parent)
    done = _run("--text", "i'm home .", "--quit-when-decoded", "--settings", str(tmp_path / "s.ini"),
                "--log", str(tmp_path / "app.log"), env={"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "last_checkpoint" in (tmp_path / "s.ini").read_text()
    assert _snapshot(APP.parent) == before


def test_the_desktop_entry_installs_for_this_user_only(tmp_path):
    assert APP is not None
    data = tmp_path / "share"
    done = subprocess.run(["bash", str(APP.parent / "install-desktop.sh")], capture_output=True, text=True,
                          env={**os.environ, "XDG_DATA_HOME": str(data)}, timeout=600)
    assert done.returncode == 0, done.stderr
    entry = (data / "applications" / "attnviz.desktop").read_text()
    assert f'Exec="{APP}" --open %f' in entry and "Icon=attnviz" in entry
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "attnviz.svg").read_text().startswith("<")


def test_the_frozen_help_names_every_command_and_each_command_has_help():
    from attnviz.cli import COMMANDS

    assert all(name in _ok("--help") for name in COMMANDS)
    for name in COMMANDS:
        assert _ok(name, "--help").startswith(f"usage: attnviz {name}")


def test_the_frozen_demo_trains_the_parametric_kernel_regression():
    out = _ok("demo")  # torch's optimiser imports torch._dynamo, which imports sympy
    assert "non-parametric epanechnikov" in out
    assert re.search(r"parametric +learned w=\d+\.\d\d +loss [\d.]+ -> [\d.]+", out), out
    assert "0.629  0.231  0.140  0.000  0.000" in out


def test_the_frozen_eval_scores_the_shipped_model_on_its_own_translation(tmp_path):
    french = _ok("translate", "--text", "i'm home .").strip()
    data = tmp_path / "pairs.tsv"
    data.write_text(f"i'm home .\t{french}\n", encoding="utf-8")
    assert _ok("eval", "--data", str(data)).strip() == "BLEU 100.00 on 1 source sentences"  # sacrebleu, lxml


def test_the_frozen_train_writes_checkpoints_that_load_and_translate(tmp_path):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from tests.tiny import write_reversal_data

    kernel = tmp_path / "kernel.safetensors"
    assert "learned w=" in _ok("train", "kernel-regression", "--out", str(kernel), "--epochs", "5")
    assert load_checkpoint(kernel).training["loss_after"] < load_checkpoint(kernel).training["loss_before"]
    data = write_reversal_data(tmp_path / "reverse.tsv", n=200)
    model = tmp_path / "rnn-dot.safetensors"
    out = _ok("train", "rnn-dot", "--data", str(data), "--out", str(model), "--epochs", "2", "--stop-after", "1",
              "--seed", "1", "--device", "cpu", "--arch", '{"num_hiddens": 16, "embed_size": 8, "num_layers": 1}')
    assert "validation BLEU" in out
    assert load_checkpoint(model).training["epochs_completed"] == 1
    assert len(_ok("translate", "--checkpoint", str(model), "--text", "a b c").splitlines()) == 1


def test_the_frozen_figures_renders_every_book_figure(tmp_path):
    from attnviz import gallery

    # (the standalone app carries no transformers: the supplement on today's models is left out of its gallery)
    GALLERY = tuple(entry for entry in gallery.GALLERY if not entry.needs_transformers)
    out = tmp_path / "book"
    said = _ok("figures", "--out", str(out), "--format", "png,csv", env={"HOME": str(tmp_path)})
    assert said.startswith(f"wrote {len(GALLERY)} figures")
    # (named by the default edition's numbers: d2l 0.17 / 第二版, its supplementary figures "supplement-…")
    assert sorted(png.stem for png in out.glob("*.png")) == sorted(entry.file_stem("0.17") for entry in GALLERY)
    assert all(colour_count(pixels(png)) > 20 for png in out.glob("*.png"))  # drawn, not blank
    losses = [float(line.split(",")[2]) for line in (out / "10.2-parametric-loss.csv").read_text().splitlines()[1:]]
    assert len(losses) == 6 and losses[-1] < losses[0]  # torch's SGD (and so sympy) ran in the frozen app
    assert (out / "index.html").read_text(encoding="utf-8").count("<a href=") >= len(GALLERY)


def test_the_frozen_export_writes_a_flipbook_and_a_kernel_regression_fit(tmp_path):
    out = tmp_path / "flipbook"
    _ok("export", "--text", "i'm home .", "--out", str(out), "--flipbook", env={"HOME": str(tmp_path)})
    assert (out / "cross_layer1_head1_flipbook.gif").read_bytes()[:6] == b"GIF89a"  # Pillow
    assert (out / "cross_layer1_head1_flipbook.pdf").read_bytes()[:5] == b"%PDF-"
    assert APP is not None
    kernel = APP.parent / "_internal" / "models" / "kernel-regression.safetensors"
    fit = tmp_path / "fit"
    _ok("export", "--checkpoint", str(kernel), "--out", str(fit), "--format", "png", env={"HOME": str(tmp_path)})
    assert [colour_count(pixels(png)) > 20 for png in sorted(fit.glob("*.png"))] == [True] * 4


def test_the_frozen_app_says_what_a_named_pipe_is(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)  # never opened: with no writer, that would block
    done = _run(str(pipe))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"attnviz: error: {pipe} is a named pipe (FIFO), not a file: reading a pipe "
                                        "can wait forever for a writer; attnviz opens a checkpoint (.safetensors), "
                                        "a saved session (.json) or a Hugging Face model folder"]


def test_the_frozen_export_renders_a_saved_session(tmp_path):
    import json

    from attnviz.session_file import SavedSession, sha256_of, write_session

    assert APP is not None
    checkpoint = APP.parent / "_internal" / "models" / "transformer.safetensors"
    session = write_session(SavedSession(checkpoint, sha256_of(checkpoint), "i'm home .", plan=(None, None),
                                         position=1), tmp_path / "s.attnviz.json")
    out = tmp_path / "out"
    _ok("export", "--session", str(session), "--out", str(out), "--format", "csv", env={"HOME": str(tmp_path)})
    assert (out / "cross_layer1_head1_step02.csv").read_text().count("\n") == 3  # header, <bos> and one token
    assert json.loads((out / "attnviz-export.json").read_text())["sentence"] == "i'm home ."


def test_the_frozen_app_says_a_hugging_face_folder_needs_the_source_install(tmp_path):
    """transformers is not bundled: a model folder, and to-hf, get one sentence and exit 2."""
    pytest.importorskip("transformers")
    from tests.hf_folders import make_folder

    folder = make_folder("gpt2", tmp_path / "gpt2")
    for args in (("translate", "--checkpoint", str(folder), "--text", "the house ."),
                 ("to-hf", "--out", str(tmp_path / "out"))):
        done = _run(*args)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and "needs the transformers package" in lines[0] and "source" in lines[0], lines
    assert not (tmp_path / "out").exists()


def test_the_frozen_app_speaks_chinese_and_carries_its_font_and_catalogues(tmp_path):
    assert APP is not None
    internal = APP.parent / "_internal"
    for carried in ("resources/fonts/NotoSansCJKsc-Regular-subset.otf", "resources/i18n/attnviz_zh_CN.qm",
                    "resources/i18n/attnviz_zh_CN.ts", "resources/i18n/qt_extra_zh_CN.qm",
                    "PySide6/Qt/translations/qtbase_zh_CN.qm"):
        assert (internal / carried).is_file(), carried
    assert _ok("--lang", "zh_CN", "translate", "--help").startswith("用法：")
    out = tmp_path / "figures"
    _ok("--lang", "zh_CN", "export", "--text", "i'm home .", "--out", str(out), "--format", "svg,pdf", "--step", "1",
        env={"HOME": str(tmp_path)})
    svg = next(out.glob("*.svg")).read_text(encoding="utf-8")
    assert "注意力" in svg and "'Noto Sans CJK SC'" in svg
    assert b"NotoSansCJKsc" in next(out.glob("*.pdf")).read_bytes()
    done = _run("--lang", "zh_CN", "--text", "i'm home .", "--quit-when-decoded", "--settings", str(tmp_path / "s.ini"),
                "--log", str(tmp_path / "app.log"), env={"QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_the_frozen_app_carries_the_user_guide_with_every_link_whole():
    """Help ▸ User guide opens the bundle's site/index.html (attnviz/paths.py: USER_GUIDE under sys._MEIPASS, the
    _internal folder): build.sh builds the guide strictly and the spec carries it; every page, image and link of
    it is there, and nothing is loaded from the network."""
    import importlib.util

    assert APP is not None
    site = APP.parent / "_internal" / "site"
    for page in ("index.html", "window.html", "images.html", "columns.html", "images/screenshot.png"):
        assert (site / page).is_file(), page
    spec = importlib.util.spec_from_file_location("check_docs", ROOT / "scripts" / "check_docs.py")
    assert spec is not None and spec.loader is not None
    check_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_docs)
    problems, checked = check_docs.site_problems(site)
    assert problems == [] and checked > 100
