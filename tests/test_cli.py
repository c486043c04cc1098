"""The CLI contract: one output line per input line, warnings on stderr, exit 2 on bad input.

Run in-process (``attnviz.app.main``, as the ``attnviz`` command does); test_cli_demo and test_gui
launch the real processes once.
"""

import io
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tests.helpers import run_cli
from tests.tiny import reversal_of


@pytest.fixture
def attnviz(capsys, monkeypatch):
    """``attnviz(*args, stdin=...)`` -> an object with returncode, stdout and stderr."""

    def run(*args, stdin=None):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        code, out, err = run_cli(capsys, *args)
        return SimpleNamespace(returncode=code, stdout=out, stderr=err)

    return run


def test_translate_stdin_one_line_per_input_line(attnviz, tiny_models):
    ckpt = str(tiny_models["transformer"][0])
    done = attnviz("translate", "--checkpoint", ckpt, "--device", "cpu", stdin="a b c\n\nd e f g\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n") == [reversal_of("a b c"), "", reversal_of("d e f g"), ""]
    assert done.stderr == ""


def test_translate_text_with_beam_and_warnings(attnviz, tiny_models):
    ckpt = str(tiny_models["rnn-additive"][0])
    done = attnviz("translate", "--checkpoint", ckpt, "--beam", "3", "--text", "a qqq " + "b " * 15)
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.splitlines()) == 1
    assert "unknown words mapped to <unk>: qqq" in done.stderr
    assert "input of 17 tokens truncated to the model's limit of 10" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("make_bad", [
    lambda tmp: tmp / "missing.safetensors",
    lambda tmp: (tmp / "bad.safetensors").write_bytes(b"garbage") and tmp / "bad.safetensors",
])
def test_bad_checkpoint_is_one_line_and_exit_2(attnviz, tmp_path, make_bad):
    done = attnviz("translate", "--checkpoint", str(make_bad(tmp_path)), "--text", "hello")
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("attnviz: error: ")


def test_unavailable_device_is_exit_2(attnviz, tiny_models):
    done = attnviz("translate", "--checkpoint", str(tiny_models["rnn-dot"][0]), "--device", "tpu", "--text", "a")
    assert done.returncode == 2 and "unknown device 'tpu'" in done.stderr


def test_eval_prints_bleu(attnviz, tiny_models, tmp_path):
    data = tmp_path / "eval.tsv"
    data.write_text("a b c d e\tex dx cx bx ax\nf g h i\tix hx gx fx\nf g h i\tsomething else\n")
    done = attnviz("eval", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(data))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "BLEU 100.00 on 2 source sentences"


def test_train_kernel_regression_writes_a_loadable_checkpoint(attnviz, tmp_path):
    out = tmp_path / "nw.safetensors"
    done = attnviz("train", "kernel-regression", "--out", str(out), "--epochs", "5")
    assert done.returncode == 0, done.stderr
    assert "learned w=" in done.stdout
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    assert load_checkpoint(out).training["loss_after"] < load_checkpoint(out).training["loss_before"]


def test_train_translation_from_tsv(attnviz, tmp_path):
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from tests.tiny import write_reversal_data

    data = write_reversal_data(tmp_path / "r.tsv", n=200)
    out = tmp_path / "t.safetensors"
    done = attnviz("train", "rnn-dot", "--data", str(data), "--out", str(out), "--epochs", "3", "--stop-after", "1",
                   "--seed", "1", "--arch", '{"num_hiddens": 16, "embed_size": 8, "num_layers": 1}')
    assert done.returncode == 0, done.stderr
    assert "loss" in done.stderr and "tok/s" in done.stderr and "ETA" in done.stderr
    assert out.is_file() and "validation BLEU" in done.stdout
    training = load_checkpoint(out).training
    assert training["epochs_completed"] == 1 and training["options"]["epochs"] == 3  # the schedule spans 3


def test_train_missing_data_is_exit_2(attnviz, tmp_path):
    done = attnviz("train", "transformer", "--data", str(tmp_path / "none.tsv"), "--out", str(tmp_path / "x"))
    assert done.returncode == 2 and "training data not found" in done.stderr


def test_eval_heldout_rebuilds_the_training_split(attnviz, tiny_models):
    path, info = tiny_models["transformer"]
    done = attnviz("eval", "--checkpoint", str(path), "--data", str(tiny_models["data"]), "--heldout", "--beam", "1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"BLEU {info['val_bleu']:.2f} on {info['val_sources']} source sentences"


def test_train_rejects_unknown_arch_settings(attnviz, tmp_path, tiny_models):
    done = attnviz("train", "transformer", "--data", str(tiny_models["data"]), "--out", str(tmp_path / "m.st"),
                   "--arch", '{"num_layerz": 2}')
    assert done.returncode == 2 and "--arch: transformer has no setting num_layerz" in done.stderr
    assert not (tmp_path / "m.st").exists()


def test_gui_modules_load_without_torch():
    """The window must paint before torch has loaded: no GUI module may import it."""
    code = ("import sys, attnviz.app, attnviz.gui.main_window, attnviz.gui.docks, attnviz.gui.export_actions; "
            "print('torch' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_translate_many_lines_at_once_equals_one_at_a_time(attnviz, tiny_models):
    """stdin lines are decoded many at a time (padded batches, beam 4): each output is the one that
    sentence gets alone, in input order."""
    import random

    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.decoding.stepping import DecodeSession
    from tests.tiny import WORDS

    rng = random.Random(3)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9))) for _ in range(40)]
    for kind in ("transformer", "decoder-only", "rnn-dot"):  # (decoder-only: left-padded batches)
        path = tiny_models[kind][0]
        done = attnviz("translate", "--checkpoint", str(path), stdin="\n".join(lines) + "\n")
        assert done.returncode == 0, done.stderr
        alone = DecodeSession(load_checkpoint(path), beam_size=4, record_attention=False)
        expected = []
        for line in lines:
            alone.encode(line)
            alone.run()
            expected.append(alone.translation())
        assert done.stdout.splitlines() == expected


