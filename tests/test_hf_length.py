"""A Hugging Face folder decodes to its own length limit, as ``generate`` does: a generation_config.json's
``max_length`` (with the end token forced at the limit) is the output's limit in the CLI and the window; attnviz's
own cap applies only where the folder sets none, and the window says so when it cuts there."""

from __future__ import annotations

import json

import pytest
import torch

transformers = pytest.importorskip("transformers")

from attnviz.core.hf.load import MAX_OUTPUT_TOKENS, load_hf_folder  # noqa: E402
from tests.helpers import run_cli  # noqa: E402
from tests.hf_folders import make_folder  # noqa: E402

TEXT = "the cat sat on the mat"


def _with_generation(folder, **settings):
    path = folder / "generation_config.json"
    values = json.loads(path.read_text())
    values.update(settings)
    path.write_text(json.dumps(values))
    return folder


def test_a_folders_max_length_and_forced_end_token_are_followed_as_generate_does(tmp_path, capsys):
    folder = make_folder("marian", tmp_path / "marian")
    eos = json.loads((folder / "config.json").read_text())["eos_token_id"]
    _with_generation(folder, max_length=20, forced_eos_token_id=eos)
    loaded = load_hf_folder(folder)
    assert loaded.config.max_tgt_len == 19  # (max_length counts the decoder's start token)
    assert loaded.training["output_limit_set_by"] == "folder"
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(folder).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder)
    with torch.no_grad():
        expected = model.generate(**tokenizer([TEXT], return_tensors="pt"), num_beams=1, do_sample=False)[0]
    assert len(expected) == 20 and int(expected[-1]) == eos  # cut at the limit, the end token forced there
    code, printed, err = run_cli(capsys, "translate", "--checkpoint", str(folder), "--beam", "1", "--text", TEXT)
    assert code == 0, err
    assert printed.strip() == tokenizer.decode(expected, skip_special_tokens=True).strip()


def test_a_folder_without_a_limit_gets_attnvizs_and_the_window_says_when_it_cuts(tmp_path, window, qtbot):
    folder = make_folder("marian", tmp_path / "marian")
    values = json.loads((folder / "generation_config.json").read_text())
    values.pop("max_length", None)
    values["bad_words_ids"] = [[values["eos_token_id"]]]  # (it never ends by itself: decoding meets the limit)
    (folder / "generation_config.json").write_text(json.dumps(values))
    loaded = load_hf_folder(folder)
    assert loaded.training["output_limit_set_by"] == "attnviz" and loaded.config.max_tgt_len <= MAX_OUTPUT_TOKENS
    window.load(folder)
    qtbot.waitUntil(lambda: window.session.state.model is not None and window.session.state.model.path == folder,
                    timeout=60000)
    window.set_sentence(TEXT, run=True)
    qtbot.waitUntil(lambda: window.session.state.finished, timeout=60000)
    step = window.session.state.step
    assert not step.ended and len(step.output_tokens) == loaded.config.max_tgt_len
    assert f"Stopped at attnviz's limit of {loaded.config.max_tgt_len} tokens" in window.statusBar().full_message
