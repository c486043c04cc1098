"""The book's figures numbered as the reader's edition numbers them: d2l 0.17 / 《动手学深度学习》第二版
(chapter 10, the default) or d2l 1.0 (chapter 11), the other edition's number beside."""

from __future__ import annotations

import json

from attnviz import gallery
from tests.helpers import run_cli

PE_KEYS = ["10.6-pe-table", "10.6-pe-curves", "10.6-binary", "10.6-pe-similarity", "10.6-pe-model"]


def _index(out) -> str:
    return (out / "index.html").read_text(encoding="utf-8")


def test_figures_only_takes_either_editions_number_and_the_edition_numbers_the_index(qapp, capsys, tmp_path):
    out = tmp_path / "zh"
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(out), "--only", "10.6", "--format", "svg")
    assert code == 0, err  # a d2l 0.17 / 第二版 reader's 10.6: self-attention and positional encoding
    assert sorted(p.stem for p in out.glob("*.svg")) == sorted(PE_KEYS)
    index = _index(out)
    assert "<h2>10.6 (d2l 1.0: 11.6) Self-Attention and Positional Encoding</h2>" in index
    assert "<h3>10.6 — Positional encoding table</h3>" in index and "<h3>11.6" not in index
    sidecar = json.loads(next(out.glob("*.json")).read_text(encoding="utf-8"))
    assert sidecar["edition"] == "0.17" and {f["section"] for f in sidecar["figures"]} == {"10.6"}

    new = tmp_path / "d2l-1.0"
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(new), "--only", "11.6", "--format", "svg",
                                 "--edition", "1.0")
    assert code == 0, err  # the same figures, under d2l 1.0's number; the file names stay the same
    assert sorted(p.stem for p in new.glob("*.svg")) == sorted(PE_KEYS)
    index = _index(new)
    assert "<h2>11.6 (d2l 0.17: 10.6) Self-Attention and Positional Encoding</h2>" in index
    assert "<h3>11.6 — Positional encoding table</h3>" in index and "<h3>10.6" not in index


def test_figures_numbers_the_whole_book_in_one_edition(qapp, capsys, tmp_path):
    """Every figure of the index is numbered by the chosen edition (10.x under 0.17, 11.x under 1.0), none
    by the other one."""
    cheap = [e for e in gallery.GALLERY if not e.key.startswith(("10.4", "10.5", "10.6-pe-model", "10.7"))]
    for edition, numbers, others in (("0.17", "10.", "11."), ("1.0", "11.", "10.")):
        page = gallery.index_html(list(gallery.GALLERY), ["svg"], edition)
        headings = [part.split("</h3>")[0] for part in page.split("<h3>")[1:]]
        assert len(headings) == len(gallery.GALLERY)
        assert all(h.startswith((numbers, "paper", "attnviz")) for h in headings), edition
        assert not any(h.startswith(others) for h in headings), edition
    out = tmp_path / "all"
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(out), "--only",
                                 ",".join(e.key for e in cheap), "--format", "csv", "--edition", "1.0")
    assert code == 0, err
    assert "<h2>11.2 (d2l 0.17: 10.2) Attention Pooling by Similarity</h2>" in _index(out)


def test_figures_refuses_an_unknown_edition_or_section_and_writes_nothing(capsys, tmp_path):
    out = tmp_path / "none"
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(out), "--edition", "2.0")
    assert code == 2 and "unknown book edition '2.0'; choose 0.17 or 1.0" in err and not out.exists()
    code, _stdout, err = run_cli(capsys, "figures", "--out", str(out), "--only", "10.9")
    assert code == 2 and "no book figure matches 10.9" in err and "(d2l 1.0: 11.1" in err and not out.exists()


def test_the_edition_setting_round_trips_and_a_bad_value_falls_back(tmp_path):
    from attnviz.gui.settings import Settings

    path = tmp_path / "settings.ini"
    settings = Settings(path)
    assert settings.book_edition == "0.17"
    settings.book_edition = "1.0"
    assert settings.sync() is None and Settings(path).book_edition == "1.0"
    settings.qsettings.setValue("book_edition", "2.0")
    settings.sync()
    reread = Settings(path)
    assert reread.book_edition == "0.17" and any("book_edition" in p for p in reread.problems)


def _headings(dialog) -> list[str]:
    return [dialog.tree.topLevelItem(i).text(0) for i in range(dialog.tree.topLevelItemCount())]


def test_the_book_figures_dialog_numbers_by_the_chosen_edition_and_remembers_it(window, qtbot):
    from attnviz.gui.settings import Settings

    dialog = window.open_book_figures()
    assert _headings(dialog)[5] == "10.6 (d2l 1.0: 11.6) Self-Attention and Positional Encoding"
    assert [h.split()[0] for h in _headings(dialog)[:7]] == [f"10.{n}" for n in range(1, 8)]
    dialog.select("10.6-pe-table")
    assert dialog.caption.text().startswith("10.6 (d2l 1.0: 11.6) — Positional encoding table")
    dialog.edition_box.setCurrentIndex(dialog.edition_box.findData("1.0"))  # as the user picks it
    assert _headings(dialog)[5] == "11.6 (d2l 0.17: 10.6) Self-Attention and Positional Encoding"
    assert [h.split()[0] for h in _headings(dialog)[:7]] == [f"11.{n}" for n in range(1, 8)]
    assert dialog.caption.text().startswith("11.6 (d2l 0.17: 10.6) — Positional encoding table")
    current = dialog.tree.currentItem()
    assert current is not None and current.text(0) == "Positional encoding table"  # still chosen
    window.settings.sync()
    assert Settings(window.settings.path).book_edition == "1.0"


def test_the_dialog_opens_in_the_edition_of_the_settings(window):
    window.settings.book_edition = "1.0"
    dialog = window.open_book_figures()
    assert dialog.edition_box.currentData() == "1.0"
    assert _headings(dialog)[0] == "11.1 (d2l 0.17: 10.1) Queries, Keys, and Values"