def test_stdin_batches_hold_what_is_ready_and_every_line_once(capsys):
    """A pipe: lines already written come as one batch; a bad byte is replaced with a warning naming
    its line, not fatal."""
    import os

    from attnviz.commands.shared import input_batches

    read_end, write_end = os.pipe()
    os.write(write_end, b"one\ntwo\nthr\xffee\n")
    with os.fdopen(read_end, "r") as stream:
        batches = input_batches(stream, 2)
        assert next(batches) == ["one", "two"]
        assert next(batches) == ["thr\ufffdee"]
        assert "line 3: bytes that are not UTF-8 were replaced" in capsys.readouterr().err
        os.write(write_end, b"four")  # a last line without a newline
        os.close(write_end)
        assert list(batches) == [["four"]]


@pytest.mark.parametrize(("args", "message"), [
    (["translate", "--beam", "100000", "--text", "a b"], "--beam must be from 1 to 16, got 100000"),
    (["translate", "--beam", "0", "--text", "a b"], "--beam must be from 1 to 16, got 0"),
    (["translate", "--threads", "100000", "--text", "a b"], "--threads: the number of threads must be from 1 to 256"),
    (["export", "--scale", "nan", "--text", "a b"], "--scale: the PNG scale must be a number from 0.25 to 8, got nan"),
    (["export", "--scale", "inf", "--text", "a b"], "--scale: the PNG scale must be a number from 0.25 to 8, got inf"),
    (["export", "--scale", "1e9", "--text", "a b"], "--scale: the PNG scale must be a number from 0.25 to 8"),
])
def test_out_of_range_options_are_refused_with_one_line(attnviz, tiny_models, tmp_path, args, message):
    out = tmp_path / "out"
    extra = ["--out", str(out)] if args[0] == "export" else []
    done = attnviz(*args, *extra, "--checkpoint", str(tiny_models["transformer"][0]))
    assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1
    assert not out.exists()  # nothing half-written, no staging folder


def test_control_characters_from_the_input_are_never_echoed_raw(attnviz, tiny_models):
    evil = "a \x1b]0;pwned\x07 \x1b[2J b"
    done = attnviz("translate", "--checkpoint", str(tiny_models["transformer"][0]), "--text", evil)
    assert done.returncode == 0
    assert "\x1b" not in done.stderr and "\x07" not in done.stderr
    assert "\\x1b]0;pwned\\x07" in done.stderr  # shown, as escapes


def test_a_start_without_stdout_or_stderr_still_works(monkeypatch, tiny_models):
    """A windowed build or a desktop launcher may start attnviz with no standard streams."""
    from attnviz.app import main

    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    assert main(["translate", "--checkpoint", str(tiny_models["transformer"][0]), "--text", "a b"]) == 0
    assert main(["translate", "--checkpoint", "/nonexistent.safetensors", "--text", "a b"]) == 2


def test_a_terminal_that_cannot_write_a_character_gets_the_help_all_the_same():
    """LANG=en_US.ISO-8859-1 or zh_CN.GB2312: the help's "▸" and "…" have no byte there; a stand-in is written
    (never a UnicodeEncodeError traceback), and demo prints its lines."""
    import os

    for encoding, args in (("iso8859-1", ["--help"]), ("gb2312", ["demo"]), ("iso8859-1", ["train", "--help"])):
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        done = subprocess.run([sys.executable, "-m", "attnviz", *args], capture_output=True, timeout=600, env=env)
        assert done.returncode == 0 and b"Traceback" not in done.stderr, (encoding, args, done.stderr[-500:])
        assert len(done.stdout.splitlines()) > 5


def test_a_seed_out_of_range_is_one_line(capsys, tmp_path):
    code, _, err = run_cli(capsys, "train", "transformer", "--task", "copy", "--seed", str(2**70), "--out",
                           str(tmp_path / "m.safetensors"))
    assert code == 2 and err == f"attnviz: error: --seed: seed = {2**70} is outside 0..4294967295\n"
    code, _, err = run_cli(capsys, "demo", "--seed", "-3")
    assert code == 2 and err == "attnviz: error: --seed: seed = -3 is outside 0..4294967295\n"
    assert not list(tmp_path.iterdir())
