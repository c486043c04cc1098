"""Make resources/fonts/NotoSansCJKsc-Regular-subset.otf (the CJK font the app and its exports carry).

    pip install fonttools
    python scripts/subset_cjk_font.py /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc \
        resources/fonts/NotoSansCJKsc-Regular-subset.otf

Keeps the Simplified Chinese face (face 2 of Debian's fonts-noto-cjk collection) for GB 2312's 6,763
hanzi and symbol rows, CJK punctuation, full-width forms, ASCII, Latin-1 and general punctuation, plus every
character of the translation catalogues (tests/test_i18n.py checks the font covers them).
"""

import contextlib
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parent.parent


def characters() -> set[str]:
    chars = set()
    for high in range(0xA1, 0xF8):  # A1-A9: symbols; B0-F7: the hanzi
        for low in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):
                chars.add(bytes([high, low]).decode("gb2312"))
    for first, last in ((0x20, 0x7F), (0xA0, 0x100), (0x2000, 0x2070), (0x3000, 0x3040), (0xFF00, 0xFFF0)):
        chars |= {chr(code) for code in range(first, last)}
    chars |= set("→←↑↓×÷±≤≥≈√∞·•…－")
    for catalogue in (ROOT / "resources" / "i18n").glob("*.ts"):
        chars |= set(catalogue.read_text(encoding="utf-8"))
    return {c for c in chars if c.isprintable() or c == " "}


def main(source: str, target: str) -> None:
    font = TTCollection(source).fonts[2]  # Noto Sans CJK SC
    options = subset.Options()
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.hinting = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in characters()])
    subsetter.subset(font)
    font.save(target)


if __name__ == "__main__":
    main(*sys.argv[1:3])
