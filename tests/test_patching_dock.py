"""The Head atlas dock's Patching tab on the shipped Transformer: the grid holds what ``patch_corpus`` and
``summarise`` give for the same pairs, hovering reads out a head's interval, a clicked head shows the core's maps of
both sides, Cancel on the app's threads leaves the run before it on show, a bad pairs file is one message naming its
line, and heads patched live decode the pair's corrupt side as the core's brute force does, named in the title until
they are patched no more."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.paths import DEFAULT_CHECKPOINT
from tests.helpers import WAIT_MS, open_window, raised, settle

TRANSFORMER = DEFAULT_CHECKPOINT
PAIRS = ("he is alone .\tshe is alone .\til\telle\n"
         "he was very tired .\tshe was very tired .\til\telle\n"
         "she is crazy .\the is crazy .\telle\til\n")
GENDER_HEADS = ("cross:3.1", "cross:3.4", "cross:2.1", "cross:3.3")  # the largest shares (docs/patching.md)


@pytest.fixture(scope="module")
def shipped():
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    return load_checkpoint(TRANSFORMER)


def _patching(qtbot, tmp_path):
    window = open_window(qtbot, tmp_path, TRANSFORMER, (1024, 768))
    heads = raised(window, "heads")
    heads.sections.setCurrentWidget(heads.patching)
    return window, heads.patching


def _ran(window, panel, qtbot, pairs_file) -> None:
    panel.add_pairs_file(pairs_file)
    panel.run()
    qtbot.waitUntil(lambda: window.session.state.patching is not None and window.session.state.pair_maps is not None,
                    timeout=WAIT_MS)


def _cell(panel, name: str) -> tuple[int, int]:
    for row, cells in enumerate(panel.cells):
        for col, (kind, layer, head) in enumerate(cells):
            if f"{kind.slug}:{layer + 1}.{head + 1}" == name:
                return row, col
    raise AssertionError(name)


def _outlined(panel, name: str) -> bool:
    """Whether head ``name``'s cell is drawn with the patched heads' dark outline (a pixel just inside its edge)."""
    rect = panel.grid.cell_rect(*_cell(panel, name))
    picture = panel.grid.grab().toImage()
    ratio = picture.devicePixelRatio()
    y = round(rect.center().y() * ratio)
    colours = [picture.pixelColor(round((rect.left() + dx) * ratio), y) for dx in (0.5, 1.0, 1.5, 2.0)]
    return any(max(c.red(), c.green(), c.blue()) < 60 for c in colours)


def test_the_tab_shows_the_cores_numbers_its_interval_on_hover_and_a_heads_maps(qtbot, tmp_path, errors, shipped):
    from attnviz.core.patching.corpus import patch_corpus
    from attnviz.core.patching.engine import MEASURES
    from attnviz.core.patching.maps import pair_maps
    from attnviz.core.patching.pairs import read_pairs
    from attnviz.core.patching.statistics import summarise
    from attnviz.gui.panels.patching import MEASURES as SHOWN

    pairs_file = tmp_path / "pairs.tsv"
    pairs_file.write_text(PAIRS, encoding="utf-8")
    window, panel = _patching(qtbot, tmp_path)
    assert [panel.pairs_box.itemData(i) for i in range(3)] == ["gender", "agreement", "number"]  # the model's tasks
    assert tuple(name for name, _ in SHOWN) == MEASURES
    _ran(window, panel, qtbot, pairs_file)
    run = patch_corpus(shipped, read_pairs(pairs_file))
    summary = summarise(list(run.results), run.layout)
    shown = window.session.state.patching.summary
    for measure in ("denoise", "values"):
        panel.measure_box.setCurrentIndex(panel.measure_box.findData(measure))
        np.testing.assert_allclose(shown.means[measure], summary.means[measure], atol=1e-6)
        row, col = _cell(panel, "cross:3.1")
        n = next(i for i, h in enumerate(summary.heads) if str(h) == "cross:3.1")
        assert panel.grid.spec.values[row, col] == pytest.approx(summary.means[measure][n], abs=1e-6)
        assert panel.grid.spec.row_labels[row] == "cross 3" and panel.grid.spec.colormap == "CET-D1"
        low, high = panel.grid.spec.levels
        assert low == -high  # (centred at 0)
        panel._on_grid_hovered(row, col)
        mean, low, high = (getattr(summary, what)[measure][n] for what in ("means", "lows", "highs"))
        assert panel.readout.text() == f"cross 3.1 · {measure} {mean:.2f} [{low:.2f}, {high:.2f}] over 3 pairs"
        assert "position" not in panel.grid.cell_text(row, col)  # (a cell is a head: no query and key positions)
    panel.grid.clicked.emit(*_cell(panel, "cross:2.1"))
    expected = pair_maps(shipped, read_pairs(pairs_file)[0])
    np.testing.assert_allclose(panel.clean_map.spec.values, expected.clean[AttentionKind.CROSS][1, 0], atol=1e-6)
    np.testing.assert_allclose(panel.corrupt_map.spec.values, expected.corrupt[AttentionKind.CROSS][1, 0], atol=1e-6)
    np.testing.assert_allclose(panel.difference_map.spec.values, expected.clean[AttentionKind.CROSS][1, 0]
                               - expected.corrupt[AttentionKind.CROSS][1, 0], atol=1e-6)
    assert panel.corrupt_map.spec.col_labels == ("she", "is", "alone", ".")
    assert panel.difference_map.spec.col_labels[0] == "he/she"
    assert not errors, errors


def test_a_generated_task_runs_and_a_bad_pairs_file_is_one_message_naming_its_line(qtbot, tmp_path, errors):
    window, panel = _patching(qtbot, tmp_path)
    panel.count_box.setValue(2)
    panel.run()
    qtbot.waitUntil(lambda: window.session.state.patching is not None, timeout=WAIT_MS)
    first = window.session.state.patching
    assert first.source == "gender" and len(first.pairs) == 2 and panel.pair_box.count() == 2
    bad = tmp_path / "bad.tsv"
    bad.write_text("he is alone .\tshe is alone .\til\telle\nhe is alone .\tshe is alone .\til\n", encoding="utf-8")
    panel.add_pairs_file(bad)
    panel.run()
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert len(errors) == 1 and errors[0].startswith("line 2:")
    assert window.session.state.patching is first and window.session.state.patching_progress is None


def test_heads_patched_live_decode_as_the_core_does_and_the_title_names_them(qtbot, tmp_path, errors, shipped):
    from attnviz.core.heads.gates import head_layout
    from attnviz.core.heads.mask import HeadMask
    from attnviz.core.patching.live import patched_greedy

    pairs_file = tmp_path / "pairs.tsv"
    pairs_file.write_text(PAIRS, encoding="utf-8")
    window, panel = _patching(qtbot, tmp_path)
    window.set_sentence("she is alone .", run=True)
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=WAIT_MS)
    own = window.session.state.steps[-1].output_tokens
    assert own[0] == "elle"
    _ran(window, panel, qtbot, pairs_file)
    assert panel.pair_box.currentIndex() == 0  # (the pair whose corrupt side is on show)
    settle(window)
    where = panel.grid.cell_rect(*_cell(panel, "cross:3.3"))
    assert not _outlined(panel, "cross:3.1")
    for name in GENDER_HEADS:  # one by one, as Ctrl+click does
        panel._on_patch_requested(*_cell(panel, name))
        qtbot.waitUntil(lambda n=name: n in window.session.state.model.heads_patched and window.session.state.finished,
                        timeout=WAIT_MS)
    mask = HeadMask.parse(",".join(GENDER_HEADS), head_layout(shipped.model))
    expected = patched_greedy(shipped, mask.heads, "he is alone .", "she is alone .")
    assert expected[0] == "il"  # (the heads that carry gender turn the pronoun)
    assert list(window.session.state.steps[-1].output_tokens[: len(expected)]) == expected
    assert window.windowTitle() == "attnviz — transformer.safetensors, heads patched " + str(mask)
    assert "Patched: " + ", ".join(str(mask).split(",")) in panel.banner.text()
    panel._on_grid_hovered(*_cell(panel, "cross:3.1"))
    settle(window)
    assert panel.grid.cell_rect(*_cell(panel, "cross:3.3")).contains(where.center())  # (a click lands where aimed)
    assert all(_outlined(panel, name) for name in GENDER_HEADS) and not _outlined(panel, "cross:3.2")
    panel.unpatch_button.click()
    qtbot.waitUntil(lambda: not window.session.state.model.heads_patched and window.session.state.finished,
                    timeout=WAIT_MS)
    assert window.session.state.steps[-1].output_tokens == own and window.windowTitle().endswith("safetensors")
    assert not _outlined(panel, "cross:3.1")
    assert not errors, errors


def test_another_pair_is_decoded_patched_and_another_sentence_ends_the_patching(qtbot, tmp_path, errors, shipped):
    from attnviz.core.heads.mask import Head
    from attnviz.core.patching.live import patched_greedy

    pairs_file = tmp_path / "pairs.tsv"
    pairs_file.write_text(PAIRS, encoding="utf-8")
    window, panel = _patching(qtbot, tmp_path)
    _ran(window, panel, qtbot, pairs_file)
    panel.pair_box.setCurrentIndex(2)  # she is crazy . -> he is crazy .: "il" patched from the clean "elle"
    panel.patch(["cross:3.1", "cross:3.4", "cross:2.1", "cross:3.3"])
    qtbot.waitUntil(lambda: window.session.state.text == "he is crazy ." and window.session.state.finished,
                    timeout=WAIT_MS)
    heads = [Head(AttentionKind.CROSS, layer, head) for layer, head in ((2, 0), (2, 3), (1, 0), (2, 2))]
    expected = patched_greedy(shipped, heads, "she is crazy .", "he is crazy .")
    assert list(window.session.state.steps[-1].output_tokens[: len(expected)]) == expected
    assert window.sentence.text() == "he is crazy ."
    window.set_sentence("he is tired .", run=True)
    qtbot.waitUntil(lambda: not window.session.state.model.heads_patched and window.session.state.finished,
                    timeout=WAIT_MS)
    assert window.session.state.steps[-1].output_tokens[0] == "il" and "patched" not in window.windowTitle()
    assert not errors, errors


def test_cancel_on_the_app_threads_leaves_the_run_before_on_show(qtbot, tmp_path, errors, monkeypatch):
    from attnviz.core.patching.engine import Patcher
    from attnviz.gui.main_window import MainWindow, Poster
    from attnviz.gui.settings import Settings
    from attnviz.session import ThreadRunner

    pairs_file = tmp_path / "pairs.tsv"
    pairs_file.write_text(PAIRS, encoding="utf-8")
    runner = ThreadRunner(Poster().post)
    window = MainWindow(Settings(tmp_path / "settings.ini"), runner)
    qtbot.addWidget(window)
    window.show()
    try:
        window.load(TRANSFORMER)
        qtbot.waitUntil(lambda: window.session.state.model is not None, timeout=WAIT_MS)
        heads = raised(window, "heads")
        panel = heads.patching
        _ran(window, panel, qtbot, pairs_file)
        before = window.session.state.patching
        reached, go, real = threading.Event(), threading.Event(), Patcher._patched_layer
        calls = []

        def held(self, batch, slot, measures):
            calls.append(slot)
            if len(calls) == 2:  # (one batched pass done: a half result exists on the job's thread)
                reached.set()
                go.wait()
            return real(self, batch, slot, measures)

        monkeypatch.setattr(Patcher, "_patched_layer", held)
        panel.run()
        qtbot.waitUntil(reached.is_set, timeout=WAIT_MS)
        assert panel.cancel_button.isVisibleTo(panel) and not panel.run_button.isEnabled()
        panel.cancel_button.click()
        go.set()
        qtbot.waitUntil(lambda: window.session.state.patching_progress is None, timeout=WAIT_MS)
        assert window.session.state.patching is before and panel.run_button.isEnabled() and not errors
    finally:
        runner.shutdown()


def test_every_shipped_model_still_opens_and_says_whether_its_heads_can_be_patched(qtbot, tmp_path, errors):
    from attnviz.core.layout import Capability
    from attnviz.paths import shipped_models

    window = open_window(qtbot, tmp_path, TRANSFORMER, (1024, 768))
    heads = raised(window, "heads")
    offered = {}
    for path in shipped_models():
        window.load(path)
        qtbot.waitUntil(lambda p=path: window.session.state.model is not None
                        and window.session.state.model.path == p, timeout=WAIT_MS)
        model = window.session.state.model
        if model.offers(Capability.DECODER):  # (the dock is there: brought up to date)
            heads = raised(window, "heads")
        offered[path.stem] = (model.patchable, model.patching_tasks, heads.sections.isTabVisible(1))
    assert not errors, errors
    translators = ("transformer", "decoder-only")
    assert {name for name, (patchable, _, _) in offered.items() if patchable} == set(translators)
    assert all(offered[name] == (True, ("gender", "agreement", "number"), True) for name in translators)
    assert all(not tasks for name, (_, tasks, _) in offered.items() if name not in translators), offered
    assert not offered["rnn-additive"][2]  # (its dock shows the atlas: no Patching tab)
