"""Saved sessions (File ▸ Save session / Open session, attnviz export --session) and the export of the
kernel-regression model: what comes back is what was on show, bad files are refused in words."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView
from attnviz.gui.main_window import MainWindow
from attnviz.gui.settings import Settings
from attnviz.paths import MODELS_DIR
from attnviz.render.figure_files import read_csv
from attnviz.session import InlineRunner
from attnviz.session_file import (
    SavedKernel,
    SavedSession,
    SessionFileError,
    read_session,
    sha256_of,
    write_session,
)
from tests.helpers import run_cli

KERNEL_MODEL = MODELS_DIR / "kernel-regression.safetensors"


def _fresh_window(qtbot, tmp_path, name="other"):
    window = MainWindow(Settings(tmp_path / f"{name}.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.show()
    return window


def _checkpoint_copy(tiny_models, tmp_path, kind="transformer"):
    folder = tmp_path / "models"
    folder.mkdir(exist_ok=True)
    return Path(shutil.copy(tiny_models[kind][0], folder / "mine.safetensors"))


def test_a_saved_session_brings_back_the_exact_view(window, qtbot, tmp_path, tiny_models):
    window.load(_checkpoint_copy(tiny_models, tmp_path))
    window.beam_box.setValue(2)
    window.set_sentence("a b c d", run=True)
    window.session.show(1)
    window.session.force("ax")  # the translation was finished: it decodes on to the end
    window.session.show(2)
    window.attention.set_view(AttentionView(AttentionKind.DECODER_SELF, 1, 3, scores=True))
    shown = window.attention.heatmap.values.copy()
    path = window.save_session(tmp_path / "lesson.attnviz.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["sentence"] == "a b c d" and data["beam_size"] == 2 and data["position"] == 2
    assert [s["forced"] for s in data["steps"]][:3] == ["dx", "ax", None]  # (beam search: the prefix on show too)
    assert data["checkpoint_sha256"] == sha256_of(tmp_path / "models" / "mine.safetensors")
    assert data["view"] == {"kind": "decoder self-attention", "layer": 2, "head": 4, "scores": True,
                            "show_masked": True, "all_heads": False}

    other = _fresh_window(qtbot, tmp_path)
    assert other.open_session(path)
    state = other.session.state
    assert state.model is not None and state.model.path.name == "mine.safetensors"
    assert other.sentence.text() == "a b c d" and other.beam_box.value() == 2
    assert state.position == 2 and state.forced_steps == (0, 1) and state.steps[1].token == "ax"
    view = other.attention.view()
    assert (view.kind, view.layer, view.head, view.scores) == (AttentionKind.DECODER_SELF, 1, 3, True)
    np.testing.assert_array_equal(other.attention.heatmap.values, shown)
    assert other.timeline.marks() == (1, 2)


def test_a_changed_checkpoint_is_named_and_the_session_still_opens(window, qtbot, tmp_path, tiny_models, errors):
    checkpoint = _checkpoint_copy(tiny_models, tmp_path)
    window.load(checkpoint)
    window.set_sentence("a b", run=True)
    path = window.save_session(tmp_path / "s.attnviz.json")
    shutil.copy(tiny_models["rnn-dot"][0], checkpoint)  # retrained since (another model under the same name)
    other = _fresh_window(qtbot, tmp_path)
    assert other.open_session(path)
    assert any("has changed since this session was saved" in message for message in errors)
    assert other.session.state.model.kind == "rnn-dot" and other.session.state.finished


def test_a_session_moved_with_its_checkpoint_still_opens(window, qtbot, tmp_path, tiny_models):
    window.load(_checkpoint_copy(tiny_models, tmp_path))
    window.set_sentence("a b c", run=True)
    window.save_session(tmp_path / "models" / "s.attnviz.json")
    moved = shutil.move(tmp_path / "models", tmp_path / "elsewhere")
    other = _fresh_window(qtbot, tmp_path)
    assert other.open_session(Path(moved) / "s.attnviz.json")
    assert other.session.state.model.path.parent.name == "elsewhere"
    assert other.session.state.translation() == "cx bx ax"


def test_kernel_sessions_keep_the_kernel_bandwidth_and_query(qtbot, tmp_path):
    window = _fresh_window(qtbot, tmp_path, "k")
    window.load(KERNEL_MODEL)
    window.session.fit_kernel("boxcar", 0.4, 3.1)
    path = window.save_session(tmp_path / "k.attnviz.json")
    assert read_session(path).kernel == SavedKernel("boxcar", 0.4, 3.1)
    other = _fresh_window(qtbot, tmp_path)
    assert other.open_session(path)
    fit = other.session.state.kernel
    assert (fit.kernel, fit.bandwidth, fit.query) == ("boxcar", 0.4, 3.1)
    panel = other.panels.panels["kernel"]
    assert panel.kernel_box.currentText() == "boxcar" and panel.bandwidth.value() == pytest.approx(0.4)


@pytest.mark.parametrize(("content", "message"), [
    (b"\xff\xfe not text", "not UTF-8"),
    (b"{ not json", "not JSON"),
    (b"[1, 2]", "not an attnviz session"),
    (b'{"format": "attnviz-session", "version": 99, "checkpoint": "x"}', "newer"),
    (b'{"format": "attnviz-session", "version": 1}', "no 'checkpoint'"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "beam_size": 500}', "'beam_size' must be"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "beam_size": true}', "not true/false"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "steps": [{"forced": 3}]}', "step 1"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "steps": [], "position": 4}', "'position'"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "view": {"kind": "telepathy"}}', "kind"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "checkpoint_sha256": "abc"}', "SHA-256"),
    (b'{"format": "attnviz-session", "version": 1, "checkpoint": "x", "kernel": {"bandwidth": -1}}', "bandwidth"),
    (b" " * 1_000_001, "too large"),
    (b'{"format": "attnviz-session", "version": -5, "checkpoint": "x"}', "version -5 does not exist"),
    (b'{"format": "attnviz-session", "version": 0, "checkpoint": "x"}', "version 0 does not exist"),
])
def test_bad_session_files_are_refused_in_words(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(SessionFileError, match=message):
        read_session(path)


def test_deeply_nested_json_is_refused_not_crashed(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 50_000 + "]" * 50_000)
    with pytest.raises(SessionFileError, match="not"):
        read_session(path)


def test_opening_a_bad_session_keeps_the_window_as_it_was(window, tmp_path, errors):
    window.set_sentence("a b", run=True)
    before = window.session.state
    missing = {"format": "attnviz-session", "version": 1, "checkpoint": "/no/such.safetensors"}
    (tmp_path / "bad.json").write_text(json.dumps(missing))
    assert not window.open_session(tmp_path / "bad.json")
    assert "missing" in errors[-1]
    assert window.session.state is before


def test_saving_never_replaces_a_folder_and_leaves_nothing_half_written(window, tmp_path, errors):
    window.set_sentence("a b", run=True)
    folder = tmp_path / "keep"
    (folder / "inside").mkdir(parents=True)
    assert window.save_session(folder) is None
    assert "is a folder" in errors[-1] and (folder / "inside").is_dir()
    saved = SavedSession(Path("/x.safetensors"), "", "hi")
    with pytest.raises(SessionFileError, match="could not save"):
        write_session(saved, tmp_path / "no-such-folder" / "s.json")
    assert list(tmp_path.glob("**/.*.tmp")) == []


def test_export_session_renders_the_figure_on_show(window, qtbot, tmp_path, tiny_models, capsys):
    window.load(_checkpoint_copy(tiny_models, tmp_path))
    window.set_sentence("a b c d", run=True)
    window.session.show(0)
    window.session.force("bx")
    window.session.show(1)
    window.attention.set_view(AttentionView(AttentionKind.CROSS, 1, 2))
    on_screen = window.attention.heatmap.values.copy()
    path = window.save_session(tmp_path / "s.attnviz.json")
    code, _, err = run_cli(capsys, "export", "--session", str(path), "--out", str(tmp_path / "out"),
                             "--format", "csv")
    assert code == 0, err
    values, rows, cols = read_csv(tmp_path / "out" / "cross_layer2_head3_step02.csv")
    np.testing.assert_allclose(values, on_screen, atol=1e-6)
    assert rows == ("<bos>", "bx") and cols == ("a", "b", "c", "d")
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text())
    assert sidecar["forced_tokens"] == ["bx"] and sidecar["sentence"] == "a b c d"
    code, _, err = run_cli(capsys, "export", "--session", str(path), "--text", "x", "--out", str(tmp_path / "o2"))
    assert code == 2 and "leave out --text" in err


def test_export_of_the_kernel_regression_model(tmp_path, capsys):
    out = tmp_path / "k"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(KERNEL_MODEL), "--out", str(out),
                                "--format", "png,csv", "--kernel", "epanechnikov", "--bandwidth", "0.7",
                                "--query", "1.5")
    assert code == 0, err
    names = sorted(p.name for p in out.iterdir())
    assert names == ["attnviz-export.json", "predictions.csv", "predictions.png", "query-weights.csv",
                     "query-weights.png", "weights-non-parametric.csv", "weights-non-parametric.png",
                     "weights-parametric.csv", "weights-parametric.png"]
    sidecar = json.loads((out / "attnviz-export.json").read_text())
    assert (sidecar["kernel"], sidecar["bandwidth"], sidecar["query"]) == ("epanechnikov", 0.7, 1.5)
    weights, rows, cols = read_csv(out / "weights-non-parametric.csv")
    assert weights.shape == (len(rows), len(cols)) and weights.shape[1] == 50
    np.testing.assert_allclose(np.nansum(weights, axis=1)[np.isfinite(weights).all(axis=1)], 1, atol=1e-5)
    for args, message in ((("--text", "hello"), "does not translate"), (("--kernel", "cosine"), "--kernel must be"),
                          (("--flipbook",), "--flipbook"), (("--bandwidth", "nan"), "--bandwidth")):
        code, _, err = run_cli(capsys, "export", "--checkpoint", str(KERNEL_MODEL), "--out", str(tmp_path / "x"),
                               *args)
        assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "x").exists()


def test_export_all_of_the_kernel_model_from_the_window(qtbot, tmp_path):
    window = _fresh_window(qtbot, tmp_path, "k")
    window.load(KERNEL_MODEL)
    written = window.exports.export_all(tmp_path / "all", ["png", "svg"])
    assert {p.name for p in written} >= {"predictions.png", "predictions.svg", "weights-parametric.png"}


def test_numbers_too_long_for_python_and_special_files_are_refused(tmp_path):
    import os

    path = tmp_path / "digits.json"
    path.write_text('{"format": "attnviz-session", "version": 1, "checkpoint": "x", "beam_size": ' + "9" * 5000 + "}")
    with pytest.raises(SessionFileError, match="not JSON"):
        read_session(path)
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(SessionFileError, match="not a regular file"):
        read_session(fifo)
    with pytest.raises(SessionFileError, match="not a regular file"):
        read_session("/dev/zero")


def _session_naming(path, checkpoint, **more):
    data = {"format": "attnviz-session", "version": 1, "checkpoint": str(checkpoint), **more}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_huge_file_named_by_a_session_is_refused_before_it_is_hashed(tmp_path, capsys, monkeypatch):
    import attnviz.session_file
    from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint

    huge = tmp_path / "film.safetensors"
    with open(huge, "wb") as f:
        f.truncate(20 * 2**30)  # 20 GB, sparse: no disk used
    hashed = []
    monkeypatch.setattr(attnviz.session_file, "sha256_of", lambda path: hashed.append(path) or "0" * 64)
    session = _session_naming(tmp_path / "s.attnviz.json", huge, checkpoint_sha256="a" * 64, sentence="a b")
    code, _, err = run_cli(capsys, "export", "--session", str(session), "--out", str(tmp_path / "out"))
    assert code == 2 and hashed == []
    assert "film.safetensors" in err and "20.0 GB, larger than any attnviz checkpoint" in err
    assert not (tmp_path / "out").exists()
    with pytest.raises(CheckpointError, match=r"20\.0 GB, larger than any attnviz checkpoint"):
        load_checkpoint(huge)  # (the loader looks first too: it never maps such a file)


def test_a_relative_path_out_of_the_sessions_folder_is_not_followed_silently(window, tmp_path, tiny_models,
                                                                               capsys, monkeypatch, errors):
    from attnviz.gui import errors as gui_errors

    checkpoint = _checkpoint_copy(tiny_models, tmp_path, "rnn-dot")  # tmp/models/mine.safetensors
    session = _session_naming(tmp_path / "a" / "b" / "s.attnviz.json", "/no/such/mine.safetensors",
                              checkpoint_relative="../../models/mine.safetensors", sentence="a b")
    asked = []
    monkeypatch.setattr(gui_errors, "ask", lambda _parent, question: asked.append(question) or False, raising=False)
    assert not window.open_session(session)
    assert str(checkpoint) in asked[0] and "out of the session's folder" in asked[0]
    assert window.session.state.model.kind == "transformer" and errors == []  # declined: nothing changed

    monkeypatch.setattr(gui_errors, "ask", lambda _parent, question: asked.append(question) or True)
    assert window.open_session(session)
    assert window.session.state.model.path == checkpoint and window.sentence.text() == "a b"

    code, _, err = run_cli(capsys, "export", "--session", str(session), "--out", str(tmp_path / "out"))
    assert code == 2 and str(checkpoint) in err and "not followed" in err
    assert not (tmp_path / "out").exists()


def test_a_path_too_long_for_the_system_is_one_short_sentence(window, tmp_path, capsys, errors):
    long_path = "/" + "x" * 10_000 + ".safetensors"
    session = _session_naming(tmp_path / "s.attnviz.json", long_path)
    with pytest.raises(SessionFileError, match="'checkpoint' is too long to be a file path"):
        read_session(session)
    assert not window.open_session(session)
    assert "too long" in errors[-1] and len(errors[-1]) < 300 and "Errno" not in errors[-1]
    code, _, err = run_cli(capsys, "export", "--session", str(session), "--out", str(tmp_path / "out"))
    assert code == 2 and "too long" in err and len(err) < 300
    code, _, err = run_cli(capsys, "export", "--session", "/" + "y" * 10_000 + ".json", "--out", str(tmp_path / "o"))
    assert code == 2 and "too long" in err and len(err) < 400 and "Errno" not in err
