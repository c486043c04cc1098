"""Hostile Hugging Face model folders, one test per class a campaign found: every one ends as one sentence naming
the file and the reason — the loader's error, ``attnviz translate``'s one line and exit 2, the window's message
with the previous model kept and usable — in seconds, reading nothing outside the folder and allocating nothing
the config merely claims. Tiny folders: a sparse file stands for a huge one, a count just past a bound for a
count far beyond it."""

from __future__ import annotations

import json
import os
import shutil
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

transformers = pytest.importorskip("transformers")
import torch  # noqa: E402
from safetensors.torch import load_file, save_file  # noqa: E402

from attnviz.core.checkpoints.checkpoint import CheckpointError, load_checkpoint  # noqa: E402
from attnviz.core.hf import files  # noqa: E402
from attnviz.core.hf.contents import MAX_ADDED_TOKENS  # noqa: E402
from attnviz.session import InlineRunner, ThreadRunner  # noqa: E402
from attnviz.session_file import SavedSession, sha256_of, to_json  # noqa: E402
from tests.helpers import WAIT_MS, run_cli  # noqa: E402
from tests.hf_folders import TEXT, make_folder, make_opus_mt_folder  # noqa: E402

Spoil = Callable[[Path, Path], None]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("hostile")
    folders = {family: make_folder(family, root / family) for family in ("marian", "gpt2", "llama")}
    return {**folders, "opus": make_opus_mt_folder(root / "opus")}


def _edit(path: Path, **changes) -> None:
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def _json(name: str, **changes) -> Spoil:
    return lambda folder, tmp_path: _edit(folder / name, **changes)


def _tokenizer(change: Callable[[dict], None]) -> Spoil:
    def spoil(folder: Path, tmp_path: Path) -> None:
        data = json.loads((folder / "tokenizer.json").read_text())
        change(data)
        (folder / "tokenizer.json").write_text(json.dumps(data))
    return spoil


def _refused(folder: Path, file: str, message: str) -> str:
    with pytest.raises(CheckpointError) as error:
        load_checkpoint(folder)
    text = str(error.value)
    assert text.startswith(f"{folder / file}:") and message in text, text
    assert "\n" not in text
    return text


def _case(made: dict[str, Path], tmp_path: Path, family: str, spoil: Spoil) -> Path:
    folder = Path(shutil.copytree(made[family], tmp_path / "model"))
    spoil(folder, tmp_path)
    return folder


# 1. Files outside the folder ------------------------------------------------------------------------------------

def _elsewhere(tmp_path: Path, name: str, folder: Path) -> Path:
    (tmp_path / "elsewhere").mkdir(exist_ok=True)
    return Path(shutil.copy(folder / "tokenizer.json", tmp_path / "elsewhere" / name))


def _fast_tokenizer_files(folder: Path, tmp_path: Path) -> None:
    _elsewhere(tmp_path, "tokenizer.4.0.json", folder)
    _edit(folder / "tokenizer_config.json", fast_tokenizer_files=["../elsewhere/tokenizer.4.0.json"])


def _absolute_tokenizer_file(folder: Path, tmp_path: Path) -> None:
    _edit(folder / "tokenizer_config.json", tokenizer_file=str(_elsewhere(tmp_path, "tokenizer.json", folder)))


def _template_link(folder: Path, tmp_path: Path) -> None:
    (tmp_path / "shadow").write_text("root:*:19000:0:99999:7:::")  # (a stand-in for /etc/shadow)
    (folder / "additional_chat_templates").mkdir()
    (folder / "additional_chat_templates" / "tool_use.jinja").symlink_to(tmp_path / "shadow")


@pytest.mark.parametrize(("family", "spoil", "file", "message"), [
    ("marian", _fast_tokenizer_files, "tokenizer_config.json",
     "fast_tokenizer_files names ../elsewhere/tokenizer.4.0.json, outside the model's folder"),
    ("marian", _absolute_tokenizer_file, "tokenizer_config.json", "tokenizer_file names /"),
    ("marian", _template_link, "additional_chat_templates/tool_use.jinja", "outside the model's folder"),
    ("opus", _json("tokenizer_config.json", sp_model_kwargs={"model_file": "/dev/zero"}), "tokenizer_config.json",
     "sp_model_kwargs passes model_file to SentencePiece"),
    ("opus", _json("tokenizer_config.json", init_inputs=["/etc/passwd"]), "tokenizer_config.json",
     "init_inputs passes"),
    ("marian", _json("tokenizer_config.json", auto_map={"AutoTokenizer": ["evil.Tok", None]}),
     "tokenizer_config.json", "needs its own Python code"),
])
def test_a_path_or_keyword_leading_out_of_the_folder_is_refused(made, tmp_path, family, spoil, file, message):
    _refused(_case(made, tmp_path, family, spoil), file, message)


