"""Make resources/fonts/NotoSansCJKsc-Regular-subset.otf (the CJK font the app and its exports carry).

    pip install fonttools
    python scripts/subset_cjk_font.py /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc \
        resources/fonts/NotoSansCJKsc-Regular-subset.otf
    python scripts/subset_cjk_font.py --rename resources/fonts/NotoSansCJKsc-Regular-subset.otf   # names only

Keeps the Simplified Chinese face (face 2 of Debian's fonts-noto-cjk collection) for GB 2312's 6,763
hanzi and symbol rows, CJK punctuation, full-width forms, ASCII, Latin-1 and general punctuation, plus every
character of the translation catalogues (tests/test_i18n.py checks the font covers them).

The subset gets a family name of its own (``FAMILY``; the PostScript name stays NotoSansCJKsc-Regular): a
system with fonts-noto-cjk has a "Noto Sans CJK SC" too, and Qt chose between two faces of one name by
something that depended on the file's path, so on some installs Chinese came from the system's face.
"""

import contextlib
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

ROOT = Path(__file__).resolve().parent.parent
FAMILY = "attnviz CJK SC"  # = attnviz/render/fonts.py CJK_FAMILY (OFL 1.1: a Modified Version, no Reserved Font Name)


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
    rename(font)
    font.save(target)


def rename(font) -> None:
    """Name the face ``FAMILY`` (family and full name, every language), keeping its PostScript name."""
    for record in font["name"].names:
        if record.nameID == 1:
            record.string = FAMILY
        elif record.nameID == 4:
            record.string = f"{FAMILY} Regular" if record.toUnicode().endswith("Regular") else FAMILY
        elif record.nameID == 16:
            record.string = FAMILY


if __name__ == "__main__":
    if sys.argv[1] == "--rename":
        from fontTools.ttLib import TTFont

        carried = TTFont(sys.argv[2])
        rename(carried)
        carried.save(sys.argv[2])
    else:
        main(*sys.argv[1:3])
