"""Families D and J in the report: one table per family with the kind's metrics.

The rows are the switching and schedule rows of ``aggregates`` (``Aggregates.kind_rows()``);
:func:`print_kind_tables` draws them in the terminal, :func:`kinds_html` in report.html.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from html import escape

from rich.console import Console
from rich.text import Text

from heedful.bench.report.layout import SCROLL_CLASS, num_td, terminal_table, widest
from heedful.bench.results.kinds import KindPairedRow, KindRow
from heedful.bench.stats import MeanCI, Proportion

__all__ = ["kinds_html", "print_kind_tables"]


def _ci(m: MeanCI | None, digits: int = 1) -> str:
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f} [{m.lo:.{digits}f}, {m.hi:.{digits}f}]"


def _p(p: Proportion | None) -> str:
    return "—" if p is None or p.p is None else f"{p.p:.2f} [{p.lo:.2f}, {p.hi:.2f}]"


def _cells(r: KindRow) -> list[str]:
    if r.kind == "switching":
        return [_ci(r.switch_accuracy, 2), _ci(r.thrashes, 2), _p(r.completion)]
    misses = " / ".join(f"{r.missed.get(k, 0.0):.2f}" for k in ("minutes", "hours", "week"))
    return [_ci(r.starvation_rate, 2), _ci(r.horizon_bias, 2), misses]


def kinds_html(every: Sequence[KindRow], paired: Sequence[KindPairedRow]) -> str:
    """HTML tables (ranked by score) and the paired differences against ``voc``, per family."""
    out: list[str] = []
    for family in sorted({r.family for r in every}):
        rows = sorted(
            (r for r in every if r.family == family),
            key=lambda r: -(r.score.mean if r.score else float("-inf")),
        )
        kind = rows[0].kind
        extra = (
            ("switch accuracy", "thrashes / trial", "completion")
            if kind == "switching"
            else ("starvation rate", "horizon bias", "missed on time: minutes / hours / week")
        )
        out.append(
            f"<h2>Family {escape(family)} ({escape(kind)})</h2>"
            f"<div class='{SCROLL_CLASS}'><table><tr>"
        )
        out.append("<th class='l'>policy</th><th>score [95% CI]</th><th>regret</th>")
        out.append("<th>optimal</th>" + "".join(f"<th>{escape(c)}</th>" for c in extra))
        out.append("<th>failures</th></tr>")
        for r in rows:
            fails = ", ".join(f"{k}: {v}" for k, v in r.failures.items()) or "—"
            tds = "".join(num_td(c) for c in _cells(r))
            out.append(
                f"<tr><td class='l'>{escape(r.policy)}</td>{num_td(_ci(r.score))}"
                f"{num_td(_ci(r.regret, 3))}{num_td(_p(r.optimal))}{tds}"
                f"<td class='l wrap'>{escape(fails)}</td></tr>"
            )
        out.append("</table></div>")
        vs = [p for p in paired if p.family == family and "voc" in (p.policy_a, p.policy_b)]
        if vs:
            out.append(f"<div class='{SCROLL_CLASS}'><table><tr><th class='l'>voc − B</th>")
            out.append("<th>score [95% CI]</th>")
            out.append("<th>voc better</th><th>B better</th><th>ties</th></tr>")
            for p in vs:
                s, other = p.score, p.policy_b if p.policy_a == "voc" else p.policy_a
                if s is None:
                    continue
                sign = 1.0 if p.policy_a == "voc" else -1.0
                lo, hi = sorted((sign * s.lo, sign * s.hi))
                better = (s.a_better, s.b_better) if sign > 0 else (s.b_better, s.a_better)
                out.append(
                    f"<tr><td class='l'>{escape(other)}</td>"
                    + num_td(f"{sign * s.mean:.1f} [{lo:.1f}, {hi:.1f}]")
                    + f"<td>{better[0]}</td><td>{better[1]}</td><td>{s.ties}</td></tr>"
                )
            out.append("</table></div>")
    return "\n".join(out)


def _fmt(m: object, digits: int = 1) -> str:
    if m is None:
        return "—"
    mean, lo, hi = (getattr(m, k) for k in ("mean", "lo", "hi"))
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _mean(m: MeanCI | None, digits: int) -> str:
    return "—" if m is None else f"{round(m.mean, digits) + 0.0:.{digits}f}"  # no "-0.000"


def print_kind_tables(rows: Sequence[KindRow], console: Console | None = None) -> None:
    """Print one ranked table per family of the switching/schedule kinds.

    Laid out for an 80-column terminal like the inspection table: the score's interval under it,
    the other metrics as means (report.html has every interval), policy names never cut.
    """
    con = console or Console(width=None if sys.stdout.isatty() else 140, markup=False)
    every = rows
    for family in sorted({r.family for r in every}):
        rows = sorted(
            (r for r in every if r.family == family),
            key=lambda r: -(r.score.mean if r.score else float("-inf")),
        )
        kind = rows[0].kind
        switching = kind == "switching"
        table = terminal_table(
            Text(f"family {family} ({kind}) — score: 100 = oracle, 0 = random"),
            caption=(
                "opt.: optimal · switch acc.: switch accuracy · thrash: thrashes per trial\n"
                "compl.: completion"
                if switching
                else "opt.: optimal · starv.: starvation rate\n"
                "missed m/h/w: obligations missed per trial (minutes, hours, week)"
            ),
            caption_justify="left",
        )
        table.add_column("policy", overflow="fold", min_width=widest([r.policy for r in rows]))
        table.add_column("score\n[95% CI]", justify="right")
        extra = (
            ("switch\nacc.", "thrash", "compl.")
            if switching
            else ("starv.", "horizon\nbias", "missed\nm/h/w")
        )
        for col in ("regret", "opt.", *extra):
            table.add_column(col, justify="right")
        for r in rows:
            opt = f"{r.optimal.p:.2f}" if r.optimal.p is not None else "—"
            if switching:
                comp = r.completion.p if r.completion is not None else None
                cells = (
                    _mean(r.switch_accuracy, 2),
                    _mean(r.thrashes, 2),
                    f"{comp:.2f}" if comp is not None else "—",
                )
            else:
                cells = (
                    _mean(r.starvation_rate, 2),
                    _mean(r.horizon_bias, 2),
                    "/".join(f"{r.missed.get(k, 0):.2f}" for k in ("minutes", "hours", "week")),
                )
            score = _fmt(r.score).replace(" [", "\n[", 1)
            table.add_row(Text(r.policy), score, _mean(r.regret, 3), opt, *cells)
        con.print()
        con.print(table)
