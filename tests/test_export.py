"""Exported pictures and numbers: what a user opens after an export (offscreen Qt, no window)."""

import contextlib
import json

import numpy as np
import pytest
from PySide6 import QtSvg

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.stepping import DecodeSession
from attnviz.figures.attention import AttentionView, attention_figures, matrix_figure, select
from attnviz.figures.spec import FigureSpec
from attnviz.render import figure_files
from attnviz.render.figure_files import ExportError, export_batch, export_figure, read_csv
from tests.helpers import fill_disk, pixels, run_cli


def view_figure(view, model="", step=None, show_masked=True):
    return matrix_figure(view, model, step, show_masked)


@pytest.fixture
def decoded(qapp, tiny_models):
    """A tiny Transformer's decoding of 'a b c d': (source, steps)."""
    session = DecodeSession(load_checkpoint(tiny_models["transformer"][0]))
    source = session.encode("a b c d")
    return source, session.run()


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
    spec = FigureSpec(np.array([[0.25, 0.75]], np.float32), ("q",), (",", 'say "hi"'), "t", (0.0, 1.0))
    export_figure(spec, tmp_path / "c.csv")
    values, _, cols = read_csv(tmp_path / "c.csv")
    assert cols == (",", 'say "hi"') and values.tolist() == [[0.25, 0.75]]


def test_export_all_names_files_predictably(decoded, tmp_path):
    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], AttentionView(), "tiny")
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
    figures = attention_figures(source, [steps[-1]], AttentionView(), "tiny")
    calls = []

    def broken_npy(spec, path):
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        np.save(path, spec.values)

    monkeypatch.setitem(figure_files.WRITERS, "npy", broken_npy)
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "keep.txt").write_text("earlier work")
    with pytest.raises(ExportError, match="the disk is full"):
        export_batch(figures, folder, ["csv", "npy"], sidecar={})
    assert [p.name for p in folder.iterdir()] == ["keep.txt"]


def test_unwritable_folder_is_a_clear_error(decoded, tmp_path):
    source, steps = decoded
    blocker = tmp_path / "file"
    blocker.write_text("a file, not a folder")
    with pytest.raises(ExportError, match=r"Cannot write .*file/sub"):
        export_batch(attention_figures(source, [steps[-1]], AttentionView()), blocker / "sub", ["png"])
    with pytest.raises(ExportError, match="Cannot write"):
        export_figure(view_figure(select(AttentionKind.CROSS, 0, 0, source, steps[-1])), blocker / "x.png")
    assert blocker.read_text() == "a file, not a folder"


def test_empty_heatmap_is_refused(qapp, tmp_path):
    spec = FigureSpec(np.zeros((0, 3), np.float32), (), ("a", "b", "c"), "", (0.0, 1.0))
    with pytest.raises(ExportError, match="nothing to export"):
        export_figure(spec, tmp_path / "e.png")
    assert not list(tmp_path.iterdir())


def test_headless_export_writes_every_map_at_every_step(qapp, capsys, tiny_models, tmp_path):
    out = tmp_path / "maps"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["rnn-dot"][0]), "--text", "a b c",
                           "--out", str(out), "--format", "png,npy", "--step", "all")
    assert code == 0, err
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
def test_headless_export_rejects_bad_options(qapp, capsys, tiny_models, tmp_path, extra, message):
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b",
                           "--out", str(tmp_path / "o"), *extra)
    assert code == 2 and message in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_headless_export_into_unwritable_place(qapp, capsys, tiny_models, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b",
                           "--out", str(blocker / "maps"))
    assert code == 2 and err.startswith("attnviz: error: Cannot write")
    assert len(err.strip().splitlines()) == 1


def test_headless_export_writes_what_the_view_options_say(qapp, capsys, tiny_models, tmp_path):
    """--scores writes the pre-softmax scores, masked scores as blank (nan), as the window shows them."""
    out = tmp_path / "scores"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b c",
                           "--out", str(out), "--format", "npy", "--scores")
    assert code == 0, err
    self_scores = np.load(next(out.glob("dec-self_layer1_head1_step*_scores.npy")))
    assert np.isnan(self_scores[np.triu_indices(self_scores.shape[0], 1)]).all()  # above the diagonal: masked
    assert np.isfinite(np.tril(self_scores)).all() and np.tril(self_scores).any()
    assert json.loads((out / "attnviz-export.json").read_text())["values"] == "pre-softmax scores"


def test_masked_cells_never_enter_the_colour_range(decoded):
    """Decoder self-attention scores: the masked triangle (never computed) must not stretch the colour bar."""
    source, steps = decoded
    view = select(AttentionKind.DECODER_SELF, 0, 0, source, steps[-1], scores=True)
    spec = view_figure(view)
    real = view.values[~view.masked]
    assert spec.levels == (float(real.min()), float(real.max()))
    assert np.isnan(spec.values[view.masked]).all()


