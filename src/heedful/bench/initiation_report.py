"""The unprompted-condition section of the reports (document 000 §15.2–§15.3).

One set of cells per row, rendered both as a Rich table and as HTML tables; nothing is printed
when a run recorded no initiation metrics.
"""

from __future__ import annotations

import html

from rich import box
from rich.table import Table

from heedful.bench.report_layout import num_td, scroll
from heedful.bench.results import InitiationGapRow, InitiationRow, Results
from heedful.bench.stats import MeanCI, PairedDiff, Proportion

METRIC_HEADERS = (
    "family",
    "policy",
    "authoritative read",
    "reads before",
    "claim accuracy",
    "summary subst.",
    "evidence age s",
    "trials",
)
GAP_HEADERS = ("family", "policy", "score gap", "net-utility gap", "claim-accuracy gap", "pairs")


def _pct(p: Proportion, counts: bool = False) -> str:
    if p.p is None:
        return "—" + (f" 0/{p.n}" if counts else "")
    text = f"{100 * p.p:.0f}% [{100 * p.lo:.0f}, {100 * p.hi:.0f}]"
    return text + (f" {p.k}/{p.n}" if counts else "")


def _mean(m: MeanCI | None, digits: int, ci: bool = True) -> str:
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f}" + (f" [{m.lo:.{digits}f}, {m.hi:.{digits}f}]" if ci else "")


def _diff(d: PairedDiff | None, digits: int) -> str:
    return "—" if d is None else f"{d.mean:+.{digits}f} [{d.lo:+.{digits}f}, {d.hi:+.{digits}f}]"


def metric_cells(row: InitiationRow, *, compact: bool = False) -> list[str]:
    """The cells of one metrics row, in :data:`METRIC_HEADERS` order (``compact``: the two means
    without their intervals, for the terminal)."""
    return [
        row.family,
        row.policy,
        _pct(row.authoritative_rate),
        _mean(row.inspections_before_authoritative, 2, not compact),
        _pct(row.claim_accuracy),
        _pct(row.summary_substitution, counts=True),
        _mean(row.evidence_age_s, 0, not compact),
        str(row.n_trials),
    ]


def gap_cells(row: InitiationGapRow) -> list[str]:
    """The cells of one initiation-gap row, in :data:`GAP_HEADERS` order."""
    return [
        row.family,
        row.policy,
        _diff(row.score, 1),
        _diff(row.net_utility, 3),
        _diff(row.claim_accuracy, 2),
        str(row.n_pairs),
    ]


def initiation_tables(results: Results) -> list[Table]:
    """Rich tables of the unprompted metrics and the initiation gap (empty if none)."""
    agg = results.aggregates
    out: list[Table] = []
    if agg.initiation:
        t = Table(
            title="unprompted condition — authoritative inspection (document 000 §15.2)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for h in METRIC_HEADERS:
            t.add_column(h, justify="left" if h in ("family", "policy") else "right", no_wrap=True)
        for row in agg.initiation:
            t.add_row(*metric_cells(row, compact=True))
        out.append(t)
    if agg.initiation_gap:
        g = Table(
            title="initiation gap = announced − unprompted, matched trials (§15.3)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
        )
        for h in GAP_HEADERS:
            g.add_column(h, justify="left" if h in ("family", "policy") else "right", no_wrap=True)
        for gap in agg.initiation_gap:
            g.add_row(*gap_cells(gap))
        out.append(g)
    return out


def _html_table(headers: tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(
        f"<th class='l'>{html.escape(h)}</th>" if i < 2 else f"<th>{html.escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='l'>{html.escape(c)}</td>" if i < 2 else num_td(c)
            for i, c in enumerate(cells)
        )
        + "</tr>"
        for cells in rows
    )
    return scroll(f"<table><tr>{head}</tr>{body}</table>")


def initiation_html(results: Results) -> str:
    """The HTML section of the unprompted metrics and the initiation gap ("" if none)."""
    agg = results.aggregates
    if not agg.initiation and not agg.initiation_gap:
        return ""
    parts = [
        "<h2>Unprompted condition (document 000 §15)</h2>",
        "<p class='note'>Authoritative read: share of trials that inspected an authoritative "
        "source (spontaneous on <code>/unprompted</code> rows). Summary substituted: among trials "
        "where the authoritative source would have contradicted the summary, the share that acted "
        "on the summary's value without reading it. Intervals: Wilson or cluster bootstrap.</p>",
    ]
    if agg.initiation:
        parts.append(_html_table(METRIC_HEADERS, [metric_cells(r) for r in agg.initiation]))
    if agg.initiation_gap:
        parts.append("<h2>Initiation gap (announced − unprompted, §15.3)</h2>")
        parts.append(_html_table(GAP_HEADERS, [gap_cells(r) for r in agg.initiation_gap]))
    return "\n".join(parts)
