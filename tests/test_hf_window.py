"""Hugging Face folders in the real window: every view shows them with the model's own numbers — an
encoder–decoder's three kinds of attention, a decoder-only model's one sequence (its prompt's last token is the
first query), the Computation view's query recomputed by hand, the positional encoding it really uses — and
Compare and ``attnviz export`` take them."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtCore

transformers = pytest.importorskip("transformers")

from attnviz.core.attention.kind import AttentionKind  # noqa: E402
from tests.helpers import raised, run_cli  # noqa: E402
from tests.hf_folders import TEXT, make_folder  # noqa: E402

ENC, DEC, CROSS = AttentionKind.ENCODER_SELF, AttentionKind.DECODER_SELF, AttentionKind.CROSS


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("hf-window")
    return {family: make_folder(family, root / family, seed=1) for family in ("marian", "t5", "gpt2", "llama")}


def _open(window, folder):
    window.load(folder)
    window.set_sentence(TEXT, run=True)
    return window.session.state


def _raise_every_dock(window):
    for name, dock in window.docks.items():
        dock.show()
        dock.raise_()
        window.panels.ensure_current(name)


def test_an_encoder_decoder_folder_shows_in_every_view(window, errors, folders):
    state = _open(window, folders["marian"])
    source, step = state.source, state.step
    assert source.tokens[:2] == ("the", "house") and source.tokens[-1] == "</s>"  # words, and Marian's own </s>
    assert step.query_tokens[0] == "<pad>"  # Marian's decoder starts from <pad>
    attention = window.attention
    assert [attention.kind_box.itemText(i) for i in range(attention.kind_box.count())] == \
        ["Encoder self-attention", "Decoder self-attention", "Cross-attention"]
    attention.select_view(CROSS, 1, 1)
    np.testing.assert_array_equal(attention.current.values, step.cross_weights[1, 1])
    assert attention.current.cols == source.tokens
    assert window.statusBar().currentMessage().startswith("Loaded marian: a Hugging Face Marian model, 15,952 ")
    positional = raised(window, "positional")
    assert "fixed sinusoidal table" in positional.note.text() and positional.tabs.indexOf(positional.rope_page) < 0
    _raise_every_dock(window)
    assert not errors, errors


def test_the_translation_reads_as_text_not_as_pieces_and_a_long_one_scrolls(window, folders):
    window.resize(1024, 700)
    state = _open(window, folders["gpt2"])
    output = window.decoding_area.output.text()
    pieces = state.step.output_tokens
    assert any(token.startswith("·") for token in pieces)  # (this random model writes word pieces)
    assert "·" not in output  # a piece that continues a word is joined to it, without its mark
    assert len(pieces) == 64  # the longest output: it scrolls (newest words in view), the window keeps its size
    bar = window.decoding_area.output.verticalScrollBar()
    assert bar.isVisible() and bar.value() == bar.maximum()
    raised(window, "positional")
    assert window.minimumSizeHint().height() <= 700


def test_a_decoder_only_folder_shows_its_one_sequence(window, errors, qtbot, folders):
    state = _open(window, folders["llama"])
    source, step = state.source, state.step
    s = len(source.tokens)
    assert step.query_tokens[0] == source.tokens[-1]  # the prompt's last token predicts the first new one
    attention = window.attention
    attention.select_view(DEC, 1, 3)
    matrix = attention.current
    assert matrix.rows == (*source.tokens, *step.query_tokens[1:])  # no separator: S + T − 1 positions
    np.testing.assert_array_equal(matrix.values[s - 1], step.self_weights[1, 3, 0])  # the same row, once
    np.testing.assert_array_equal(matrix.values[s:], step.self_weights[1, 3, 1:])
    np.testing.assert_allclose(matrix.values.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(matrix.masked, ~np.tri(len(matrix.rows), dtype=bool))
    heatmap = attention.heatmap
    qtbot.mouseClick(heatmap, QtCore.Qt.MouseButton.LeftButton, pos=heatmap.cell_rect(s + 1, 0).center().toPoint())
    comp = state = window.session.state.computation
    assert (comp.kind, comp.layer, comp.head, comp.query_index) == (DEC, 1, 3, 2)
    np.testing.assert_allclose(comp.weights[: s + 2], matrix.values[s + 1, : s + 2], atol=1e-5)
    assert "RoPE" in comp.formulas.query and "shared by 2 query heads" in comp.formulas.key
    _raise_every_dock(window)
    assert not errors, errors


def test_a_rotary_model_draws_its_frequencies_and_the_decay_with_distance(window, folders):
    _open(window, folders["llama"])
    positional = raised(window, "positional")
    model = transformers.AutoModelForCausalLM.from_pretrained(folders["llama"])
    inv_freq = model.model.rotary_emb.inv_freq.numpy()
    described = window.session.state.model.positional
    np.testing.assert_allclose(described.rope_frequencies, inv_freq, rtol=1e-6)
    assert described.rope_decay[0] == pytest.approx(1.0) and described.rope_decay[40] < 0.9
    assert positional.tabs.indexOf(positional.rope_page) >= 0 and "RoPE rotates" in positional.note.text()
    window.load(folders["gpt2"])  # a learned table: the RoPE tab goes, the weights are the table
    assert positional.tabs.indexOf(positional.rope_page) < 0
    wpe = transformers.AutoModelForCausalLM.from_pretrained(folders["gpt2"]).transformer.wpe.weight.detach().numpy()
    np.testing.assert_array_equal(window.session.state.model.positional_table, wpe[:256])
    assert "learned table" in positional.note.text()


def test_compare_takes_a_model_with_the_same_tokenizer_and_refuses_another(window, errors, folders, tmp_path):
    _open(window, folders["marian"])
    other = make_folder("marian", tmp_path / "marian-other", seed=7)  # the same tokenizer, other weights
    window.session.compare_with(other)
    comparison = window.session.state.comparison
    assert not errors and comparison is not None and comparison.model == "marian-other"
    assert comparison.steps[-1].query_tokens == window.session.state.step.query_tokens[: len(comparison.steps)]
    window.session.compare_with(folders["gpt2"])
    assert "splits text into other tokens than the model on show" in errors[-1]
    assert window.session.state.compared_with == str(other)  # (the comparison on show stays)


def test_export_writes_a_folders_maps(tmp_path, capsys, folders):
    out = tmp_path / "maps"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(folders["llama"]), "--text", TEXT, "--out", str(out),
                           "--format", "png,csv", "--step", "2")
    assert code == 0, err
    written = sorted(p.name for p in out.iterdir())
    assert any(name.endswith(".png") for name in written) and any(name.endswith(".csv") for name in written)


def test_t5_draws_its_relative_position_bias_per_head_and_distance(window, errors, folders):
    state = _open(window, folders["t5"])
    positional = raised(window, "positional")
    described = state.model.positional
    assert "adds no position vectors" in positional.note.text() and not described.vectors
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folders["t5"])
    attention = model.encoder.block[0].layer[0].SelfAttention
    table = attention.relative_attention_bias.weight.detach().numpy()  # (buckets, heads)
    distances = described.row_values
    zero = int(np.flatnonzero(distances == 0)[0])
    np.testing.assert_array_equal(described.table[zero], table[0])  # distance 0: bucket 0
    np.testing.assert_array_equal(described.table[zero + 1], table[4 + 1])  # +1: the keys-after half's first
    assert positional.table_view.spec.col_axis == "head" and positional.table_view.spec.row_labels[zero] == "0"
    comp_view = raised(window, "computation")
    window.attention.select_view(ENC, 1, 0)
    window.panels.panels["computation"].inspect(ENC, 1, 0, 2)
    comp = window.session.state.computation
    np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
    assert "T5's learned bias" in comp.formulas.score and comp_view is not None
    _raise_every_dock(window)
    assert not errors, errors


def test_a_session_of_a_folder_saves_and_reopens_in_the_window_and_the_cli(window, errors, qtbot, folders, tmp_path,
                                                                          capsys):
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    state = _open(window, folders["marian"])
    forced = state.steps[1].topk_tokens[1]  # the second choice at step 2
    window.session.show(1)
    window.session.force(forced)  # (step 2 takes it; decoding goes on from there)
    window.session.show(1)
    assert window.session.state.steps[1].token == forced
    saved = window.save_session(tmp_path / "marian.attnviz.json")
    assert saved is not None and not errors, errors
    other = MainWindow(Settings(tmp_path / "other.ini"), InlineRunner())
    qtbot.addWidget(other)
    other.show()
    assert other.open_session(saved)
    again = other.session.state
    assert not errors, errors
    assert again.model.path == folders["marian"] and again.position == 1
    assert again.steps[1].token == forced and again.forced_steps == (1,)
    code, _, err = run_cli(capsys, "export", "--session", str(saved), "--out", str(tmp_path / "maps"))
    assert code == 0, err
    assert (tmp_path / "maps" / "attnviz-export.json").is_file()


def test_a_dangling_link_in_a_folder_is_named_and_the_model_on_show_stays(window, errors, folders, tmp_path):
    import shutil

    before = window.session.state.model
    folder = shutil.copytree(folders["gpt2"], tmp_path / "gpt2-copy")
    (folder / "notes.txt").symlink_to(folder / "gone.txt")
    window.load(folder)
    assert window.session.state.model is before
    assert errors and "notes.txt: cannot be read" in errors[-1] and "\n" not in errors[-1].strip()


def test_the_compare_panel_offers_a_hugging_face_model(window, errors, folders, tmp_path, monkeypatch):
    from attnviz.gui.hf_dialog import OpenHuggingFaceDialog
    from attnviz.gui.panels.compare import OTHER_HF

    _open(window, folders["marian"])
    other = make_folder("marian", tmp_path / "marian-twin", seed=9)

    def choose(dialog):
        dialog.chosen = other
        dialog.accept()
        return dialog.result()

    monkeypatch.setattr(OpenHuggingFaceDialog, "exec", choose)
    panel = raised(window, "compare")
    panel.model_box.setCurrentIndex(panel.model_box.findData(OTHER_HF))
    panel.model_box.activated.emit(panel.model_box.currentIndex())
    assert not errors, errors
    assert panel.model_box.currentText() == "marian-twin" and window.session.state.comparison.model == "marian-twin"


def test_a_batch_and_a_flip_book_of_a_folder(window, errors, folders, tmp_path, capsys):
    """A decoder-only model's batch pads on the left; the flip-book has a page per step."""
    _open(window, folders["llama"])
    window.session.decode_together(["the house is big .", "he was there ."])
    batch = window.session.state.batch
    assert not errors, errors
    assert batch is not None and len(batch.sources) == 2
    short = min(batch.sources, key=lambda s: int(s.padding_mask.sum()))
    assert not short.padding_mask[0] and short.padding_mask[-1]  # padded on the left
    raised(window, "batch")
    assert not errors, errors
    out = tmp_path / "book"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(folders["marian"]), "--text", TEXT, "--out",
                           str(out), "--flipbook")
    assert code == 0, err
    gif = next(out.glob("*.gif"))
    assert gif.read_bytes()[:6] == b"GIF89a"
