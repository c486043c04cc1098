"""The checkpoints shipped in models/: they load, fit the size limit and do what the model card says."""

import pytest

from attnviz.core.checkpoints.checkpoint import load_checkpoint
from attnviz.core.decoding.stepping import DecodeSession
from attnviz.core.models.kernel_regression import explain
from attnviz.paths import DEFAULT_CHECKPOINT, MODELS_DIR

TRANSLATION_MODELS = ("transformer", "decoder-only", "rnn-additive", "rnn-dot")
MAX_BYTES = 25 * 1000 * 1000

#: d2l's four test sentences and French translations that are correct (any of them counts).
BOOK_SENTENCES = {
    "go .": {"va !", "allez !", "vas-y !", "allez-y !", "bouge !", "en route !", "pars !", "partez !"},
    "i lost .": {"j'ai perdu .", "je perdis .", "j'ai été battu .", "j'ai été battue ."},
    "he's calm .": {"il est calme .", "il est tranquille ."},
    "i'm home .": {"je suis chez moi .", "je suis à la maison .", "je suis rentré .", "je suis rentrée ."},
}


def test_the_app_default_is_the_shipped_transformer():
    assert DEFAULT_CHECKPOINT.is_file() and load_checkpoint(DEFAULT_CHECKPOINT).kind == "transformer"


@pytest.mark.parametrize("name", [*TRANSLATION_MODELS, "kernel-regression"])
def test_shipped_checkpoint_loads_and_fits_the_size_limit(name):
    path = MODELS_DIR / f"{name}.safetensors"
    assert path.is_file(), f"{path} is missing"
    assert path.stat().st_size <= MAX_BYTES
    assert load_checkpoint(path).kind == name


@pytest.mark.parametrize("beam", [1, 4])
@pytest.mark.parametrize("name", TRANSLATION_MODELS)
def test_shipped_model_translates_the_books_sentences(name, beam):
    session = DecodeSession(load_checkpoint(MODELS_DIR / f"{name}.safetensors"), "cpu", beam_size=beam)
    for english, french in BOOK_SENTENCES.items():
        session.encode(english)
        session.run()
        assert session.translation() in french, f"{name} (beam {beam}): {english!r} -> {session.translation()!r}"


def test_shipped_kernel_regression_learned_a_sharper_kernel_that_fits_better():
    fit = explain(load_checkpoint(MODELS_DIR / "kernel-regression.safetensors").model)
    mse_parametric = float(((fit.parametric - fit.y_test) ** 2).mean())
    mse_gaussian = float(((fit.nonparametric - fit.y_test) ** 2).mean())  # Gaussian kernel, bandwidth 1
    assert fit.w > 2  # w = 1 is the bandwidth-1 Gaussian; training sharpened it
    assert mse_parametric < 0.5 * mse_gaussian


def test_shipped_files_match_the_digests_in_the_model_card():
    import hashlib
    import re

    card = (MODELS_DIR / "MODELS.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"\| `([\w-]+\.safetensors)` \| `([0-9a-f]{64})` \|", card))
    assert sorted(listed) == sorted(path.name for path in MODELS_DIR.glob("*.safetensors"))  # every shipped file
    for name, digest in listed.items():
        assert hashlib.sha256((MODELS_DIR / name).read_bytes()).hexdigest() == digest, name


def test_the_decoder_only_checkpoint_carries_its_tensor_digest_and_its_training_record():
    from safetensors import safe_open

    path = MODELS_DIR / "decoder-only.safetensors"
    with safe_open(str(path), framework="pt") as handle:
        assert len(handle.metadata()["tensor_digest"]) == 64  # (loading checks it against the tensors)
    training = load_checkpoint(path).training
    assert training["epochs_completed"] == training["options"]["epochs"] == 6
    assert training["val_bleu"] == training["bleu_per_epoch"][-1] and len(training["train_loss_per_epoch"]) == 6


def test_the_status_bar_quotes_a_shipped_models_bleu_from_its_card(qtbot, tmp_path, errors):
    """One owner: the window says the card's 52.08 / 53.20, not the 52.04 recorded in float32 while training;
    a copy with other bytes is not the card's file and keeps its own record."""
    from attnviz.gui.main_window import MainWindow
    from attnviz.gui.settings import Settings
    from attnviz.model_card import card_bleu
    from attnviz.session import InlineRunner

    window = MainWindow(Settings(tmp_path / "settings.ini"), InlineRunner())
    qtbot.addWidget(window)
    window.load(MODELS_DIR / "transformer.safetensors")
    said = window.statusBar().full_message  # (the whole message: the bar elides it to its width)
    assert said.endswith("validation BLEU 52.08 greedy, 53.20 with beam 4 (models/MODELS.md)"), said
    assert card_bleu(MODELS_DIR / "transformer.safetensors", "0" * 64) is None
    assert card_bleu(MODELS_DIR / "rnn-additive.safetensors", window.session.state.model.sha256) is None  # other file
