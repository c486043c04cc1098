"""The Chinese interface's catalogue and fonts: every string the code asks to translate has a translation
with the same placeholders; the compiled .qm the window loads says what the .ts says; the CJK font the app
carries covers every character of it; Chinese renders as glyphs, not boxes, in an exported PNG."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnviz import i18n
from tests.helpers import CHILD_CAP_S

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import i18n as catalogue_tool  # noqa: E402  (scripts/i18n.py)

PLACEHOLDER = re.compile(r"\{[^{}]*\}|%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z]|%[-#0 +]*\d*(?:\.\d+)?[sdrfegx%]")
MNEMONIC = re.compile(r"&([^&\s])")


@pytest.fixture()
def chinese():
    i18n.set_language(i18n.CHINESE)
    yield
    i18n.set_language(i18n.ENGLISH)
    i18n.set_backend(None)


@pytest.mark.parametrize(("given", "expected"), [
    ("zh_CN.UTF-8", "zh_CN"), ("zh-Hans", "zh_CN"), ("zh", "zh_CN"), ("zh_SG", "zh_CN"), ("en_GB.UTF-8", "en"),
    ("C", "en"), ("POSIX", "en"), ("fr_FR", None), ("zh_TW", None), ("", None)])
def test_language_codes_are_read_as_locales_write_them(given, expected):
    assert i18n.normalise(given) == expected


@pytest.mark.parametrize(("environ", "expected"), [
    ({"LANG": "zh_CN.UTF-8"}, "zh_CN"), ({"LANG": "en_US.UTF-8"}, "en"), ({}, "en"),
    ({"LC_ALL": "en_US.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL overrides LANG
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh_CN"),
    ({"LANGUAGE": "fr:zh_CN", "LANG": "fr_FR.UTF-8"}, "zh_CN"),  # the first of LANGUAGE's list attnviz speaks
    ({"LANG": "fr_FR.UTF-8"}, "en")])
def test_the_system_language_is_looked_up_as_posix_does(environ, expected):
    assert i18n.system_language(environ) == expected


def test_an_unknown_language_is_refused_by_name():
    with pytest.raises(ValueError, match="'klingon'"):
        i18n.set_language("klingon")


def test_every_string_the_code_translates_has_a_chinese_translation():
    entries = catalogue_tool.read(i18n.catalogue_path(i18n.CHINESE))
    missing = [f"{where[0]}: {key[0]!r}" for key, where in catalogue_tool.extract().items()
               if not (entries.get(key, ("", False))[0] and entries[key][1])]
    assert not missing, "no translation in resources/i18n/attnviz_zh_CN.ts (run scripts/i18n.py update):\n" + \
        "\n".join(missing[:40])


def test_translations_keep_their_placeholders_and_mnemonics():
    wrong = []
    for (source, _), (translation, _finished) in catalogue_tool.read(i18n.catalogue_path(i18n.CHINESE)).items():
        if translation and sorted(PLACEHOLDER.findall(source)) != sorted(PLACEHOLDER.findall(translation)):
            wrong.append(f"{source!r} -> {translation!r}: placeholders differ")
        if (mnemonic := MNEMONIC.search(source)) and f"&{mnemonic.group(1)}".lower() not in translation.lower():
            wrong.append(f"{source!r} -> {translation!r}: the mnemonic &{mnemonic.group(1)} is lost")
    assert not wrong, "\n".join(wrong[:40])


def test_formatting_a_translated_template_never_fails(chinese):
    """Each translation formats with the arguments its English takes (the test above keeps the names)."""
    for (source, disambiguation), _ in catalogue_tool.read(i18n.catalogue_path(i18n.CHINESE)).items():
        names = re.findall(r"\{(\w*)[^{}]*\}", source)
        if names and all(names) and "%" not in source:
            translated = i18n.tr(source, disambiguation or None)
            values = {name: 1 for name in names}
            try:
                source.format(**values)
            except (ValueError, KeyError, IndexError):
                continue  # a spec for a string, say: the English itself needs other values
            translated.format(**values)


def test_tr_speaks_chinese_only_when_asked(chinese):
    assert i18n.tr("&File") == "文件(&F)"
    i18n.set_language(i18n.ENGLISH)
    assert i18n.tr("&File") == "&File"
    assert i18n.tr("a string nobody translated") == "a string nobody translated"


def test_every_task_of_the_train_dock_is_named_in_chinese_before_its_dash(chinese):
    """The Train dock's task entries ("reverse — the anti-diagonal"): in Chinese the task's name too, and the same
    spaced " — " the dock splits the short name at (was "shapes——[CLS] 落在…": the name left in English)."""
    from attnviz.core.models.kinds import all_tasks

    for task in all_tasks().values():
        english, translated = task.choice, i18n.tr(task.choice)
        name, _, _ = translated.partition(" — ")
        assert " — " in translated and "——" not in translated, translated
        assert name != english.partition(" — ")[0] and not name.isascii(), translated


def test_the_compiled_qm_says_what_the_ts_says(tmp_path, chinese, qapp):
    """The window reads the .qm (through QTranslator), the CLI the .ts: both must give the same words."""
    from PySide6 import QtCore

    qm = tmp_path / "attnviz_zh_CN.qm"
    lrelease = Path(sys.executable).parent / "pyside6-lrelease"
    subprocess.run([str(lrelease), "-silent", str(i18n.catalogue_path(i18n.CHINESE)), "-qm", str(qm)], check=True)
    translator = QtCore.QTranslator()
    assert translator.load(str(qm))
    differ = [(source, text) for (source, comment), text in i18n.messages(i18n.CHINESE).items()
              if translator.translate(i18n.CONTEXT, source, comment or None) != text]
    assert not differ, differ[:10]


def test_the_carried_font_has_every_character_of_the_catalogue(qapp):
    from PySide6 import QtGui

    from attnviz.render.fonts import CJK_FAMILY, CJK_FONT_FILE

    font = QtGui.QRawFont(str(CJK_FONT_FILE), 12)
    assert font.isValid() and font.familyName() == CJK_FAMILY
    text = i18n.catalogue_path(i18n.CHINESE).read_text(encoding="utf-8")
    missing = sorted({c for c in text if ord(c) > 0x2E7F and not font.supportsCharacter(ord(c))})
    assert not missing, "".join(missing)


def test_a_chinese_figure_title_is_drawn_as_glyphs_not_boxes(tmp_path, qapp):
    """A title of five characters no font has draws five missing-glyph boxes; the Chinese title must not
    draw the same picture (it would, box for box, if the CJK font were missing)."""
    import numpy as np
    from PySide6 import QtGui

    from attnviz.figures.spec import FigureSpec
    from attnviz.render.figure_files import write_png

    def title_band(title: str) -> np.ndarray:
        spec = FigureSpec(values=np.eye(3), row_labels=("a", "b", "c"), col_labels=("x", "y", "z"), title=title)
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.png"
        write_png(spec, path)
        image = QtGui.QImage(str(path)).convertToFormat(QtGui.QImage.Format.Format_Grayscale8)
        pixels = np.frombuffer(image.constBits(), np.uint8).reshape(image.height(), image.bytesPerLine())
        return pixels[: image.height() // 4, : image.width()].copy()  # (a view would outlive the image)

    chinese_title = title_band("注意力权重")
    boxes = title_band("".join(chr(0xF0000 + i) for i in range(5)))
    assert (chinese_title < 128).any()  # something is drawn
    assert chinese_title.shape != boxes.shape or not np.array_equal(chinese_title, boxes)


def test_exports_in_chinese_name_and_embed_a_font_that_has_the_glyphs(tmp_path, chinese, qapp):
    """SVG: the family drawn with, then the CJK families, then sans-serif (Qt alone writes its alias "Sans
    Serif", which no viewer knows). PDF: the carried CJK font embedded."""
    import numpy as np

    from attnviz.figures.spec import FigureSpec
    from attnviz.render.figure_files import write_pdf, write_svg

    spec = FigureSpec(values=np.eye(2), row_labels=("a", "b"), col_labels=("x", "y"), title="缩放点积注意力")
    write_svg(spec, tmp_path / "f.svg")
    write_pdf(spec, tmp_path / "f.pdf")
    svg = (tmp_path / "f.svg").read_text(encoding="utf-8")
    assert "缩放点积注意力" in svg and "查询" in svg  # the title and the translated axis name, as text
    families = set(re.findall(r'font-family="([^"]*)"', svg))
    assert families and all("'Noto Sans CJK SC'" in f and f.endswith("sans-serif") for f in families), families
    pdf = (tmp_path / "f.pdf").read_bytes()
    # the Simplified Chinese face, never a system fallback's variant (fonts-noto-cjk's Japanese one)
    assert b"NotoSansCJKsc" in pdf and b"NotoSansCJKjp" not in pdf


CARRIED_GLYPHS_PROBE = r"""
import struct, sys
from PySide6 import QtGui
from attnviz.render.fonts import CJK_FONT_FILE, with_cjk_fallback

def glyph_count(data):  # maxp.numGlyphs of a bare OpenType file (one font, not a collection)
    tables = struct.unpack(">H", data[4:6])[0]
    for index in range(tables):
        tag, _, offset, _ = struct.unpack(">4sIII", data[12 + 16 * index:28 + 16 * index])
        if tag == b"maxp":
            return struct.unpack(">H", data[offset + 4:offset + 6])[0]
    raise SystemExit("no maxp table")

app = QtGui.QGuiApplication(sys.argv[:1])
print("carried", glyph_count(CJK_FONT_FILE.read_bytes()))
font = with_cjk_fallback(QtGui.QFont())
print("last family", font.families()[-1])
layout = QtGui.QTextLayout("缩放点积注意力", font)
layout.beginLayout()
layout.createLine()
layout.endLayout()
for run in layout.glyphRuns():
    maxp = bytes(run.rawFont().fontTable("maxp"))
    print("run", struct.unpack(">H", maxp[4:6])[0], run.rawFont().familyName())
"""


def test_chinese_glyphs_come_from_the_carried_font_whatever_the_system_has():
    """The figures' and the window's fonts take Chinese from the app's own file (a subset: fewer glyphs than
    any system Noto CJK), also on a machine whose fonts-noto-cjk has a family of the same name. In a fresh
    process, as the app starts: the carried font is registered before any Chinese is drawn (a test process
    that drew Chinese earlier has the system's face of that family in Qt's font cache already)."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", CARRIED_GLYPHS_PROBE], capture_output=True, text=True, env=env,
                          timeout=CHILD_CAP_S, cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    carried = int(lines[0].split()[1])
    assert lines[1] == "last family attnviz CJK SC"  # (the carried file's own name: no system font has it)
    runs = [line.split(maxsplit=2) for line in lines[2:]]
    assert runs
    for _, glyphs, family in runs:
        assert int(glyphs) == carried, family


def _attnviz(*args: str, **environment: str) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "QT_QPA_PLATFORM": "offscreen",
           **environment}
    return subprocess.run([sys.executable, "-m", "attnviz", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT)


def test_the_cli_speaks_chinese_with_lang_or_the_locale():
    shown = _attnviz("--lang", "zh_CN", "translate", "--help", LANG="en_US.UTF-8")
    assert shown.returncode == 0 and shown.stdout.startswith("用法：") and "显示此帮助信息并退出" in shown.stdout
    failed = _attnviz("translate", "--checkpoint", "/nowhere/x.safetensors", "--text", "hi", LANG="zh_CN.UTF-8")
    assert failed.returncode == 2 and failed.stderr.strip() == "attnviz：错误：/nowhere/x.safetensors：文件不存在"
    english = _attnviz("translate", "--checkpoint", "/nowhere/x.safetensors", "--text", "hi", LANG="en_US.UTF-8")
    assert "does not exist" in english.stderr or "no such" in english.stderr.lower(), english.stderr
    refused = _attnviz("--lang", "klingon", "--help")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1 and "'klingon'" in refused.stderr


def test_in_chinese_the_gallery_follows_the_chinese_second_edition(chinese):
    from attnviz.figures.editions import SECTIONS
    from attnviz.gallery import entries, index_html

    assert SECTIONS["pooling"].heading("0.17") == "10.2 (d2l 1.0: 11.2) 注意力汇聚：Nadaraya-Watson 核回归"
    assert SECTIONS["scoring"].heading("0.17").startswith("10.3 (d2l 1.0: 11.3) 注意力评分函数")
    assert SECTIONS["paper-table-1"].numbered("0.17") == "论文 表 1"
    i18n.set_language(i18n.ENGLISH)
    assert SECTIONS["pooling"].heading("0.17") == ("10.2 (d2l 1.0: 11.2) Attention Pooling: Nadaraya-Watson "
                                                   "Kernel Regression")
    i18n.set_language(i18n.CHINESE)
    page = index_html(entries(["10.2"]), ["png"])
    assert "<html lang=zh-CN>" in page and "<h2>10.2 (d2l 1.0: 11.2) 注意力汇聚：Nadaraya-Watson 核回归</h2>" in page
    assert "Nadaraya-Watson：训练数据与真实函数" in page  # a caption, translated (the book's hyphen)
