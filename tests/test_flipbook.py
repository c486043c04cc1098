"""The decoding flip-book: a multi-page PDF (a page per step) and an animated GIF (a frame per step), from
``attnviz export --flipbook`` and from :func:`attnviz.render.flipbook.write_flipbook` (offscreen Qt)."""

from __future__ import annotations

import errno
import os
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageSequence

from attnviz.figures.spec import FigureSpec
from attnviz.gui import file_dialogs
from attnviz.render import flipbook
from attnviz.render.figure_files import ExportError, WouldReplace
from attnviz.render.flipbook import FRAME_MS, LAST_FRAME_MS, flipbook_paths, write_flipbook
from tests import test_file_targets
from tests.helpers import WAIT_MS, fill_disk, run_cli

threaded_window = test_file_targets.threaded_window  # (the fixture: the window on the app's worker threads)
PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")  # a page object, not the /Pages tree


def pages_of(pdf: Path) -> int:
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    return len(PAGE.findall(data))


def frames_of(gif: Path) -> list[np.ndarray]:
    with Image.open(gif) as image:
        return [np.asarray(frame.convert("RGB")).astype(np.int16) for frame in ImageSequence.Iterator(image)]


def export(capsys, checkpoint: Path, out: Path, *extra: str, text: str = "a b c") -> tuple[int, str, str]:
    return run_cli(capsys, "export", "--checkpoint", str(checkpoint), "--text", text, "--out", str(out),
                   "--scale", "1", *extra)


def one_error_line(code: int, err: str) -> None:
    assert code == 2, err
    assert err.startswith("attnviz: error: ") and err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def step_pngs(qapp, capsys, tiny_models, tmp_path) -> list[Path]:
    """The tiny Transformer's 'a b c', every step's cross-attention (layer 1, head 1) as PNG at scale 1."""
    out = tmp_path / "steps"
    code, _, err = export(capsys, tiny_models["transformer"][0], out, "--step", "all", "--format", "png")
    assert code == 0, err
    pngs = sorted(out.glob("cross_layer1_head1_step*.png"))
    assert len(pngs) >= 3
    return pngs


