"""The README is a front door: one page of at most 300 lines whose two set-up commands are exactly the scripts'
(the rest is the user guide in docs/). The guide's link check (scripts/check_docs.py, which scripts/test.sh runs
after its strict MkDocs build) finds what it is for, and a token such as <eos> in a page reads as written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
# The Quick start's two rows, byte for byte as they have always read (other pages and scripts quote them)
THE_TWO_COMMANDS = [
    "| install and launch the app | `bash scripts/run.sh` |",
    "| install and run the whole test suite | `bash scripts/test.sh` |",
]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_one_page_of_at_most_300_lines() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 300


def test_the_readme_gives_exactly_the_two_commands_of_scripts_run_and_test() -> None:
    text = README.read_text(encoding="utf-8")
    quick_start = text.split("\n## Quick start\n", 1)[1].split("\n## ", 1)[0]
    commands = [line for line in quick_start.splitlines() if line.startswith("| ") and "`" in line]
    assert commands == THE_TWO_COMMANDS
    for script in ("scripts/run.sh", "scripts/test.sh"):
        assert (ROOT / script).read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")
    test_command = [line for line in (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8").splitlines()
                    if not line.lstrip().startswith("#")]
    assert any("scripts/check_docs.py" in line for line in test_command)  # the guide's strict build and links


def test_the_link_check_finds_a_missing_page_a_missing_anchor_and_a_network_load(tmp_path: Path) -> None:
    check_docs = _script("check_docs")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<html><head><script src="https://cdn.example.org/highlight.js"></script></head><body>'
        '<h2 id="here">Here</h2><a href="#here">fine</a><a href="page.html#there">fine</a>'
        '<a href="gone.html">missing page</a><a href="page.html#nowhere">missing anchor</a>'
        '<img src="images/shot.png"><a href="https://d2l.ai">outside: not followed</a></body></html>',
        encoding="utf-8")
    (site / "page.html").write_text('<h2 id="there">There</h2><a href="index.html#here">back</a>', encoding="utf-8")
    problems, checked = check_docs.site_problems(site)
    assert sorted(problems) == [
        "index.html: links to gone.html, which is not in the guide",
        "index.html: links to images/shot.png, which is not in the guide",
        "index.html: links to page.html#nowhere, whose page has no anchor #nowhere",
        "index.html: loads https://cdn.example.org/highlight.js from the network (the guide must read offline)",
    ]
    assert checked == 6


def test_the_link_check_follows_the_readmes_links_into_the_guide(tmp_path: Path) -> None:
    check_docs = _script("check_docs")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "window.md").write_text("# The window\n", encoding="utf-8")
    site = tmp_path / "site"
    site.mkdir()
    (site / "window.html").write_text('<h1 id="the-window">The window</h1>', encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("# attnviz\n\n## Quick start\n\n[the window](docs/window.md#the-window), "
                      "[docks](docs/window.md#docks), [gone](docs/gone.md), [start](#quick-start), [no](#nothing)\n"
                      "```\n[not a link](docs/in-code.md)\n```\n", encoding="utf-8")
    problems, checked = check_docs.readme_problems(readme, site)
    assert problems == ["README.md: links to docs/window.md#docks, whose page has no anchor #docks",
                        "README.md: links to docs/gone.md, which is not in the repository",
                        "README.md: links to #nothing, a heading it does not have"]
    assert checked == 5


def test_a_token_in_a_pages_prose_reads_as_written_and_code_is_left_alone() -> None:
    hooks = _script("mkdocs_hooks")
    page = "`keys`: <eos> (also `[SEP]`) or source<TAB>target, not `<pad>`\n```\nprint('<bos>')\n```\n"
    assert hooks.escape_angle_brackets(page) == (
        "`keys`: &lt;eos> (also `[SEP]`) or source&lt;TAB>target, not `<pad>`\n```\nprint('<bos>')\n```\n")
