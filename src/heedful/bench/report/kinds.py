"""The families of every kind but inspection in the report (D, J, …): one table per family.

The rows are the other kinds' rows of ``aggregates`` (``Aggregates.kind_rows()``); each table has
the columns every such row shares (score, regret, optimal) and the kind's own, as its module says
(``table`` of :class:`heedful.bench.kinds.ScenarioKindSpec`). :func:`print_kind_tables` draws
them in the terminal, :func:`kinds_html` in report.html.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from html import escape

from rich.console import Console
from rich.text import Text

from heedful.bench.kinds import KindTable, ci_text, get_kind, mean_text, share_ci_text
from heedful.bench.report.layout import SCROLL_CLASS, num_td, terminal_table, widest
from heedful.bench.results.kinds import KindPairedRow, KindRow

__all__ = ["kinds_html", "print_kind_tables"]


def _table(kind: str) -> KindTable:
    table = get_kind(kind).table
    return table if table is not None else KindTable(caption="opt.: optimal", columns=())


def kinds_html(every: Sequence[KindRow], paired: Sequence[KindPairedRow]) -> str:
    """HTML tables (ranked by score) and the paired differences against ``voc``, per family."""
    out: list[str] = []
    for family in sorted({r.family for r in every}):
        rows = sorted(
            (r for r in every if r.family == family),
            key=lambda r: -(r.score.mean if r.score else float("-inf")),
        )
        kind = rows[0].kind
        columns = _table(kind).columns
        extra = [c.html for c in columns]
        out.append(
            f"<h2>Family {escape(family)} ({escape(kind)})</h2>"
            f"<div class='{SCROLL_CLASS}'><table><tr>"
        )
        out.append("<th class='l'>policy</th><th>score [95% CI]</th><th>regret</th>")
        out.append("<th>optimal</th>" + "".join(f"<th>{escape(c)}</th>" for c in extra))
        out.append("<th>failures</th></tr>")
        for r in rows:
            fails = ", ".join(f"{k}: {v}" for k, v in r.failures.items()) or "—"
            tds = "".join(num_td((c.html_cell or c.cell)(r)) for c in columns)
            out.append(
                f"<tr><td class='l'>{escape(r.policy)}</td>{num_td(ci_text(r.score))}"
                f"{num_td(ci_text(r.regret, 3))}{num_td(share_ci_text(r.optimal))}{tds}"
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


def print_kind_tables(rows: Sequence[KindRow], console: Console | None = None) -> None:
    """Print one ranked table per family of the kinds other than inspection.

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
        spec = _table(kind)
        table = terminal_table(
            Text(f"family {family} ({kind}) — score: 100 = oracle, 0 = random"),
            caption=spec.caption,
            caption_justify="left",
        )
        table.add_column("policy", overflow="fold", min_width=widest([r.policy for r in rows]))
        table.add_column("score\n[95% CI]", justify="right")
        for col in ("regret", "opt.", *(c.terminal for c in spec.columns)):
            table.add_column(col, justify="right")
        for r in rows:
            opt = f"{r.optimal.p:.2f}" if r.optimal.p is not None else "—"
            cells = [c.cell(r) for c in spec.columns]
            score = ci_text(r.score).replace(" [", "\n[", 1)
            table.add_row(Text(r.policy), score, mean_text(r.regret, 3), opt, *cells)
        con.print()
        con.print(table)
