"""Reports of a run: a self-contained offline ``report.html`` (terminal tables: bench.table).

The HTML has inline CSS and inline SVG only — no scripts, fonts or images from anywhere.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from heedful.bench.report.agents import agent_html
from heedful.bench.report.charts import nice_ticks, policy_colours, x_axis
from heedful.bench.report.diagnostics import diagnostics_html, failure_split_html
from heedful.bench.report.initiation import initiation_html
from heedful.bench.report.layout import CSS, num_td, scroll, svg_open
from heedful.bench.report.manifest_section import manifest_html
from heedful.bench.report.paired import paired_html
from heedful.bench.report.table import (  # the terminal tables, re-exported here
    ESTIMATE_MARK,
    ESTIMATE_NOTE,
    OracleRow,
    estimated,
    neighbour_differences,
    oracle_table,
    print_oracle,
    print_tables,
    ranked_rows,
)
from heedful.bench.report.timeline import TIMELINE_FILE, load_timeline, timeline_html
from heedful.bench.results import ALL_FAMILIES, AggregateRow, Results
from heedful.bench.stats import MeanCI, Proportion

__all__ = [
    "OracleRow",
    "neighbour_differences",
    "oracle_table",
    "print_oracle",
    "print_tables",
    "ranked_rows",
    "render_html",
    "write_report",
]


def _num(x: float, digits: int) -> str:
    """Fixed-point text without a "-0.000" for values that round to zero."""
    return f"{round(x, digits) + 0.0:.{digits}f}"


def _ci(m: MeanCI | None, digits: int = 1) -> str:
    if m is None:
        return "—"
    return f"{_num(m.mean, digits)} [{_num(m.lo, digits)}, {_num(m.hi, digits)}]"


def _pct(p: Proportion) -> str:
    if p.p is None:
        return "—"
    return f"{100 * p.p:.0f}% [{100 * p.lo:.0f}, {100 * p.hi:.0f}]"


# --- HTML ---------------------------------------------------------------------------------------


def _e(text: object) -> str:
    return html.escape(str(text))


def _bar_chart(rows: Sequence[AggregateRow], colours: dict[str, str]) -> str:
    """Horizontal bars of mean score with CI whiskers on a ticked, labelled score axis; each
    policy in its page colour."""
    scored = [r for r in rows if r.score is not None]
    if not scored:
        return "<p class='note'>No informative trials.</p>"
    ticks = nice_ticks(
        min([0.0, *(r.score.lo for r in scored if r.score)]),
        max([100.0, *(r.score.hi for r in scored if r.score)]),
    )
    lo, hi = ticks[0], ticks[-1]
    width, left, right, row_h = 680, 150, 70, 24
    plot = width - left - right
    bottom = row_h * len(scored) + 8
    height = bottom + 32

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot

    parts = [svg_open(width, height, role="img", aria_label="scores")]
    parts.append(
        x_axis(
            ticks,
            x,
            y_top=4,
            y_bottom=bottom,
            label="score (0 = random, 100 = oracle)",
            label_x=left + plot / 2,
        )
    )
    for ref in (0.0, 100.0):
        parts.append(
            f"<line x1='{x(ref):.1f}' y1='4' x2='{x(ref):.1f}' y2='{bottom}' "
            "stroke='#888' stroke-dasharray='3,3'/>"
        )
    for i, r in enumerate(scored):
        assert r.score is not None
        y = 6 + i * row_h
        x0, x1 = sorted((x(0.0), x(r.score.mean)))
        color = colours.get(r.policy, "#6b7280")
        parts.append(
            f"<text x='{left - 6}' y='{y + 13}' text-anchor='end'>{_e(r.policy)}</text>"
            f"<rect x='{x0:.1f}' y='{y + 2}' width='{max(x1 - x0, 1):.1f}' height='{row_h - 8}' "
            f"fill='{color}' opacity='0.85'><title>{_e(r.policy)}: {r.score.mean:.1f}</title>"
            "</rect>"
            f"<line x1='{x(r.score.lo):.1f}' y1='{y + row_h / 2 - 1}' x2='{x(r.score.hi):.1f}' "
            f"y2='{y + row_h / 2 - 1}' stroke='#111' stroke-width='1.5'/>"
            f"<line x1='{x(r.score.lo):.1f}' y1='{y + 5}' x2='{x(r.score.lo):.1f}' "
            f"y2='{y + row_h - 7}' stroke='#111'/>"
            f"<line x1='{x(r.score.hi):.1f}' y1='{y + 5}' x2='{x(r.score.hi):.1f}' "
            f"y2='{y + row_h - 7}' stroke='#111'/>"
            f"<text x='{width - right + 6}' y='{y + 13}'>{r.score.mean:.1f}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


#: Regrets at or below this are rounding (a denormal top such as 5e-324 cannot hold 12 bins).
_ROUNDING = 1e-12


def histogram_range(values: Sequence[float]) -> float:
    """The top of the regret histograms: the largest finite regret if it is above rounding, else 1.

    Regrets are ``V* − V(S)`` in floating point: every one can be ≤ 0 with one at −1.1e-16, and a
    range ending below its start made ``np.histogram`` raise after results.json was written.
    """
    finite = [float(v) for v in values if math.isfinite(v)]
    top = max(finite, default=0.0)
    return top if top > _ROUNDING else 1.0


def _histogram(values: Sequence[float], top: float, bins: int = 12) -> str:
    """A small histogram of regret values on ``[0, top]`` (a ``top`` ≤ 0 or not finite: 1)."""
    width, height = 240, 80
    top = top if math.isfinite(top) and top > _ROUNDING else 1.0
    finite = [float(v) for v in values if math.isfinite(v)]
    counts, edges = np.histogram(np.clip(finite, 0.0, top), bins=bins, range=(0.0, top))
    peak = max(int(counts.max()), 1)
    bw = (width - 10) / bins
    parts = [svg_open(width, height + 16, role="img", aria_label="regret")]
    for i, c in enumerate(counts):
        h = (height - 4) * int(c) / peak
        parts.append(
            f"<rect x='{5 + i * bw:.1f}' y='{height - h:.1f}' width='{bw - 1:.1f}' "
            f"height='{h:.1f}' fill='#3b6fd8'><title>{edges[i]:.3f}–{edges[i + 1]:.3f}: "
            f"{int(c)}</title></rect>"
        )
    parts.append(
        f"<text x='5' y='{height + 13}'>0</text>"
        f"<text x='{width - 5}' y='{height + 13}' text-anchor='end'>{top:.3f}</text></svg>"
    )
    return "".join(parts)


def _rows_table(rows: Sequence[AggregateRow], marked: frozenset[str] = frozenset()) -> str:
    head = (
        "<tr><th class='rank'>#</th><th class='l'>policy</th><th>score [95% CI]</th><th>median</th>"
        "<th>regret [95% CI]</th><th>optimal set</th><th>right action</th>"
        "<th>crit. recall</th><th>precision</th><th>distractor share</th><th>net utility</th>"
        "<th>trials</th><th>uninformative</th>"
        "<th>violations</th></tr>"
    )
    body = "".join(
        f"<tr><td class='rank'>{i}</td><td class='l'>{_e(r.policy)}</td>"
        f"{num_td((ESTIMATE_MARK if r.policy in marked else '') + _ci(r.score))}"
        f"<td>{f'{r.score.median:.1f}' if r.score else '—'}</td>{num_td(_ci(r.regret, 3))}"
        f"{num_td(_pct(r.optimal))}{num_td(_pct(r.action_correct))}"
        f"<td>{f'{r.critical_recall.mean:.2f}' if r.critical_recall else '—'}</td>"
        f"<td>{f'{r.precision.mean:.2f}' if r.precision else '—'}</td>"
        f"<td>{f'{100 * r.distractor_rate:.0f}%' if r.distractor_rate is not None else '—'}</td>"
        f"{num_td(_ci(r.net_utility, 3))}<td>{r.n_trials}</td><td>{r.n_uninformative}</td>"
        f"<td>{r.n_violations}</td></tr>"
        for i, r in enumerate(rows, start=1)
    )
    note = (
        f"<p class='note'>{_e(ESTIMATE_NOTE)}</p>" if any(r.policy in marked for r in rows) else ""
    )
    return scroll(f"<table>{head}{body}</table>") + note


def render_html(results: Results, timeline: dict[str, Any] | None = None) -> str:
    """Return the whole report as one self-contained HTML page (``timeline``: one trial's
    attention trace, :mod:`heedful.bench.report.timeline`)."""
    m = results.manifest
    inspection = results.aggregates.inspection_rows()
    families = sorted({r.family for r in inspection} - {ALL_FAMILIES})
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>heedful benchmark report</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>heedful benchmark report</h1>",
        f"<p class='note'>{m.n_scenarios} scenarios × {m.trials} trials × "
        f"{len(m.policies)} policies, {_e(m.condition)} condition, seed {m.seed}. "
        "Score = 100·(V − U_random)/(V* − U_random), unclipped; 0 = random, 100 = oracle; "
        "V is the value of the chosen set (static) or of the policy (adaptive, against "
        "V*_adaptive). "
        "Intervals are 95% bootstrap (scenarios resampled) or Wilson.</p>",
    ]
    if results.sealed:
        out.append(
            "<p class='note'><b>Sealed hold-out run:</b> aggregates only — no per-trial records, "
            "scenario text or answers are published (document 000 §22).</p>"
        )
    shown = [ALL_FAMILIES, *families] if len(families) > 1 else [ALL_FAMILIES]
    # One colour per policy for the whole page, handed out in the overall ranking's order.
    colours = policy_colours([r.policy for r in ranked_rows(results)])
    # What a reader looks for first: the overall ranking, then each family's chart (its table
    # one click away); the paired comparisons, diagnostics and the rest follow.
    for fam in shown if inspection else []:
        rows = ranked_rows(results, fam)
        marked = frozenset(estimated(results))
        if fam == ALL_FAMILIES:
            out += ["<h2>All families</h2>", _rows_table(rows, marked), _bar_chart(rows, colours)]
            continue
        out += [
            f"<h2>Family {_e(fam)}</h2>",
            _bar_chart(rows, colours),
            f"<details><summary>ranked table of family {_e(fam)}</summary>"
            f"{_rows_table(rows, marked)}</details>",
        ]

    if results.trials:
        out.append("<h2>Regret distribution (V* − V(S), all trials)</h2><div class='grid'>")
        top = histogram_range([t.regret for t in results.trials])
        regrets: dict[str, list[float]] = {}
        for t in results.trials:
            regrets.setdefault(t.policy, []).append(t.regret)
        for r in ranked_rows(results):
            values = regrets.get(r.policy, [])
            out.append(
                f"<div class='card'><b>{_e(r.policy)}</b> "
                f"<span class='note'>median {np.median(values):.3f}</span><br>"
                f"{_histogram(values, top)}</div>"
            )
        out.append("</div>")

    if inspection:  # a run of families D and J only has no inspection rows
        out.append(failure_split_html(results))
        out.append(diagnostics_html(results))

    ranking = {
        fam: [r.policy for r in ranked_rows(results, fam)] for fam in [ALL_FAMILIES, *families]
    }
    out.append(paired_html(results, ranking))

    out.append(initiation_html(results))
    out.append(agent_html(results))
    out.append(timeline_html(timeline))
    if results.aggregates.kind_rows():
        from heedful.bench.report.kinds import kinds_html

        out.append(kinds_html(results.aggregates.kind_rows(), results.aggregates.kind_paired()))
    if results.calibration:
        from heedful.bench.report.calibration import calibration_html

        out.append(calibration_html(results.calibration))
    out.append(manifest_html(m))
    out.append("</body></html>")
    return "\n".join(out)


def write_report(results: Results, path: str | Path) -> Path:
    """Write ``report.html``; return its path."""
    p = Path(path)
    p.write_text(render_html(results, load_timeline(p.parent / TIMELINE_FILE)), encoding="utf-8")
    return p