def test_cli_flipbook_has_a_page_and_a_frame_per_step(qapp, capsys, tiny_models, tmp_path, step_pngs):
    out = tmp_path / "book"
    code, stdout, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook")
    assert code == 0, err
    assert stdout == f"wrote 2 files into {out}\n"
    pdf, gif = flipbook_paths(out, "cross_layer1_head1")
    assert sorted(out.iterdir()) == sorted([pdf, gif])  # and no temporary file left beside them
    assert pages_of(pdf) == len(step_pngs)

    frames = frames_of(gif)
    assert len(frames) == len(step_pngs)
    last = np.asarray(Image.open(step_pngs[-1]).convert("RGB")).astype(np.int16)
    assert {frame.shape for frame in frames} == {last.shape}  # one size: the whole decoding's figure
    assert np.abs(frames[-1] - last).mean() < 1.0  # the last frame is the last step, despite the 256-colour palette
    with Image.open(gif) as image:
        durations = [frame.info["duration"] for frame in ImageSequence.Iterator(image)]
        assert image.info["loop"] == 0  # forever
    assert durations == [FRAME_MS] * (len(frames) - 1) + [LAST_FRAME_MS]
    # Every frame has the same layout: the colour bar, its ticks and the key labels in the same place (the
    # right fifth and the bottom fifth of the frame), while the rows fill in (the first frame's cells below its
    # one row are blank white, the last frame's are coloured).
    height, width = last.shape[:2]
    for frame in frames[:-1]:
        assert np.abs(frame[:, -width // 5:] - last[:, -width // 5:]).mean() < 1.0
        assert np.abs(frame[-height // 5:] - last[-height // 5:]).mean() < 1.0
    cells = (slice(height // 2, 4 * height // 5), slice(width // 5, 3 * width // 5))  # lower rows of the grid
    white = [float((frame[cells] == 255).all(axis=2).mean()) for frame in (frames[0], last)]
    assert white[0] > white[1] + 0.3, white


def test_cli_flipbook_follows_the_view_options(qapp, capsys, tiny_models, tmp_path):
    out = tmp_path / "book"
    code, _, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook", "--kind", "dec-self",
                          "--layer", "2", "--head", "3", "--scores", "--blank-masked", "--beam", "2")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == ["dec-self_layer2_head3_scores_flipbook.gif",
                                                     "dec-self_layer2_head3_scores_flipbook.pdf"]
    code, _, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook", "--all-heads", "--scale", "2")
    assert code == 0, err
    pdf, gif = flipbook_paths(out, "cross_all-heads")
    with Image.open(gif) as image:
        wide = image.size[0]
    assert pdf.is_file() and wide > 600  # a 2 × 4 grid at scale 2


@pytest.mark.parametrize(("extra", "message"), [
    (["--layer", "2"], "--layer chooses the view of --flipbook; add --flipbook"),
    (["--all-heads"], "--all-heads chooses the view of --flipbook"),
    (["--flipbook", "--step", "2"], "--step does not go with --flipbook"),
    (["--flipbook", "--format", "png"], "--format does not go with --flipbook"),
    (["--flipbook", "--layer", "3"], "--layer 3: this model's cross-attention has 2 layer(s)"),
    (["--flipbook", "--head", "0"], "--head 0: this model's cross-attention has 4 head(s)"),
    (["--flipbook", "--all-heads", "--head", "1"], "--all-heads shows every layer and head"),
    (["--flipbook", "--scale", "100"], "--scale: the PNG scale must be a number from 0.25 to 8"),
])
def test_cli_flipbook_rejects_bad_options_with_one_line(qapp, capsys, tiny_models, tmp_path, extra, message):
    out = tmp_path / "book"
    code, _, err = export(capsys, tiny_models["transformer"][0], out, *extra)
    one_error_line(code, err)
    assert message in err
    assert not out.exists()


def test_cli_flipbook_of_an_attention_the_model_lacks(qapp, capsys, tiny_models, tmp_path):
    code, _, err = export(capsys, tiny_models["rnn-additive"][0], tmp_path / "book", "--flipbook", "--kind",
                          "dec-self")
    one_error_line(code, err)
    assert "this model has no decoder self-attention" in err and not (tmp_path / "book").exists()


def test_cli_flipbook_replaces_files_only_with_force(qapp, capsys, tiny_models, tmp_path):
    out = tmp_path / "book"
    checkpoint = tiny_models["rnn-dot"][0]
    assert export(capsys, checkpoint, out, "--flipbook")[0] == 0
    pdf, gif = flipbook_paths(out, "cross_layer1_head1")
    pdf.write_bytes(b"my annotated copy")
    gif_before = gif.read_bytes()
    code, _, err = export(capsys, checkpoint, out, "--flipbook", "--text", "c d e f")
    one_error_line(code, err)
    assert "would be replaced" in err and "add --force" in err
    assert pdf.read_bytes() == b"my annotated copy" and gif.read_bytes() == gif_before
    assert sorted(out.iterdir()) == sorted([pdf, gif])
    code, _, err = export(capsys, checkpoint, out, "--flipbook", "--force", "--text", "c d e f")
    assert code == 0, err
    assert pages_of(pdf) >= 3 and gif.read_bytes() != gif_before
    assert sorted(out.iterdir()) == sorted([pdf, gif])


def test_cli_flipbook_never_replaces_a_folder_and_writes_nothing(qapp, capsys, tiny_models, tmp_path):
    out = tmp_path / "book"
    gif = flipbook_paths(out, "cross_layer1_head1")[1]
    gif.mkdir(parents=True)
    (gif / "notes.txt").write_text("my work")
    code, _, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook", "--force")
    one_error_line(code, err)
    assert "is not a regular file" in err
    assert (gif / "notes.txt").read_text() == "my work"
    assert sorted(out.iterdir()) == [gif]  # no PDF either: both or neither


def test_cli_flipbook_into_an_unwritable_place(qapp, capsys, tiny_models, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = export(capsys, tiny_models["transformer"][0], blocker / "book", "--flipbook")
    one_error_line(code, err)
    assert err.startswith("attnviz: error: Cannot write") and blocker.read_text() == "x"


def test_cli_flipbook_into_a_read_only_folder(qapp, capsys, tiny_models, tmp_path):
    out = tmp_path / "read-only"
    out.mkdir()
    out.chmod(0o555)
    try:
        if os.access(out, os.W_OK):
            pytest.skip("this user writes into read-only folders (root)")
        code, _, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook")
        one_error_line(code, err)
        assert "Cannot write" in err and "permission denied" in err
        assert list(out.iterdir()) == []
    finally:
        out.chmod(0o755)


def specs(steps: int = 4) -> list[FigureSpec]:
    """A made-up decoding: one more query row per step over five keys, weights that sum to one."""
    rng = np.random.default_rng(0)
    weights = rng.dirichlet(np.ones(5), size=steps).astype(np.float32)
    keys = ("k1", "k2", "k3", "k4", "k5")
    return [FigureSpec(weights[: n + 1], tuple(f"q{i}" for i in range(n + 1)), keys, f"made up · step {n + 1}")
            for n in range(steps)]


def test_write_flipbook_writes_both_and_returns_them(qapp, tmp_path):
    pdf, gif = tmp_path / "a.pdf", tmp_path / "a.gif"
    assert write_flipbook(specs(), pdf, gif, scale=1.5, title="made up") == [pdf, gif]
    assert pages_of(pdf) == 4 and b"made up" in pdf.read_bytes()
    assert len(frames_of(gif)) == 4
    assert write_flipbook(specs(2), None, tmp_path / "b.gif") == [tmp_path / "b.gif"]
    assert write_flipbook(specs(1), tmp_path / "c.pdf", None) == [tmp_path / "c.pdf"]
    assert pages_of(tmp_path / "c.pdf") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif", "a.pdf", "b.gif", "c.pdf"]


def test_write_flipbook_refuses_what_it_cannot_do(qapp, tmp_path):
    pdf, gif = tmp_path / "a.pdf", tmp_path / "a.gif"
    with pytest.raises(ExportError, match="nothing to export"):
        write_flipbook([], pdf, gif)
    with pytest.raises(ExportError, match="nothing to export"):
        write_flipbook([FigureSpec(np.zeros((0, 3), np.float32), (), ("a", "b", "c"), "")], pdf, gif)
    with pytest.raises(ExportError, match="no flip-book file"):
        write_flipbook(specs(), None, None)
    with pytest.raises(ExportError, match="cannot both be written"):
        write_flipbook(specs(), pdf, pdf)
    with pytest.raises(ExportError, match="scale"):
        write_flipbook(specs(), pdf, gif, scale=float("nan"))
    assert list(tmp_path.iterdir()) == []
    pdf.write_bytes(b"mine")
    with pytest.raises(WouldReplace) as refused:
        write_flipbook(specs(), pdf, gif)
    assert refused.value.paths == [pdf]
    assert pdf.read_bytes() == b"mine" and not gif.exists()
    write_flipbook(specs(), pdf, gif, force=True)
    assert pages_of(pdf) == 4


def test_a_failure_while_writing_leaves_neither_file(qapp, tmp_path, monkeypatch):
    """The second file fails on the disk (say, full) after the first was written: neither takes its name,
    the earlier PDF is kept, and no temporary file is left behind."""
    pdf, gif = tmp_path / "a.pdf", tmp_path / "a.gif"
    pdf.write_bytes(b"an earlier good export")
    synced = []

    def fsync(fd):
        synced.append(fd)
        if len(synced) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(flipbook.os, "fsync", fsync)
    with pytest.raises(ExportError, match=f"Cannot write {gif}: the disk is full"):
        write_flipbook(specs(), pdf, gif, force=True)
    assert pdf.read_bytes() == b"an earlier good export"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pdf"]


def test_an_interruption_while_encoding_leaves_nothing(qapp, tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(flipbook, "write_flipbook_gif", broken)
    with pytest.raises(KeyboardInterrupt):
        write_flipbook(specs(), tmp_path / "a.pdf", tmp_path / "a.gif")
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_keeps_the_earlier_files_and_says_so(qapp, small_disk):
    full_disk = small_disk
    fill_disk(full_disk)
    pdf, gif = full_disk / "a.pdf", full_disk / "a.gif"
    pdf.write_bytes(b"")  # (an empty file fits on a full disk)
    with pytest.raises(ExportError, match="the disk is full"):
        write_flipbook(specs(), pdf, gif, force=True)
    assert pdf.read_bytes() == b""
    assert sorted(p.name for p in full_disk.iterdir()) == ["a.pdf", "filler"]


def test_the_gif_palette_keeps_the_colours(qapp):
    """256 colours for several hundred: white stays white, the colour bar keeps no visible bands, and the
    cells keep their colours (the frames differ from the pictures by well under one level on average)."""
    from attnviz.render.figure_painter import lookup_table

    frames = flipbook.gif_frames(specs(6), scale=2)
    colours, counts = flipbook.colour_counts(frames)
    assert len(colours) > 256  # (else the palette is exact and there is nothing to test)
    palette = flipbook.shared_palette(frames, colours, counts, ["viridis"])
    assert len(palette) <= 256 and (palette == 255).all(axis=1).any()
    viridis = lookup_table("viridis")[:, :3].astype(np.int32)
    assert np.abs(viridis - palette[flipbook._nearest(viridis, palette)]).max() <= 4
    for frame, indexed in zip(frames, flipbook.indexed_frames(frames, palette, colours), strict=True):
        assert indexed.mode == "P"
        error = np.abs(np.asarray(indexed.convert("RGB"), np.int16) - np.asarray(frame, np.int16))
        assert error.mean() < 0.5


def test_the_app_exports_the_decoding_as_a_flip_book(window, tmp_path, monkeypatch):
    from PIL import Image

    window.set_sentence("a b c", run=True)
    steps = len(window.session.state.steps)
    monkeypatch.setattr(file_dialogs, "save_file_name",
                        lambda *_args, **_kw: (str(tmp_path / "mine.pdf"), ""))
    window.exports.flipbook_action.trigger()
    assert (tmp_path / "mine.pdf").read_bytes().startswith(b"%PDF")
    with Image.open(tmp_path / "mine.gif") as gif:
        assert gif.n_frames == steps
    assert "flip-book" in window.statusBar().full_message


def test_a_flipbook_past_the_pixel_budget_is_drawn_smaller_or_refused(qapp, tmp_path, monkeypatch):
    """frames × width × height of the GIF is bounded: past it the scale drops (by 0.25s) to the largest that
    fits; when even the smallest is too large nothing is written and the message says why."""
    pdf, gif = tmp_path / "a.pdf", tmp_path / "a.gif"
    figures = specs(5)
    width, height = flipbook.gif_size(figures, 1.0)
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", 5 * width * height)  # scale 1 fits, 2 does not
    assert flipbook.gif_scale(figures, 2.0) == 1.0
    assert "drawn at 1× instead of 2×" in flipbook.scale_notice(figures, 2.0, 1.0)
    write_flipbook(figures, pdf, gif, scale=2.0)
    with Image.open(gif) as image:
        assert image.size == (width, height) and getattr(image, "n_frames", 1) == 5
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", 100)
    with pytest.raises(ExportError, match=r"The flip-book is too large: .* 5 frames .* Nothing was written"):
        write_flipbook(figures, tmp_path / "b.pdf", tmp_path / "b.gif", scale=2.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gif", "a.pdf"]


def test_cli_flipbook_past_the_budget_says_so(qapp, capsys, tiny_models, tmp_path, monkeypatch):
    out = tmp_path / "book"
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", 100)
    code, _, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook")
    one_error_line(code, err)
    assert "The flip-book is too large" in err and not out.exists()
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", 20_000_000)
    code, stdout, err = export(capsys, tiny_models["transformer"][0], out, "--flipbook", "--all-heads", "--scale", "8")
    assert code == 0, err
    assert err.startswith("attnviz: note: The flip-book's GIF is drawn at ") and "instead of 8×" in err
    assert stdout == f"wrote 2 files into {out}\n"


def test_the_gif_holds_one_picture_at_a_time(qapp, tmp_path, monkeypatch):
    """The frames are drawn, counted and encoded one by one: never all held as pictures at once."""
    import weakref

    drawn = []
    most = [0]
    original = flipbook._frame  # (every frame of either pass is drawn by it)

    def counting(*args):
        picture = original(*args)
        drawn.append(weakref.ref(picture))
        most[0] = max(most[0], sum(ref() is not None for ref in drawn))
        return picture

    monkeypatch.setattr(flipbook, "_frame", counting)
    monkeypatch.setattr(flipbook, "PALETTE_PIXELS", 1)  # the palette fitted to one frame: 2 alive at most
    write_flipbook(specs(12), None, tmp_path / "a.gif")
    assert len(drawn) == 24 and most[0] <= 2  # two passes
    assert len(frames_of(tmp_path / "a.gif")) == 12


def _held_flipbook(window, tmp_path, monkeypatch):
    """Start the window's flip-book export with its file jobs held (tests.helpers.HeldRunner)."""
    from tests.helpers import HeldRunner

    window.set_sentence("a b c", run=True)
    runner = HeldRunner()
    window.session.files = runner
    painted = []
    original = flipbook.paint_figure

    def counted(*args, **kw):
        painted.append(1)
        return original(*args, **kw)

    monkeypatch.setattr(flipbook, "paint_figure", counted)
    monkeypatch.setattr(file_dialogs, "save_file_name", lambda *_args, **_kw: (str(tmp_path / "mine.pdf"), ""))
    window.exports.flipbook_action.trigger()
    return runner, painted


def test_the_window_draws_the_flip_book_on_the_file_runner(window, tmp_path, monkeypatch):
    runner, painted = _held_flipbook(window, tmp_path, monkeypatch)
    assert painted == []  # nothing drawn on the GUI thread
    assert [p.name for p in tmp_path.iterdir() if "mine" in p.name] == []
    assert window.session.state.busy  # the busy indicator names the job
    runner.run_all()
    assert painted and (tmp_path / "mine.gif").is_file() and (tmp_path / "mine.pdf").is_file()
    assert "Exported the flip-book" in window.statusBar().full_message


def test_cancelling_the_flip_book_leaves_no_file(window, tmp_path, monkeypatch):
    from PySide6 import QtWidgets

    runner, _painted = _held_flipbook(window, tmp_path, monkeypatch)
    dialogs = window.findChildren(QtWidgets.QProgressDialog)
    assert len(dialogs) == 1
    dialogs[0].findChild(QtWidgets.QPushButton).click()  # Cancel
    runner.run_all()
    assert [p.name for p in tmp_path.iterdir() if "mine" in p.name] == []  # no temporary file either
    assert "cancelled" in window.statusBar().full_message


def test_the_flip_book_is_drawn_off_the_gui_thread(threaded_window, qtbot, tiny_models, tmp_path, monkeypatch):
    """With the app's worker threads the frames are painted on a file thread, progress comes back through
    the event loop, and the window says when the files are written."""
    import threading

    window = threaded_window
    window.load(tiny_models["transformer"][0])
    qtbot.waitUntil(lambda: window.session.state.model is not None and not window.session.state.busy, timeout=30000)
    window.set_sentence("a b c", run=True)
    qtbot.waitUntil(lambda: len(window.session.state.steps) >= 3 and not window.session.state.busy, timeout=30000)
    threads = set()
    original = flipbook.paint_figure

    def noted(*args, **kw):
        threads.add(threading.current_thread())
        return original(*args, **kw)

    monkeypatch.setattr(flipbook, "paint_figure", noted)
    assert window.exports.export_flipbook(tmp_path / "mine.pdf") == []  # returned at once: drawn elsewhere
    qtbot.waitUntil(lambda: "Exported the flip-book" in window.statusBar().full_message, timeout=WAIT_MS)
    assert threads and threading.main_thread() not in threads
    assert (tmp_path / "mine.pdf").is_file() and (tmp_path / "mine.gif").is_file()


def test_the_window_refuses_a_flip_book_past_the_budget_with_a_message(window, tmp_path, monkeypatch, errors):
    window.set_sentence("a b c", run=True)
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", 100)
    assert window.exports.export_flipbook(tmp_path / "mine.pdf") == []
    assert "The flip-book is too large" in errors[-1] and "Nothing was written" in errors[-1]
    assert [p.name for p in tmp_path.iterdir() if "mine" in p.name] == []


def test_the_window_names_the_lowered_gif_scale(window, tmp_path, monkeypatch):
    window.set_sentence("a b c", run=True)
    window.settings.export_scale = 4.0
    # a million pixels a frame: the tiny model's figure fits at 1× (under 0.2 million), not at 4× (over 2)
    monkeypatch.setattr(flipbook, "FLIPBOOK_PIXELS", len(window.session.state.steps) * 1_000_000)
    assert window.exports.export_flipbook(tmp_path / "mine.pdf") == [tmp_path / "mine.pdf", tmp_path / "mine.gif"]
    message = window.statusBar().full_message
    assert "Exported the flip-book" in message and "instead of 4×" in message
