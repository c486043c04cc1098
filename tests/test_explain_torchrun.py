"""``torchrun --nproc-per-node 2 -m attnviz explain`` writes the files one process writes, byte for byte: each
process explains its share of the sentences and rank 0 puts every tally back in the corpus's order. Two real
processes on the CPU (gloo), each capped: a hang fails the test, loudly."""

from __future__ import annotations

import subprocess
from pathlib import Path

from attnviz.commands.explain import my_share
from tests.helpers import one_error_line, run_cli, torchrun

CSVS = ("agreement.csv", "layers.csv", "sinks.csv", "sinks_by_position.csv")


def _torchrun(*args: str) -> subprocess.CompletedProcess[str]:
    return torchrun("explain", *args)


def test_shares_cover_the_corpus_once_with_a_similar_mix() -> None:
    sentences = [" ".join(["w"] * n) for n in (1, 9, 2, 8, 3, 7, 4, 6, 5, 10, 5)]
    shares = [my_share(sentences, rank, 2) for rank in range(2)]
    assert sorted(shares[0] + shares[1]) == list(range(len(sentences)))
    assert all(share == sorted(share) for share in shares)  # each in the corpus's order
    words = [sum(len(sentences[i].split()) for i in share) for share in shares]
    assert abs(words[0] - words[1]) <= 10  # not all the long ones on one side (dealt 0 1 1 0 …)
    assert my_share(sentences, 0, 1) == list(range(len(sentences)))


def test_two_processes_write_the_files_of_one(capsys, tiny_models, tmp_path) -> None:
    lines = Path(tiny_models["data"]).read_text(encoding="utf-8").splitlines()[:7]
    data = tmp_path / "corpus.tsv"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    common = ["--checkpoint", str(tiny_models["transformer"][0]), "--data", str(data), "--ig-steps", "4",
              "--format", "csv"]
    code, _, stderr = run_cli(capsys, "explain", *common, "--out", str(tmp_path / "one"))
    assert code == 0, stderr
    done = _torchrun(*common, "--out", str(tmp_path / "two"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "2 processes, 7 sentences" in done.stderr
    assert done.stdout.count("wrote") == 1  # rank 0 alone reports (and writes)
    for name in CSVS:
        one, two = (tmp_path / "one" / name).read_text(), (tmp_path / "two" / name).read_text()
        assert one.count("\n") > 2 and two == one, name
    figures = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == figures
    for name in figures:  # the figures' numbers too; the sidecar alone says how many processes there were
        if name != "attnviz-export.json":
            assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes(), name


def test_bad_input_under_torchrun_is_one_line_and_nothing_written(tiny_models, tmp_path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"\n \n")
    done = _torchrun("--checkpoint", str(tiny_models["transformer"][0]), "--data", str(empty), "--out",
                     str(tmp_path / "out"))
    assert done.returncode != 0
    assert "no sentences to explain" in one_error_line(done.stderr)
    assert not (tmp_path / "out").exists()
