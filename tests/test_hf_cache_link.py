"""A link of the user's own to a Hugging Face cache snapshot opens as the snapshot does (its files are links into
the same model's ``blobs/``); nothing else outside a model's folder is read."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from tests.helpers import run_cli


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache laid out as huggingface_hub lays it out: models--org--name/{blobs/SHA, snapshots/HASH/NAME ->
    ../../blobs/SHA}, of a tiny Marian folder."""
    from tests.hf_folders import make_folder

    root = tmp_path_factory.mktemp("hub")
    made = make_folder("marian", root / "made")
    entry = root / "models--org--tiny-marian"
    (entry / "blobs").mkdir(parents=True)
    snapshot = entry / "snapshots" / "0123abcd"
    snapshot.mkdir(parents=True)
    for file in made.iterdir():
        digest = hashlib.sha256(file.read_bytes()).hexdigest()
        (entry / "blobs" / digest).write_bytes(file.read_bytes())
        os.symlink(f"../../blobs/{digest}", snapshot / file.name)
    return snapshot


def test_a_link_to_a_snapshot_opens_as_the_snapshot_does(capsys, cache, tmp_path) -> None:
    from attnviz.core.hf.folder import inspect_folder, model_name

    link = tmp_path / "my-model"
    link.symlink_to(cache)
    again = tmp_path / "again"  # (a link to the link)
    again.symlink_to(link)
    said = {}
    for path in (cache, link, again):
        code, stdout, stderr = run_cli(capsys, "translate", "--checkpoint", str(path), "--text", "the house",
                                       "--beam", "1")
        assert code == 0, stderr
        said[path] = stdout
        assert inspect_folder(path).path == cache and model_name(path) == "org/tiny-marian"
    assert said[link] == said[again] == said[cache]


def test_files_leading_out_of_a_folder_that_is_no_snapshot_are_still_refused(capsys, cache, tmp_path) -> None:
    copy = tmp_path / "copy"  # the snapshot's links copied into a folder of the user's own: they lead outside it
    copy.mkdir()
    for file in cache.iterdir():
        os.symlink(file.resolve(), copy / file.name)
    code, _, stderr = run_cli(capsys, "translate", "--checkpoint", str(copy), "--text", "the house")
    assert code == 2 and "outside the model's folder" in stderr
    other = cache.parents[2] / "models--org--other" / "snapshots" / "feed"  # a snapshot whose file leads to another
    other.mkdir(parents=True)  # model's blobs
    for file in cache.iterdir():
        os.symlink(file.resolve(), other / file.name)
    link = tmp_path / "other-link"
    link.symlink_to(other)
    code, _, stderr = run_cli(capsys, "translate", "--checkpoint", str(link), "--text", "the house")
    assert code == 2 and "outside the model's folder" in stderr
