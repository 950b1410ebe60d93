"""The front page and the manual in docs/: every relative link and #anchor between them resolves.

Anchors are worked out from the headings as GitHub does (lower case, punctuation
dropped, blanks to hyphens, a repeated heading numbered ``-1``, ``-2`` ...);
links inside fenced code blocks and inline code are not links.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted(ROOT.joinpath("docs").glob("*.md"))]
TOPICS = ["playing", "browser", "computer-and-coach", "saves-and-history", "command-line",
          "rules", "uml", "architecture", "benchmarks", "scaling"]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~)")


def prose_lines(text: str) -> list[str]:
    """Return the page's lines outside fenced code blocks, inline code removed."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(re.sub(r"`[^`]*`", "", line))
    return lines


def slug(heading: str) -> str:
    """Return GitHub's anchor for a heading's text (before numbering repeats)."""
    text = re.sub(r"`", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Return every anchor a page's headings give."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


def links(path: Path) -> list[str]:
    """Return every link target written in a page's prose."""
    return [m.group(1) for line in prose_lines(path.read_text(encoding="utf-8"))
            for m in LINK.finditer(line)]


def test_the_manual_has_one_page_per_topic() -> None:
    assert sorted(p.stem for p in PAGES[1:]) == sorted(TOPICS)


def test_the_front_page_is_short_and_keeps_the_two_commands() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert "python game_driver.py " in text
    assert "python -m pip install -e '.[dev]' && python -m pytest" in text
    for topic in TOPICS:
        assert f"(docs/{topic}.md)" in text, f"the front page does not link docs/{topic}.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    broken = []
    for target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue                                  # http:, https:, mailto: ...
        file_part, _, anchor = target.partition("#")
        dest = (page.parent / unquote(file_part)).resolve() if file_part else page
        if not dest.exists():
            broken.append(f"{target}: no file {dest}")
        elif anchor and dest.suffix == ".md" and unquote(anchor) not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not broken, "\n".join(broken)


def test_the_slugs_follow_githubs_rules() -> None:
    assert slug("Saves, history and statistics") == "saves-history-and-statistics"
    assert slug("From the UML to Python") == "from-the-uml-to-python"
    assert slug("`analyze --html`") == "analyze---html"
