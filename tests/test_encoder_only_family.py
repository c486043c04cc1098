"""attnviz's own encoder-only model as a family: its checkpoint, filling masks step by step
(core/decoding/fill_mask.py), ``attnviz fill-mask``, ``attnviz train encoder-only --task mlm`` and the window. A tiny
BERT learns runs of consecutive words (w3 w4 [MASK] w6 → w5) here; the tests never read ../shared."""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from attnviz.core.attention.kind import AttentionKind
from attnviz.core.checkpoints.checkpoint import load_checkpoint, save_checkpoint
from attnviz.core.decoding.fill_mask import FillMaskSession
from attnviz.core.layout import Capability
from attnviz.core.models.encoder_only import EncoderOnly, EncoderOnlyConfig
from attnviz.core.text import RESERVED, Vocab
from attnviz.training.mlm import MlmOptions, mlm_vocab, train_mlm
from tests.helpers import WAIT_MS, raised, run_cli

WORDS = 30
VOCAB = mlm_vocab(Vocab((*RESERVED, *(f"w{i}" for i in range(WORDS)))))
RUN = "w3 w4 [MASK] w6 w7"


def _runs(count: int, seed: int) -> list[tuple[str, ...]]:
    """Runs of consecutive words w_i w_{i+1} … (mod 30): a masked word follows from its neighbours."""
    rng = random.Random(seed)
    return [tuple(f"w{(start + j) % WORDS}" for j in range(rng.randrange(4, 9)))
            for start in (rng.randrange(WORDS) for _ in range(count))]


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A tiny BERT trained on runs, saved as an attnviz checkpoint (the vocabulary as its source and target)."""
    torch.manual_seed(0)
    model = EncoderOnly(EncoderOnlyConfig(len(VOCAB), num_hiddens=32, num_heads=4, num_layers=2, ffn_hiddens=64,
                                          dropout=0.0, max_len=16))
    folder = tmp_path_factory.mktemp("bert")
    with open(folder / "log.txt", "w") as log:
        history = train_mlm(model, VOCAB, _runs(2000, 0), _runs(100, 1), MlmOptions(epochs=8, batch_size=64, lr=4e-3,
                            warmup_steps=30), log=log, content_words=False)
    return save_checkpoint(folder / "bert.safetensors", model, src_vocab=VOCAB, tgt_vocab=VOCAB,
                           training={"source": "test", **history}, half=True, verify=True)


def test_the_checkpoint_opens_as_an_encoder_only_model_that_fills_masks(checkpoint):
    loaded = load_checkpoint(checkpoint)
    assert loaded.kind == "encoder-only" and loaded.layout.name == "encoder-only"
    assert loaded.offers(Capability.MASKS) and not loaded.offers(Capability.DECODER)
    assert loaded.src_vocab == VOCAB and loaded.model.mlm.output.weight is loaded.model.token_embedding.weight


def test_each_step_fills_the_first_open_mask_from_the_sentence_as_it_stands(checkpoint):
    filling = FillMaskSession(load_checkpoint(checkpoint))
    source = filling.encode("w3 w4 [MASK] w6 [MASK] w8")
    assert source.tokens == ("[CLS]", "w3", "w4", "[MASK]", "w6", "[MASK]", "w8", "[SEP]")
    assert source.encoder_weights.shape == (2, 4, 8, 8) and not filling.finished
    first = filling.step()
    assert first.focus == 3 and first.topk_tokens[0] == "w5" and first.query_tokens == source.tokens
    assert first.topk_probs[0] > 0.3 and np.all(np.diff(first.topk_probs) <= 0) and first.topk_probs.sum() <= 1
    np.testing.assert_allclose(first.self_weights.sum(axis=-1), 1, atol=1e-5)  # every row over the 8 tokens
    second = filling.step(force="w1")  # the user's choice fills the second mask
    assert second.focus == 5 and second.topk_tokens[0] == "w7" and second.forced and second.finished
    assert second.query_tokens[3] == "w5" and second.output_tokens[5] == "w1"  # read with the first one filled
    assert not np.array_equal(second.self_weights, first.self_weights)  # the sentence was read again
    filling.rewind(1)
    assert len(filling.steps) == 1 and filling.steps[0].topk_tokens == first.topk_tokens and not filling.finished


def test_a_step_encoded_ahead_is_the_step_itself_and_the_model_reads_each_sentence_once(checkpoint):
    """The app encodes the next step while the user looks (prefetch); encode's own pass is the first step's."""
    def steps(prefetching: bool) -> tuple[list, list]:
        filling = FillMaskSession(load_checkpoint(checkpoint))
        read, predict = [], filling.reader.predict
        filling.reader.predict = lambda ids, segments, position: (read.append((ids, position)),  # type: ignore
                                                                  predict(ids, segments, position))[1]
        filling.encode("w3 w4 [MASK] w6 [MASK] w8")
        made = [filling.step()]
        if prefetching:
            filling.prefetch()
            filling.prefetch()  # (twice: still one encoding)
        made.append(filling.step(force="w1"))
        filling.prefetch()  # nothing left to fill: nothing to encode
        return made, read

    plain, plain_reads = steps(False)
    ahead, ahead_reads = steps(True)
    assert plain_reads == ahead_reads and len(ahead_reads) == 2  # the encode's pass served the first step
    for a, b in zip(plain, ahead, strict=True):
        assert (a.topk_tokens, a.output_tokens, a.query_tokens, a.focus, a.forced) == \
            (b.topk_tokens, b.output_tokens, b.query_tokens, b.focus, b.forced)
        np.testing.assert_array_equal(a.self_weights, b.self_weights)
        np.testing.assert_array_equal(a.topk_probs, b.topk_probs)
        assert b.seconds > 0


def test_a_step_the_model_cannot_take_says_why_in_one_sentence(checkpoint):
    filling = FillMaskSession(load_checkpoint(checkpoint))
    filling.encode("w1 w2 w3")
    assert filling.finished
    with pytest.raises(ValueError, match=r"There is no \[MASK\] in the sentence: write \[MASK\] in place of a word"):
        filling.step()
    filling.encode(RUN)
    with pytest.raises(ValueError, match="no such word"):
        filling.step(force="[SEP]")
    with pytest.raises(ValueError, match="this model reads at most 16"):
        filling.encode(" ".join(["w1"] * 15 + ["[MASK]"]))


def test_fill_mask_prints_the_top_five_per_line_and_refuses_bad_input_in_one_line(checkpoint, capsys, monkeypatch,
                                                                                   tiny_models):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("w3 w4 [MASK] w6\nw10 [MASK] w12 w13\n"))
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(checkpoint), "--device", "cpu")
    lines = out.splitlines()
    assert code == 0 and err == "" and len(lines) == 2
    assert [line.split("\t")[0] for line in lines] == ["w5", "w11"]
    assert all(len(line.split("\t")) == 5 for line in lines)
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(checkpoint), "--text", "w1 w2 w3")
    assert code == 2 and out == "" and err.count("\n") == 1 and "no [MASK] to fill" in err
    code, out, err = run_cli(capsys, "fill-mask", "--checkpoint", str(tiny_models["transformer"][0]), "--text", RUN)
    assert code == 2 and out == "" and "does not fill masks" in err


def test_train_encoder_only_needs_the_mlm_task_and_writes_nothing_on_bad_options(tmp_path, capsys):
    out = tmp_path / "bert.safetensors"
    code, _, err = run_cli(capsys, "train", "encoder-only", "--data", str(tmp_path / "missing.tsv"), "--out", str(out),
                           "--task", "mlm")
    assert code == 2 and "training data not found" in err
    code, _, err = run_cli(capsys, "train", "transformer", "--task", "mlm", "--data", "x", "--out", str(out))
    assert code == 2 and "--task mlm trains encoder-only" in err
    assert not out.exists()


def _reading(window, qtbot, checkpoint, text: str) -> None:
    """The window with the tiny BERT open and ``text`` encoded (no step yet)."""
    window.load(checkpoint)
    qtbot.waitUntil(lambda: window.session.state.model is not None
                    and window.session.state.model.kind == "encoder-only", timeout=WAIT_MS)
    window.set_sentence(text)
    qtbot.waitUntil(lambda: window.session.state.source is not None, timeout=WAIT_MS)


def test_the_window_shows_self_attention_and_step_fills_the_mask(window, checkpoint, errors, qtbot):
    _reading(window, qtbot, checkpoint, RUN)
    attention = window.attention
    assert [attention.kind_box.itemText(i) for i in range(attention.kind_box.count())] == ["Self-attention"]
    assert not window.docks["beams"].isVisible() and not window.docks["batch"].isVisible()
    window.session.step()
    qtbot.waitUntil(lambda: window.session.state.step is not None, timeout=WAIT_MS)
    step = window.session.state.step
    assert step.topk_tokens[0] == "w5" and attention.current.kind is AttentionKind.ENCODER_SELF
    np.testing.assert_array_equal(attention.current.values, step.self_weights[0, 0])
    positional = raised(window, "positional")
    assert "learned table" in positional.note.text()
    raised(window, "rollout")
    raised(window, "masks")
    assert not errors, errors


def test_step_on_a_sentence_with_no_mask_says_what_to_do_and_the_masks_dock_is_not_called_causal(
        window, checkpoint, errors, qtbot):
    _reading(window, qtbot, checkpoint, "w1 w2 w3")
    masks = raised(window, "masks")
    assert "causal" not in masks.causal.spec.title.lower() or "no causal" in masks.causal.spec.title.lower()
    assert window.step_button.isEnabled()
    window.step_button.click()
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert errors == ["There is no [MASK] in the sentence: write [MASK] in place of a word to see what the model "
                      "guesses there, e.g. “i [MASK] to go home .”"]
    assert window.session.state.step is None


def test_export_writes_each_fill_steps_maps_under_its_own_step(checkpoint, tmp_path, capsys):
    out = tmp_path / "maps"
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(checkpoint), "--text", "w3 [MASK] w5 [MASK] w7",
                           "--out", str(out), "--format", "csv", "--step", "all")
    assert code == 0, err
    names = sorted(p.name for p in out.glob("*.csv"))
    assert len(names) == 2 * 2 * 4 and names[0] == "enc-self_layer1_head1_step01.csv"  # 2 steps × 2 layers × 4 heads
    second = np.loadtxt(out / "enc-self_layer2_head3_step02.csv", delimiter=",", skiprows=1, usecols=range(1, 8))
    filling = FillMaskSession(load_checkpoint(checkpoint))
    filling.encode("w3 [MASK] w5 [MASK] w7")
    np.testing.assert_allclose(second, filling.run()[1].self_weights[1, 2], atol=1e-4)


def test_the_shipped_bert_fills_a_held_out_style_sentence_and_says_its_training():
    from attnviz.paths import MODELS_DIR

    path = MODELS_DIR / "encoder-only.safetensors"
    loaded = load_checkpoint(path)
    assert loaded.kind == "encoder-only" and path.stat().st_size <= 25 * 10**6
    assert loaded.training["content_word_top5"] >= 0.45 and loaded.training["data"] == "fra.txt"
    filling = FillMaskSession(loaded)
    filling.encode("i [MASK] to go home .")
    assert "want" in filling.step().topk_tokens


def test_a_flip_book_pages_through_the_fills(checkpoint, tmp_path, capsys):
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(checkpoint), "--text", "w3 [MASK] w5 [MASK] w7",
                           "--out", str(tmp_path), "--flipbook")
    assert code == 0, err
    from PIL import Image

    with Image.open(tmp_path / "enc-self_layer1_head1_flipbook.gif") as gif:
        assert gif.n_frames == 2  # one page per filled mask
    assert (tmp_path / "enc-self_layer1_head1_flipbook.pdf").stat().st_size > 0


def test_a_saved_session_brings_back_the_fills_the_user_chose(window, checkpoint, qtbot, tmp_path):
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.session import InlineRunner

    window.load(checkpoint)
    window.set_sentence("w3 [MASK] w5 [MASK] w7", run=True)
    qtbot.waitUntil(lambda: len(window.session.state.steps) == 2, timeout=WAIT_MS)
    window.session.show(0)
    window.session.force("w9")  # the user fills the first mask with another word; the second follows from it
    qtbot.waitUntil(lambda: window.session.state.steps[0].forced, timeout=WAIT_MS)
    shown = window.session.state.step
    path = window.save_session(tmp_path / "fills.attnviz.json")

    other = MainWindow(Settings(tmp_path / "other.ini"), InlineRunner())
    qtbot.addWidget(other)
    other.show()
    assert other.open_session(path)
    state = other.session.state
    assert state.model is not None and state.model.kind == "encoder-only" and state.forced_steps == (0,)
    assert state.steps[0].token == "w9" and state.step.output_tokens == shown.output_tokens
    np.testing.assert_array_equal(state.step.self_weights, shown.self_weights)


def test_the_lecture_view_steps_through_the_fills_and_its_keys_change_head_and_layer(window, checkpoint, qtbot):
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    window.load(checkpoint)
    window.set_sentence("w3 [MASK] w5 [MASK] w7")
    qtbot.waitUntil(lambda: window.session.state.source is not None, timeout=WAIT_MS)
    window.lecture.enter()
    QTest.keyClick(window, Qt.Key.Key_Down)
    QTest.keyClick(window, Qt.Key.Key_PageDown)
    QTest.keyClick(window, Qt.Key.Key_K)  # one kind only: it stays
    view = window.session.state.view
    assert (view.kind, view.layer, view.head) == (AttentionKind.ENCODER_SELF, 1, 1)
    window.lecture.interval_box.setValue(0.2)
    window.lecture.play()
    qtbot.waitUntil(lambda: not window.lecture.timer.isActive(), timeout=WAIT_MS)
    state = window.session.state
    assert state.finished and len(state.steps) == 2 and state.step.topk_tokens[0] == "w6"
    assert "layer 2 · head 2 · step 2" in window.attention.heatmap.spec.title
    QTest.keyClick(window, Qt.Key.Key_Escape)
    assert not window.lecture.active


def test_the_computation_view_recomputes_the_masks_row_of_the_sentence_the_step_read(window, checkpoint, errors,
                                                                                  qtbot):
    """bertviz's neuron view: after a fill, the Computation dock follows the mask's row of the sentence as the step
    read it (a pair: segment ids too), and its weights equal the model's own row of that step."""
    _reading(window, qtbot, checkpoint, "w3 w4 [MASK] w6 [SEP] w8 [MASK] w10")
    panel = raised(window, "computation")
    assert [panel.kind_box.itemText(i) for i in range(panel.kind_box.count())] == ["Self-attention"]
    window.session.step()
    window.session.step()  # the second mask, read with the first one filled in
    qtbot.waitUntil(lambda: window.session.state.computation is not None
                    and window.session.state.computation.query_index == 7, timeout=WAIT_MS)
    step, comp = window.session.state.step, window.session.state.computation
    assert step.focus == 7 and comp.key_tokens == step.query_tokens and comp.key_tokens[3] == "w5"
    np.testing.assert_allclose(comp.model_weights, step.self_weights[0, 0, 7], atol=1e-6)
    np.testing.assert_allclose(comp.weights, comp.model_weights, atol=1e-5)
    np.testing.assert_allclose(panel.heatmaps["weights"].values[0], comp.weights, atol=1e-6)
    panel.inspect(AttentionKind.ENCODER_SELF, 1, 3, 2)  # another layer, head and row, chosen by the user
    qtbot.waitUntil(lambda: window.session.state.computation.layer == 1, timeout=WAIT_MS)
    comp = window.session.state.computation
    np.testing.assert_allclose(comp.weights, step.self_weights[1, 3, 2], atol=1e-5)
    assert not errors, errors


