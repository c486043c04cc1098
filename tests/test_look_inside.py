"""The Computation and Rollout panels in the real window: the numbers on screen are the model's own."""

import numpy as np
from PySide6 import QtCore

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.attention.rollout import rollout, source_attribution
from tests.helpers import WAIT_MS, raised


def _click_row(window, qtbot, row):
    heatmap = window.attention.heatmap
    qtbot.mouseClick(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=heatmap.cell_rect(row, 0).center().toPoint())


def test_clicking_a_row_shows_that_querys_computation_with_the_models_numbers(window, qtbot):
    window.set_sentence("a b c d", run=True)
    window.attention.select_view(AttentionKind.CROSS, 1, 2)
    _click_row(window, qtbot, 2)
    assert window.docks["computation"].isVisible()
    comp = window.session.state.computation
    step = window.session.state.step
    assert (comp.kind, comp.layer, comp.head, comp.query_index) == (AttentionKind.CROSS, 1, 2, 2)
    np.testing.assert_allclose(comp.weights, step.cross_weights[1, 2, 2], atol=1e-5)
    np.testing.assert_allclose(comp.scores, step.cross_scores[1, 2, 2], atol=1e-4)
    panel = window.panels.panels["computation"]
    np.testing.assert_allclose(panel.heatmaps["weights"].values[0], comp.weights, atol=1e-6)
    assert panel.heatmaps["weights"].col_labels == ("a", "b", "c", "d")
    assert "q = W_q a" in panel.heatmaps["query"].spec.title and "√8" in panel.heatmaps["scores"].spec.title
    assert "largest difference from the model's own weights" in panel.summary.text()
    panel._on_stage_hovered("scores", 0, 3)  # a key hovered: its column is outlined in every per-key strip
    assert {name: panel.heatmaps[name].highlighted_column for name in ("keys", "values", "weights", "mask")} == \
        {"keys": 3, "values": 3, "weights": 3, "mask": 3}
    assert "key 4 <b>d</b>" in panel.readout.text()


def test_following_the_step_shows_the_newest_query(window, qtbot):
    window.set_sentence("a b c", run=False)
    window.docks["computation"].show()
    window.docks["computation"].raise_()
    window.session.step()
    window.session.step()
    qtbot.waitUntil(lambda: window.session.state.computation is not None
                    and window.session.state.computation.query_index == 1, timeout=WAIT_MS)
    comp = window.session.state.computation
    np.testing.assert_allclose(comp.weights, window.session.state.step.cross_weights[0, 0, 1], atol=1e-5)


def test_additive_scoring_shows_its_projections(window, qtbot, tiny_models):
    window.load(tiny_models["rnn-additive"][0])
    window.set_sentence("a b c", run=True)
    _click_row(window, qtbot, 1)
    panel = window.panels.panels["computation"]
    comp = window.session.state.computation
    assert comp.scoring == "additive"
    for name in ("additive-query", "additive-keys", "additive-features"):
        assert panel.heatmaps[name].isVisibleTo(panel)
    np.testing.assert_allclose(comp.weights, window.session.state.step.cross_weights[0, 0, 1], atol=1e-5)
    assert not window.docks["rollout"].isVisibleTo(window)  # rollout is for Transformers only


def test_rollout_panel_shows_the_papers_rollout_and_the_attribution(window):
    window.set_sentence("a b c d", run=True)
    panel = raised(window, "rollout")
    state = window.session.state
    flows = rollout(state.source.encoder_weights)
    np.testing.assert_allclose(panel.encoder.values, flows[-1], atol=1e-6)
    np.testing.assert_allclose(panel.attribution.values, source_attribution(state.step.cross_weights, flows[-1])[-1],
                               atol=1e-6)
    assert "Abnar" in panel.toolTip()
    panel.encoder_layer.setValue(1)
    np.testing.assert_allclose(panel.encoder.values, flows[0], atol=1e-6)
    assert "encoder layer 1 " in panel.encoder.spec.title


