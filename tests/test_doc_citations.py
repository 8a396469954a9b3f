"""Every design citation in README.md and docs/ ("document 000 §13", "SPEC §4.1", "§25",
"Appendix B") links to its entry in docs/design.md, and every such link lands on an entry."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ROOT / "docs" / "design.md"
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p != DESIGN)]
IDS = set(re.findall(r'<a id="([^"]+)"></a>', DESIGN.read_text(encoding="utf-8")))
CITATION = re.compile(r"§\s?\d+(?:\.\d+)*|Appendix [A-D]\b")
LINK = re.compile(r"\[([^\]]*)\]\(([^)]*)\)")
CODE = re.compile(r"(`+).*?\1")


def _prose(path: Path) -> list[tuple[int, str]]:
    """The lines outside fenced and indented code blocks, inline code blanked."""
    out, fenced = [], False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            out.append((number, CODE.sub(lambda m: " " * len(m.group(0)), line)))
    return out


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_design_citation_links_to_design_md(page: Path) -> None:
    unlinked = []
    for number, line in _prose(page):
        spans = [
            (m.start(), m.end())
            for m in LINK.finditer(line)
            if m.group(2).split("#")[0].endswith("design.md")
        ]
        for cite in CITATION.finditer(line):
            if not any(a <= cite.start() < b for a, b in spans):
                unlinked.append(f"{page.name}:{number}: {cite.group(0)}")
    assert not unlinked, "link these to their entry in docs/design.md:\n" + "\n".join(unlinked)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_into_design_md_lands_on_an_entry(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    targets = re.findall(r"\]\((?:docs/)?design\.md#([^)]+)\)", text)
    assert set(targets) <= IDS, sorted(set(targets) - IDS)


def test_design_md_has_an_entry_for_the_sections_the_readme_cites_most() -> None:
    for entry in (
        "d000-13",
        "d000-14-5",
        "d000-15-3",
        "d000-25",
        "spec-3",
        "spec-4-1",
        "d002-3-1-2",
    ):
        assert entry in IDS
