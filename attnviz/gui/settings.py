"""Persistent settings (QSettings in INI format at an injectable path; tests use tmp_path).

Every value is read through one typed, validated getter: a settings file edited by hand, corrupted or
written by a newer attnviz never stops the app. A bad value falls back to its default and is listed,
once, in :attr:`Settings.problems` (the window shows it in the status bar and the log).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6 import QtCore

from attnviz.core.limits import MAX_BEAM
from attnviz.core.models.kinds import families
from attnviz.figures.editions import DEFAULT_EDITION, EDITIONS
from attnviz.gui.text_size import valid_scale
from attnviz.i18n import tr

MAX_RECENT = 8
MAX_PATH_CHARS = 4096
EXPORT_SCALES = (0.25, 8.0)
FORMATS = ("png", "svg", "pdf", "csv", "npy")
LECTURE_INTERVALS = (0.2, 10.0)  # s between two auto-played steps: the least and the most
LECTURE_INTERVAL_DEFAULT = 1.5  # time to say a sentence about the step on show
# The Attention panel's check boxes (remembered between starts) and their defaults: AttentionView's fields
ATTENTION_TOGGLES = {"all_heads": False, "scores": False, "show_masked": True}
DEVICE_NAME = re.compile(r"auto|cpu|mps|cuda(:\d{1,2})?")


def default_settings_path() -> Path:
    base = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(base or Path.home() / ".config") / "attnviz" / "attnviz.ini"


def _a_path(value: Any) -> str:
    text = str(value)
    if len(text) > MAX_PATH_CHARS or "\0" in text:
        raise ValueError("not a usable path")
    return text


def _a_bool(value: Any) -> bool:
    """A flag as QSettings' INI files give it back ("true"/"false" strings) or as written."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise ValueError("not a flag")


