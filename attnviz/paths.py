"""Where shipped files live: a checkout, an editable install, or the standalone app (PyInstaller puts
``models/`` and ``resources/`` in its bundle folder, ``sys._MEIPASS``)."""

import sys
from pathlib import Path

FROZEN = bool(getattr(sys, "frozen", False))
ROOT = Path(getattr(sys, "_MEIPASS", "")) if FROZEN else Path(__file__).resolve().parent.parent
MODELS_DIR = ROOT / "models"
RESOURCES_DIR = ROOT / "resources"
DEFAULT_CHECKPOINT = MODELS_DIR / "transformer.safetensors"
EXAMPLE_SENTENCE = "i'm home ."
EXAMPLES_FILE = RESOURCES_DIR / "examples.txt"
SAMPLE_IMAGES = RESOURCES_DIR / "samples"  # the image models' sample images (their README: licence, attribution)
ICON = RESOURCES_DIR / "attnviz.svg"
TRAINING_HISTORIES = RESOURCES_DIR / "training"  # the gallery's "watching attention learn" runs (JSON)
# The user guide as offline HTML: docs/ built by MkDocs (mkdocs.yml) into site/, by the set-up (scripts/_env.sh) in a
# checkout and by packaging/build.sh into the standalone app's bundle. Help ▸ User guide opens it.
USER_GUIDE = ROOT / "site" / "index.html"


def shipped_models() -> list[Path]:
    """The checkpoints in models/, by name."""
    return sorted(MODELS_DIR.glob("*.safetensors"))


def example_sentences() -> list[str]:
    """The example sentences in resources/examples.txt (comments and blank lines skipped)."""
    try:
        lines = EXAMPLES_FILE.read_text(encoding="utf-8").splitlines()
    except OSError:
        return [EXAMPLE_SENTENCE]
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
