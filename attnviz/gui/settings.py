"""Persistent settings (QSettings in INI format at an injectable path; tests use tmp_path)."""

from __future__ import annotations

from pathlib import Path

from PySide6 import QtCore

from attnviz.core.limits import MAX_BEAM

MAX_RECENT = 8


def default_settings_path() -> Path:
    base = QtCore.QStandardPaths.writableLocation(QtCore.QStandardPaths.StandardLocation.AppConfigLocation)
    return Path(base or Path.home() / ".config") / "attnviz" / "attnviz.ini"


class Settings:
    """Typed access to the few things attnviz remembers between launches."""

    def __init__(self, path: Path | None = None):
        self.path = path or default_settings_path()
        self.qsettings = QtCore.QSettings(str(self.path), QtCore.QSettings.Format.IniFormat)

    def _get(self, key: str, default, kind):
        value = self.qsettings.value(key, default)
        try:
            return kind(value)
        except (TypeError, ValueError):
            return default

    @property
    def last_checkpoint(self) -> str:
        return self._get("last_checkpoint", "", str)

    @last_checkpoint.setter
    def last_checkpoint(self, value: str) -> None:
        self.qsettings.setValue("last_checkpoint", value)
        recent = [value, *[p for p in self.recent_files if p != value]][:MAX_RECENT]
        self.qsettings.setValue("recent_files", recent)

    def _get_list(self, key: str) -> list[str]:
        """A list setting (QSettings' INI format returns a one-element list as a plain string)."""
        value = self.qsettings.value(key, [])
        if isinstance(value, str):
            return [value] if value else []
        return [str(v) for v in value] if isinstance(value, list) else []

    @property
    def recent_files(self) -> list[str]:
        return self._get_list("recent_files")

    @property
    def device(self) -> str:
        return self._get("device", "auto", str)

    @device.setter
    def device(self, value: str) -> None:
        self.qsettings.setValue("device", value)

    @property
    def beam_size(self) -> int:
        return min(max(1, self._get("beam_size", 1, int)), MAX_BEAM)

    @beam_size.setter
    def beam_size(self, value: int) -> None:
        self.qsettings.setValue("beam_size", int(value))

    @property
    def export_dir(self) -> str:
        return self._get("export_dir", "", str)

    @export_dir.setter
    def export_dir(self, value: str) -> None:
        self.qsettings.setValue("export_dir", value)

    @property
    def export_scale(self) -> float:
        return min(8.0, max(0.5, self._get("export_scale", 2.0, float)))

    @export_scale.setter
    def export_scale(self, value: float) -> None:
        self.qsettings.setValue("export_scale", float(value))

    @property
    def export_formats(self) -> list[str]:
        return self._get_list("export_formats") or ["png", "csv"]

    @export_formats.setter
    def export_formats(self, value: list[str]) -> None:
        self.qsettings.setValue("export_formats", list(value))

    @property
    def closed_docks(self) -> dict[str, set[str]]:
        """Per model family, the docks the user closed: ``{"translation": {"masks"}}``."""
        families = ("translation", "regression")
        return {family: set(self._get_list(f"closed_docks/{family}")) for family in families}

    @closed_docks.setter
    def closed_docks(self, value: dict[str, set[str]]) -> None:
        for family, names in value.items():
            self.qsettings.setValue(f"closed_docks/{family}", sorted(names))

    def window_state(self) -> tuple[QtCore.QByteArray | None, QtCore.QByteArray | None]:
        return self.qsettings.value("geometry"), self.qsettings.value("state")

    def save_window_state(self, geometry: QtCore.QByteArray, state: QtCore.QByteArray) -> None:
        self.qsettings.setValue("geometry", geometry)
        self.qsettings.setValue("state", state)

    def sync(self) -> None:
        self.qsettings.sync()
