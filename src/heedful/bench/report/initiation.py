"""The unprompted-condition section of the reports (document 000 §15.2–§15.3).

One set of cells per row, rendered both as a Rich table and as HTML tables; nothing is printed
when a run recorded no initiation metrics.
"""

from __future__ import annotations

import html

from rich.table import Table

from heedful.bench.report.layout import num_td, scroll, terminal_table, widest
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


def _pct(p: Proportion, counts: bool = False, sep: str = " ") -> str:
    if p.p is None:
        return "—" + (f" 0/{p.n}" if counts else "")
    value, ci, k = f"{100 * p.p:.0f}%", f"[{100 * p.lo:.0f}, {100 * p.hi:.0f}]", f" {p.k}/{p.n}"
    if sep == " ":
        return f"{value} {ci}" + (k if counts else "")
    return value + (k if counts else "") + sep + ci  # the interval on its own line


def _mean(m: MeanCI | None, digits: int, ci: bool = True) -> str:
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f}" + (f" [{m.lo:.{digits}f}, {m.hi:.{digits}f}]" if ci else "")


#: The gap cell of a policy that reads no task text (its gap is 0 by construction).
NOT_READING = "n/a — reads no task text"


def _diff(d: PairedDiff | None, digits: int, sep: str = " ") -> str:
    if d is None:
        return "—"
    return f"{d.mean:+.{digits}f}{sep}[{d.lo:+.{digits}f}, {d.hi:+.{digits}f}]"


def metric_cells(row: InitiationRow, *, compact: bool = False) -> list[str]:
    """The cells of one metrics row, in :data:`METRIC_HEADERS` order (``compact``: for the
    terminal — the two means without their intervals, each other interval on the line under its
    value, the condition of a family under it)."""
    sep = "\n" if compact else " "
    return [
        row.family.replace("/", "/\n") if compact else row.family,
        row.policy,
        _pct(row.authoritative_rate, sep=sep),
        _mean(row.inspections_before_authoritative, 2, not compact),
        _pct(row.claim_accuracy, sep=sep),
        _pct(row.summary_substitution, counts=True, sep=sep),
        _mean(row.evidence_age_s, 0, not compact),
        str(row.n_trials),
    ]


def gap_cells(row: InitiationGapRow, *, compact: bool = False) -> list[str]:
    """The cells of one initiation-gap row, in :data:`GAP_HEADERS` order (``compact``: each
    interval on the line under its value)."""
    sep = "\n" if compact else " "
    if not row.reads_task:
        return [row.family, row.policy, NOT_READING, "n/a", "n/a", str(row.n_pairs)]
    return [
        row.family,
        row.policy,
        _diff(row.score, 1, sep),
        _diff(row.net_utility, 3, sep),
        _diff(row.claim_accuracy, 2, sep),
        str(row.n_pairs),
    ]


# Terminal headers: short enough that both tables fit 80 columns; the caption spells them out.
_METRIC_SHORT = (
    "family",
    "policy",
    "auth.\nread",
    "reads\nbefore",
    "claim\nacc.",
    "summ.\nsubst.",
    "age s",
    "trials",
)
_METRIC_CAPTION = (  # lines under 78 characters: Rich can drop a letter when it rewraps one
    "auth. read: trials reading an authoritative source · reads before: before it\n"
    "claim acc.: state-sensitive claim accuracy · age s: evidence age at claim time\n"
    "summ. subst.: acted on the summary's value without reading the source (k/n)"
)


def _terminal_table(title: str, headers: tuple[str, ...], rows: list[list[str]]) -> Table:
    t = terminal_table(
        title,
    )
    for i, h in enumerate(headers):
        t.add_column(
            h,
            justify="left" if i < 2 else "right",
            overflow="fold",
            min_width=widest([cells[i] for cells in rows]) if i < 2 else None,
        )
    for cells in rows:
        t.add_row(*cells)
    return t


def _constant_count(
    headers: tuple[str, ...], rows: list[list[str]], what: str
) -> tuple[tuple[str, ...], list[list[str]], str]:
    """Drop the last column (a count) when every row has the same one, and say it once instead:
    at 80 columns with long policy names it is the column Rich would otherwise crop away."""
    counts = {cells[-1] for cells in rows}
    if len(counts) != 1:
        return headers, rows, ""
    return headers[:-1], [cells[:-1] for cells in rows], f"{counts.pop()} {what} per row"


def initiation_tables(results: Results) -> list[Table]:
    """Rich tables of the unprompted metrics and the initiation gap (empty if none).

    Made for an 80-column terminal: short headers (a caption spells them out), each interval on
    the line under its value, names folded rather than cut, a count column that is the same on
    every row said once in the caption.
    """
    agg = results.aggregates
    out: list[Table] = []
    if agg.initiation:
        headers, rows, note = _constant_count(
            _METRIC_SHORT, [metric_cells(row, compact=True) for row in agg.initiation], "trials"
        )
        t = _terminal_table(
            "unprompted condition — authoritative inspection (document 000 §15.2)", headers, rows
        )
        t.caption = _METRIC_CAPTION + (f"\n{note}" if note else "")
        t.caption_justify = "left"
        out.append(t)
    if agg.initiation_gap:
        headers, rows, note = _constant_count(
            GAP_HEADERS, [gap_cells(gap, compact=True) for gap in agg.initiation_gap], "pairs"
        )
        g = _terminal_table(
            "initiation gap = announced − unprompted, matched trials (§15.3)", headers, rows
        )
        if note:
            g.caption, g.caption_justify = note, "left"
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
