"""What a Hugging Face folder's configs and tokenizer files say, checked before a library acts on it (torch-free).

transformers passes a tokenizer_config.json to the tokenizer's class as keywords and opens the files its keys
name; the tokenizers library builds whatever tokenizer.json describes. So:

* every path a config or tokenizer file names (``tokenizer_file``, ``fast_tokenizer_files``, ``vocab_file``, …)
  obeys the rules of the folder's own files — inside the folder, a regular file, bounded — or is refused; a
  path that leads nowhere (an absolute path of the machine that saved it) is left, as nothing can be read there;
* keywords handed to a library that could open a file (``sp_model_kwargs``' ``model_file``, ``init_inputs``) or
  run code (``auto_map``) are refused;
* special and added tokens are counted (transformers takes seconds per thousand beyond ten thousand);
* a tokenizer.json's text replacements may not grow the text without bound, nor have an empty pattern (on
  which the tokenizers library panics).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from attnviz.core.hf.files import MAX_TOKENIZER_BYTES, HFFolderError, bound_of, member, read_json
from attnviz.i18n import tr

CONFIG_FILES = ("config.json", "generation_config.json", "tokenizer_config.json", "special_tokens_map.json",
                "added_tokens.json", "processor_config.json", "preprocessor_config.json")
SP_KEYWORDS = frozenset({"enable_sampling", "nbest_size", "alpha", "add_bos", "add_eos", "reverse", "emit_unk_piece",
                         "out_type"})  # SentencePieceProcessor's keywords that open nothing
MAX_ADDED_TOKENS = 10_000  # special and added tokens, all files together (Llama 3 has 256)
MAX_EXPANSION = 64  # how many times longer a tokenizer's replacements may make a text
_NOT_PATHS = frozenset({"name_or_path", "_name_or_path"})  # the model's name on the hub, never opened
_PATH_KEYS = frozenset({"vocab", "merges", "source_spm", "target_spm", "spm_file", "model_file"})
_COUNTED = ("extra_special_tokens", "additional_special_tokens", "added_tokens_decoder", "added_tokens")


def check_contents(folder: Path, root: Path, tokenizer_json: bool = True) -> None:
    """Check the folder's configs and, with ``tokenizer_json``, its tokenizer.json (see the module's docstring:
    a listing of many models leaves the tokenizers, up to 100 MB each, to their loading); HFFolderError names
    the file."""
    tokens: dict[Path, int] = {}  # special and added tokens each file defines
    for name in CONFIG_FILES:
        path = member(folder, root, name)
        if path is None:
            continue
        data = read_json(path)
        if not isinstance(data, dict):
            raise HFFolderError(tr("{path}: is not a JSON object of settings").format(path=path))
        if name == "added_tokens.json":  # (token -> id: its keys are tokens, not keywords)
            tokens[path] = len(data)
            continue
        _check_keywords(path, folder, root, data)
        tokens[path] = _count_tokens(data)
    tokenizer = member(folder, root, "tokenizer.json")
    if tokenizer is not None and tokenizer_json:
        data = read_json(tokenizer)
        if not isinstance(data, dict):
            raise HFFolderError(tr("{path}: is not a tokenizer (a JSON object)").format(path=tokenizer))
        tokens[tokenizer] = _count_tokens(data)
        _check_replacements(tokenizer, data)
    if sum(tokens.values()) > MAX_ADDED_TOKENS:
        raise _too_many(max(tokens, key=lambda path: tokens[path]), sum(tokens.values()))


def _too_many(path: Path, count: int) -> HFFolderError:
    return HFFolderError(tr("{path}: the tokenizer's files define {count:,} special and added tokens; attnviz opens "
                            "tokenizers of up to {most:,} (transformers takes ever longer per token beyond)").format(
        path=path, count=count, most=MAX_ADDED_TOKENS))


def _count_tokens(data: Mapping[str, Any]) -> int:
    return sum(len(value) for key in _COUNTED if isinstance(value := data.get(key), list | dict))


def _names_a_path(key: str) -> bool:
    return key not in _NOT_PATHS and (key in _PATH_KEYS or key.endswith(("file", "files", "_path", "_dir")))


def _check_keywords(path: Path, folder: Path, root: Path, data: Mapping[str, Any]) -> None:
    """Refuse the keywords that run code or open files, and check every path the file names."""
    if "auto_map" in data and path.name == "tokenizer_config.json":  # (config.json's: refused with the architecture)
        raise HFFolderError(tr("{path}: the tokenizer needs its own Python code (auto_map), which attnviz never "
                               "runs (no trust_remote_code)").format(path=path))
    if data.get("init_inputs"):
        raise HFFolderError(tr("{path}: init_inputs passes {value!r} to the tokenizer; attnviz passes a tokenizer "
                               "nothing but the folder's own files").format(path=path, value=data["init_inputs"]))
    options = data.get("sp_model_kwargs")
    if options is not None:
        unknown = sorted(map(str, options)) if not isinstance(options, dict) else sorted(
            key for key, value in options.items() if key not in SP_KEYWORDS or isinstance(value, dict | list))
        if unknown:
            raise HFFolderError(tr("{path}: sp_model_kwargs passes {keys} to SentencePiece; attnviz passes only "
                                   "{allowed}").format(path=path, keys=", ".join(unknown),
                                                       allowed=", ".join(sorted(SP_KEYWORDS))))
    for key, value in _walk(data):
        if _names_a_path(key):
            named = [value] if isinstance(value, str) else value if isinstance(value, list) and key.endswith("files") \
                else []
            for name in named:
                if isinstance(name, str):
                    _check_named(path, folder, root, key, name)


def _walk(data: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every (key, value) of the JSON ``data``'s objects and lists (a list's items under the key ""), at any depth
    (to 64: libraries read the first few)."""
    if depth > 64:
        return
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        yield (key if isinstance(key, str) else ""), value
        yield from _walk(value, depth + 1)


