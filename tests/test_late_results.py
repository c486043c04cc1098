"""Results that arrive after the model they were asked for has been replaced are dropped, never applied to
(or run on) the model loaded since."""

from attnviz.paths import MODELS_DIR
from attnviz.session import Session
from tests.helpers import HeldRunner
from tests.test_session import Recorder

KERNEL_MODEL = MODELS_DIR / "kernel-regression.safetensors"


def test_a_kernel_fit_asked_for_before_another_model_loaded_is_dropped(tiny_models):
    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(KERNEL_MODEL)
    runner.run_all()
    session.load(tiny_models["transformer"][0])  # still loading when the bandwidth is dragged
    session.fit_kernel("gaussian", 0.5, 1.0)
    session.fit_kernel("gaussian", 0.6, 1.5)  # waits for the first fit, which arrives after the Transformer
    runner.run_all()
    assert listener.errors == []
    assert session.state.model.kind == "transformer" and session.state.kernel is None
    assert runner.queue == []


def test_a_failed_kernel_fit_for_a_replaced_model_is_not_reported(tiny_models, monkeypatch):
    from attnviz.core.models import kernel_regression

    runner, listener = HeldRunner(), Recorder()
    session = Session(listener, runner)
    session.load(KERNEL_MODEL)
    runner.run_all()
    session.load(tiny_models["transformer"][0])
    session.fit_kernel("gaussian", 0.5, 1.0)  # runs after the Transformer loaded, for the old model
    monkeypatch.setattr(kernel_regression, "explain", lambda *args: (_ for _ in ()).throw(RuntimeError("gone")))
    runner.run_all()
    assert listener.errors == [] and session.state.model.kind == "transformer"
