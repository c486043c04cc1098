"""Memory that stays bounded, measured where it is spent: the peak resident memory of a child process (its
``ru_maxrss`` as ``os.wait4`` reports it for that child alone), never a clock.

The head atlas over decoded sentences keeps sums, never the sentences' maps: its peak must not grow with the number
of sentences (``attnviz heads`` and the window's atlas over the session's sentences alike)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("transformers")

from tests.hf_folders import make_long_llama_folder

ROOT = Path(__file__).resolve().parent.parent
WORDS = ["the", "house", "is", "big", "houses", "are", "i", "am", "at", "home", "he", "was", "there"]
# One 448-token prompt of the folder's 2 layers × 32 heads records 2·32·450² cells of weights and scores, 104 MB (a few
# times that with the pass's copies): two rows a batch (STATS_BATCH_BYTES). Before the atlas bounded its batches by
# bytes, 12 prompts were one batch and took ~3 GB more than 4 did (the first two batches settle the allocator).
GROWTH_ALLOWED = 64 * 1024**2


@pytest.fixture(scope="module")
def long_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_long_llama_folder(tmp_path_factory.mktemp("long") / "llama", heads=32, width=64)


def prompts(path: Path, count: int) -> Path:
    """``count`` distinct 600-word prompts (each cut to the folder's 448 tokens), one a line."""
    lines = [" ".join(random.Random(i).choices(WORDS, k=600)) for i in range(count)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def peak_rss(args: list[str], folder: Path) -> tuple[int, int, str]:
    """Run ``python args`` in a child process: (its peak resident memory in bytes, its exit status, its stderr)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    with open(folder / "stdout", "wb") as out, open(folder / "stderr", "wb") as err:
        child = subprocess.Popen([sys.executable, *args], stdout=out, stderr=err, env=env, cwd=folder)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss * 1024, child.returncode, (folder / "stderr").read_text(encoding="utf-8")


def test_heads_over_decoded_long_prompts_keeps_its_peak_whatever_the_number_of_sentences(long_llama, tmp_path):
    peaks = {}
    for count in (4, 12):
        where = tmp_path / str(count)
        where.mkdir()
        data = prompts(where / "prompts.txt", count)
        peaks[count], code, stderr = peak_rss(
            ["-m", "attnviz", "heads", "--checkpoint", str(long_llama), "--data", str(data),
             "--out", str(where / "out"), "--no-pruning", "--format", "csv"], where)
        assert code == 0, stderr
        assert f"over {count} sentences" in (where / "stdout").read_text(encoding="utf-8")
        assert (where / "out" / "heads.csv").is_file()
    assert peaks[12] - peaks[4] < GROWTH_ALLOWED, f"{peaks[4] / 1e6:.0f} MB → {peaks[12] / 1e6:.0f} MB"


def test_the_windows_atlas_of_the_sessions_long_sentences_keeps_its_peak(long_llama, tmp_path):
    """The session's atlas job (what the Heads dock runs over the sentences decoded so far), Qt-free and inline."""
    peaks = {}
    for count in (4, 12):
        where = tmp_path / str(count)
        where.mkdir()
        data = prompts(where / "prompts.txt", count)
        script = textwrap.dedent(f"""
            from attnviz.session import InlineRunner, Session
            errors = []

            class Listener:
                def state_changed(self, old, new): pass
                def error(self, message): errors.append(message)

            session = Session(Listener(), InlineRunner(), device="cpu")
            session.load({str(long_llama)!r})
            sentences = open({str(data)!r}, encoding="utf-8").read().splitlines()
            session.compute_atlas(sentences=sentences)
            assert not errors, errors
            print("atlas over", session.state.atlas.sentences, "sentences")
            """)
        peaks[count], code, stderr = peak_rss(["-c", script], where)
        assert code == 0, stderr
        assert (where / "stdout").read_text(encoding="utf-8").strip() == f"atlas over {count} sentences"
    assert peaks[12] - peaks[4] < GROWTH_ALLOWED, f"{peaks[4] / 1e6:.0f} MB → {peaks[12] / 1e6:.0f} MB"


def test_head_norms_of_heads_wider_than_the_model_equal_the_direct_product() -> None:
    import torch

    from attnviz.core.heads.value_norms import head_grams

    torch.manual_seed(0)
    for width, head_width in ((32, 256), (256, 32)):  # (wider heads keep W_O^h; narrower ones its Gram matrix)
        output = torch.randn(4 * head_width, width)  # W_O with the heads' inputs as rows (H·D, E)
        values = torch.randn(3, 4, 5, head_width)  # (B, H, K, D)
        made = head_grams(output, 4)
        assert made.gram == (head_width <= width) and made.matrix.numel() == 4 * head_width * min(width, head_width)
        direct = torch.einsum("bhkd,hde->bhke", values, output.unflatten(0, (4, head_width))).norm(dim=-1)
        torch.testing.assert_close(made.norms(values), direct, rtol=1e-4, atol=1e-4)


def test_heads_over_documents_takes_no_more_memory_for_heads_wider_than_the_model(tmp_path):
    """A head's width beyond the model's (``head_dim`` 2,048 over a width of 32: 2 MB of weights a layer more) costs
    its weights, not D² per head and row (G (B, H, D, D) broadcast: 1.3 GB for 10 documents before)."""
    data = tmp_path / "documents.txt"
    data.write_text("".join(" ".join(random.Random(i).choices(WORDS, k=8)) + "\n" for i in range(10)),
                    encoding="utf-8")
    peaks = {}
    for head_width in (8, 2048):
        where = tmp_path / str(head_width)
        where.mkdir()
        folder = make_long_llama_folder(where / "llama", heads=4, width=32, head_dim=head_width, new_tokens=None)
        peaks[head_width], code, stderr = peak_rss(
            ["-m", "attnviz", "heads", "--documents", "--checkpoint", str(folder), "--data", str(data),
             "--out", str(where / "out"), "--format", "csv"], where)
        assert code == 0, stderr
        assert "over 10 documents" in (where / "stdout").read_text(encoding="utf-8")
    assert peaks[2048] - peaks[8] < GROWTH_ALLOWED, f"{peaks[8] / 1e6:.0f} MB → {peaks[2048] / 1e6:.0f} MB"


@pytest.fixture(scope="module")
def wide_llama(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Heads 2,048 wide over a model 32 wide (2 layers, 4 query heads over 2 key/value heads): 5 MB of weights whose
    forward pass over 600 tokens makes 10 MB of queries a layer."""
    return make_long_llama_folder(tmp_path_factory.mktemp("wide") / "llama", heads=4, width=32, head_dim=2048,
                                  new_tokens=None)


def test_a_storing_pass_stays_under_the_bound_it_was_let_through_by(wide_llama, tmp_path):
    """The bound is set to what the check computes from the config for this input, the tightest it lets through; the
    pass's growth of resident memory (its store and every buffer beside it) stays under it, and is more than the store
    alone (what was checked before: the store 59 MB, the pass ~3 times that)."""
    text = " ".join(random.Random(0).choices(WORDS, k=600))
    script = textwrap.dedent(f"""
        from attnviz.core import limits
        from attnviz.core.attention.kind import AttentionKind
        from attnviz.core.decoding import long_prompt
        from attnviz.core.hf.load import load_hf_folder

        loaded = load_hf_folder({str(wide_llama)!r})
        read = long_prompt.read_long_input(loaded, {text!r}, None, "cpu")
        limits.MAX_QUERY_KEY_BYTES = long_prompt.pass_bytes(loaded, read)
        warm = long_prompt.read_long_input(loaded, {text[:200]!r}, None, "cpu")  # (the kernels' code paged in first)
        long_prompt.query_keys(loaded, warm)[AttentionKind.ENCODER_SELF].map(1, 3)
        def status(key):  # (bytes: /proc/self/status's VmRSS, resident now, or VmHWM, its peak since the reset)
            line = next(l for l in open("/proc/self/status") if l.startswith(key + ":"))
            return int(line.split()[1]) * 1024

        # the peak counted from here: the loading's own peak (and pages of torch's libraries the kernel may take
        # back from a busy machine's processes since) left out
        open("/proc/self/clear_refs", "w").write("5")
        before = status("VmRSS")
        store = long_prompt.query_keys(loaded, read)[AttentionKind.ENCODER_SELF]
        store.map(1, 3)
        peak = status("VmHWM")
        print(len(read.ids), store.nbytes, peak - before, limits.MAX_QUERY_KEY_BYTES)
        """)
    _, code, stderr = peak_rss(["-c", script], tmp_path)
    assert code == 0, stderr
    tokens, store, growth, bound = (int(n) for n in (tmp_path / "stdout").read_text(encoding="utf-8").split())
    assert tokens > 448 and store < growth <= bound, f"store {store / 1e6:.0f} MB, pass {growth / 1e6:.0f} MB, " \
                                                     f"bound {bound / 1e6:.0f} MB"


def test_a_pass_whose_buffers_pass_the_bound_is_refused_though_its_store_fits(wide_llama, tmp_path, monkeypatch,
                                                                             capsys):
    from attnviz.core import limits
    from attnviz.core.decoding import long_prompt
    from attnviz.core.hf.load import load_hf_folder
    from tests.helpers import run_cli

    text = " ".join(random.Random(0).choices(WORDS, k=600))
    loaded = load_hf_folder(wide_llama)
    read = long_prompt.read_long_input(loaded, text, None, "cpu")
    store, needed = long_prompt.query_key_bytes(loaded, read), long_prompt.pass_bytes(loaded, read)
    monkeypatch.setattr(limits, "MAX_QUERY_KEY_BYTES", (store + needed) // 2)  # (the store alone would fit)
    code, out, err = run_cli(capsys, "export", "--checkpoint", str(wide_llama), "--text", text, "--prompt-map",
                             "--out", str(tmp_path / "out"))
    assert code == 2 and not out and not (tmp_path / "out").exists()
    assert err.strip().splitlines() == [f"attnviz: error: reading {len(read.ids):,} tokens while keeping their "
                                        f"queries and keys would take {needed / 1024**3:.1f} GB at its peak (attnviz "
                                        f"allows {(store + needed) // 2 / 1024**3:.0f} GB): give a shorter prompt"]
    code, out, err = run_cli(capsys, "export", "--checkpoint", str(wide_llama), "--text", text[:400], "--prompt-map",
                             "--out", str(tmp_path / "short"), "--format", "csv")
    assert code == 0, err
    assert "attnviz export: reading" in err and "100 % (2 of 2 attention layers)" in err  # (progress as it reads)
