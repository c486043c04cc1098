"""Before the window opens on X11: does Qt's xcb platform plugin find every shared library it needs?

    python -m attnviz.xcb_check [--install]

Runs ``ldd`` on PySide6's ``plugins/platforms/libqxcb.so`` and collects every "not found" line (Qt
itself only names libxcb-cursor0 when it aborts, though libxcb-icccm4, libxcb-keysyms1 … may be
missing too). With ``--install``, running as root where apt-get exists, it installs the Debian
packages; otherwise it prints the exact ``apt-get install`` line. Exit 0: nothing missing, or not an
X11 start (Wayland, offscreen, not Linux, no ldd); exit 3: libraries still missing.
Imports neither Qt nor torch, so it runs before anything that could abort.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from attnviz.i18n import set_language, tr

MISSING = 3
NOT_FOUND = re.compile(r"^\s*(\S+)\s*=>\s*not found", re.MULTILINE)
# Debian packages whose names do not follow the soname rule (see debian_package).
PACKAGE_OF = {"libGL.so.1": "libgl1", "libEGL.so.1": "libegl1", "libOpenGL.so.0": "libopengl0"}


def missing_libraries(ldd_output: str) -> list[str]:
    """The sonames ``ldd`` could not find, in its order, each once ("libxcb-icccm.so.4", …)."""
    return list(dict.fromkeys(NOT_FOUND.findall(ldd_output)))


def debian_package(soname: str) -> str:
    """The Debian package that ships a library: libfoo.so.N → libfooN, libfoo2.so.N → libfoo2-N
    (libxcb-icccm.so.4 → libxcb-icccm4, libxkbcommon-x11.so.0 → libxkbcommon-x11-0)."""
    if soname in PACKAGE_OF:
        return PACKAGE_OF[soname]
    match = re.fullmatch(r"(.+?)\.so\.(\d+)(?:\.\d+)*", soname)
    if match is None:
        return soname.lower()
    stem, major = match.group(1).lower(), match.group(2)
    return f"{stem}-{major}" if stem[-1].isdigit() else f"{stem}{major}"


def xcb_plugin() -> Path | None:
    """PySide6's xcb platform plugin, found without importing PySide6."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        return None
    plugin = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    return plugin if plugin.is_file() else None


def starts_on_x11(env: Mapping[str, str]) -> bool:
    """Whether Qt will pick its xcb plugin: QT_QPA_PLATFORM says so, or it is unset outside Wayland."""
    if not sys.platform.startswith("linux"):
        return False
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform:
        return platform.split(";")[0].split(":")[0] == "xcb"
    return bool(env.get("DISPLAY")) and not env.get("WAYLAND_DISPLAY")  # no display: no window to open


def missing_for(plugin: Path) -> list[str]:
    ldd = shutil.which("ldd")
    if ldd is None:
        return []
    result = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, check=False)
    # PySide6's own Qt libraries resolve through the plugin's RPATH; one "not found" there is a broken
    # install that apt cannot fix, and pip's error would be the place to look.
    return [name for name in missing_libraries(result.stdout) if not name.startswith(("libQt6", "libpyside6"))]


def _install(packages: list[str]) -> bool:
    apt = ["apt-get", "install", "-y", "-q", *packages]
    print(tr("[attnviz] installing {packages} (Qt's X11 platform plugin needs them)").format(
        packages=" ".join(packages)), file=sys.stderr)
    if subprocess.run(apt, capture_output=True, check=False).returncode == 0:
        return True
    subprocess.run(["apt-get", "update", "-q"], capture_output=True, check=False)
    return subprocess.run(apt, capture_output=True, check=False).returncode == 0


def main(argv: list[str] | None = None) -> int:
    set_language(None)  # the system's: this runs before the window (and its language setting) exists
    parser = argparse.ArgumentParser(prog="python -m attnviz.xcb_check", description=tr(
        "Before the window opens on X11: does Qt's xcb platform plugin find every shared library it needs?"))
    parser.add_argument("--install", action="store_true", help=tr("install what is missing (root with apt-get)"))
    args = parser.parse_args(argv)
    plugin = xcb_plugin()
    if plugin is None or not starts_on_x11(os.environ):
        return 0
    missing = missing_for(plugin)
    if not missing:
        return 0
    packages = list(dict.fromkeys(debian_package(name) for name in missing))
    if args.install and os.geteuid() == 0 and shutil.which("apt-get") and _install(packages):
        missing = missing_for(plugin)
        if not missing:
            return 0
        packages = list(dict.fromkeys(debian_package(name) for name in missing))
    print(tr("attnviz: Qt's X11 platform plugin cannot start: missing {libraries}.\n"
             "Install them with:  sudo apt-get install {packages}\n"
             "(other distributions: the packages that provide those libraries; or run under Wayland)").format(
        libraries=", ".join(missing), packages=" ".join(packages)), file=sys.stderr)
    return MISSING


if __name__ == "__main__":
    sys.exit(main())
