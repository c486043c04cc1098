"""Checkpoints: one safetensors file per model, rebuilt from the metadata stored next to the weights.

Loading never unpickles and never runs code from the file. Every problem raises
:class:`CheckpointError`, whose message names the file and what is wrong with it.
Metadata keys (all strings): ``format_version``, ``kind``, ``config`` (JSON), ``src_vocab`` and
``tgt_vocab`` (JSON token lists; absent for kernel regression), ``training`` (JSON).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from safetensors import safe_open
from safetensors.torch import save_file
from torch import nn

from attnviz.core.files import atomic_output
from attnviz.core.kinds import KINDS, ModelKind, kind_of
from attnviz.core.text import Vocab

FORMAT_VERSION = "1"


class CheckpointError(Exception):
    """A checkpoint that cannot be used; the message names the file and the problem."""


@dataclass
class LoadedModel:
    """A model rebuilt from a checkpoint (in eval mode, on the CPU unless moved)."""

    kind: str
    config: Any
    model: nn.Module
    src_vocab: Vocab | None = None
    tgt_vocab: Vocab | None = None
    training: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    @property
    def model_kind(self) -> ModelKind:
        return KINDS[self.kind]

    @property
    def is_translation(self) -> bool:
        return self.model_kind.is_translation


def build_model(config: Any) -> nn.Module:
    return kind_of(config).model_cls(config)


def _stored_tensors(model: nn.Module) -> dict[str, torch.Tensor]:
    """The state dict without aliases (tied weights are stored once, under their first name)."""
    seen: set[int] = set()
    tensors = {}
    for name, tensor in model.state_dict(keep_vars=False).items():
        key = tensor.data_ptr()
        if key in seen and tensor.numel() > 0:
            continue
        seen.add(key)
        tensors[name] = tensor
    return tensors


def save_checkpoint(path: str | Path, model: nn.Module, *, src_vocab: Vocab | None = None,
                    tgt_vocab: Vocab | None = None, training: dict[str, Any] | None = None,
                    half: bool = False) -> Path:
    """Write ``model`` atomically (temp file in the same folder, then rename).

    half: store floating tensors as float16 (the loader converts back to float32).
    """
    path = Path(path)
    config: Any = getattr(model, "config")  # noqa: B009 (every attnviz model has one)
    kind = kind_of(config)
    metadata = {"format_version": FORMAT_VERSION, "kind": kind.name,
                "config": json.dumps(dataclasses.asdict(config)),
                "training": json.dumps(training or {})}
    if kind.is_translation:
        if src_vocab is None or tgt_vocab is None:
            raise ValueError("a translation checkpoint needs src_vocab and tgt_vocab")
        metadata["src_vocab"] = json.dumps(list(src_vocab.tokens), ensure_ascii=False)
        metadata["tgt_vocab"] = json.dumps(list(tgt_vocab.tokens), ensure_ascii=False)
    tensors = {}
    for name, tensor in _stored_tensors(model).items():
        tensor = tensor.detach().cpu()
        if half and tensor.is_floating_point():
            tensor = tensor.half()
        tensors[name] = tensor.contiguous().clone()
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path) as tmp:
        save_file(tensors, str(tmp), metadata=metadata)
    return path


def _read_config(path: Path, kind: ModelKind, raw: str | None) -> Any:
    config_cls, fixed = kind.config_cls, kind.fixed
    if raw is None:
        raise CheckpointError(f"{path}: metadata has no 'config'")
    try:
        values = json.loads(raw)
    except json.JSONDecodeError as error:
        raise CheckpointError(f"{path}: config is not valid JSON ({error.msg})") from None
    if not isinstance(values, dict):
        raise CheckpointError(f"{path}: config must be a JSON object")
    names = {f.name for f in dataclasses.fields(config_cls)}
    required = {f.name for f in dataclasses.fields(config_cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    if missing := sorted((required | set(fixed)) - set(values)):
        raise CheckpointError(f"{path}: config is missing {', '.join(missing)}")
    if unknown := sorted(set(values) - names):
        raise CheckpointError(f"{path}: config has unknown fields {', '.join(unknown)}")
    for key, value in fixed.items():
        if values[key] != value:
            raise CheckpointError(f"{path}: config.{key} is {values[key]!r}, kind {kind.name!r} needs {value!r}")
    try:
        return config_cls(**values)
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{path}: invalid config ({error})") from None


def _read_vocab(path: Path, metadata: dict[str, str], key: str, expected_size: int) -> Vocab:
    raw = metadata.get(key)
    if raw is None:
        raise CheckpointError(f"{path}: metadata has no '{key}'")
    try:
        tokens = json.loads(raw)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise ValueError("it must be a JSON list of strings")
        vocab = Vocab(tuple(tokens))
    except (json.JSONDecodeError, ValueError) as error:
        raise CheckpointError(f"{path}: {key} is not a valid vocabulary ({error})") from None
    if len(vocab) != expected_size:
        raise CheckpointError(f"{path}: {key} has {len(vocab)} tokens but the config says {expected_size}")
    return vocab


def load_checkpoint(path: str | Path, device: torch.device | str = "cpu") -> LoadedModel:
    """Validate and load a checkpoint written by :func:`save_checkpoint`; the model is in eval mode."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"{path}: no such file")
    try:
        with safe_open(str(path), framework="pt", device="cpu") as handle:
            metadata = handle.metadata() or {}
            tensors = {name: handle.get_tensor(name) for name in handle.keys()}  # noqa: SIM118
    except Exception as error:  # safetensors raises several types for corrupt files
        raise CheckpointError(f"{path}: not a readable safetensors file ({error})") from None
    version = metadata.get("format_version")
    if version != FORMAT_VERSION:
        raise CheckpointError(f"{path}: format_version {version!r} is not supported (expected {FORMAT_VERSION})")
    name = metadata.get("kind")
    if name not in KINDS:
        raise CheckpointError(f"{path}: unknown model kind {name!r}; known: {', '.join(KINDS)}")
    kind = KINDS[name]
    config = _read_config(path, kind, metadata.get("config"))
    src_vocab = tgt_vocab = None
    if kind.is_translation:
        src_vocab = _read_vocab(path, metadata, "src_vocab", config.src_vocab_size)
        tgt_vocab = _read_vocab(path, metadata, "tgt_vocab", config.tgt_vocab_size)
    try:
        model = build_model(config)
    except (ValueError, RuntimeError) as error:
        raise CheckpointError(f"{path}: config cannot build a model ({error})") from None
    expected = _stored_tensors(model)
    if missing := sorted(set(expected) - set(tensors)):
        raise CheckpointError(f"{path}: missing tensors {', '.join(missing[:5])}")
    if unexpected := sorted(set(tensors) - set(expected)):
        raise CheckpointError(f"{path}: unexpected tensors {', '.join(unexpected[:5])}")
    for name, reference in expected.items():
        stored = tensors[name]
        if stored.shape != reference.shape:
            raise CheckpointError(f"{path}: tensor {name} has shape {tuple(stored.shape)}, "
                                  f"expected {tuple(reference.shape)}")
        allowed = (torch.float16, torch.float32) if reference.is_floating_point() else (reference.dtype,)
        if stored.dtype not in allowed:
            raise CheckpointError(f"{path}: tensor {name} has dtype {stored.dtype}, expected {reference.dtype}")
        if stored.is_floating_point() and not torch.isfinite(stored).all():
            raise CheckpointError(f"{path}: tensor {name} holds NaN or infinite values")
    with torch.no_grad():
        state = model.state_dict()
        for name in expected:
            state[name].copy_(tensors[name].to(state[name].dtype))
    try:
        training = json.loads(metadata.get("training", "{}"))
    except json.JSONDecodeError:
        raise CheckpointError(f"{path}: training info is not valid JSON") from None
    return LoadedModel(kind.name, config, model.to(device).eval(), src_vocab, tgt_vocab, training, path)
