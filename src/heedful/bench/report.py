"""Reports of a run: a ranked Rich table, and a self-contained offline ``report.html``.

The HTML has inline CSS and inline SVG only — no scripts, fonts or images from anywhere.
"""

from __future__ import annotations

import html
import itertools
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from rich import box
from rich.console import Console
from rich.table import Table

from heedful.bench.initiation_report import initiation_html, initiation_tables
from heedful.bench.report_diagnostics import diagnostics_html, failure_split_html
from heedful.bench.results import ALL_FAMILIES, AggregateRow, Results
from heedful.bench.stats import MeanCI, PairedDiff, Proportion
from heedful.decision import StaticOracleResult

OracleRow = tuple[str, StaticOracleResult, float | None]
"""One scenario's oracle answer: id, static result, optimal adaptive value (if computed)."""


def ranked_rows(results: Results, family: str = ALL_FAMILIES) -> list[AggregateRow]:
    """Rows of one family, best mean score first (policies without a score last)."""
    rows = [r for r in results.aggregates.rows if r.family == family]
    return sorted(rows, key=lambda r: -r.score.mean if r.score else math.inf)


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


def _table(results: Results, family: str) -> Table:
    title = "all families" if family == ALL_FAMILIES else f"family {family}"
    table = Table(title=f"heedful benchmark — {title}", title_justify="left", box=box.SIMPLE_HEAD)
    for col, justify in [
        ("#", "right"),
        ("policy", "left"),
        ("score", "right"),
        ("95% CI", "right"),
        ("regret", "right"),
        ("optimal", "right"),
        ("right act.", "right"),
        ("recall", "right"),
        ("trials", "right"),
        ("unin.", "right"),
        ("viol.", "right"),
    ]:
        table.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    adaptive = results.manifest.condition == "adaptive"
    if adaptive:
        table.add_column("adapt. regret", justify="right", no_wrap=True)
    for i, r in enumerate(ranked_rows(results, family), start=1):
        s = r.score
        table.add_row(
            str(i),
            r.policy,
            _num(s.mean, 1) if s else "—",
            f"[{_num(s.lo, 1)}, {_num(s.hi, 1)}]" if s else "",
            _num(r.regret.mean, 3),
            f"{100 * r.optimal.p:.0f}%" if r.optimal.p is not None else "—",
            f"{100 * r.action_correct.p:.0f}%" if r.action_correct.p is not None else "—",
            f"{r.critical_recall.mean:.2f}" if r.critical_recall else "—",
            str(r.n_trials),
            str(r.n_uninformative),
            str(r.n_violations),
            *([_num(r.adaptive_regret.mean, 3) if r.adaptive_regret else "—"] if adaptive else []),
        )
    return table


