"""File ▸ Open Hugging Face model…: the local cache's models listed by name, architecture, parameters and size
(one that cannot be opened greyed, with why), and the chosen one opens in the window."""

from __future__ import annotations

import shutil

import pytest
from PySide6 import QtCore, QtWidgets

pytest.importorskip("transformers")

from attnviz.gui.hf_dialog import OpenHuggingFaceDialog
from tests.hf_folders import make_folder


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A Hugging Face cache with a Marian model, stored as the hub stores it (snapshot files are links into
    blobs/), and an ELECTRA model attnviz does not open."""
    hub = tmp_path / "hub"
    made = make_folder("marian", tmp_path / "made")
    entry = hub / "models--acme--opus-mt-tiny"
    snapshot = entry / "snapshots" / "0123abcd"
    (entry / "blobs").mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for index, file in enumerate(sorted(made.iterdir())):
        blob = entry / "blobs" / f"blob{index}"
        shutil.copy(file, blob)
        (snapshot / file.name).symlink_to(blob)
    other = hub / "models--acme--electra-tiny" / "snapshots" / "fedc"
    other.mkdir(parents=True)
    (other / "config.json").write_text('{"model_type": "electra", "hidden_size": 8}')
    odd = hub / "models--acme--odd" / "snapshots" / "0000"  # a config no library writes: listed, not a crash
    odd.mkdir(parents=True)
    (odd / "config.json").write_text('{"model_type": {"a": 1}}')
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    return hub, snapshot


def _listed(qtbot, dialog):
    """The dialog, once its listing (on a thread of its own) is in."""
    if dialog._listing is not None:
        with qtbot.waitSignal(dialog.listed, timeout=20_000):
            pass
    return dialog


def _rows(dialog):
    return [tuple(dialog.table.item(r, c).text() for c in range(dialog.table.columnCount()))
            for r in range(dialog.table.rowCount())]


def test_the_cache_is_listed_by_name_architecture_parameters_and_size(qtbot, cache):
    hub, snapshot = cache
    dialog = OpenHuggingFaceDialog(cache=hub)
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == 0 and "Reading the models in the cache" in dialog.empty.text()
    rows = _rows(_listed(qtbot, dialog))
    assert [row[0] for row in rows] == ["acme/electra-tiny", "acme/odd", "acme/opus-mt-tiny"]
    assert rows[1][1] == "cannot open: has no model_type naming its architecture"  # (the file's path: its tip)
    _name, architecture, parameters, size = rows[2]
    assert architecture == "Marian" and parameters.replace(",", "").isdigit() and size.endswith("KB")
    assert rows[0][1] == "cannot open: model_type 'electra' is not one attnviz opens; it opens Marian, BART, " \
        "mBART, T5, GPT-2, Llama, Qwen2, Qwen3, Qwen3-MoE, Mistral, Mixtral, Gemma 2, Gemma 3, Phi-3, OLMo 2, " \
        "SmolLM3, gpt-oss, BERT, DistilBERT, RoBERTa, ModernBERT, ViT, DeiT, DINOv2, DINOv2 with registers"  # why
    assert dialog.table.item(0, 1).toolTip().endswith("config.json: " + rows[0][1].removeprefix("cannot open: "))
    assert not dialog.table.item(0, 0).flags() & QtCore.Qt.ItemFlag.ItemIsSelectable
    assert not dialog.open_button.isEnabled()
    dialog.table.selectRow(2)
    assert dialog.open_button.isEnabled()
    qtbot.mouseClick(dialog.open_button, QtCore.Qt.MouseButton.LeftButton)
    assert dialog.result() == QtWidgets.QDialog.DialogCode.Accepted and dialog.chosen == snapshot


def test_an_empty_cache_says_to_choose_a_folder(qtbot, tmp_path):
    dialog = OpenHuggingFaceDialog(cache=tmp_path / "nothing-here")
    qtbot.addWidget(dialog)
    _listed(qtbot, dialog)
    assert dialog.table.rowCount() == 0 and "Choose a model folder" in dialog.empty.text()


def test_the_menu_opens_the_chosen_cached_model_in_the_window(window, errors, cache, monkeypatch, qtbot):
    _hub, snapshot = cache

    def choose(dialog):
        _listed(qtbot, dialog)
        dialog.table.selectRow(2)
        dialog.open_button.click()
        return dialog.result()

    monkeypatch.setattr(OpenHuggingFaceDialog, "exec", choose)
    window.menus.open_hf_action.trigger()
    state = window.session.state
    assert not errors, errors
    assert state.model.kind == "hf-seq2seq" and state.model.path == snapshot
    assert window.statusBar().currentMessage().startswith("Loaded opus-mt-tiny: a Hugging Face Marian model")
