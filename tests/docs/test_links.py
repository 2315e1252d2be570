"""Every relative link of the README and the docs leads somewhere, and no page is lost.

A link ``[text](path)`` or ``[text](path#anchor)`` outside code, in README.md, docs/*.md or
bench/README.md, must name a file or folder of the repository, and an anchor must be the slug
of a heading of that page as GitHub makes it (lower case, punctuation dropped, spaces to
hyphens, ``-1``, ``-2`` … for repeats). Every page in docs/ must be reachable from README.md
by such links, so a newcomer can find it from the topic list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench/README.md"]

_LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, …


def prose_lines(text: str, *, code_spans: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, line) outside fenced blocks, inline code spans blanked out unless kept."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line if code_spans else _CODE_SPAN.sub("``", line)


def links(text: str) -> list[tuple[int, str]]:
    """(line number, target) of every relative link."""
    return [
        (number, match["target"])
        for number, line in prose_lines(text)
        for match in _LINK.finditer(line)
        if not _EXTERNAL.match(match["target"])
    ]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text (before repeats are numbered)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown page, repeats numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in prose_lines(text, code_spans=True):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        base = slug(match[1])
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(page: Path) -> list[str]:
    """What is wrong with each relative link of ``page``; empty when every one resolves."""
    problems = []
    for number, target in links(page.read_text()):
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        where = f"{page.relative_to(ROOT)}:{number}: {target}"
        if not dest.is_relative_to(ROOT):
            problems.append(f"{where}: outside the repository")
        elif not dest.exists():
            problems.append(f"{where}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text()):
            problems.append(f"{where}: no heading with the anchor #{anchor}")
    return problems


def reachable(start: Path) -> set[Path]:
    """The Markdown pages reachable from ``start`` by relative links."""
    seen, todo = {start.resolve()}, [start.resolve()]
    while todo:
        page = todo.pop()
        for _, target in links(page.read_text()):
            dest = (page.parent / target.partition("#")[0]).resolve()
            if dest.suffix == ".md" and dest.is_file() and dest not in seen:
                seen.add(dest)
                todo.append(dest)
    return seen


@pytest.mark.parametrize("page", DOCUMENTS, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_the_pages_have_links() -> None:
    """The scan reads what it should: the README links into docs/ with anchors too."""
    targets = [target for _, target in links((ROOT / "README.md").read_text())]
    assert any(target.startswith("docs/") and "#" in target for target in targets)
    assert sum(target.startswith("docs/") for target in targets) >= 10


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    found = reachable(ROOT / "README.md")
    lost = [
        str(page.relative_to(ROOT))
        for page in sorted((ROOT / "docs").glob("*.md"))
        if page.resolve() not in found
    ]
    assert lost == [], "add one line for each to the README's topic list"


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("`static:` — the operator's promise", "static--the-operators-promise"),
        ("SQL in PostgreSQL (`snowid sql postgres`)", "sql-in-postgresql-snowid-sql-postgres"),
        ("When the clock steps back: the policy", "when-the-clock-steps-back-the-policy"),
        ("Several workers and `/metrics`", "several-workers-and-metrics"),
        ("snake_case stays, Đường too", "snake_case-stays-đường-too"),
        ("A [linked](x.md) word", "a-linked-word"),
    ],
)
def test_slugs_are_githubs(heading: str, anchor: str) -> None:
    assert slug(heading) == anchor


def test_repeated_headings_are_numbered() -> None:
    assert anchors("# Use\n## Use\n```\n# not a heading\n```\n### Use\n") == {
        "use",
        "use-1",
        "use-2",
    }


def test_the_check_finds_what_is_broken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a missing file, a missing anchor, a page outside the repository."""
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B\n## Kept heading\n")
    page = tmp_path / "docs" / "a.md"
    page.write_text(
        "See [b](b.md#kept-heading), [top](#a), [c](c.md), [gone](b.md#gone-heading),\n"
        "[out](../../elsewhere.md) and `[code](not-checked.md)`.\n"
        "# A\n```\n[fenced](not-checked.md)\n```\n"
    )
    problems = broken_links(page)
    assert [problem.split(": ", 2)[1] for problem in problems] == [
        "c.md",
        "b.md#gone-heading",
        "../../elsewhere.md",
    ]


def test_a_page_no_link_reaches_is_found(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("[a](docs/a.md)\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("[b](b.md#x)\n")
    (tmp_path / "docs" / "b.md").write_text("# X\n")
    (tmp_path / "docs" / "c.md").write_text("# lost\n")
    assert {page.name for page in reachable(tmp_path / "README.md")} == {
        "README.md",
        "a.md",
        "b.md",
    }
