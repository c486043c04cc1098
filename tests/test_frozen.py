"""The standalone app (``bash packaging/build.sh`` → dist/attnviz/) works without Python: the CLI
translates and exports, the GUI starts and quits, it writes nothing inside its own folder, and the
desktop entry installs per user.

CI builds the app before the suite (.ci/run); elsewhere these tests run when a build newer than the
sources is in dist/attnviz (or ATTNVIZ_FROZEN_APP names one) and are skipped, with the reason, if not.
"""

from __future__ import annotations

import os
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


def _run(*args: str, env: dict[str, str] | None = None, timeout: int = 120) -> subprocess.CompletedProcess[str]:
    assert APP is not None
    clean = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    return subprocess.run([str(APP), *args], capture_output=True, text=True, timeout=timeout,
                          env={**clean, **(env or {})}, cwd="/")


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
                          env={**os.environ, "XDG_DATA_HOME": str(data)}, timeout=60)
    assert done.returncode == 0, done.stderr
    entry = (data / "applications" / "attnviz.desktop").read_text()
    assert f'Exec="{APP}" --open %f' in entry and "Icon=attnviz" in entry
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "attnviz.svg").read_text().startswith("<")
