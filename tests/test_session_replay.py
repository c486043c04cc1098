"""A saved session replays to the same steps and the same step on show through the window (File ▸ Open
session) and through ``attnviz export --session``: forced tokens where saved, the model's own choice
elsewhere, stopping where the decoding ends, and the same refusal for a token the model cannot say."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from attnviz.core.attention.kind import AttentionKind
from attnviz.figures.attention import AttentionView
from attnviz.render.figure_files import read_csv
from attnviz.session_file import SavedSession, replay, sha256_of, write_session
from tests.helpers import run_cli

# beam 2; "bx" forced first, the model's own choice, then <eos> forced: the decoding ends at the third
# step, before the plan does, and the saved step on show (the fifth) is beyond it
PLAN = ("bx", None, "<eos>", None, None)


def _session(tmp_path, checkpoint, plan=PLAN, name="s") -> SavedSession:
    saved = SavedSession(checkpoint, sha256_of(checkpoint), "a b c d", 2, plan, len(plan) - 1,
                         AttentionView(AttentionKind.CROSS, 1, 2))
    write_session(saved, tmp_path / f"{name}.attnviz.json")
    return saved


def test_the_window_and_the_cli_replay_a_session_to_the_same_step(window, tmp_path, tiny_models, capsys):
    checkpoint = tiny_models["transformer"][0]
    _session(tmp_path, checkpoint)
    path = tmp_path / "s.attnviz.json"
    assert window.open_session(path)
    state = window.session.state
    assert state.finished and len(state.steps) == 3 and state.position == 2  # ended before the plan: clamped
    assert [s.token for s in state.steps][0::2] == ["bx", "<eos>"] and state.forced_steps == (0, 2)
    on_screen = window.attention.heatmap.values.copy()

    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "export", "--session", str(path), "--out", str(out), "--format", "csv")
    assert code == 0, err
    (written,) = out.glob("cross_layer2_head3_step*.csv")  # the one step on show
    assert int(re.search(r"step(\d+)", written.name).group(1)) == state.position + 1
    values, rows, _ = read_csv(written)
    np.testing.assert_allclose(values, on_screen, atol=1e-6)
    sidecar = json.loads((out / "attnviz-export.json").read_text())
    assert sidecar["output_tokens"] == list(state.step.output_tokens)
    assert rows == tuple(state.step.query_tokens) and sidecar["forced_tokens"] == ["bx", "<eos>"]


def test_a_token_the_model_cannot_say_is_refused_alike(window, tmp_path, tiny_models, capsys, errors):
    checkpoint = tiny_models["transformer"][0]
    _session(tmp_path, checkpoint, (None, "zebra"), "bad")
    path = tmp_path / "bad.attnviz.json"
    assert window.open_session(path)
    assert window.session.state.steps == ()  # refused before any step
    code, _, err = run_cli(capsys, "export", "--session", str(path), "--out", str(tmp_path / "out"))
    assert code == 2 and not (tmp_path / "out").exists()
    assert errors[-1] in err and "cannot say 'zebra'" in errors[-1]


class _Counting:
    """A decoding that ends after ``length`` steps (what replay drives, without a model)."""

    def __init__(self, length: int):
        self.length, self.steps, self.said = length, [], []

    @property
    def finished(self) -> bool:
        return len(self.steps) >= self.length

    def target_id(self, token: str) -> int:
        if token == "zebra":
            raise ValueError("cannot say it")
        return 0

    def step(self, force: str | None = None) -> object:
        self.steps.append(force)
        return force


def test_replay_stops_where_the_decoding_ends_and_shows_the_saved_step_or_the_last(tmp_path):
    saved = SavedSession(tmp_path / "m.safetensors", "", "a b", 1, ("x", None, "y", None), 1)
    decoding = _Counting(10)
    assert replay(saved, decoding) == 1 and decoding.steps == ["x", None, "y", None]
    short = _Counting(2)
    assert replay(SavedSession(saved.checkpoint, "", "a b", 1, saved.plan, 3), short) == 1
    assert short.steps == ["x", None]
    before = SavedSession(saved.checkpoint, "", "a b", 1, saved.plan, -1)
    assert replay(before, _Counting(10)) == -1
    refused = _Counting(10)
    with pytest.raises(ValueError, match="cannot say"):
        replay(SavedSession(saved.checkpoint, "", "a b", 1, ("x", "zebra"), 1), refused)
    assert refused.steps == []  # nothing decoded before the refusal
