"""Forcing a token (interventions and teacher forcing): the decoder takes the user's token, decoding
goes on from there, the numbers equal the model's own teacher-forced pass, and the window marks it."""

import numpy as np
import pytest
import torch
from PySide6 import QtCore

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.beam_search import encode_batch
from attnviz.core.decoding.stepping import DecodeSession
from attnviz.session import InlineRunner, Session
from tests.test_session import Recorder
from tests.tiny import reversal_of

KINDS = ("transformer", "decoder-only", "rnn-additive", "rnn-dot")


def _decoding(tiny_models, kind, beam=1, text="a b c d"):
    decoding = DecodeSession(load_checkpoint(tiny_models[kind][0]), beam_size=beam)
    decoding.encode(text)
    return decoding


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("beam", [1, 3])
def test_a_forced_token_is_taken_and_decoding_goes_on_from_it(tiny_models, kind, beam):
    decoding = _decoding(tiny_models, kind, beam)
    own = decoding.run()
    assert " ".join(own[-1].output_tokens) == reversal_of("a b c d")
    decoding.rewind(1)
    assert len(decoding.steps) == 1
    forced = decoding.step("ax")  # the model would say "cx" here
    assert forced.token == "ax" and forced.forced and forced.output_tokens[:2] == ("dx", "ax")
    rest = decoding.run()
    assert rest[-1].finished and rest[-1].output_tokens[:2] == ("dx", "ax")
    assert [s.forced for s in rest] == [False, True] + [False] * (len(rest) - 2)


@pytest.mark.parametrize("kind", KINDS)
def test_rewinding_replays_the_same_numbers(tiny_models, kind):
    decoding = _decoding(tiny_models, kind)
    decoding.step()
    decoding.step("ax")
    decoding.run()
    before = list(decoding.steps)
    decoding.rewind(2)
    decoding.run()
    for old, new in zip(before, decoding.steps, strict=True):
        assert old.token == new.token and old.forced == new.forced
        np.testing.assert_array_equal(old.cross_weights, new.cross_weights)


def test_a_token_outside_the_vocabulary_is_refused_by_name(tiny_models):
    decoding = _decoding(tiny_models, "transformer")
    with pytest.raises(ValueError, match="'maison'"):
        decoding.step("maison")
    with pytest.raises(ValueError, match="<bos>"):
        decoding.step("<bos>")
    assert decoding.steps == []


@pytest.mark.parametrize("kind", KINDS)
def test_teacher_forcing_equals_the_models_own_teacher_forced_pass(tiny_models, kind):
    """The forced decoding's next-token probabilities equal those of the model's training-time forward
    pass over the same target prefix (an independent path: the whole sequence at once)."""
    loaded = load_checkpoint(tiny_models[kind][0])
    listener = Recorder()
    session = Session(listener, InlineRunner())
    session.load(tiny_models[kind][0])
    session.encode("a b c d")
    session.force_prefix("bx ax cx")  # not the model's own translation
    steps = session.state.steps
    assert listener.errors == []
    assert [s.token for s in steps[:3]] == ["bx", "ax", "cx"] and steps[-1].finished
    assert session.state.forced_steps == (0, 1, 2)
    src, valid = encode_batch([("a", "b", "c", "d")], loaded.src_vocab)
    vocab = loaded.tgt_vocab
    tgt_in = torch.tensor([[vocab.bos_id, *vocab.ids(["bx", "ax", "cx"])]])
    with torch.inference_mode():
        probs = torch.softmax(loaded.model.eval()(src, valid, tgt_in), dim=-1)[0]
    never = torch.tensor([vocab.bos_id, vocab.pad_id])  # (never candidates: not in the table)
    for t in range(4):
        expected = probs[t].index_fill(-1, never, 0.0).topk(len(steps[t].topk_tokens))
        assert list(steps[t].topk_tokens) == vocab.to_tokens(expected.indices.tolist())
        np.testing.assert_allclose(steps[t].topk_probs, expected.values.numpy(), atol=1e-5)


def test_session_force_replaces_the_step_on_show_and_runs_on_when_finished(tiny_models):
    listener = Recorder()
    session = Session(listener, InlineRunner())
    session.load(tiny_models["transformer"][0])
    session.encode("a b c", run=True)
    assert session.state.translation() == "cx bx ax"
    session.show(1)
    session.force("ax")
    state = session.state
    assert state.finished and state.position == len(state.steps) - 1
    assert state.steps[1].token == "ax" and state.forced_steps == (1,)
    assert state.steps[0] is not None and state.translation().startswith("cx ax")
    session.back()
    assert session.state.position == len(state.steps) - 2