def test_a_named_path_that_leads_nowhere_is_left_and_one_inside_is_checked(made, tmp_path):
    """Old transformers wrote the saving machine's cache path into tokenizer_config.json: nothing is there."""
    folder = _case(made, tmp_path, "marian", _json("tokenizer_config.json",
                                                   tokenizer_file="/root/.cache/huggingface/nowhere/tokenizer.json",
                                                   fast_tokenizer_files=["tokenizer.json"]))
    assert load_checkpoint(folder).model_kind.hugging_face
    os.mkfifo(folder / "vocab.fifo")
    _edit(folder / "tokenizer_config.json", vocab_file="vocab.fifo")
    _refused(folder, "vocab.fifo", "is a named pipe (FIFO), not a file")


# 2. A false success: weights that do not fill the model ---------------------------------------------------------

def _empty_header(folder: Path, tmp_path: Path) -> None:
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", 2) + b"{}")


def _half_the_tensors(folder: Path, tmp_path: Path) -> None:
    tensors = load_file(folder / "model.safetensors")
    save_file({name: t for i, (name, t) in enumerate(sorted(tensors.items())) if i % 2}, folder / "model.safetensors")


def _one_more_tensor(folder: Path, tmp_path: Path) -> None:
    tensors = load_file(folder / "model.safetensors")
    save_file({**tensors, "extra.weight": torch.zeros(2)}, folder / "model.safetensors")


def _gpt2_weights(made: dict[str, Path]) -> Spoil:
    return lambda folder, tmp_path: shutil.copy(made["gpt2"] / "model.safetensors", folder / "model.safetensors")


@pytest.mark.parametrize(("spoil", "message"), [
    (_empty_header, "holds no tensors"),
    (_half_the_tensors, "of the model's weights ("),
    (_one_more_tensor, "holds weights that config.json does not describe (extra.weight)"),
    ("gpt2", "of the model's weights ("),
])
def test_weights_that_do_not_fill_the_model_are_refused_by_name(made, tmp_path, capsys, spoil, message):
    folder = _case(made, tmp_path, "llama", _gpt2_weights(made) if spoil == "gpt2" else spoil)
    text = _refused(folder, "model.safetensors", message)
    if spoil in (_half_the_tensors, "gpt2"):
        assert " more)" in text and "model." in text  # a few names, and how many more
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", TEXT)
    assert (code, out) == (2, "") and err.startswith("attnviz: error: ") and err.count("\n") == 1, err


# 3. Memory: every table the config builds is counted, every file bounded by its kind -----------------------------

def _sparse(name: str, size: int) -> Spoil:
    def spoil(folder: Path, tmp_path: Path) -> None:
        (folder / name).parent.mkdir(exist_ok=True)
        with open(folder / name, "wb") as stream:
            stream.truncate(size)
    return spoil


