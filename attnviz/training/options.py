"""``attnviz train``'s settings and their checks (torch-free: the CLI's --help reads the defaults).

The ranges are :mod:`attnviz.core.limits`' (the loader's): training refuses what loading would refuse,
before it reads the data or builds a model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from attnviz.core.limits import check_config_values
from attnviz.core.models.kinds import kind_named
from attnviz.i18n import tr


class TrainingError(ValueError):
    """Training cannot start or go on (options, data, or a checkpoint that would not load); one sentence."""

KERNEL_REGRESSION_EPOCHS, KERNEL_REGRESSION_LR = 5, 0.5  # the kernel-regression model's defaults


@dataclass(frozen=True)
class TrainOptions:
    """Optimisation settings shared by the translation models."""

    epochs: int = 10
    batch_size: int = 128
    lr: float | None = None  # peak learning rate after warm-up; None: the kind's default (ModelKind.default_lr)
    warmup_steps: int = 400
    label_smoothing: float = 0.1
    clip_norm: float = 1.0
    max_src_tokens: int = 12  # training pairs longer than this are skipped
    max_tgt_tokens: int = 20
    src_min_freq: int = 2
    tgt_min_freq: int = 3
    val_sources: int = 1500
    seed: int = 0
    minutes: float | None = None  # wall-clock budget; training stops after the step that crosses it
    stop_after: int | None = None  # stop after this many epochs; the LR schedule still spans ``epochs``


def option_problems(values: dict[str, Any]) -> list[str]:
    """What is wrong with these TrainOptions values (the loader's ranges), each naming its --option."""
    problems = [f"--{name.replace('_', '-')}: {problem}" for name, value in values.items()
                for problem in check_config_values(TrainOptions, {name: value})]
    stop, epochs = values.get("stop_after"), values.get("epochs", TrainOptions.epochs)
    if not problems and stop is not None and stop > epochs:
        problems.append(tr("--stop-after {stop} is past the last epoch (--epochs {epochs})").format(stop=stop,
                                                                                                   epochs=epochs))
    return problems


def arch_problems(kind: str, arch: dict[str, Any]) -> list[str]:
    """What is wrong with ``--arch`` for ``kind``: the loader's checks of a config, on the kind's defaults
    with ``arch`` over them (the vocabulary sizes, known only from the data, are checked later)."""
    model_kind = kind_named(kind)
    defaults = {f.name: f.default for f in dataclasses.fields(model_kind.config_cls)
                if f.default is not dataclasses.MISSING}
    given = check_config_values(model_kind.config_cls, arch)  # the settings the user typed, named first
    return given or check_config_values(model_kind.config_cls, {**defaults, **arch, **model_kind.fixed},
                                        model_kind.attention_cells)