def oracle_table(rows: Sequence[OracleRow], adaptive: bool = False) -> Table:
    """The table of ``heedful bench oracle``: V*, optimal sets, U_random, V(∅), critical sources.

    Args:
        rows: One entry per scenario.
        adaptive: Add the optimal adaptive value column.
    """
    table = Table(title="Exact static oracle (SPEC §3)")
    table.add_column("scenario", overflow="fold")
    for column in ("budget", "V*"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("optimal sets", overflow="fold")
    for column in ("U_random", "V(∅)"):
        table.add_column(column, justify="right", no_wrap=True)
    table.add_column("critical", overflow="fold")
    if adaptive:
        table.add_column("V adaptive", justify="right", no_wrap=True)
    for scenario_id, r, v_ad in rows:
        sets = ["{" + (", ".join(s) or "∅") + "}" for s in r.optimal_sets]
        shown = "\n".join(sets[:3]) + (f"\n(+{len(sets) - 3} more)" if len(sets) > 3 else "")
        cells = [
            scenario_id,
            str(r.budget),
            f"{r.v_star:.4f}",
            shown,
            f"{r.u_random:.4f}",
            f"{r.v_empty:.4f}",
            ", ".join(r.critical) or "none",
        ]
        if v_ad is not None:
            cells.append(f"{v_ad:.4f}")
        table.add_row(*cells)
    return table


def print_tables(results: Results, console: Console | None = None) -> None:
    """Print the ranked table over all families, then one per family."""
    if console is None:
        # Piped output gets room for the whole table instead of the 80-column default.
        console = Console() if sys.stdout.isatty() else Console(width=140)
    m = results.manifest
    sealed = ", sealed hold-out (aggregates only)" if results.sealed else ""
    console.print(
        f"[bold]{m.n_scenarios} scenarios × {m.trials} trials, {m.condition} condition, "
        f"seed {m.seed}{sealed}[/bold]"
    )
    families = sorted({r.family for r in results.aggregates.rows} - {ALL_FAMILIES})
    console.print(_table(results, ALL_FAMILIES))
    neighbours = neighbour_differences(results)
    if neighbours:
        console.print("[bold]paired score differences between neighbours in the ranking[/bold]")
        for a, b, d in neighbours:
            if d.a_better == d.b_better == 0:
                sep = "  (identical on every trial)"
            else:
                sep = "" if d.lo > 0 else "  (not separated)"
            console.print(
                f"  {a} − {b}: {_num(d.mean, 1)} [{_num(d.lo, 1)}, {_num(d.hi, 1)}] "
                f"on {d.n} matched trials{sep}"
            )
    if len(families) > 1:
        for fam in families:
            console.print()
            console.print(_table(results, fam))
    for extra in initiation_tables(results):
        console.print()
        console.print(extra)


def neighbour_differences(
    results: Results, family: str = ALL_FAMILIES
) -> list[tuple[str, str, PairedDiff]]:
    """Paired score differences ``rank i − rank i+1`` (CI above 0: the ranks are separated)."""
    rows = [r for r in ranked_rows(results, family) if r.score is not None]
    paired = {(p.policy_a, p.policy_b): p for p in results.aggregates.paired if p.family == family}
    out = []
    for upper, lower in itertools.pairwise(rows):
        a, b = upper.policy, lower.policy
        if (a, b) in paired and paired[(a, b)].score is not None:
            d = paired[(a, b)].score
        elif (b, a) in paired and paired[(b, a)].score is not None:
            f = paired[(b, a)].score
            assert f is not None
            d = f.model_copy(
                update={
                    "mean": -f.mean,
                    "lo": -f.hi,
                    "hi": -f.lo,
                    "a_better": f.b_better,
                    "b_better": f.a_better,
                }
            )
        else:
            continue
        assert d is not None
        out.append((a, b, d))
    return out


# --- HTML ---------------------------------------------------------------------------------------

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem auto;
max-width:1100px;color:#1d2330;padding:0 1rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.88rem}
th,td{padding:.25rem .6rem;border-bottom:1px solid #eef;text-align:right}
th{background:#f4f6fa}td.l,th.l{text-align:left}
.note{color:#5a6270;font-size:.85rem}.grid{display:flex;flex-wrap:wrap;gap:1rem}
.card{border:1px solid #e3e6ee;border-radius:6px;padding:.5rem}
svg text{font-size:11px;fill:#1d2330}
"""

_PALETTE = ("#3b6fd8", "#d8833b", "#3bab6a", "#b83bd8", "#d83b5b", "#6b7280", "#0ea5a5")


def _e(text: object) -> str:
    return html.escape(str(text))


def _bar_chart(rows: Sequence[AggregateRow]) -> str:
    """Horizontal bars of mean score with CI whiskers; reference lines at 0 and 100."""
    scored = [r for r in rows if r.score is not None]
    if not scored:
        return "<p class='note'>No informative trials.</p>"
    lo = min([0.0, *(r.score.lo for r in scored if r.score)])
    hi = max([100.0, *(r.score.hi for r in scored if r.score)])
    width, left, right, row_h = 680, 150, 70, 24
    plot = width - left - right
    height = row_h * len(scored) + 30

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * plot

    parts = [f"<svg width='{width}' height='{height}' role='img' aria-label='scores'>"]
    for ref in sorted({0.0, 100.0, lo, hi}):
        main_ref = ref in (0.0, 100.0)
        # Axis ends get a label only when it would not collide with the 0 and 100 labels.
        labelled = main_ref or min(abs(ref), abs(ref - 100.0)) > 0.08 * (hi - lo)
        parts.append(
            f"<line x1='{x(ref):.1f}' y1='4' x2='{x(ref):.1f}' y2='{height - 20}' "
            f"stroke='{'#888' if main_ref else '#ddd'}' stroke-dasharray='3,3'/>"
        )
        if labelled:
            parts.append(
                f"<text x='{x(ref):.1f}' y='{height - 6}' text-anchor='middle'>{ref:.0f}</text>"
            )
    for i, r in enumerate(scored):
        assert r.score is not None
        y = 6 + i * row_h
        x0, x1 = sorted((x(0.0), x(r.score.mean)))
        color = _PALETTE[i % len(_PALETTE)]
        parts.append(
            f"<text x='{left - 6}' y='{y + 13}' text-anchor='end'>{_e(r.policy)}</text>"
            f"<rect x='{x0:.1f}' y='{y + 2}' width='{max(x1 - x0, 1):.1f}' height='{row_h - 8}' "
            f"fill='{color}' opacity='0.8'/>"
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


def _histogram(values: Sequence[float], top: float, bins: int = 12) -> str:
    """A small histogram of regret values on ``[0, top]``."""
    width, height = 240, 80
    counts, edges = np.histogram(np.clip(values, 0.0, top), bins=bins, range=(0.0, top))
    peak = max(int(counts.max()), 1)
    bw = (width - 10) / bins
    parts = [f"<svg width='{width}' height='{height + 16}' role='img' aria-label='regret'>"]
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


def _rows_table(rows: Sequence[AggregateRow]) -> str:
    head = (
        "<tr><th>#</th><th class='l'>policy</th><th>score [95% CI]</th><th>median</th>"
        "<th>regret [95% CI]</th><th>optimal set</th><th>right action</th>"
        "<th>crit. recall</th><th>precision</th><th>distractor share</th><th>net utility</th>"
        "<th>trials</th><th>uninformative</th>"
        "<th>violations</th></tr>"
    )
    body = "".join(
        f"<tr><td>{i}</td><td class='l'>{_e(r.policy)}</td><td>{_ci(r.score)}</td>"
        f"<td>{f'{r.score.median:.1f}' if r.score else '—'}</td><td>{_ci(r.regret, 3)}</td>"
        f"<td>{_pct(r.optimal)}</td><td>{_pct(r.action_correct)}</td>"
        f"<td>{f'{r.critical_recall.mean:.2f}' if r.critical_recall else '—'}</td>"
        f"<td>{f'{r.precision.mean:.2f}' if r.precision else '—'}</td>"
        f"<td>{f'{100 * r.distractor_rate:.0f}%' if r.distractor_rate is not None else '—'}</td>"
        f"<td>{_ci(r.net_utility, 3)}</td><td>{r.n_trials}</td><td>{r.n_uninformative}</td>"
        f"<td>{r.n_violations}</td></tr>"
        for i, r in enumerate(rows, start=1)
    )
    return f"<table>{head}{body}</table>"


def render_html(results: Results) -> str:
    """Return the whole report as one self-contained HTML page."""
    m = results.manifest
    families = sorted({r.family for r in results.aggregates.rows} - {ALL_FAMILIES})
    out = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<title>heedful benchmark report</title>",
        f"<style>{_CSS}</style></head><body>",
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
    for fam in shown if results.aggregates.rows else []:
        rows = ranked_rows(results, fam)
        title = "All families" if fam == ALL_FAMILIES else f"Family {fam}"
        out += [f"<h2>{_e(title)}</h2>", _bar_chart(rows), _rows_table(rows)]

    if results.trials:
        out.append("<h2>Regret distribution (V* − V(S), all trials)</h2><div class='grid'>")
        top = max(t.regret for t in results.trials) or 1.0
        for r in ranked_rows(results):
            values = [t.regret for t in results.trials if t.policy == r.policy]
            out.append(
                f"<div class='card'><b>{_e(r.policy)}</b> "
                f"<span class='note'>median {np.median(values):.3f}</span><br>"
                f"{_histogram(values, top)}</div>"
            )
        out.append("</div>")

    if results.aggregates.rows:  # a run of families D and J only has no inspection rows
        out.append(failure_split_html(results))
        out.append(diagnostics_html(results))

    paired = [p for p in results.aggregates.paired if p.family == ALL_FAMILIES]
    if paired:
        out.append(
            "<h2>Paired comparisons (matched scenario and trial; wins counted per scenario)</h2>"
            "<table><tr>"
            "<th class='l'>A</th><th class='l'>B</th><th>score A − B [95% CI]</th>"
            "<th>A better</th><th>B better</th><th>ties</th>"
            "<th>optimal: both / only A / only B / neither</th></tr>"
        )
        for p in paired:
            s = p.score
            diff = f"{s.mean:.1f} [{s.lo:.1f}, {s.hi:.1f}]" if s else "—"
            o = p.optimal
            out.append(
                f"<tr><td class='l'>{_e(p.policy_a)}</td><td class='l'>{_e(p.policy_b)}</td>"
                f"<td>{diff}</td><td>{s.a_better if s else '—'}</td>"
                f"<td>{s.b_better if s else '—'}</td><td>{s.ties if s else '—'}</td>"
                f"<td>{o.both} / {o.only_a} / {o.only_b} / {o.neither}</td></tr>"
            )
        out.append("</table>")

    out.append(initiation_html(results))
    if results.kinds is not None:
        from heedful.bench.kinds.html import kinds_html

        out.append(kinds_html(results.kinds))
    if results.calibration:
        from heedful.bench.calibration_report import calibration_html

        out.append(calibration_html(results.calibration))
    out.append("<h2>Manifest</h2><table>")
    for key, val in m.model_dump(mode="json").items():
        if key == "config":
            continue
        out.append(f"<tr><td class='l'>{_e(key)}</td><td class='l'>{_e(val)}</td></tr>")
    out.append("</table></body></html>")
    return "\n".join(out)


def write_report(results: Results, path: str | Path) -> Path:
    """Write ``report.html``; return its path."""
    p = Path(path)
    p.write_text(render_html(results), encoding="utf-8")
    return p
