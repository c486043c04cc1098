"""Shared fixtures. Core tests need no Qt; GUI tests force the offscreen platform."""

from __future__ import annotations

import os

import pytest
import torch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

DEVICES = [
    "cpu",
    pytest.param("cuda", marks=pytest.mark.skipif(
        not torch.cuda.is_available(), reason="CUDA is not available on this machine")),
]


@pytest.fixture(params=DEVICES)
def device(request: pytest.FixtureRequest) -> torch.device:
    """Each test that takes ``device`` runs on the CPU and, where present, on CUDA."""
    return torch.device(request.param)


@pytest.fixture(autouse=True)
def _seeded() -> None:
    torch.manual_seed(0)
