"""report.html reads in a narrow window: tables scroll in their own box, charts shrink."""

from __future__ import annotations

import re
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

from heedful.bench.config import BenchConfig
from heedful.bench.report.layout import CSS, SCROLL_CLASS, breakable, num_td, scroll, svg_open
from heedful.bench.report.page import render_html
from heedful.bench.report.timeline import TIMELINE_FILE, load_timeline
from heedful.bench.results import Results, load_results
from heedful.bench.suite import run_to_folder

FAST = BenchConfig(bootstrap_resamples=100)
AddAgents = Callable[[Results, BenchConfig], Results]

#: Sections whose tables or charts the full report below must hold, so the checks cover them.
SECTIONS = (
    "All families",
    "Failure split",
    "Primary code of each failed trial",
    "Diagnostics",
    "Paired comparisons",
    "Unprompted condition",
    "Initiation gap",
    "Agents under test",
    "Attention vs production score",
    "Validator rescue rate",
    "Lift of the controller",
    "Attention trace of one trial",
    "Attention health",
    "Family D (switching)",
    "voc − B",
    "Predicted-VOC calibration",
    "Manifest",
)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, with_agent_rows: AddAgents) -> str:
    """A report with every section: families B (both conditions) and D, a controller policy
    (trace, health, calibration) and agent rows (records of programmatic policies renamed)."""
    out = tmp_path_factory.mktemp("layout") / "run"
    run_to_folder(
        families="B,D",
        count=2,
        policies="voc,random",
        trials=1,
        seed=0,
        out=out,
        progress=False,
        condition="both",
        config=FAST,
    )
    res = load_results(out / "results.json")
    res = with_agent_rows(res, FAST)
    return render_html(res, load_timeline(out / TIMELINE_FILE))


class _Boxes(HTMLParser):
    """Records, for each ``<table>``, the class of the ``<div>`` it opens in and how deep in
    other tables it is; for each scroll box, how many tables it holds; every ``<svg>``."""

    def __init__(self) -> None:
        super().__init__()
        self.divs: list[list[str]] = []  # classes of the open divs, innermost last
        self.tables = 0  # open tables
        self.placed: list[tuple[list[str], int]] = []  # per table: enclosing div's classes
        self.per_box: list[int] = []  # tables in each scroll box
        self.svgs: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "div":
            classes = (a.get("class") or "").split()
            self.divs.append(classes)
            if SCROLL_CLASS in classes:
                self.per_box.append(0)
        elif tag == "table":
            self.placed.append((self.divs[-1] if self.divs else [], self.tables))
            if self.divs and SCROLL_CLASS in self.divs[-1]:
                self.per_box[-1] += 1
            self.tables += 1
        elif tag == "svg":
            self.svgs.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self.divs.pop()
        elif tag == "table":
            self.tables -= 1


def _parse(page: str) -> _Boxes:
    boxes = _Boxes()
    boxes.feed(page)
    boxes.close()
    assert not boxes.divs and boxes.tables == 0, "unbalanced <div> or <table>"
    return boxes


def test_the_layout_report_has_every_section(page: str) -> None:
    missing = [s for s in SECTIONS if s not in page]
    assert not missing


def test_every_table_sits_directly_in_its_own_scroll_box(page: str) -> None:
    boxes = _parse(page)
    assert len(boxes.placed) >= 15
    unboxed = [i for i, (classes, depth) in enumerate(boxes.placed) if SCROLL_CLASS not in classes]
    assert unboxed == []
    assert all(depth == 0 for _, depth in boxes.placed)  # no table inside a table
    assert boxes.per_box == [1] * len(boxes.placed)  # one table per box, no empty box


def test_a_table_outside_a_scroll_box_is_caught() -> None:
    boxes = _parse(f"<div class='grid'><table><tr><td>1</td></tr></table></div>{scroll('')}")
    assert [SCROLL_CLASS in classes for classes, _ in boxes.placed] == [False]
    assert boxes.per_box == [0]