class Settings:
    """Typed access to the few things attnviz remembers between launches."""

    def __init__(self, path: Path | None = None):
        self.path = path or default_settings_path()
        self.qsettings = QtCore.QSettings(str(self.path), QtCore.QSettings.Format.IniFormat)
        self.problems: list[str] = []  # settings that were unusable and fell back to their defaults
        self._write_error_reported = False

    def _get(self, key: str, default: Any, convert: Callable[[Any], Any], valid: Callable[[Any], bool] = bool) -> Any:
        """The setting ``key`` converted, if that works and ``valid`` accepts it; else ``default``."""
        raw = self.qsettings.value(key, None)
        if raw is None:
            return default
        try:
            value = convert(raw)
            if valid(value) or value == default:
                return value
        except (TypeError, ValueError, OverflowError):
            pass
        self._problem(tr("setting {key} = {value!r} is not usable; using {default!r}").format(
            key=key, value=str(raw)[:40], default=default))
        return default

    def _problem(self, text: str) -> None:
        if text not in self.problems:
            self.problems.append(text)

    @property
    def last_checkpoint(self) -> str:
        return self._get("last_checkpoint", "", _a_path)

    @last_checkpoint.setter
    def last_checkpoint(self, value: str) -> None:
        self.qsettings.setValue("last_checkpoint", value)
        recent = [value, *[p for p in self.recent_files if p != value]][:MAX_RECENT]
        self.qsettings.setValue("recent_files", recent)

    @property
    def last_image(self) -> str:
        """The image an image model showed last (opened again by the next image model, after a restart too)."""
        return self._get("last_image", "", _a_path)

    @last_image.setter
    def last_image(self, value: str) -> None:
        self.qsettings.setValue("last_image", value)

    def _get_list(self, key: str) -> list[str]:
        """A list setting (QSettings' INI format returns a one-element list as a plain string)."""
        value = self.qsettings.value(key, [])
        if isinstance(value, str):
            value = [value] if value else []
        if not isinstance(value, list):
            self._problem(tr("setting {key} is not a list; ignored").format(key=key))
            return []
        return [str(v) for v in value if isinstance(v, str) and 0 < len(v) <= MAX_PATH_CHARS and "\0" not in v]

    @property
    def recent_files(self) -> list[str]:
        return self._get_list("recent_files")[:MAX_RECENT]

    @property
    def device(self) -> str:
        return self._get("device", "auto", str, lambda name: DEVICE_NAME.fullmatch(name) is not None)

    @device.setter
    def device(self, value: str) -> None:
        self.qsettings.setValue("device", value)

    @property
    def beam_size(self) -> int:
        return self._get("beam_size", 1, int, lambda size: 1 <= size <= MAX_BEAM)

    @beam_size.setter
    def beam_size(self, value: int) -> None:
        self.qsettings.setValue("beam_size", int(value))

    @property
    def export_dir(self) -> str:
        return self._get("export_dir", "", _a_path)

    @export_dir.setter
    def export_dir(self, value: str) -> None:
        self.qsettings.setValue("export_dir", value)

    @property
    def export_scale(self) -> float:
        low, high = EXPORT_SCALES
        return self._get("export_scale", 2.0, float, lambda scale: math.isfinite(scale) and low <= scale <= high)

    @export_scale.setter
    def export_scale(self, value: float) -> None:
        self.qsettings.setValue("export_scale", float(value))

    @property
    def export_formats(self) -> list[str]:
        return [fmt for fmt in self._get_list("export_formats") if fmt in FORMATS] or ["png", "csv"]

    @export_formats.setter
    def export_formats(self, value: list[str]) -> None:
        self.qsettings.setValue("export_formats", list(value))

    @property
    def book_edition(self) -> str:
        """How Help ▸ Book figures numbers the sections: "0.17" (d2l 0.17 / 第二版, chapter 10) or "1.0"."""
        return self._get("book_edition", DEFAULT_EDITION, str, lambda edition: edition in EDITIONS)

    @book_edition.setter
    def book_edition(self, value: str) -> None:
        self.qsettings.setValue("book_edition", value)

    @property
    def text_scale(self) -> float:
        """View ▸ Larger / Smaller text: the application font times this (1.0: as the platform sets it)."""
        return self._get("text_scale", 1.0, float, valid_scale)

    @text_scale.setter
    def text_scale(self, value: float) -> None:
        self.qsettings.setValue("text_scale", float(value))

    @property
    def lecture_interval(self) -> float:
        """The lecture view's auto-play: seconds between two steps."""
        return self._get("lecture/interval", LECTURE_INTERVAL_DEFAULT, float,
                         lambda v: math.isfinite(v) and LECTURE_INTERVALS[0] <= v <= LECTURE_INTERVALS[1])

    @lecture_interval.setter
    def lecture_interval(self, value: float) -> None:
        self.qsettings.setValue("lecture/interval", float(value))

    @property
    def lecture_through_layers(self) -> bool:
        """The lecture view's auto-play goes on through the layers (step 1 to the end in each)."""
        return self._get("lecture/through_layers", False, _a_bool, lambda v: True)

    @lecture_through_layers.setter
    def lecture_through_layers(self, value: bool) -> None:
        self.qsettings.setValue("lecture/through_layers", bool(value))

    @property
    def attention_toggles(self) -> dict[str, bool]:
        """The Attention panel's check boxes as last left: All heads, Pre-softmax scores, Show masked cells
        (keys: the fields of ``AttentionView``)."""
        return {name: self._get(f"attention/{name}", default, _a_bool, lambda v: True)
                for name, default in ATTENTION_TOGGLES.items()}

    @attention_toggles.setter
    def attention_toggles(self, value: dict[str, bool]) -> None:
        for name in ATTENTION_TOGGLES:
            if name in value:
                self.qsettings.setValue(f"attention/{name}", bool(value[name]))

    @property
    def closed_docks(self) -> dict[str, set[str]]:
        """Per model family, the docks the user closed: ``{"translation": {"masks"}}``."""
        return {family: set(self._get_list(f"closed_docks/{family}")) for family in families()}

    @closed_docks.setter
    def closed_docks(self, value: dict[str, set[str]]) -> None:
        for family, names in value.items():
            self.qsettings.setValue(f"closed_docks/{family}", sorted(names))

    def window_state(self) -> tuple[QtCore.QByteArray | None, QtCore.QByteArray | None]:
        """The saved window geometry and dock layout (None where missing or not Qt's bytes)."""
        found = []
        for key in ("geometry", "state"):
            value = self.qsettings.value(key, None)
            if value is not None and not isinstance(value, QtCore.QByteArray):
                self._problem(tr("setting {key} is not a saved window layout; using the default layout").format(
                    key=key))
                value = None
            found.append(value)
        return found[0], found[1]

    def save_window_state(self, geometry: QtCore.QByteArray, state: QtCore.QByteArray) -> None:
        self.qsettings.setValue("geometry", geometry)
        self.qsettings.setValue("state", state)

    def sync(self) -> str | None:
        """Write the settings file; the first time that fails, or the file read was damaged, returns a sentence
        saying what happened (then None)."""
        self.qsettings.sync()
        status = self.qsettings.status()
        if status == QtCore.QSettings.Status.NoError or self._write_error_reported:
            return None
        self._write_error_reported = True
        if status == QtCore.QSettings.Status.FormatError:  # the file read was not valid INI (Qt still writes it)
            if self._readable_now():
                return tr("The settings file {path} was damaged (not a valid settings file): what could not be "
                          "read was dropped, and the file has been rewritten with your current settings.").format(
                    path=self.path)
            return tr("The settings file {path} is damaged (not a valid settings file) and could not be "
                      "rewritten; your settings last until you quit.").format(path=self.path)
        return tr("Settings cannot be saved to {path} (the folder is not writable); they last until you quit.").format(
            path=self.path)

    def _readable_now(self) -> bool:
        """The settings file, read afresh, is valid INI (a damaged file has been rewritten)."""
        fresh = QtCore.QSettings(str(self.path), QtCore.QSettings.Format.IniFormat)
        fresh.allKeys()
        return fresh.status() == QtCore.QSettings.Status.NoError