def test_two_models_side_by_side_with_their_difference(window, qtbot, tiny_models, tmp_path):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession
    from attnviz.render.figure_files import export_figure

    window.load(tiny_models["rnn-additive"][0])
    window.set_sentence("a b c", run=True)
    panel = raised(window, "compare")
    panel.compare_with(tiny_models["transformer"][0])
    state = window.session.state
    comparison = state.comparison
    assert comparison.kind == "transformer" and " ".join(comparison.own_translation) == "cx bx ax"
    assert comparison.steps[-1].query_tokens == state.step.query_tokens  # forced to the same target
    other = DecodeSession(load_checkpoint(tiny_models["transformer"][0]))  # independently: forced by hand
    other.encode("a b c")
    for token in comparison.target:
        other.step(token)
    expected_second = other.steps[-1].cross_weights[-1].mean(axis=0)
    np.testing.assert_allclose(panel.second.values, expected_second, atol=1e-6)
    np.testing.assert_allclose(panel.first.values, state.step.cross_weights[-1].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(panel.difference.values, panel.first.values - panel.second.values, atol=1e-6)
    low, high = panel.difference.spec.levels
    assert low == -high and high >= np.abs(panel.difference.values).max() - 1e-6
    panel.first.hovered.emit(1, 2)  # one crosshair for the three maps
    assert panel.second.linked_cell == (1, 2) and panel.difference.linked_cell == (1, 2)
    written = export_figure(panel.figure(), tmp_path / "compare.csv")
    blocks = [line.split(",")[1] for line in written.read_text().splitlines()[1:]]
    rows = len(state.step.query_tokens)
    assert blocks == ["rnn-additive"] * rows + ["transformer"] * rows + ["difference"] * rows
    own = comparison.own_translation
    window.session.compare()  # the same sentence again: what the second model says by itself is not redone
    assert window.session.state.comparison is not comparison and window.session.state.comparison.own_translation is own
    window.set_sentence("c d", run=True)  # the second model follows the new sentence once stepping pauses
    qtbot.waitUntil(lambda: window.session.state.comparison is not None
                    and window.session.state.comparison.source.tokens == ("c", "d"), timeout=WAIT_MS)


def test_the_beam_tree_shows_every_kept_hypothesis_and_its_own_attention(window, qtbot, tiny_models, tmp_path):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession
    from attnviz.render.figure_files import export_figure
    from tests.helpers import pixels

    window.beam_box.setValue(3)
    window.set_sentence("a b c d", run=True)
    panel = raised(window, "beams")
    state = window.session.state
    spec = panel.tree.spec
    best = state.step.beams[0].tokens
    kept = {beam.tokens for step in state.steps for beam in step.beams}
    assert {node.tokens for node in spec.nodes} == kept | {()}  # every kept prefix, and the root
    assert [n.tokens for n in spec.nodes if n.best] == [best[:i] for i in range(len(best) + 1)]
    assert all(spec.nodes[p].tokens == n.tokens[:-1] for n, p in zip(spec.nodes, spec.parents, strict=True) if p >= 0)
    assert spec.nodes[spec.selected].tokens == best  # the best hypothesis is shown until another is clicked
    np.testing.assert_allclose(panel.coverage.values[0], panel.attention.values.sum(axis=0), atol=1e-5)
    other = next(i for i, n in enumerate(spec.nodes) if n.tokens and not n.best)
    rect = panel.tree.boxes[other]
    qtbot.mouseClick(panel.tree, QtCore.Qt.MouseButton.LeftButton, pos=rect.center().toPoint())
    node = panel.tree.spec.nodes[panel.tree.spec.selected]
    assert node.tokens == spec.nodes[other].tokens
    forced = DecodeSession(load_checkpoint(tiny_models["transformer"][0]))  # that hypothesis, decoded by force
    forced.encode("a b c d")
    for token in node.tokens:
        forced.step(token)
    np.testing.assert_allclose(panel.attention.values, forced.steps[-1].cross_weights[-1].mean(axis=0), atol=1e-5)
    assert panel.attention.row_labels == ("<bos>", *node.tokens[:-1])
    table = export_figure(panel.tree.spec, tmp_path / "tree.csv").read_text().splitlines()
    assert len(table) == len(spec.nodes) + 1 and table[0].startswith("hypothesis,token,step,log_prob,pruned")
    picture = pixels(export_figure(panel.tree.spec, tmp_path / "tree.png"))
    assert (picture != 255).any() and picture.shape[0] > 100


def test_compare_lines_up_with_the_hypothesis_on_show_under_beam_search(window, tiny_models):
    window.beam_box.setValue(3)
    window.set_sentence("a b c d e f", run=True)
    panel = raised(window, "compare")
    panel.compare_with(tiny_models["rnn-dot"][0])
    step = window.session.state.step
    assert panel.second.values.shape == (len(step.query_tokens), 6)  # not "decoding…" at the last search step
    assert panel.second.row_labels == step.query_tokens


def test_a_computation_for_a_step_no_longer_on_show_is_dropped(tiny_models):
    from attnviz.core.attention.kind import AttentionKind
    from attnviz.session import Session
    from tests.helpers import HeldRunner
    from tests.test_session import Recorder

    runner = HeldRunner()
    session = Session(Recorder(), runner)
    session.load(tiny_models["transformer"][0])
    session.encode("a b c", run=True)
    runner.run_all()
    session.inspect_query(AttentionKind.CROSS, 0, 0, 2)
    session.show(0)  # scrubbed back before the computation arrived
    runner.run_all()
    assert session.state.computation is None


def _short_model(tiny_models, tmp_path, max_tgt_len=2):
    """The tiny RNN with a shorter output limit than the loaded Transformer's translations."""
    import dataclasses

    from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint

    loaded = load_checkpoint(tiny_models["rnn-dot"][0])
    loaded.model.config = dataclasses.replace(loaded.config, max_tgt_len=max_tgt_len)
    return save_checkpoint(tmp_path / "short.safetensors", loaded.model, src_vocab=loaded.src_vocab,
                           tgt_vocab=loaded.tgt_vocab)


def test_a_model_with_a_shorter_output_limit_compares_as_far_as_it_goes(window, tiny_models, tmp_path, errors):
    window.set_sentence("a b c d e", run=True)
    panel = raised(window, "compare")
    panel.compare_with(_short_model(tiny_models, tmp_path))
    state = window.session.state
    assert errors == [] and state.compared_with.endswith("short.safetensors")
    assert len(state.comparison.steps) == 2 and len(state.steps) == 6
    assert "length limit" in panel.second.spec.title and "2 words" in panel.second.spec.title
    window.session.show(1)  # a row both models decoded: the three maps
    assert panel.second.values.shape == (2, 5) and panel.difference.values.shape == (2, 5)


def test_a_refused_compare_leaves_the_chooser_on_what_is_compared(window, tiny_models, tmp_path, errors, monkeypatch):
    from attnviz.gui import file_dialogs
    from attnviz.gui.panels.compare import NONE, OTHER

    junk = tmp_path / "junk.safetensors"
    junk.write_bytes(b"not a checkpoint")
    window.set_sentence("a b c", run=True)
    panel = raised(window, "compare")

    def choose_other(path):
        monkeypatch.setattr(file_dialogs, "open_file_name", lambda *args, **kwargs: (str(path), ""))
        panel.model_box.setCurrentIndex(panel.model_box.findData(OTHER))
        panel.model_box.activated.emit(panel.model_box.currentIndex())

    choose_other(junk)
    assert "junk.safetensors" in errors[-1]
    assert panel.model_box.currentText() == NONE and window.session.state.comparison is None

    choose_other(tiny_models["rnn-dot"][0])
    comparison = window.session.state.comparison
    assert comparison is not None and panel.model_box.currentText() == "rnn-dot"
    choose_other(junk)  # refused: the comparison on show stays, and the chooser says which it is
    assert len(errors) == 2 and "junk.safetensors" in errors[-1]
    assert panel.model_box.currentText() == "rnn-dot" and window.session.state.comparison is comparison
    choose_other("")  # "Other checkpoint…" cancelled: nothing changes
    assert panel.model_box.currentText() == "rnn-dot" and window.session.state.comparison is comparison
