import sys

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="GNU OpenMP (torch's on Linux) reports GOMP_SPINCOUNT")
@pytest.mark.parametrize("asked, spins", [(None, "0"), ("ACTIVE", "30000000000")])
def test_openmp_threads_wait_passively_unless_the_user_says_otherwise(asked, spins):
    """Importing attnviz before torch makes OpenMP's threads sleep while they wait (spinning ones take the time
    slices their partners need on a busy machine: a 2-thread decoding step 4× slower, bench/RESULTS.md); a wait
    policy the user set is kept. OpenMP's own report of its settings (OMP_DISPLAY_ENV) says how long it spins."""
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"} | {"OMP_DISPLAY_ENV": "VERBOSE"}
    if asked:
        env["OMP_WAIT_POLICY"] = asked
    done = subprocess.run([sys.executable, "-c", "import attnviz, torch; torch.ones(1)"], env=env,
                          capture_output=True, text=True, check=True)  # (waits for the child's exit, no clock)
    assert f"GOMP_SPINCOUNT = '{spins}'" in done.stderr, done.stderr[-2000:]
