"""Where shipped files live (a checkout or an editable install)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS_DIR = ROOT / "models"
RESOURCES_DIR = ROOT / "resources"
DEFAULT_CHECKPOINT = MODELS_DIR / "transformer.safetensors"
EXAMPLE_SENTENCE = "i'm home ."


def shipped_models() -> list[Path]:
    return sorted(MODELS_DIR.glob("*.safetensors"))