def test_compare_puts_a_second_bert_beside_the_first_on_the_same_fills(window, checkpoint, errors, qtbot, tmp_path):
    """Two encoder-only models with one vocabulary: the second fills the masks with the first one's words, and
    Compare draws both last layers' self-attention (heads averaged) of the sentence that fill read, and their
    difference. Only models that fill masks are offered; a translator is refused in one sentence."""
    torch.manual_seed(1)
    untrained = EncoderOnly(EncoderOnlyConfig(len(VOCAB), num_hiddens=32, num_heads=2, num_layers=1, ffn_hiddens=64,
                                              dropout=0.0, max_len=16))
    other = save_checkpoint(tmp_path / "other-bert.safetensors", untrained, src_vocab=VOCAB, tgt_vocab=VOCAB,
                            training={"source": "test"})
    window.load(checkpoint)
    qtbot.waitUntil(lambda: window.session.state.model is not None
                    and window.session.state.model.kind == "encoder-only", timeout=WAIT_MS)
    panel = raised(window, "compare")
    listed = [panel.model_box.itemText(i) for i in range(panel.model_box.count())]
    assert "encoder-only" in listed and "transformer" not in listed
    window.set_sentence(RUN)
    qtbot.waitUntil(lambda: window.session.state.source is not None, timeout=WAIT_MS)
    panel.compare_with(str(other))
    window.session.step()
    qtbot.waitUntil(lambda: window.session.state.comparison is not None
                    and len(window.session.state.comparison.steps) == 1, timeout=WAIT_MS)
    panel.show_state(None, window.session.state)
    step, comparison = window.session.state.step, window.session.state.comparison
    assert comparison.steps[0].query_tokens == step.query_tokens and comparison.target == (step.token,)
    np.testing.assert_allclose(panel.first.values, step.self_weights[-1].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(panel.second.values, comparison.steps[0].self_weights[-1].mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(panel.difference.values, panel.first.values - panel.second.values, atol=1e-6)
    assert "self-attention" in panel.first.spec.title
    assert not errors, errors
    window.session.compare_with(str(_shipped_transformer()))
    qtbot.waitUntil(lambda: bool(errors), timeout=WAIT_MS)
    assert "fill masks" in errors[-1] and window.session.state.compared_with == str(other)


def _shipped_transformer():
    from attnviz.paths import shipped_models

    return next(path for path in shipped_models() if path.stem == "transformer")


def test_the_explain_dock_explains_the_fill_from_the_sentence_the_step_read(window, checkpoint, errors, qtbot):
    _reading(window, qtbot, checkpoint, RUN)
    window.session.step()
    panel = raised(window, "explain")
    panel.explain()
    qtbot.waitUntil(lambda: window.session.state.explanation is not None, timeout=WAIT_MS)
    step, explanation = window.session.state.step, window.session.state.explanation
    assert explanation.labels == step.query_tokens and explanation.token == step.token == "w5"
    assert panel.rows.spec.col_labels == step.query_tokens and "occlusion" in explanation.methods
    assert not errors, errors