def _expanding(data: dict) -> None:
    data["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "e"}, "content": "ee"} for _ in range(7)]}


@pytest.mark.parametrize(("family", "spoil", "file", "message"), [
    ("gpt2", _json("config.json", n_positions=10**6, n_embd=4096, n_head=32), "config.json", "billion parameters"),
    ("marian", _json("config.json", max_position_embeddings=10**6, d_model=2048), "config.json",
     "billion parameters"),
    ("marian", _json("config.json", decoder_vocab_size=10**8, share_encoder_decoder_embeddings=False),
     "config.json", "decoder_vocab_size = 100000000 is not a whole number from 1 to 1,000,000"),
    ("marian", _sparse("chat_template.jinja", 6 * 10**9), "chat_template.jinja",
     "is 6,000 MB, larger than any real chat_template.jinja (at most 5 MB)"),
    ("marian", _sparse("additional_chat_templates/big.jinja", 6 * 10**6), "additional_chat_templates/big.jinja",
     "larger than any real big.jinja"),
    ("marian", _sparse("generation_config.json", 6 * 10**6), "generation_config.json", "larger than any real"),
    ("marian", _tokenizer(_expanding), "tokenizer.json", "make a text up to 128 times longer"),
    ("llama", _json("config.json", hidden_size=1024, intermediate_size=4096, num_attention_heads=16,
                    num_key_value_heads=16, num_hidden_layers=8, vocab_size=32000), "model.safetensors",
     "too few for the 168.3 million numbers config.json describes"),  # (not built at random first: 700 MB)
])
def test_what_would_take_the_memory_is_refused_before_it_is_built(made, tmp_path, family, spoil, file, message):
    _refused(_case(made, tmp_path, family, spoil), file, message)


def test_marian_positions_are_counted_and_made_a_block_at_a_time(made, tmp_path):
    from attnviz.core.hf.folder import inspect_folder
    from attnviz.core.hf.load import marian_table

    before = inspect_folder(made["marian"]).parameters
    _edit((folder := _case(made, tmp_path, "marian", lambda f, t: None)) / "config.json", max_position_embeddings=1000)
    assert inspect_folder(folder).parameters - before == 2 * (1000 - 128) * 16  # (two tables of 16 wide)
    table = marian_table(70_000, 16)  # (more rows than one block: the float64 angles are made a block at a time)
    angles = np.arange(70_000)[:, None] / np.power(10000, 2 * (np.arange(16) // 2) / 16)[None, :]  # (all at once)
    whole = np.concatenate([np.sin(angles[:, 0::2]), np.cos(angles[:, 1::2])], axis=1).astype(np.float32)
    np.testing.assert_array_equal(table.numpy(), whole)


# 4. Hangs: counts and header sizes are bounded ------------------------------------------------------------------

def _shards(folder: Path, tmp_path: Path) -> None:
    tensors = load_file(folder / "model.safetensors")
    names = sorted(tensors)
    (folder / "model.safetensors").unlink()
    halves = {"model-1.safetensors": names[::2], "model-2.safetensors": names[1::2]}
    for shard, part in halves.items():
        save_file({name: tensors[name] for name in part}, folder / shard)
    (folder / "model.safetensors.index.json").write_text(json.dumps(
        {"metadata": {"total_size": sum(t.numel() * 4 for t in tensors.values())},
         "weight_map": {name: shard for shard, part in halves.items() for name in part}}))


def _huge_header(folder: Path, tmp_path: Path) -> None:
    with open(folder / "model.safetensors", "wb") as stream:
        stream.write(struct.pack("<Q", files.MAX_HEADER + 1) + b"{")
        stream.truncate(files.MAX_HEADER + 100)


def test_counts_and_headers_are_bounded(made, tmp_path, monkeypatch):
    tokens = [f"<extra_{i}>" for i in range(MAX_ADDED_TOKENS + 1)]
    _refused(_case(made, tmp_path, "marian", _json("tokenizer_config.json", extra_special_tokens=tokens)),
             "tokenizer_config.json", f"define {MAX_ADDED_TOKENS + 4:,} special and added tokens")
    shutil.rmtree(tmp_path / "model")
    _refused(_case(made, tmp_path, "marian", _huge_header), "model.safetensors", "has a safetensors header of 10 MB")
    shutil.rmtree(tmp_path / "model")
    folder = _case(made, tmp_path, "marian", _shards)
    assert load_checkpoint(folder).model_kind.hugging_face  # (two shards: fine)
    monkeypatch.setattr(files, "MAX_HEADERS", 3_000)  # (20 shards of 97 MB headers, in small)
    _refused(folder, "model.safetensors.index.json", "its shards' headers take more than")


# 5. Library panics ----------------------------------------------------------------------------------------------

def _garbage_charsmap(data: dict) -> None:
    data["normalizer"] = {"type": "Precompiled", "precompiled_charsmap": "AAAAAAAAAAAAAAAA/////w=="}


def _absent_special_token(data: dict) -> None:
    data["post_processor"] = {"type": "TemplateProcessing", "single": [
        {"SpecialToken": {"id": "<absent>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {}}


def _empty_pattern(data: dict) -> None:
    data["normalizer"] = {"type": "Replace", "pattern": {"String": ""}, "content": "x"}


@pytest.mark.parametrize(("change", "message"), [
    (_garbage_charsmap, "transformers cannot open it ("),
    (_absent_special_token, "transformers cannot open it ("),
    (_empty_pattern, "a Replace step with an empty pattern"),
])
def test_a_tokenizer_the_library_panics_on_is_one_line(made, tmp_path, capfd, change, message):
    folder = _case(made, tmp_path, "marian", _tokenizer(change))
    _refused(folder, "tokenizer.json", message)
    from attnviz.app import main

    capfd.readouterr()
    code = main(["translate", "--checkpoint", str(folder), "--text", TEXT])
    out, err = capfd.readouterr()
    assert (code, out) == (2, "") and err.startswith("attnviz: error: ") and err.count("\n") == 1, err
    assert "panicked" not in err and "RUST_BACKTRACE" not in err


class Panic(BaseException):
    """What pyo3 raises for a Rust panic: a BaseException, not an Exception."""


@pytest.mark.parametrize("raised", [Panic("boom"), MemoryError()])
def test_a_job_that_raises_any_error_but_an_interrupt_reports_failure(raised):
    failures: list[BaseException] = []

    def job() -> None:
        raise raised

    InlineRunner().submit(job, lambda _: None, failures.append)
    assert failures == [raised]
    for interrupt in (KeyboardInterrupt(), SystemExit(1)):
        with pytest.raises(type(interrupt)):
            InlineRunner().submit(lambda e=interrupt: (_ for _ in ()).throw(e), lambda _: None, failures.append)
    posted: list[Callable[[], None]] = []
    arrived = threading.Event()
    runner = ThreadRunner(lambda callback: (posted.append(callback), arrived.set()))
    failures.clear()
    runner.submit(job, lambda _: None, failures.append)
    assert arrived.wait(WAIT_MS / 1000)  # (the worker ended the job: it posts its failure to the GUI thread)
    posted[0]()
    runner.shutdown()
    assert failures == [raised]


def test_the_window_reports_a_panicking_folder_and_keeps_its_model(window, made, tmp_path, errors, qtbot):
    good = made["marian"]
    window.load(good)
    folder = _case(made, tmp_path, "marian", _tokenizer(_garbage_charsmap))
    window.load(folder)
    qtbot.waitUntil(lambda: bool(errors), timeout=20_000)
    assert "tokenizer.json: transformers cannot open it (" in errors[-1] and "\n" not in errors[-1]
    state = window.session.state
    assert state.loading == "" and state.model is not None and state.model.path == good
    window.set_sentence(TEXT, run=True)
    assert window.session.state.step is not None  # the previous model still steps


# 6. The libraries' other errors, each the folder's refusal ------------------------------------------------------

def _malicious_bin(folder: Path, tmp_path: Path) -> None:
    (folder / "model.safetensors").unlink()
    torch.save({"w": torch.zeros(50_000), "run": os.getcwd}, folder / "pytorch_model.bin")  # (a global: refused)


def _overlapping(folder: Path, tmp_path: Path) -> None:
    header = json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                         "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(12))


def _bogus_dtype(folder: Path, tmp_path: Path) -> None:
    header = json.dumps({"a": {"dtype": "Q9", "shape": [2], "data_offsets": [0, 8]}}).encode()
    (folder / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header + bytes(8))


def _absent_merges(data: dict) -> None:
    data["model"]["merges"] = [["nowhere", "tokens"]]


def _absent_unknown(data: dict) -> None:
    data["model"]["unk_token"] = "<absent>"


def _large_id(data: dict) -> None:
    data["model"]["vocab"]["▁far"] = 10**9


def _vocab_json(folder: Path, tmp_path: Path) -> None:
    _edit(folder / "vocab.json", far=10**9)


@pytest.mark.parametrize(("family", "spoil", "file", "message"), [
    ("llama", _malicious_bin, "pytorch_model.bin", "that torch's safe loader (weights_only) refuses to unpickle"),
    ("llama", _overlapping, "model.safetensors", "overlap another's or leave a gap"),
    ("llama", _bogus_dtype, "model.safetensors", "holds a tensor of type Q9, which attnviz does not read"),
    ("marian", _tokenizer(_absent_merges), "tokenizer.json", "transformers cannot open it ("),
    ("marian", _tokenizer(_absent_unknown), "tokenizer.json", "transformers cannot open it ("),
    ("llama", _json("config.json", hidden_act=3), "config.json", "transformers cannot open it ("),
    ("marian", _json("config.json", pad_token_id=10**5), "config.json", "transformers cannot open it ("),
    ("marian", _tokenizer(_large_id), "tokenizer.json", "has a token of id 1000000000, beyond the model's"),
    ("opus", _vocab_json, "vocab.json", "has a token of id 1000000000, beyond the model's"),
    ("marian", _json("generation_config.json", eos_token_id=10**9), "generation_config.json",
     "eos_token_id = 1000000000 is not a token id of the model"),
    ("marian", _json("generation_config.json", eos_token_id=[[1]]), "generation_config.json",
     "eos_token_id = [[1]] is not a token id"),
    ("marian", _json("generation_config.json", bad_words_ids=[[10**6]]), "generation_config.json",
     "bad_words_ids = [[1000000]] is not a token id"),
])
def test_the_libraries_errors_are_the_folders_refusal(made, tmp_path, capsys, family, spoil, file, message):
    folder = _case(made, tmp_path, family, spoil)
    _refused(folder, file, message)
    code, out, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--text", TEXT)
    assert (code, out) == (2, "") and err.startswith("attnviz: error: ") and err.count("\n") == 1, err


# 7. A saved session naming a folder -----------------------------------------------------------------------------

def _fifo_config(folder: Path, tmp_path: Path) -> None:
    (folder / "config.json").unlink()
    os.mkfifo(folder / "config.json")


def _zero_config(folder: Path, tmp_path: Path) -> None:
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to("/dev/zero")


@pytest.mark.parametrize(("spoil", "message"), [(_fifo_config, "config.json: is a named pipe (FIFO), not a file"),
                                                (_zero_config, "config.json: is a link to /dev/zero, outside")])
def test_a_session_naming_a_spoilt_folder_is_refused_before_its_files_are_read(made, tmp_path, capsys, spoil,
                                                                               message):
    folder = _case(made, tmp_path, "marian", lambda f, t: None)
    session = tmp_path / "s.json"
    session.write_text(to_json(SavedSession(folder, sha256_of(folder), TEXT)))
    spoil(folder, tmp_path)
    assert len(sha256_of(folder)) == 64  # (nothing read from either)
    code, _out, err = run_cli(capsys, "export", "--session", str(session), "--out", str(tmp_path / "out"))
    assert code == 2 and err.startswith("attnviz: error: ") and err.count("\n") == 1, err
    assert message in err and "the session's checkpoint" in err


# 8. The Open Hugging Face model dialog reads the cache off the GUI thread ---------------------------------------

def test_the_dialog_lists_the_cache_on_a_thread_of_its_own(qtbot, tmp_path, monkeypatch):
    from attnviz.gui import hf_dialog

    release, threads = threading.Event(), []

    def slow(cache):  # (a cache of many models, or of hostile ones: seconds)
        threads.append(threading.current_thread())
        release.wait(WAIT_MS / 1000)
        return [(None, cache / "models--acme--odd" / "snapshots" / "0", "config.json: is not valid JSON")]

    monkeypatch.setattr(hf_dialog, "cached_models", slow)
    (tmp_path / "hub").mkdir()
    dialog = hf_dialog.OpenHuggingFaceDialog(cache=tmp_path / "hub")  # (returns at once)
    qtbot.addWidget(dialog)
    assert dialog.table.rowCount() == 0 and "Reading the models in the cache" in dialog.empty.text()
    qtbot.waitUntil(lambda: bool(threads), timeout=WAIT_MS)  # the worker reads; the event loop runs meanwhile
    assert dialog.table.rowCount() == 0 and "Reading the models in the cache" in dialog.empty.text()
    with qtbot.waitSignal(dialog.listed, timeout=WAIT_MS):
        release.set()
    assert threads and threads[0] is not threading.main_thread()
    assert dialog.table.rowCount() == 1 and dialog.table.item(0, 1).text() == "cannot open: is not valid JSON"
