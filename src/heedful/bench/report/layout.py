"""The layout of the reports: report.html's stylesheet and wrappers, and the terminal tables' frame.

The report must read in an 800 px window without the page scrolling sideways (docs/benchmark.md).
Tables are the wide part: each one sits in a :func:`scroll` box, so a table wider than the window
scrolls on its own while the text around it keeps the window's width, and a leading column of
names (or the one after a ``rank`` column) stays in view. A cell keeps a value and its interval
on one line when there is room, else the interval goes under its value (:func:`num_td`) — never
a break inside either; headers wrap. Charts are SVG with a ``viewBox`` (:func:`svg_open`), so
they shrink with the window and keep their aspect. Below 900 px tables get a smaller font. All
inline: the page stays self-contained.
"""

from __future__ import annotations

import html
from typing import Any

from rich import box
from rich.table import Table
from rich.text import Text

__all__ = [
    "CSS",
    "SCROLL_CLASS",
    "breakable",
    "num_td",
    "scroll",
    "svg_open",
    "terminal_table",
    "widest",
]

#: Class of the box around every table; the only element allowed to scroll sideways.
SCROLL_CLASS = "scroll"

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1320px;color:#1d2330;padding:0 1rem}
p{max-width:72rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde}
.scroll{overflow-x:auto;max-width:100%;margin:.5rem 0 1rem}
table{border-collapse:collapse;font-size:.84rem}
th,td{padding:.25rem .4rem;border-bottom:1px solid #eef;text-align:right}
td{white-space:nowrap}td.ci{white-space:normal}td.ci span{white-space:nowrap}
td.wrap{white-space:normal;overflow-wrap:anywhere;min-width:16rem}
th{background:#f4f6fa;vertical-align:bottom}td.l,th.l{text-align:left}
.scroll .l:first-child,.scroll .rank+.l{position:sticky;left:0}
.scroll td.l:first-child,.scroll td.rank+td.l{background:#fff}
.note{color:#5a6270;font-size:.85rem}.grid{display:flex;flex-wrap:wrap;gap:1rem}
.card{border:1px solid #e3e6ee;border-radius:6px;padding:.5rem;max-width:100%;box-sizing:border-box}
svg{max-width:100%;height:auto}
svg text{font-size:11px;fill:#1d2330}svg text.axis{fill:#5a6270}
details{margin:.4rem 0}summary{cursor:pointer}h3{font-size:1rem;margin:1rem 0 .3rem}
@media (max-width:900px){body{margin:1rem auto;padding:0 .5rem}
table{font-size:.78rem}th,td{padding:.2rem .3rem}}
"""


def scroll(table: str) -> str:
    """``table`` (the HTML of one ``<table>``) in the box that scrolls sideways on its own."""
    return f"<div class='{SCROLL_CLASS}'>{table}</div>"


def svg_open(width: float, height: float, **attrs: str) -> str:
    """The opening ``<svg>`` tag of a chart drawn in ``width`` × ``height`` user units.

    The ``viewBox`` lets CSS shrink the chart to a narrow window (``max-width:100%``) with its
    aspect kept; ``width``/``height`` stay its natural size. ``attrs``: more attributes, with
    ``_`` in a name written as ``-`` (``aria_label`` → ``aria-label``, ``class_`` → ``class``).
    """
    extra = "".join(
        f" {k.rstrip('_').replace('_', '-')}='{html.escape(v, quote=True)}'"
        for k, v in attrs.items()
    )
    return f"<svg width='{width:g}' height='{height:g}' viewBox='0 0 {width:g} {height:g}'{extra}>"


def breakable(text: str) -> str:
    """``text`` escaped, with a line-break opportunity after each ``_`` (long header codes)."""
    return html.escape(text, quote=True).replace("_", "_<wbr>")


def num_td(text: str) -> str:
    """A right-aligned ``<td>`` of ``text``, escaped; a value with its interval
    (``"93.0 [90.8, 94.8]"``) may fold the interval under the value, and breaks nowhere else."""
    value, sep, interval = text.partition(" [")
    if not sep:
        return f"<td>{html.escape(text)}</td>"
    return f"<td class='ci'>{html.escape(value)} <span>[{html.escape(interval)}</span></td>"


def terminal_table(title: str | Text, **kwargs: Any) -> Table:
    """A Rich table in the frame every terminal report uses (left title, simple head rule, no
    edge padding, collapsed padding); ``kwargs`` (a caption, …) go to :class:`~rich.table.Table`.
    """
    return Table(
        title=title,
        title_justify="left",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
        **kwargs,
    )


def widest(cells: list[str], cap: int = 24) -> int:
    """The longest line among ``cells`` (at most ``cap``: a longer name folds) — the
    ``min_width`` of a terminal table's names column."""
    return min(cap, max((len(line) for c in cells for line in c.splitlines()), default=1))
