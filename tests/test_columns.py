"""The columns of ``attnviz heads`` and ``attnviz explain`` are described in one place (attnviz/core/columns.py):
the user guide's Columns page (docs/columns.md) holds those tables word for word, and COLUMNS.md is written from
them (the CLI tests check each file's header against it)."""

from __future__ import annotations

from pathlib import Path

from attnviz.core.columns import COLUMNS, columns_file, columns_markdown, described

COLUMNS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "columns.md"


def test_the_guide_holds_every_files_column_table_as_the_code_writes_it() -> None:
    text = COLUMNS_PAGE.read_text(encoding="utf-8")
    for file, _, _ in COLUMNS:
        assert columns_markdown((file,)) in text, f"docs/columns.md's table of {file} differs from core/columns.py"


def test_columns_md_describes_the_files_asked_and_says_no_cell_is_empty() -> None:
    text = columns_file(("heads.csv", "pruning.csv"), "attnviz heads")
    assert "### heads.csv" in text and "### pruning.csv" in text and "### sinks.csv" not in text
    assert "No cell is empty" in text
    assert all(f"| `{column}` |" in text for column in described("heads.csv"))
    assert len(set(described("heads.csv"))) == len(described("heads.csv"))


def test_columns_md_speaks_the_interfaces_language_and_keeps_the_column_names() -> None:
    from attnviz import i18n

    i18n.set_language(i18n.CHINESE)
    try:
        text = columns_file(("sinks.csv",), "attnviz explain")
    finally:
        i18n.set_language(i18n.ENGLISH)
        i18n.set_backend(None)
    assert "# `attnviz explain` 输出文件的各列" in text and "| 列 | 含义 |" in text
    assert all(f"| `{column}` |" in text for column in described("sinks.csv"))
    assert "no such key" in text and "每行：" in text
