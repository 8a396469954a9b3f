"""Rich tables for the engine's survey and cycle responses (used by ``heedful engine``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from rich.table import Table


def survey_table(response: Mapping[str, Any]) -> Table:
    """The attention map as a table, best first (the VOC column appears under ``voc`` triage)."""
    voc = response["triage"] == "voc"
    table = Table(
        title=f"Attention map (autonomy {response['autonomy_level']}, triage {response['triage']})"
    )
    table.add_column("#", justify="right")
    table.add_column("goal", ratio=1, overflow="fold")
    table.add_column("mode", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    if voc:
        table.add_column("voc", justify="right", no_wrap=True)
    table.add_column("coverage", no_wrap=True)
    table.add_column("κ", justify="right", no_wrap=True)
    table.add_column("urgency", justify="right", no_wrap=True)
    table.add_column("surprise", justify="right", no_wrap=True)
    for rank, item in enumerate(response["attention_items"], start=1):
        row = [
            str(rank),
            item["goal_title"],
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


def cycle_table(response: Mapping[str, Any]) -> Table:
    """The dispatches of one cycle as a table."""
    used = response["budget_used"]
    results = Counter(str(d["result"]) for d in response["dispatches"])
    outcome = ", ".join(f"{n} {result}" for result, n in sorted(results.items()))
    title = (
        f"Cycle {response['cycle_id']} ({response['trigger']}, autonomy "
        f"{response['autonomy_level']}): {response['items_surveyed']} item(s) surveyed, "
        + (outcome or "none dispatched")
        + (" — TIMED OUT" if response["timed_out"] else "")
    )
    table = Table(
        title=title,
        caption=(
            f"budget used: items {used['items']}, explore calls {used['explore_calls']}, "
            f"deliberations {used['deliberation_sccs']}, actions {used['action_dispatches']}"
        ),
    )
    table.add_column("goal", ratio=1, overflow="fold")
    for name in ("mode", "result", "coverage", "κ", "ms"):
        table.add_column(name, no_wrap=True)
    table.add_column("reason", ratio=1, overflow="fold")
    for d in response["dispatches"]:
        table.add_row(
            d["goal_title"],
            d["mode"],
            d["result"],
            _arrow(d["coverage_before"], d["coverage_after"], ".2f"),
            _arrow(d["kappa_before"], d["kappa_after"], "d"),
            f"{d['duration_ms']:.1f}",
            d["reason"],
        )
    return table
