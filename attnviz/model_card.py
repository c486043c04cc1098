"""The shipped models' card (``models/MODELS.md``) as the one owner of their scores.

The window's status bar quotes a shipped checkpoint's validation BLEU from the card's table (greedy and beam 4,
as the card measured the file itself), not the float32 number recorded while it trained; a checkpoint of the
same name whose SHA-256 is not the card's (a user's own, a changed copy) keeps its own record.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from attnviz.paths import MODELS_DIR

CARD = MODELS_DIR / "MODELS.md"
DIGEST_ROW = re.compile(r"^\| `(?P<name>[^`]+\.safetensors)` \| `(?P<sha>[0-9a-f]{64})` \|\s*$")
SCORE_ROW = re.compile(r"^\| `(?P<name>[^`]+\.safetensors)` \|.*\| (?P<greedy>\d+\.\d+) / (?P<beam>\d+\.\d+) \|\s*$")


@cache
def _card(path: Path = CARD) -> tuple[dict[str, str], dict[str, tuple[float, float]]]:
    """({file name: SHA-256}, {file name: (greedy BLEU, beam-4 BLEU)}) read from the card (empty if unreadable)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}, {}
    digests = {m["name"]: m["sha"] for line in lines if (m := DIGEST_ROW.match(line))}
    scores = {m["name"]: (float(m["greedy"]), float(m["beam"])) for line in lines if (m := SCORE_ROW.match(line))}
    return digests, scores


def card_bleu(path: Path, sha256: str) -> tuple[float, float] | None:
    """(greedy, beam 4) validation BLEU of a shipped checkpoint as the card gives it, or None for any other file."""
    digests, scores = _card()
    name = Path(path).name
    if not sha256 or digests.get(name) != sha256:
        return None
    return scores.get(name)
