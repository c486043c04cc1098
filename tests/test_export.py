"""Exported pictures and numbers: what a user opens after an export (offscreen Qt, no window)."""

import json
import subprocess
import sys

import numpy as np
import pytest
from PySide6 import QtGui, QtSvg

from attnviz.core.checkpoint import load_checkpoint
from attnviz.core.stepping import DecodeSession
from attnviz.gui import export
from attnviz.gui.export import ExportError, attention_figures, export_batch, export_figure, read_csv, view_figure
from attnviz.gui.selection import AttentionKind, select


@pytest.fixture
def decoded(qapp, tiny_models):
    """A tiny Transformer's decoding of 'a b c d': (source, steps)."""
    session = DecodeSession(load_checkpoint(tiny_models["transformer"][0]))
    source = session.encode("a b c d")
    return source, session.run()


def pixels(path) -> np.ndarray:
    image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_RGB32)
    return np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine()).copy()


def test_png_shows_the_head_it_names(decoded, tmp_path):
    source, steps = decoded
    paths = []
    for head in (0, 1):
        view = select(AttentionKind.ENCODER_SELF, 0, head, source, steps[-1])
        paths.append(export_figure(view_figure(view, "tiny"), tmp_path / f"head{head}.png", scale=2))
    first, second = pixels(paths[0]), pixels(paths[1])
    assert first.shape == second.shape and first.shape[0] > 200  # drawn at twice the logical size
    assert np.mean(first != second) > 0.01  # different weights, different cells
    one_x = export_figure(view_figure(select(AttentionKind.ENCODER_SELF, 0, 0, source, None)), tmp_path / "1x.png",
                          scale=1)
    assert abs(pixels(one_x).shape[0] * 2 - first.shape[0]) <= 2


def test_csv_and_npy_round_trip_the_weights(decoded, tmp_path):
    source, steps = decoded
    view = select(AttentionKind.CROSS, 1, 2, source, steps[-1])
    spec = view_figure(view)
    export_figure(spec, tmp_path / "cross.csv")
    export_figure(spec, tmp_path / "cross.npy")
    values, rows, cols = read_csv(tmp_path / "cross.csv")
    np.testing.assert_array_equal(values, view.values)
    assert rows == steps[-1].query_tokens and cols == ("a", "b", "c", "d")
    np.testing.assert_array_equal(np.load(tmp_path / "cross.npy"), view.values)


def test_svg_and_pdf_are_real_documents_with_the_labels(decoded, tmp_path):
    source, steps = decoded
    spec = view_figure(select(AttentionKind.DECODER_SELF, 0, 0, source, steps[-1]), "tiny", steps[-1].index)
    svg = export_figure(spec, tmp_path / "self.svg")
    assert QtSvg.QSvgRenderer(str(svg)).isValid()
    text = svg.read_text(encoding="utf-8")
    assert "&lt;bos&gt;" in text and "decoder self-attention" in text
    pdf = export_figure(spec, tmp_path / "self.pdf")
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 1000


def test_a_token_with_a_comma_survives_csv(qapp, tmp_path):
    spec = export.FigureSpec(np.array([[0.25, 0.75]], np.float32), ("q",), (",", 'say "hi"'), "t", (0.0, 1.0))
    export_figure(spec, tmp_path / "c.csv")
    values, _, cols = read_csv(tmp_path / "c.csv")
    assert cols == (",", 'say "hi"') and values.tolist() == [[0.25, 0.75]]


def test_export_all_names_files_predictably(decoded, tmp_path):
    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], "tiny")
    written = export_batch(figures, tmp_path / "out", ["png", "csv"], 1.0, {"sentence": source.text})
    names = {p.name for p in written}
    last = steps[-1].index + 1
    assert len(figures) == 3 * 2 * 4  # kinds × layers × heads of the tiny Transformer
    assert "enc-self_layer2_head4.png" in names and f"cross_layer1_head3_step{last:02d}.csv" in names
    assert f"dec-self_layer2_head1_step{last:02d}.png" in names
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_text())
    assert sidecar["sentence"] == "a b c d" and len(sidecar["files"]) == 48
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(names)  # no staging folder left


def test_failed_batch_leaves_nothing_behind(decoded, tmp_path, monkeypatch):
    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], "tiny")
    calls = []

    def broken_npy(spec, path):
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        np.save(path, spec.values)

    monkeypatch.setitem(export.WRITERS, "npy", broken_npy)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "keep.txt").write_text("earlier work")
    with pytest.raises(ExportError, match="No space left on device"):
        export_batch(figures, folder, ["csv", "npy"], sidecar={})
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]


def test_unwritable_folder_is_a_clear_error(decoded, tmp_path):
    source, steps = decoded
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    with pytest.raises(ExportError, match=r"Cannot write .*file/sub"):
        export_batch(attention_figures(source, [steps[-1]]), blocker / "sub", ["png"])
    with pytest.raises(ExportError, match="Cannot write"):
        export_figure(view_figure(select(AttentionKind.CROSS, 0, 0, source, steps[-1])), blocker / "x.png")
    assert blocker.read_text() == "a file, not a folder"


def test_empty_heatmap_is_refused(qapp, tmp_path):
    spec = export.FigureSpec(np.zeros((0, 3), np.float32), (), ("a", "b", "c"), "", (0.0, 1.0))
    with pytest.raises(ExportError, match="nothing to export"):
        export_figure(spec, tmp_path / "e.png")
    assert not list(tmp_path.iterdir())


def attnviz(*args):
    return subprocess.run([sys.executable, "-m", "attnviz", *args], capture_output=True, text=True, timeout=300)


def test_headless_export_writes_every_map_at_every_step(tiny_models, tmp_path):
    out = tmp_path / "maps"
    done = attnviz("export", "--checkpoint", str(tiny_models["rnn-dot"][0]), "--text", "a b c", "--out", str(out),
                   "--format", "png,npy", "--step", "all")
    assert done.returncode == 0, done.stderr
    sidecar = json.loads((out / "attnviz-export.json").read_text())
    steps = sidecar["steps"]
    assert steps == list(range(1, len(steps) + 1)) and sidecar["output_tokens"] == ["cx", "bx", "ax"]
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([*(f"cross_layer1_head1_step{s:02d}.{ext}" for s in steps for ext in ("png", "npy")),
                            "attnviz-export.json"])
    last = np.load(out / f"cross_layer1_head1_step{steps[-1]:02d}.npy")
    assert last.shape == (len(steps), 3)
    np.testing.assert_allclose(last.sum(axis=1), 1, rtol=1e-5)


@pytest.mark.parametrize(("extra", "message"), [
    (["--format", "gif"], "unknown export format 'gif'"),
    (["--step", "99"], "--step 99: the decoding of this sentence has only"),
    (["--step", "first"], "--step must be a step number or 'all'"),
])
def test_headless_export_rejects_bad_options(tiny_models, tmp_path, extra, message):
    done = attnviz("export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b",
                   "--out", str(tmp_path / "o"), *extra)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()


def test_headless_export_into_unwritable_place(tiny_models, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = attnviz("export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b",
                   "--out", str(blocker / "maps"))
    assert done.returncode == 2 and done.stderr.startswith("attnviz: error: Cannot write")
    assert len(done.stderr.strip().splitlines()) == 1
