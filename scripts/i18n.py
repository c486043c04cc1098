"""Keep the translation catalogues in step with the source (what ``pyside6-lupdate`` does for Qt's own
``tr``; it cannot see attnviz's Qt-free :func:`attnviz.i18n.tr`).

    python scripts/i18n.py update [--merge FILE.json ...]  # add new strings (unfinished), drop gone ones
    python scripts/i18n.py check                           # exit 1 listing strings without a translation
    python scripts/i18n.py compile                         # .ts -> .qm with pyside6-lrelease

``--merge`` takes JSON files of {"English": "中文"} (or {"English\\u0000disambiguation": "中文"}) and fills
those translations in.
"""

from __future__ import annotations

import argparse
import ast
import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from attnviz.i18n import CHINESE, CONTEXT, catalogue_path  # noqa: E402

CALLS = ("tr", "N_")
Key = tuple[str, str]  # (source, disambiguation)


def extract(package: Path = ROOT / "attnviz") -> dict[Key, list[str]]:
    """{(source, disambiguation): ["attnviz/x.py:12", ...]} for every ``tr("…")``/``N_("…")`` with literal text."""
    found: dict[Key, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else (
                node.func.attr if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "i18n" else "")
            if name not in CALLS:
                continue
            text = node.args[0]
            if not (isinstance(text, ast.Constant) and isinstance(text.value, str)):
                continue
            disambiguation = ""
            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                disambiguation = str(node.args[1].value)
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            found.setdefault((text.value, disambiguation), []).append(where)
    return found


def read(path: Path) -> dict[Key, tuple[str, bool]]:
    """{key: (translation, finished)} from a .ts (empty if it does not exist)."""
    if not path.is_file():
        return {}
    out = {}
    for message in ElementTree.parse(path).getroot().iter("message"):
        translation = message.find("translation")
        key = (message.findtext("source") or "", message.findtext("comment") or "")
        kind = translation.get("type") if translation is not None else "unfinished"
        out[key] = ((translation.text or "") if translation is not None else "", kind is None)
    return out


def write(path: Path, code: str, entries: dict[Key, tuple[str, bool]], where: dict[Key, list[str]]) -> None:
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<!DOCTYPE TS>",
             f'<TS version="2.1" language="{code}" sourcelanguage="en">', "<context>",
             f"    <name>{CONTEXT}</name>"]
    for key in sorted(entries, key=lambda k: (k[0].lower(), k)):
        translation, finished = entries[key]
        lines.append("    <message>")
        for location in where.get(key, [])[:3]:
            file, line = location.rsplit(":", 1)
            lines.append(f'        <location filename="../../{file}" line="{line}"/>')
        lines.append(f"        <source>{escape(key[0])}</source>")
        if key[1]:
            lines.append(f"        <comment>{escape(key[1])}</comment>")
        state = "" if finished and translation else ' type="unfinished"'
        lines.append(f"        <translation{state}>{escape(translation)}</translation>")
        lines.append("    </message>")
    lines += ["</context>", "</TS>", ""]
    tmp = path.with_suffix(".ts.tmp")
    tmp.write_text("\n".join(lines), encoding="utf-8")
    tmp.replace(path)


def update(code: str, merges: list[Path]) -> None:
    path = catalogue_path(code)
    path.parent.mkdir(parents=True, exist_ok=True)
    where = extract()
    old = read(path)
    extra: dict[Key, str] = {}
    for merge in merges:
        for source, text in json.loads(merge.read_text(encoding="utf-8")).items():
            english, _, disambiguation = source.partition("\u0000")
            extra[(english, disambiguation)] = text
    entries = {}
    for key in where:
        if extra.get(key):
            entries[key] = (extra[key], True)
        else:
            entries[key] = old.get(key, ("", False))
    write(path, code, entries, where)
    missing = [key for key, (text, done) in entries.items() if not (text and done)]
    print(f"{path.relative_to(ROOT)}: {len(entries)} strings, {len(missing)} without a translation")


def compile_qm(code: str) -> Path:
    """The .ts compiled into the .qm the window loads (pyside6-lrelease, next to the Python in use)."""
    lrelease = shutil.which("pyside6-lrelease") or str(Path(sys.executable).parent / "pyside6-lrelease")
    source, target = catalogue_path(code), catalogue_path(code, ".qm")
    subprocess.run([lrelease, "-silent", str(source), "-qm", str(target)], check=True)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("update", "check", "compile"))
    parser.add_argument("--merge", type=Path, nargs="*", default=[])
    parser.add_argument("--lang", default=CHINESE)
    args = parser.parse_args()
    if args.what == "update":
        update(args.lang, args.merge)
    elif args.what == "compile":
        print(compile_qm(args.lang))
    else:
        entries, where = read(catalogue_path(args.lang)), extract()
        missing = [key for key in where if not (entries.get(key, ("", False))[0] and entries[key][1])]
        for key in missing:
            print(f"{where[key][0]}: no translation for {key[0]!r}")
        return 1 if missing else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
