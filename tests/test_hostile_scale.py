"""Hostile input against the commands of real scale and images (issue 49, a campaign of 2026-11-29): each is one
sentence and an exit code of 2, found before any work, with nothing written; names that are not UTF-8 are written,
not a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import one_error_line, run_cli
from tests.vit_images import ramp_png, save_tiny_vit


@pytest.fixture(scope="module")
def vit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_vit(tmp_path_factory.mktemp("hostile_vit"))


@pytest.mark.parametrize("command", ["heads", "explain"])
def test_one_image_as_data_says_what_data_takes(command: str, vit: Path, tmp_path: Path, capsys) -> None:
    image = ramp_png(tmp_path / "ramp.png")
    code, _, err = run_cli(capsys, command, "--checkpoint", str(vit), "--data", str(image), "--format", "csv",
                           "--out", str(tmp_path / "out"))
    line = one_error_line(err)
    assert code == 2 and "is one image: give a text file of sentences, or for an image model a folder of images" \
        in line and not (tmp_path / "out").exists()


@pytest.mark.parametrize("args, message", [
    (["--processes", "1", "--nodes", "0"], "--nodes must be at least 1, got 0"),
    (["--processes", "1", "--nodes", "2", "--rendezvous", "192.0.2.1:29555"],  # (TEST-NET-1: never this machine's)
     "this machine (--node-rank 0) cannot listen there"),
    (["--processes", "1", "--nodes", "2", "--rendezvous", "no-such-host.invalid:29555"], "no such host"),
    (["--documents", "--batch-size", "99999999999999"], "--batch-size must be from 1 to 10,000,000 tokens"),
])
def test_a_job_that_cannot_start_says_why_at_once(args: list[str], message: str, tiny_models, tmp_path: Path,
                                                  capsys) -> None:
    code, _, err = run_cli(capsys, "heads", "--checkpoint", str(tiny_models["transformer"][0]), "--data",
                           str(tiny_models["data"]), "--format", "csv", *args, "--out", str(tmp_path / "out"))
    assert code == 2 and message in one_error_line(err) and "c10d" not in err, err
    assert not (tmp_path / "out").exists()


def test_a_process_s_refusal_in_chinese_is_one_line_and_exit_2(tiny_models, tmp_path: Path) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\xe9 cr\xe8me\n".encode("latin-1"))
    done = subprocess.run([sys.executable, "-m", "attnviz", "--lang", "zh_CN", "heads", "--checkpoint",
                           str(tiny_models["transformer"][0]), "--data", str(latin), "--processes", "2", "--format",
                           "csv", "--out", str(tmp_path / "out")], capture_output=True, text=True,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    lines = [line for line in done.stderr.splitlines() if line.startswith("attnviz：")]
    assert done.returncode == 2 and len(lines) == 1 and "UTF-8" in lines[0], done.stderr


def test_an_image_whose_name_is_not_utf8_is_exported_and_named_in_the_sidecar(vit: Path, tmp_path: Path,
                                                                              capsys) -> None:
    name = os.fsdecode(b"bad\xff\xfename.png")  # (its bytes held as lone surrogates, as Python reads such names)
    image = ramp_png(tmp_path / name)
    code, _, err = run_cli(capsys, "export", "--checkpoint", str(vit), "--image", str(image), "--format", "csv",
                             "--out", str(tmp_path / "out"))
    assert code == 0, err
    sidecar = json.loads((tmp_path / "out" / "attnviz-export.json").read_bytes().decode("utf-8"))
    assert sidecar["image"] == str(image)  # (the escape reads back as the very name)


def test_classify_reads_a_name_that_is_not_utf8_from_stdin(vit: Path, tmp_path: Path) -> None:
    image = ramp_png(tmp_path / os.fsdecode(b"caf\xe9.png"))
    done = subprocess.run([sys.executable, "-m", "attnviz", "classify", "--checkpoint", str(vit)],
                          input=os.fsencode(str(image)) + b"\n", capture_output=True)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    line = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    assert len(line) == 1 and len(line[0].split("\t")) == 11  # (the path, then five classes with their probabilities)
    assert os.fsencode(line[0].split("\t")[0]) == os.fsencode(str(image))  # (its name as the file system has it)


def test_a_document_longer_than_a_sentence_line_is_read_and_cut(tmp_path: Path) -> None:
    from attnviz.core.heads.corpus import CorpusError, data_lines

    path = tmp_path / "docs.txt"
    path.write_text("word " * 30_000 + "\nshort\n", encoding="utf-8")  # 150 KB: over a sentence's 64 KiB
    assert [number for number, _ in data_lines(path, documents=True)] == [1, 2]
    with pytest.raises(CorpusError, match="one sentence a line"):
        list(data_lines(path))


def test_the_cpu_allocator_s_failure_counts_as_out_of_memory() -> None:
    from attnviz.core.device import out_of_memory

    assert out_of_memory(RuntimeError("[enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't "
                                      "allocate memory: you tried to allocate 17179869184 bytes."))
    assert not out_of_memory(RuntimeError("shapes do not match"))


def test_eval_says_why_it_left_lines_out(tiny_models, tmp_path: Path, capsys) -> None:
    latin = tmp_path / "latin.tsv"
    latin.write_bytes("caf\xe9\tcaf\xe9\n".encode("latin-1"))
    code, _, err = run_cli(capsys, "eval", "--checkpoint", str(tiny_models["transformer"][0]), "--data", str(latin))
    assert code == 2 and "no sentence pairs (lines left out: 1 not UTF-8)" in one_error_line(err)
