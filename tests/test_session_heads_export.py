"""``attnviz export --session`` switches off the heads the saved session had switched off (it ignored them: a
session with every head off exported the figures of one with every head on), and refuses heads the model does
not have with the window's own message."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from tests.helpers import one_error_line, run_cli

TRANSFORMER = Path(__file__).resolve().parents[1] / "models" / "transformer.safetensors"
EVERY_HEAD = ",".join(f"{kind}:{layer}.{head}" for kind in ("enc-self", "dec-self", "cross") for layer in (1, 2, 3)
                      for head in (1, 2, 3, 4))  # the shipped Transformer's 36 heads


@pytest.fixture(autouse=True)
def _application(qapp):
    """The CLI makes a QGuiApplication to render if none exists; later tests in this process need widgets."""


def _session(tmp_path: Path, heads_off: str, name: str) -> Path:
    from attnviz.session_file import SavedSession, sha256_of, write_session

    saved = SavedSession(TRANSFORMER, sha256_of(TRANSFORMER), sentence="i am here .", beam_size=1,
                         heads_off=heads_off)
    return write_session(saved, tmp_path / f"{name}.attnviz.json")


def _cross_map(folder: Path) -> np.ndarray:
    path = next(p for p in sorted(folder.glob("*.csv")) if "cross" in p.name)
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))[1:]
    return np.array([[float(v) for v in row[1:]] for row in rows])


def test_the_heads_a_session_switched_off_are_off_in_its_export(capsys, tmp_path) -> None:
    import json

    from attnviz.render.figure_files import SIDECAR

    outs = {}
    for name, heads in (("on", ""), ("off", "enc-self:1.1,enc-self:1.2"), ("all-off", EVERY_HEAD)):
        out = outs[name] = tmp_path / name
        code, _, stderr = run_cli(capsys, "export", "--session", str(_session(tmp_path, heads, name)), "--format",
                                  "csv", "--out", str(out))
        assert code == 0, stderr
        sidecar = json.loads((out / SIDECAR).read_text(encoding="utf-8"))
        assert sidecar.get("masked_heads", "") == heads
        assert ("heads off" in sidecar["model"]) == bool(heads), sidecar["model"]
    on = _cross_map(outs["on"])
    for name in ("off", "all-off"):  # (another map, or even another translation)
        off = _cross_map(outs[name])
        assert off.shape != on.shape or not np.allclose(off, on), name


@pytest.mark.parametrize(("heads", "said"), [("cross:4.1", "'cross:4.1': this model's cross has 3 layer(s) of 4"),
                                             ("cross:1.9", "'cross:1.9': this model's cross has 3 layer(s) of 4")])
def test_heads_the_model_does_not_have_are_refused_as_the_window_refuses_them(capsys, tmp_path, heads, said) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.heads import HeadMask, HeadMaskError, head_layout

    with pytest.raises(HeadMaskError) as window_says:  # (what the window's switch_heads_off meets)
        HeadMask.parse(heads, head_layout(load_checkpoint(TRANSFORMER).model))
    out = tmp_path / "out"
    code, _, stderr = run_cli(capsys, "export", "--session", str(_session(tmp_path, heads, "bad")), "--out", str(out))
    assert code == 2 and str(window_says.value) in one_error_line(stderr) and said in stderr
    assert not out.exists()
    code, _, stderr = run_cli(capsys, "export", "--session", str(_session(tmp_path, "cross:1.1", "ok")),
                              "--mask-heads", "cross:1.2", "--out", str(out))
    assert code == 2 and "leave out --mask-heads" in one_error_line(stderr)


def test_a_session_opened_with_heads_off_says_so_in_the_window_title_as_switching_them_does(qtbot, tmp_path,
                                                                                            errors) -> None:
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    assert window.open_session(_session(tmp_path, "enc-self:1.1,enc-self:1.2", "off"))
    state = window.session.state
    assert state.model.heads_off == "enc-self:1.1,enc-self:1.2" and state.shown_source is not None
    assert window.windowTitle() == "attnviz — transformer.safetensors, heads off enc-self:1.1,enc-self:1.2"
    assert window.attention.heatmap.spec.title.startswith("transformer, heads off enc-self:1.1,enc-self:1.2 · ")
    window.panels.panels["heads"].switch_off([])  # every head back on, by hand: the title follows
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "", timeout=60_000)
    assert window.windowTitle() == "attnviz — transformer.safetensors"
    window.panels.panels["heads"].switch_off(["cross:2.1"])
    qtbot.waitUntil(lambda: window.session.state.model.heads_off == "cross:2.1", timeout=60_000)
    assert window.windowTitle() == "attnviz — transformer.safetensors, heads off cross:2.1"
    assert not errors, errors
