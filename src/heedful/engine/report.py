"""Rich tables for the engine's survey and cycle responses (used by ``heedful engine``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

#: Below this many columns the cycle table lists reasons under the table, not in a column.
NARROW = 110


def survey_table(response: Mapping[str, Any]) -> Table:
    """The attention map as a table, best first (the VOC column appears under ``voc`` triage)."""
    voc = response["triage"] == "voc"
    # Light rules and no outer padding: at 80 columns (nine columns under voc triage) the goal
    # keeps room for its words instead of folding a few letters per line.
    table = Table(
        title=f"Attention map (autonomy {response['autonomy_level']}, triage {response['triage']})",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
    )
    table.add_column("#", justify="right")
    table.add_column("goal", ratio=1, overflow="fold", min_width=12)
    table.add_column("mode", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    if voc:
        table.add_column("voc", justify="right", no_wrap=True)
    table.add_column("coverage", no_wrap=True)
    table.add_column("κ", justify="right", no_wrap=True)
    table.add_column("urgency", justify="right", no_wrap=True)
    table.add_column("surprise", justify="right", no_wrap=True)
    for rank, item in enumerate(response["attention_items"], start=1):
        row: list[str | Text] = [
            str(rank),
            Text(item["goal_title"]),  # user text: never read as Rich markup
            item["dispatch_mode"],
            f"{item['attention_score']:.3f}",
        ]
        if voc:
            row.append(f"{item['voc']:.3f}")
        row += [
            f"{item['coverage_score']:.2f} {item['coverage_decision']}",
            str(item["max_kappa"]),
            f"{item['urgency']:.2f}",
            f"{item['surprise']:.2f}",
        ]
        table.add_row(*row)
    return table


def _arrow(before: Any, after: Any, fmt: str) -> str:
    if after is None:
        return format(before, fmt)
    return f"{format(before, fmt)} → {format(after, fmt)}"


def cycle_table(response: Mapping[str, Any], width: int | None = None) -> RenderableType:
    """The dispatches of one cycle as a table.

    Args:
        response: A cycle response (``Engine.run_cycle``).
        width: Columns available; below :data:`NARROW` the duration moves to the caption and
            each dispatch's reason is printed under the table on its own line (an 80-column
            terminal would otherwise fold reasons a word per line).
    """
    used = response["budget_used"]
    narrow = width is not None and width < NARROW
    results = Counter(str(d["result"]) for d in response["dispatches"])
    outcome = ", ".join(f"{n} {result}" for result, n in sorted(results.items()))
    title = (
        f"Cycle {response['cycle_id']} ({response['trigger']}, autonomy "
        f"{response['autonomy_level']}): {response['items_surveyed']} item(s) surveyed, "
        + (outcome or "none dispatched")
        + (" — TIMED OUT" if response["timed_out"] else "")
    )
    caption = (
        f"budget used: items {used['items']}, explore calls {used['explore_calls']}, "
        f"deliberations {used['deliberation_sccs']}, actions {used['action_dispatches']}"
    )
    if narrow:
        caption += f"; {response['duration_ms']:.0f} ms"
    table = Table(title=title, caption=caption)
    table.add_column("goal", ratio=1, overflow="fold")
    for name in ("mode", "result", "coverage", "κ") + (() if narrow else ("ms",)):
        table.add_column(name, no_wrap=True)
    if not narrow:
        table.add_column("reason", ratio=1, overflow="fold")
    for d in response["dispatches"]:
        row: list[str | Text] = [
            Text(d["goal_title"]),
            d["mode"],
            d["result"],
            _arrow(d["coverage_before"], d["coverage_after"], ".2f"),
            _arrow(d["kappa_before"], d["kappa_after"], "d"),
        ]
        if not narrow:
            row += [f"{d['duration_ms']:.1f}", Text(d["reason"])]
        table.add_row(*row)
    if not narrow:
        return table
    reasons = Table.grid(padding=(0, 1))
    reasons.add_column(max_width=32)  # a longer title wraps onto the next line, never cut
    reasons.add_column(ratio=1, overflow="fold")
    for d in response["dispatches"]:
        if d["reason"]:
            reasons.add_row(Text(f"  {d['goal_title']}:"), Text(d["reason"]))
    return Group(table, reasons) if reasons.row_count else table
