"""Hostile input to the corpus commands (``heads``, ``explain``, ``fill-mask``, ``translate``): every request that
cannot be met is refused in one line before any work starts, and memory stays bounded whatever the input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import one_error_line, run_cli

SHIPPED = Path(__file__).resolve().parents[1] / "models"
MISSING = "/nonexistent/model.safetensors"  # a refusal that names this checkpoint came after the model's loading


def test_a_task_limit_beyond_its_distinct_inputs_is_refused_before_anything_is_generated(capsys, tmp_path):
    out = tmp_path / "atlas"
    for limit, said in (("4000", "the dates task has 3,635 distinct held-out inputs (of 36,525 in all)"),
                        ("1000000000", "at most 100,000 held-out inputs (the reverse task has about 11,111,100 of "
                                       "111,111,000 distinct inputs)")):
        task = "dates" if limit == "4000" else "reverse"
        code, _, stderr = run_cli(capsys, "heads", "--checkpoint", MISSING, "--task", task, "--limit", limit,
                                  "--out", str(out))
        assert code == 2 and said in one_error_line(stderr), stderr
        assert not out.exists()


def test_every_distinct_held_out_date_can_be_had_and_no_more() -> None:
    from attnviz.core.heads.alignment import task_examples
    from attnviz.core.learning.tasks import is_held_out, task_named

    dates = task_named("dates")
    assert dates.held_out_inputs() == 3635 and dates.distinct_inputs() == 36525
    examples, corpus = task_examples(dates, 3635)
    assert len({e.src for e in examples}) == len(corpus) == 3635 and all(is_held_out(e.src) for e in examples)
    with pytest.raises(ValueError, match="3,635"):
        task_examples(dates, 3636)
    assert task_named("reverse").held_out_inputs() is None and task_named("reverse").distinct_inputs() == 111_111_000


@pytest.fixture(scope="module")
def hf_folders(tmp_path_factory) -> dict[str, Path]:
    """A tiny Hugging Face BERT (fill-mask) and Marian (translate) folder, random weights."""
    from tests.hf_encoder_folders import make_encoder_folder
    from tests.hf_folders import make_folder

    root = tmp_path_factory.mktemp("hf-hostile")
    return {"bert": make_encoder_folder("bert", root / "bert"), "marian": make_folder("marian", root / "marian")}


def test_explain_reads_its_data_a_line_at_a_time_and_no_further_than_the_limit(capsys, tmp_path) -> None:
    import argparse

    from attnviz.commands.explain import sentences_to_explain

    huge = tmp_path / "huge.txt"  # a 1 GB file of one line (sparse: no disk used); read whole it would need 1 GB
    with open(huge, "wb") as handle:
        handle.truncate(1 << 30)
    code, _, stderr = run_cli(capsys, "explain", "--checkpoint", MISSING, "--data", str(huge), "--out",
                              str(tmp_path / "out"), "--limit", "1")
    assert code == 2 and "huge.txt: line 1 is over 64 KiB: one sentence a line" in one_error_line(stderr)
    assert not (tmp_path / "out").exists()
    data = tmp_path / "data.txt"  # two good lines, then one that is never reached with --limit 2
    data.write_bytes(b"i am here .\t je suis la .\n\nhe is tall .\n" + b"x" * (1 << 20) + b"\n")
    args = argparse.Namespace(data=data, heldout=False, limit=2)
    assert sentences_to_explain(args, None) == ["i am here .", "he is tall ."]


@pytest.mark.parametrize("make, said", [
    (lambda p: p.mkdir(), "is a folder: give a text file, one sentence a line"),
    (lambda p: p.symlink_to(p.parent / "gone"), "is a symbolic link to"),
    (None, "/dev/zero is a character device, not a text file"),
    (lambda p: None, "no such file"),
])
def test_data_that_is_no_text_file_is_called_what_it_is(capsys, tmp_path, make, said) -> None:
    data = tmp_path / "data"
    if make is not None:
        make(data)
    for command in ("heads", "explain", "eval"):
        out = () if command == "eval" else ("--out", str(tmp_path / "out"))
        code, _, stderr = run_cli(capsys, command, "--checkpoint", MISSING, "--data",
                                  "/dev/zero" if make is None else str(data), *out)
        assert code == 2 and said in one_error_line(stderr), (command, stderr)


def test_a_named_pipe_is_read_as_the_text_written_into_it(tmp_path) -> None:
    import os
    import threading

    from attnviz.core.heads import read_corpus

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=("the house is big .\tla maison est grande .\n",))
    writer.start()
    corpus = read_corpus(fifo)
    writer.join()
    assert corpus.sources == (("the", "house", "is", "big", "."),)
    assert corpus.references == (("la maison est grande .",),)


def test_stdin_without_line_ends_is_refused_after_64_kib_not_read_into_memory(monkeypatch) -> None:
    import io
    import sys

    from attnviz.commands.shared import CliError, input_batches, stdin_lines

    class Zeros(io.RawIOBase):  # /dev/zero: endless, no line end
        served = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:
            buffer[:] = bytes(len(buffer))
            Zeros.served += len(buffer)
            return len(buffer)

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Zeros())))
    with pytest.raises(CliError, match="stdin: line 1 is over 64 KiB"):
        next(stdin_lines())
    assert Zeros.served < 1 << 20
    with open("/dev/zero", "rb") as zero, pytest.raises(CliError, match="stdin: line 1 is over 64 KiB"):
        next(input_batches(zero, 256))  # (translate's reader)


def test_a_long_text_is_refused_before_any_tokenizer_sees_it(hf_folders) -> None:
    from attnviz.core.checkpoints.checkpoint import load_checkpoint
    from attnviz.core.hf.encoder import HFMaskedLM

    loaded = load_checkpoint(hf_folders["bert"])
    reader = HFMaskedLM(loaded, "cpu")
    seen: list[int] = []

    class Counting:  # the tokenizer, counting the characters it is given
        def __init__(self, tokenizer):
            self.tokenizer = tokenizer

        def __call__(self, *args, **kwargs):
            seen.append(sum(len(a) for a in args if isinstance(a, str)))
            return self.tokenizer(*args, **kwargs)

        def __getattr__(self, name):
            return getattr(self.tokenizer, name)

    reader.tokenizer = Counting(reader.tokenizer)
    object.__setattr__(loaded.src_vocab, "tokenizer", Counting(loaded.src_vocab.tokenizer))
    line = "the [MASK] " + "word " * 2_000_000  # 10 MB
    with pytest.raises(ValueError, match="over 64 KiB"):
        reader.read(line)
    with pytest.raises(ValueError, match="over 64 KiB"):
        loaded.src_vocab.split(line, 64)
    assert seen == []
    assert reader.read("the [MASK] house .").ids and seen  # (a sentence within the limit is read)


def test_bytes_that_are_not_utf8_are_read_as_the_replacement_character_by_every_tokenizer(capsys, hf_folders):
    code, stdout, stderr = run_cli(capsys, "fill-mask", "--checkpoint", str(hf_folders["bert"]), "--text",
                                   "\udcff the [MASK] .")  # (how Python carries the byte 0xff of an argument)
    assert code == 0 and len(stdout.split("\t")) == 5, stderr
    assert "--text: bytes that are not UTF-8 were replaced by U+FFFD" in stderr
    for checkpoint in (hf_folders["marian"], SHIPPED / "transformer.safetensors"):
        code, stdout, stderr = run_cli(capsys, "translate", "--checkpoint", str(checkpoint), "--beam", "1",
                                       "--text", "\udcff the house")
        assert code == 0 and stdout.count("\n") == 1, stderr
        assert "internal error" not in stderr and "\\udcff" not in stderr
    from attnviz.core.checkpoints.checkpoint import load_checkpoint

    split = load_checkpoint(hf_folders["marian"]).src_vocab.split("the \udcff house", 64)  # (the window's way in)
    assert split.ids and len(split.words) == len(split.ids)


def test_ig_steps_beyond_the_docks_most_are_refused_at_once(capsys, tmp_path) -> None:
    for steps in ("100000", "1000000000", "0"):
        code, _, stderr = run_cli(capsys, "explain", "--checkpoint", MISSING, "--data", str(tmp_path / "none.txt"),
                                  "--out", str(tmp_path / "out"), "--ig-steps", steps)
        assert code == 2 and f"--ig-steps must be from 1 to 256, got {steps}" in one_error_line(stderr)


def _bad_outs(tmp_path: Path) -> list[tuple[Path, str]]:
    import os

    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine", encoding="utf-8")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "gone")
    return [(a_file, "notes.txt is a file, not a folder"), (fifo, "fifo is a named pipe (FIFO), not a folder"),
            (dangling, "dangling is a symbolic link to"), (a_file / "sub", "notes.txt is a file, not a folder")]


@pytest.mark.parametrize("command", ["heads", "explain"])
def test_out_and_scale_are_checked_before_the_model_is_even_loaded(capsys, tmp_path, command) -> None:
    data = tmp_path / "data.txt"
    data.write_text("the house .\tla maison .\n", encoding="utf-8")
    for out, said in _bad_outs(tmp_path):
        code, _, stderr = run_cli(capsys, command, "--checkpoint", MISSING, "--data", str(data), "--out", str(out))
        assert code == 2 and said in one_error_line(stderr) and "--out" in stderr, stderr
    code, _, stderr = run_cli(capsys, command, "--checkpoint", MISSING, "--data", str(data), "--out",
                              str(tmp_path / "new"), "--scale", "100")
    assert code == 2 and "--scale: the PNG scale must be a number from 0.25 to 8" in one_error_line(stderr)
    assert not (tmp_path / "new").exists()


def test_a_full_or_read_only_disk_is_found_before_the_work(capsys, small_disk) -> None:
    import subprocess

    from tests.helpers import fill_disk

    data = small_disk.parent / "data.txt"
    data.write_text("the house .\n", encoding="utf-8")
    fill_disk(small_disk)
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", MISSING, "--data", str(data), "--out",
                              str(small_disk / "atlas"))
    assert code == 2 and "the disk is full" in one_error_line(stderr)
    (small_disk / "filler").unlink()
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    code, _, stderr = run_cli(capsys, "explain", "--checkpoint", MISSING, "--data", str(data), "--out",
                              str(small_disk / "atlas"))
    assert code == 2 and "the disk is read-only" in one_error_line(stderr)
    assert sorted(p.name for p in small_disk.iterdir()) == []


def test_every_file_heads_writes_is_known_before_the_work_and_one_in_the_way_is_said_then(capsys, monkeypatch,
                                                                                         tmp_path) -> None:
    import attnviz.core.heads as heads
    from attnviz.figures.heads import atlas_figure_stems
    from attnviz.render.figure_files import SIDECAR

    data = tmp_path / "data.txt"
    data.write_text("i am here .\tje suis la .\nhe is tall .\til est grand .\n", encoding="utf-8")
    out = tmp_path / "atlas"
    checkpoint = str(SHIPPED / "rnn-additive.safetensors")
    code, _, stderr = run_cli(capsys, "heads", "--checkpoint", checkpoint, "--data", str(data), "--out", str(out),
                              "--seeds", "1", "--format", "png,csv")
    assert code == 0, stderr
    written = {p.name for p in out.iterdir()}
    stems = atlas_figure_stems(cross=True, curve=True)
    sinks = ["sinks_first_weight_cross"]  # (an RNN's attention has no W_O: no norm view, no sinks_first_norm_cross)
    assert written == {f"{s}.{f}" for s in stems + sinks for f in ("png", "csv")} | {
        "heads.csv", "pruning.csv", "sinks_by_position.csv", "COLUMNS.md", SIDECAR}
    computed: list[int] = []
    monkeypatch.setattr(heads, "compute_atlas", lambda *a, **k: computed.append(1))
    other = tmp_path / "other"
    for name in (SIDECAR, f"{stems[-1]}.png", "COLUMNS.md", "sinks_by_position.csv",  # (an earlier sidecar; a figure;
                 "sinks_first_weight_cross.png"):  # the columns; the sinks; their figure)
        other.mkdir(exist_ok=True)
        (other / name).write_text("mine", encoding="utf-8")
        code, _, stderr = run_cli(capsys, "heads", "--checkpoint", checkpoint, "--data", str(data), "--out",
                                  str(other), "--seeds", "1", "--format", "png,csv")
        assert code == 2 and f"would be replaced, e.g. {name}" in one_error_line(stderr) and not computed
        (other / name).unlink()
