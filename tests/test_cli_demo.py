import subprocess
import sys

from attnviz.cli import main
from tests.helpers import run_cli


def test_demo_prints_kernel_regression_and_masked_softmax(capsys):
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "learned w=" in out
    assert "0.629  0.231  0.140  0.000  0.000" in out  # softmax([2, 1, 0.5]) then two masked zeros


def test_python_dash_m_runs_a_command():
    done = subprocess.run([sys.executable, "-m", "attnviz", "demo"], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Nadaraya" in done.stdout


def test_unknown_command_exits_2_without_traceback(capsys):
    code, _, err = run_cli(capsys, "frobnicate")
    assert code == 2
    assert "Traceback" not in err and "invalid choice" in err


def test_no_display_is_one_clear_line_not_a_qt_abort(capsys, monkeypatch):
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    code, _, err = run_cli(capsys)
    assert code == 2
    assert err.startswith("attnviz: error: no display found") and len(err.splitlines()) == 1
