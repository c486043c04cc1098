"""The launch check for Qt's X11 plugin, against a faked ``ldd`` (and a faked ``apt-get``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz import xcb_check

ROOT = Path(__file__).resolve().parent.parent

# What ldd printed for libqxcb.so on a fresh Debian desktop that had only libxcb-cursor0 installed.
LDD_OUTPUT = """\
\tlinux-vdso.so.1 (0x00007ffc0b5f2000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f1a2c000000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f1a2bf00000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxkbcommon-x11.so.0 => /lib/x86_64-linux-gnu/libxkbcommon-x11.so.0 (0x00007f1a2be00000)
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1a2ba00000)
"""


def test_every_not_found_line_becomes_its_debian_package():
    missing = xcb_check.missing_libraries(LDD_OUTPUT)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert [xcb_check.debian_package(name) for name in missing] == ["libxcb-icccm4", "libxcb-keysyms1"]
    assert xcb_check.debian_package("libxkbcommon-x11.so.0") == "libxkbcommon-x11-0"
    assert xcb_check.debian_package("libX11-xcb.so.1") == "libx11-xcb1"


def test_wayland_and_offscreen_are_left_alone():
    assert not xcb_check.starts_on_x11({"QT_QPA_PLATFORM": "offscreen"})
    assert not xcb_check.starts_on_x11({"WAYLAND_DISPLAY": "wayland-0"})
    assert not xcb_check.starts_on_x11({})  # no display at all: the CLI and headless runs need no X11
    assert xcb_check.starts_on_x11({"DISPLAY": ":0"}) == sys.platform.startswith("linux")
    assert xcb_check.starts_on_x11({"QT_QPA_PLATFORM": "xcb", "WAYLAND_DISPLAY": "wayland-0"}) == (
        sys.platform.startswith("linux"))


def _fake_tools(folder: Path, installed_marker: Path) -> Path:
    """A bin folder with an ``ldd`` that reports the libraries missing until the fake ``apt-get``
    has 'installed' them (it records its arguments in the marker file)."""
    folder.mkdir()
    (folder / "ldd").write_text(
        "#!/bin/sh\n"
        f"if [ -f '{installed_marker}' ]; then echo '\tlibc.so.6 => /lib/libc.so.6 (0x1)'; exit 0; fi\n"
        f"cat <<'EOF'\n{LDD_OUTPUT}EOF\n")
    (folder / "apt-get").write_text(f"#!/bin/sh\necho \"$@\" >> '{installed_marker}'\n")
    for tool in ("ldd", "apt-get"):
        (folder / tool).chmod(0o755)
    return folder


@pytest.fixture
def x11_env(tmp_path, monkeypatch):
    marker = tmp_path / "apt-get-ran"
    tools = _fake_tools(tmp_path / "bin", marker)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("QT_QPA_PLATFORM", "xcb")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    return marker


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_without_root_it_prints_the_exact_apt_line_and_fails(x11_env, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert xcb_check.main(["--install"]) == xcb_check.MISSING
    err = capsys.readouterr().err
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1\n" in err
    assert "libxcb-icccm.so.4, libxcb-keysyms.so.1" in err
    assert not x11_env.exists()  # nothing was installed


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the xcb plugin is Linux's")
def test_as_root_with_apt_it_installs_the_packages_and_run_sh_launches(x11_env):
    """scripts/run.sh end to end (as root here): the fake apt-get is asked for both packages, the
    re-check passes, and the app starts (``--help``, so it prints and exits)."""
    if os.geteuid() != 0:
        pytest.skip("needs root: run.sh installs only as root")
    env = {**os.environ}
    result = subprocess.run(["bash", "scripts/run.sh", "--help"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert x11_env.read_text().split() == ["install", "-y", "-q", "libxcb-icccm4", "libxcb-keysyms1"]
    assert "usage:" in result.stdout.lower()
