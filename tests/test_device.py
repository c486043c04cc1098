import pytest
import torch

from attnviz.core import DeviceUnavailableError, available_devices, pick_device


def test_auto_prefers_cuda_then_cpu():
    expected = "cuda" if torch.cuda.is_available() else None
    chosen = pick_device("auto")
    if expected:
        assert chosen.type == "cuda"
    else:
        assert chosen.type in ("cpu", "mps")
    assert pick_device("cpu") == torch.device("cpu")
    assert available_devices()[-1] == "cpu"


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_unavailable_cuda_is_a_clear_error():
    with pytest.raises(DeviceUnavailableError, match=r"'cuda' is not available here; available: .*cpu"):
        pick_device("cuda")


def test_unknown_device_name_is_a_clear_error():
    with pytest.raises(DeviceUnavailableError, match="unknown device 'gpu0'"):
        pick_device("gpu0")