def test_forcing_an_unknown_word_reports_it(tiny_models):
    listener = Recorder()
    session = Session(listener, InlineRunner())
    session.load(tiny_models["transformer"][0])
    session.encode("a b c")
    session.force("maison")
    assert listener.errors and "maison" in listener.errors[-1]
    session.run_to_end()
    before = session.state.steps
    session.force_prefix("ax bxx maison")  # teacher forcing refuses words the model cannot output…
    message = listener.errors[-1]
    assert "“maison”" in message and "“bxx” (nearest it knows: “bx”" in message and "Nothing was forced" in message
    assert "“ax”" not in message and session.state.steps is before  # …and forces nothing (not <unk>)
    session.force_prefix("<bos> bx")
    assert "“<bos>” (never an output)" in listener.errors[-1] and session.state.steps is before
    session.force_prefix("ax bx")
    assert [step.token for step in session.state.steps[:2]] == ["ax", "bx"]
    # a pasted page of 1,000 unknown words: five named with their nearest words, the rest counted (no freeze)
    session.force_prefix(" ".join(f"zz{i}q" for i in range(1000)))
    message = listener.errors[-1]
    assert message.count("“zz") == 5 and "and 995 more" in message and "Nothing was forced" in message


def test_clicking_a_candidate_forces_it_and_marks_output_and_timeline(window, qtbot):
    window.set_sentence("a b c", run=True)
    window.session.show(0)
    table = window.topk
    row = next(r for r in range(table.rowCount()) if table.item(r, 0).text() == "ax")
    assert table.item(0, 0).font().bold()  # the token the step took
    rect = table.visualItemRect(table.item(row, 0))
    qtbot.mouseClick(table.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=rect.center())
    state = window.session.state
    assert state.steps[0].token == "ax" and state.steps[0].forced and state.finished
    assert window.timeline.marks() == (1,)
    assert "forced" in window.output.toHtml() or "#d65f00" in window.output.toHtml()
    window.session.show(0)
    assert "forced" in window.decoding_area.step_label.text()


def test_typing_a_target_prefix_forces_it(window, qtbot):
    window.set_sentence("a b c d", run=True)
    field = window.decoding_area.force_field
    field.setText("ax bx")
    qtbot.keyClick(field, QtCore.Qt.Key.Key_Return)
    state = window.session.state
    assert [s.token for s in state.steps[:2]] == ["ax", "bx"] and state.finished
    assert window.timeline.marks()[:2] == (1, 2)
    assert window.output.text().startswith("ax bx")


def test_with_beam_search_a_forced_token_follows_the_hypothesis_on_show():
    """The step on show can be a hypothesis that ended earlier than the search: the forced token must
    extend that hypothesis's prefix, the one on screen, not another live beam."""
    from attnviz.paths import MODELS_DIR

    listener = Recorder()
    session = Session(listener, InlineRunner(), beam_size=3)
    session.load(MODELS_DIR / "transformer.safetensors")
    session.encode("i don't know what you mean .", run=True)
    state = session.state
    shown = state.step.beams[0].tokens
    candidate = next(t for t in state.step.topk_tokens if t != state.step.token and t not in ("<bos>", "<pad>"))
    session.force(candidate)
    assert listener.errors == []
    forced = session.state.steps[len(shown) - 1]  # the step that took the place of the one on show
    assert forced.forced and forced.token == candidate
    assert forced.query_tokens == ("<bos>", *shown[:-1])


def test_a_refused_force_changes_nothing(tiny_models):
    listener = Recorder()
    session = Session(listener, InlineRunner())
    session.load(tiny_models["transformer"][0])
    session.encode("a b c")
    session.step()
    session.step()
    session.show(0)
    before = session.state.steps
    session.force("<bos>")  # the top-k table can list it; the decoder never takes it
    assert listener.errors and "<bos>" in listener.errors[-1]
    assert session.state.steps is before
    session.show(1)
    session.step()  # the decoder is still in step with the steps on show: this is step 3
    assert len(session.state.steps) == 3 and session.state.step.query_tokens == ("<bos>", "cx", "bx")


def test_a_click_in_the_table_of_a_sentence_being_replaced_does_nothing(tiny_models):
    from tests.helpers import HeldRunner

    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(tiny_models["transformer"][0])
    session.encode("a b c", run=True)
    runner.run_all()
    session.set_text("d e")  # typed; the debounced encoding has not run
    session.force("ax")
    runner.run_all()
    assert session.state.source.text == "a b c" and not any(step.forced for step in session.state.steps)