def _check_named(path: Path, folder: Path, root: Path, key: str, named: str) -> None:
    """``named``, a path the file ``path`` gives under ``key``, obeys the rules of the folder's own files."""
    if not named or "\0" in named:
        return
    target = folder / named  # (as a library joins it: an absolute path replaces the folder)
    if not os.path.lexists(target):
        return  # nothing can be read there (a path on the machine that saved the folder)
    try:
        inside = target.resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # (a loop of links)
        inside = False
    if not inside:
        raise HFFolderError(tr("{path}: {key} names {named}, outside the model's folder; attnviz reads only the "
                               "folder's own files").format(path=path, key=key, named=named))
    member(target.parent, root, target.name, min(bound_of(target.name), MAX_TOKENIZER_BYTES))  # (a file named
    # as a tokenizer's is bounded as one, whatever its name says)


def _check_replacements(path: Path, data: Mapping[str, Any]) -> None:
    """Each Replace step of the tokenizer has a pattern, and together they grow a text at most MAX_EXPANSION-fold."""
    growth = 1.0
    steps = {key: data.get(key) for key in ("normalizer", "pre_tokenizer", "post_processor", "decoder")}
    for _key, value in _walk(steps):
        if not isinstance(value, dict) or value.get("type") != "Replace":
            continue
        pattern, content = value.get("pattern"), value.get("content")
        regex = isinstance(pattern, dict) and "String" not in pattern
        text = pattern.get("String", pattern.get("Regex")) if isinstance(pattern, dict) else None
        if not isinstance(text, str) or not isinstance(content, str):
            raise HFFolderError(tr("{path}: has a Replace step without a pattern and a replacement").format(path=path))
        if not text:
            raise HFFolderError(tr("{path}: has a Replace step with an empty pattern, which the tokenizers library "
                                   "cannot apply").format(path=path))
        if regex:
            try:
                empty = re.compile(text).fullmatch("") is not None
            except (re.error, RecursionError, OverflowError):
                empty = True  # (another regex dialect: assume the worst)
            growth *= len(content) + 1 if empty else max(1, len(content))
        else:
            growth *= max(1.0, len(content) / len(text))
        if growth > MAX_EXPANSION:
            raise HFFolderError(tr("{path}: its Replace steps make a text up to {growth:,.0f} times longer; attnviz "
                                   "opens tokenizers whose replacements grow it at most {most} times").format(
                path=path, growth=growth, most=MAX_EXPANSION))