def test_any_failure_mid_batch_leaves_no_staging_folder(decoded, tmp_path, monkeypatch):
    """Not only a full disk: an unexpected error (or Ctrl+C) half-way leaves the folder as it was."""
    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], AttentionView(), "tiny")

    def broken(spec, path):
        raise KeyboardInterrupt

    monkeypatch.setitem(figure_files.WRITERS, "npy", broken)
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(KeyboardInterrupt):
        export_batch(figures, folder, ["csv", "npy"], sidecar={})
    assert list(folder.iterdir()) == []


def test_a_folder_with_an_export_name_is_never_deleted(decoded, tmp_path, capsys, tiny_models):
    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], AttentionView(), "tiny")
    folder = tmp_path / "out"
    clash = folder / f"{figures[0].stem}.csv"
    clash.mkdir(parents=True)
    (clash / "notes.txt").write_text("my work")
    with pytest.raises(ExportError, match=f"{clash.name} exists and is not a regular file"):
        export_batch(figures, folder, ["csv"], sidecar={})
    assert (clash / "notes.txt").read_text() == "my work" and sorted(p.name for p in folder.iterdir()) == [clash.name]


def test_existing_files_are_replaced_only_when_the_user_agrees(qapp, tmp_path, capsys, tiny_models):
    from tests.helpers import run_cli

    out = tmp_path / "out"
    command = ["export", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b", "--out", str(out),
               "--format", "csv"]
    assert run_cli(capsys, *command)[0] == 0
    mine = sorted(out.glob("*.csv"))[0]
    mine.write_text("my edited table")
    code, _out, err = run_cli(capsys, *command)
    assert code == 2 and "would be replaced" in err and "add --force" in err
    assert mine.read_text() == "my edited table"
    assert run_cli(capsys, *command, "--force")[0] == 0
    assert mine.read_text() != "my edited table"


@pytest.mark.parametrize("fmt", ["svg", "pdf", "png", "csv"])
def test_a_full_disk_keeps_the_earlier_file_and_says_so(decoded, small_disk, fmt):
    full_disk = small_disk
    source, steps = decoded
    figure = attention_figures(source, [steps[-1]], AttentionView(), "tiny")[0]
    earlier = full_disk / f"figure.{fmt}"
    earlier.write_bytes(b"an earlier good export")
    fill_disk(full_disk)
    with pytest.raises(ExportError, match="the disk is full"):
        figure_files.export_figure(figure.spec, earlier)
    assert earlier.read_bytes() == b"an earlier good export"
    assert sorted(p.name for p in full_disk.iterdir()) == ["figure." + fmt, "filler"]  # no temp file left


def test_ctrl_c_right_after_any_rename_of_a_replacing_export_loses_no_file(decoded, tmp_path, monkeypatch):
    """Ctrl+C lands just after a rename returns (before the code could note it): at every rename of an
    export that replaces earlier files, the folder then holds every earlier file, unchanged, or every
    new file — never a mix, never a lost file, never a hidden staging folder."""
    import os

    source, steps = decoded
    figures = attention_figures(source, [steps[-1]], AttentionView(), "tiny")[:3]
    folder = tmp_path / "out"
    export_batch(figures, folder, ["csv", "npy"], sidecar={"run": 1})
    earlier = {path.name: path.read_bytes() for path in folder.iterdir()}
    (folder / "notes.txt").write_text("the user's own file")
    earlier["notes.txt"] = b"the user's own file"
    real_replace = os.replace
    renames = 0
    interrupted_at = -1

    def rename_then_interrupt(source_path, target_path):
        nonlocal renames
        real_replace(source_path, target_path)
        renames += 1
        if renames == interrupted_at:
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", rename_then_interrupt)
    export_batch(figures, folder, ["csv", "npy"], sidecar={"run": 2}, overwrite=True)  # counts the renames
    (folder / "attnviz-export.json").write_bytes(earlier["attnviz-export.json"])  # back to the start
    total, outcomes = renames, set()
    for interrupted_at in range(1, total + 1):
        renames = 0
        with contextlib.suppress(KeyboardInterrupt):
            export_batch(figures, folder, ["csv", "npy"], sidecar={"run": 2}, overwrite=True)
        now = {path.name: path.read_bytes() for path in folder.iterdir()}
        assert now.keys() == earlier.keys(), interrupted_at  # no staging folder left, no file lost
        outcome = "old" if now == earlier else "new"
        if outcome == "new":
            assert b'"run": 2' in now["attnviz-export.json"] and now["notes.txt"] == earlier["notes.txt"]
            (folder / "attnviz-export.json").write_bytes(earlier["attnviz-export.json"])  # back to the start
        outcomes.add(outcome)
    assert outcomes == {"old", "new"}  # interrupted before the commit, and after it
