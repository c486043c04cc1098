"""Build the user guide strictly and check its links, and the README's: what ``scripts/test.sh`` runs.

    python scripts/check_docs.py            # mkdocs build --strict into a temporary folder, then the link check
    python scripts/check_docs.py --site DIR # check a guide already built in DIR (no build)

The strict build refuses a warning: a page left out of the navigation, a link to a page or an anchor that does
not exist. The link check then reads every built page: each local ``href`` and ``src`` must name a file of the
site (and its ``#anchor`` an ``id`` in it), and nothing may be loaded from the network (a script, a style sheet,
an image), so that the guide reads offline. README.md's links must name files of the repository, and its links
into ``docs/`` the anchors the built pages have. One line per problem on stderr, exit 1; else one line on stdout.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
EXTERNAL = ("http:", "https:", "mailto:", "data:", "javascript:")
SERVER_ONLY = "404.html"  # the theme's page for a web server's missing address (root-relative links): not offline
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)\)")


class _Page(HTMLParser):
    """The ids a page defines, its links (``href``, ``src``) and what it would load from the network."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.remote_loads: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        for name in ("href", "src"):
            if name in values:
                self.links.append(values[name])
        loads = values.get("src") if tag in ("script", "img", "iframe") else (
            values.get("href") if tag == "link" and "stylesheet" in values.get("rel", "") else None)
        if loads and loads.startswith(("http:", "https:", "//")):
            self.remote_loads.append(loads)


def _parse(page: Path) -> _Page:
    parsed = _Page()
    parsed.feed(page.read_text(encoding="utf-8"))
    return parsed


def site_problems(site: Path) -> tuple[list[str], int]:
    """Broken local links and network loads in the built guide at ``site``; and how many links were checked."""
    pages = {page: _parse(page) for page in sorted(site.rglob("*.html"))}
    pages.pop(site / SERVER_ONLY, None)
    problems: list[str] = []
    checked = 0
    for page, parsed in pages.items():
        name = page.relative_to(site).as_posix()
        problems += [f"{name}: loads {url} from the network (the guide must read offline)"
                     for url in parsed.remote_loads]
        for link in parsed.links:
            if link.startswith(EXTERNAL) or link.startswith("//"):
                continue
            checked += 1
            parts = urlsplit(link)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page.resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{name}: links to {link}, which is not in the guide")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{name}: links to {link}, whose page has no anchor #{parts.fragment}")
    return problems, checked


def readme_problems(readme: Path, site: Path) -> tuple[list[str], int]:
    """README.md's links that name no file of the repository, or a guide page's anchor that does not exist."""
    problems: list[str] = []
    checked = 0
    text = re.sub(r"```.*?```", "", readme.read_text(encoding="utf-8"), flags=re.S)
    for link in MARKDOWN_LINK.findall(text):
        if link.startswith(EXTERNAL):
            continue
        checked += 1
        parts = urlsplit(link)
        target = (readme.parent / unquote(parts.path)).resolve() if parts.path else readme.resolve()
        if not target.exists():
            problems.append(f"README.md: links to {link}, which is not in the repository")
            continue
        if not parts.fragment:
            continue
        docs = (readme.parent / "docs").resolve()
        if target.suffix == ".md" and target.is_relative_to(docs):
            built = site / target.relative_to(docs).with_suffix(".html")
            if built.is_file() and unquote(parts.fragment) not in _parse(built).ids:
                problems.append(f"README.md: links to {link}, whose page has no anchor #{parts.fragment}")
        elif target == readme.resolve():
            slugs = {_slug(heading) for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}
            if unquote(parts.fragment) not in slugs:
                problems.append(f"README.md: links to {link}, a heading it does not have")
    return problems, checked


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def build(site: Path) -> str | None:
    """``mkdocs build --strict`` into ``site``; its output when it failed, else None."""
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
                          cwd=ROOT, capture_output=True, text=True)
    return None if done.returncode == 0 else (done.stdout + done.stderr).strip() or f"exit {done.returncode}"


def check(site: Path, readme: Path = ROOT / "README.md") -> int:
    problems, in_site = site_problems(site)
    more, in_readme = readme_problems(readme, site)
    for problem in problems + more:
        print(f"[attnviz] docs: {problem}", file=sys.stderr)
    if problems or more:
        return 1
    pages = len([page for page in site.rglob("*.html") if page.name != SERVER_ONLY])
    print(f"docs: the user guide built strictly ({pages} pages), {in_site + in_readme} links checked, none broken")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--site", type=Path, help="a guide already built (default: build one, strictly)")
    options = parser.parse_args(argv)
    if options.site is not None:
        return check(options.site)
    with tempfile.TemporaryDirectory(prefix="attnviz-guide-") as folder:
        failure = build(Path(folder))
        if failure is not None:
            print(f"[attnviz] docs: mkdocs build --strict failed:\n{failure}", file=sys.stderr)
            return 1
        return check(Path(folder))


if __name__ == "__main__":
    sys.exit(main())