def test_every_chart_has_a_viewbox_of_its_own_size(page: str) -> None:
    svgs = _parse(page).svgs
    roles = {s.get("aria-label") or s.get("role") for s in svgs}
    assert {"scores", "regret", "attention trace timeline", "img"} <= roles
    assert any((s.get("aria-label") or "").startswith("reliability diagram") for s in svgs)
    for s in svgs:  # the parser lower-cases attribute names
        assert s.get("viewbox") == f"0 0 {s['width']} {s['height']}", s
    assert page.count("<svg") == page.count(" viewBox='0 0 ") == len(svgs)


def _rules(css: str) -> dict[str, str]:
    """Selector → declarations of a flat stylesheet (``@media`` blocks under their query)."""
    out: dict[str, str] = {}
    for media, body in re.findall(r"(@media[^{]*)\{((?:[^{}]*\{[^{}]*\})*)\}", css):
        for sel, decl in re.findall(r"([^{}]+)\{([^{}]*)\}", body):
            out[f"{media.strip()} {sel.strip()}"] = decl
    flat = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*\}", "", css)
    for sel, decl in re.findall(r"([^{}]+)\{([^{}]*)\}", flat):
        out[sel.strip()] = decl
    return out


def test_the_stylesheet_scrolls_tables_in_their_box_and_shrinks_charts(page: str) -> None:
    assert f"<style>{CSS}</style>" in page
    rules = _rules(CSS)
    assert "overflow-x:auto" in rules[f".{SCROLL_CLASS}"]
    assert "max-width:100%" in rules["svg"] and "height:auto" in rules["svg"]
    assert "max-width" in rules["body"]
    assert "white-space:nowrap" in rules["td"]  # no break inside a number…
    assert "white-space:normal" in rules["td.ci"]  # …but an interval may fold under its value
    assert "white-space:nowrap" in rules["td.ci span"]
    # The names stay in view while a wide table scrolls: the first column, or the one after #.
    assert "position:sticky" in rules[".scroll .l:first-child,.scroll .rank+.l"]
    assert "<td class='rank'>1</td><td class='l'>" in page
    narrow = [k for k in rules if k.startswith("@media (max-width:")]
    assert any(k.endswith(" table") and "font-size" in rules[k] for k in narrow)


def test_an_interval_folds_under_its_value_and_nowhere_else() -> None:
    assert num_td("93.0 [90.8, 94.8]") == "<td class='ci'>93.0 <span>[90.8, 94.8]</span></td>"
    assert num_td("0% [0, 79] 0/1") == "<td class='ci'>0% <span>[0, 79] 0/1</span></td>"
    assert num_td("—") == "<td>—</td>" and num_td("12") == "<td>12</td>"
    assert num_td("<b>") == "<td>&lt;b&gt;</td>"


def test_cells_keep_their_text(page: str) -> None:
    # The wrappers change markup only: the text of a folded cell reads as before.
    cells = re.findall(r"<td class='ci'>(.*?)</td>", page)
    assert cells
    for cell in cells:
        text = re.sub(r"</?span>", "", cell)
        assert re.fullmatch(r"\S+ \[[^\]]*\].*", text), cell


def test_underscored_headers_break_after_each_underscore_only() -> None:
    assert breakable("ATTN_STALE_STATE") == "ATTN_<wbr>STALE_<wbr>STATE"
    assert breakable("a<b") == "a&lt;b"


def test_svg_open_writes_the_viewbox_and_escaped_attributes() -> None:
    tag = svg_open(240, 96, class_="timeline", aria_label="it's")
    assert tag == (
        "<svg width='240' height='96' viewBox='0 0 240 96' class='timeline' aria-label='it&#x27;s'>"
    )


def test_the_written_report_uses_the_layout(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_to_folder(families="B", count=2, policies="random", trials=1, out=out, progress=False)
    page = (out / "report.html").read_text()
    assert page.count("<table") == page.count(f"<div class='{SCROLL_CLASS}'><table")
