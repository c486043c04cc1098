"""A seeded GUI monkey: random user actions on the real window, with every exception caught.

300 actions in every test run; ``ATTNVIZ_MONKEY_ACTIONS=5000`` runs more. The longest time one
action kept the event loop busy is printed (``pytest -s``) and recorded as a test property.
"""

from __future__ import annotations

import os
import random
import time

from PySide6 import QtCore

from attnviz.core.kinds import AttentionKind

ACTIONS = int(os.environ.get("ATTNVIZ_MONKEY_ACTIONS", "300"))
WORDS = ["a", "b", "c", "d", "e", "f", "g", "zzz", "", "a b c d e f g h i j k l m n o p", "\x1b[2J", "<b>x</b>"]


def _actions(window, tiny_models, bad_file):
    attention = window.attention
    sizes = [(1024, 700), (1280, 800), (900, 600), (1600, 900)]
    kinds = list(AttentionKind)

    def type_text(rng):
        window.sentence.setText(" ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6))))
        window.sentence.textEdited.emit(window.sentence.text())

    return [
        type_text,
        lambda rng: window.set_sentence(rng.choice(WORDS), run=rng.random() < 0.5),
        lambda rng: window.step_action.trigger(),
        lambda rng: window.back_action.trigger(),
        lambda rng: window.run_action.trigger(),
        lambda rng: window.reset_action.trigger(),
        lambda rng: window.beam_box.setValue(rng.randrange(1, 6)),
        lambda rng: window.timeline.setValue(rng.randrange(0, window.timeline.maximum() + 1)),
        lambda rng: attention.select_view(rng.choice(kinds), rng.randrange(0, 3), rng.randrange(0, 4)),
        lambda rng: attention.all_heads.setChecked(rng.random() < 0.3),
        lambda rng: attention.scores.setChecked(rng.random() < 0.5),
        lambda rng: attention.show_masked.setChecked(rng.random() < 0.5),
        lambda rng: window.docks[rng.choice(["masks", "positional", "scoring"])].raise_(),
        lambda rng: window.docks[rng.choice(["masks", "scoring"])].setVisible(rng.random() < 0.7),
        lambda rng: window.resize(*rng.choice(sizes)),
        lambda rng: window.load(tiny_models[rng.choice(["transformer", "rnn-additive", "rnn-dot"])][0]),
        lambda rng: window.load(bad_file),
        lambda rng: window.panels.panels["scoring"].valid_len.setValue(rng.randrange(0, 12)),
        lambda rng: window.current_figure(),
    ]


def test_random_actions_never_raise(window, qtbot, tiny_models, tmp_path, errors, record_property):
    bad_file = tmp_path / "bad.safetensors"
    bad_file.write_bytes(b"not a checkpoint" * 4)
    actions = _actions(window, tiny_models, bad_file)
    rng = random.Random(0)
    longest = (0.0, "")
    with qtbot.captureExceptions() as raised:
        for number in range(ACTIONS):
            index = rng.randrange(len(actions))
            started = time.perf_counter()
            actions[index](rng)
            QtCore.QCoreApplication.processEvents()
            took = time.perf_counter() - started
            longest = max(longest, (took, f"action {number} (kind {index})"))
            assert not raised, f"action {number} (kind {index}) raised: {raised[0][1]!r}"
    assert all("bad.safetensors" in message for message in errors)  # the only errors: the bad file, in words
    record_property("longest_event_loop_gap_ms", round(longest[0] * 1000, 1))
    print(f"\n{ACTIONS} random actions; longest event-loop gap {longest[0] * 1000:.0f} ms ({longest[1]})")
