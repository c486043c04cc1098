"""The libraries' calls on a model folder, each a refusal naming the file when it fails.

transformers, tokenizers and safetensors raise what they like on a hostile file: ValueError and OSError, but
also ``pickle.UnpicklingError``, ``SafetensorError``, the tokenizers library's plain ``Exception``, IndexError,
TypeError, AssertionError — and, where its Rust code panics, ``pyo3_runtime.PanicException``, a BaseException.
:func:`refusing` turns every one of them (not Ctrl+C, not an exit) into :class:`HFFolderError` naming the file
the call read, and keeps a panic's message off the terminal of a command (Rust prints it on stderr itself).
:func:`check_loaded` refuses a model whose weights do not fill it: transformers would start the missing ones
at random and load "successfully".
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import threading
import warnings
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import Any

from attnviz.core.hf.files import HFFolderError
from attnviz.i18n import tr

UNWINDING = (KeyboardInterrupt, SystemExit, GeneratorExit)  # what is never a file's fault
SHOWN_NAMES = 3
MAX_SAID = 200  # characters of a library's message


@contextlib.contextmanager
def refusing(path: Path, quiet: bool = False) -> Iterator[None]:
    """Any error of the calls inside (a library's panic included) as HFFolderError naming ``path``; ``quiet``:
    what the libraries write on stderr meanwhile is dropped (in a command, on the main thread only)."""
    try:
        with _quiet_stderr() if quiet else contextlib.nullcontext():
            yield
    except (HFFolderError, *UNWINDING):
        raise
    except BaseException as error:  # (a library's panic is a BaseException, not an Exception)
        if isinstance(error, pickle.UnpicklingError):  # (torch's message advises weights_only=False: never)
            raise HFFolderError(tr("{path}: holds Python objects that torch's safe loader (weights_only) refuses to "
                                   "unpickle; attnviz never runs a checkpoint's code").format(path=path)) from None
        raise HFFolderError(tr("{path}: transformers cannot open it ({error})").format(path=path, error=said(error))
                            ) from None


def said(error: BaseException) -> str:
    """``Kind: what it says`` in one line of at most MAX_SAID characters."""
    text = " ".join(str(error).split())
    text = text if len(text) <= MAX_SAID else text[: MAX_SAID - 1] + "…"
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


@contextlib.contextmanager
def library_quiet(transformers: Any) -> Iterator[None]:
    """transformers logs errors only, and the libraries' warnings are dropped, while inside: its load report of
    missing weights is a table of every name, torch warns of a pickle's protocol before refusing it — attnviz
    says what matters in one sentence instead."""
    logging = transformers.utils.logging
    previous = logging.get_verbosity()
    logging.set_verbosity_error()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.set_verbosity(previous)


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 on /dev/null while inside (a Rust panic's message and backtrace bypass Python)."""
    if threading.current_thread() is not threading.main_thread():  # (the window's worker: other threads write)
        yield
        return
    try:
        sys.stderr.flush()
        saved, null = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    except (OSError, ValueError, AttributeError):
        yield
        return
    try:
        os.dup2(null, 2)
        yield
    finally:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def some(names: Collection[str]) -> str:
    """A few of ``names`` and how many more: ``a, b, c and 17 more``."""
    ordered = sorted(names)
    shown = ", ".join(ordered[:SHOWN_NAMES])
    if len(ordered) <= SHOWN_NAMES:
        return shown
    return tr("{names} and {count:,} more").format(names=shown, count=len(ordered) - SHOWN_NAMES)


def check_loaded(path: Path, info: Mapping[str, Any], unused: Collection[str] = ()) -> None:
    """Refuse a model whose weights file ``path`` lacks weights the config describes, holds ones it does not, or
    holds them in other shapes (``info``: transformers' loading info). ``unused``: the parts of weight names a folder
    may hold that the model does not use (a BERT folder's pooler and next-sentence head beside its masked-word head)."""
    missing, unexpected = set(info.get("missing_keys") or ()), set(info.get("unexpected_keys") or ())
    unexpected = {name for name in unexpected if not set(str(name).split(".")) & set(unused)}
    mismatched = {str(entry[0]) if isinstance(entry, tuple | list) else str(entry)
                  for entry in info.get("mismatched_keys") or ()}
    if missing:
        raise HFFolderError(tr("{path}: lacks {count:,} of the model's weights ({names}); attnviz does not start a "
                               "model with made-up weights").format(path=path, count=len(missing), names=some(missing)))
    if unexpected:
        raise HFFolderError(tr("{path}: holds weights that config.json does not describe ({names}): they are not "
                               "this model's").format(path=path, names=some(unexpected)))
    if mismatched:
        raise HFFolderError(tr("{path}: holds weights of other shapes than config.json describes ({names})").format(
            path=path, names=some(mismatched)))


def checked_ids(path: Path, key: str, value: Any, size: int, nested: bool = False) -> list[int]:
    """The token ids ``value`` (one id, or a list of ids; ``nested``: lists of them) that ``path`` gives under
    ``key``, each a whole number below ``size``; None is no id."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    if nested:
        items = [i for item in items for i in (item if isinstance(item, list) else [item])]
    if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < size for i in items):
        raise HFFolderError(tr("{path}: {key} = {value} is not a token id of the model (a whole number from 0 to "
                               "{most:,})").format(path=path, key=key, value=_short(value), most=size - 1))
    return [int(i) for i in items]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "…"
