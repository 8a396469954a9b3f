"""Terminal and markdown tables of a run: the ranked table, the oracle table, the README table.

The ranked table is laid out for an 80-column terminal: score and its CI, regret and the three
rates always; ``trials``, ``unin.`` and ``viol.`` only when they vary or are non-zero (a note
under the table says what was left out); long policy names fold instead of being cut.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console, Group
from rich.measure import Measurement
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from heedful.bench.kinds import get_kind
from heedful.bench.report.agents import agent_tables
from heedful.bench.report.initiation import initiation_tables
from heedful.bench.report.layout import terminal_table
from heedful.bench.results import ALL_FAMILIES, AggregateRow, Results
from heedful.bench.stats import PairedDiff
from heedful.decision import StaticOracleResult

__all__ = [
    "OracleRow",
    "markdown_scores",
    "neighbour_differences",
    "oracle_records",
    "oracle_table",
    "print_oracle",
    "print_tables",
    "ranked_rows",
    "ranked_table",
]

OracleRow = tuple[str, StaticOracleResult, float | None]
"""One scenario's oracle answer: id, static result, optimal adaptive value (if computed)."""

LEGEND = "opt.: optimal set · act.: right action · recall: critical sources read"
#: Under a ranked table with agents: what the decided and protocol-error columns say.
AGENT_LEGEND = (
    "decided: agent trials that ended in an accepted decide · p.err: trials with a protocol "
    "error · ! decided in fewer than half of its trials: its score rates what it read, not a "
    "decision"
)


def decided_cell(row: AggregateRow) -> str:
    """``decided/total`` of an agent row (``!`` when it decided in fewer than half of its
    trials); ``—`` for a row the runner decided."""
    if row.n_decided is None:
        return "—"
    return f"{row.n_decided}/{row.n_agent_trials}" + ("!" if row.rarely_decided else "")


def ranked_rows(results: Results, family: str = ALL_FAMILIES) -> list[AggregateRow]:
    """Rows of one family, best mean score first (policies without a score last)."""
    rows = [r for r in results.aggregates.inspection_rows() if r.family == family]
    return sorted(rows, key=lambda r: -r.score.mean if r.score else math.inf)


def twins(results: Results, family: str = ALL_FAMILIES) -> dict[str, list[str]]:
    """Policies that read the same sources as a better-ranked one in **every** trial of the run
    (issue 36: two rows, one behaviour): ranked representative → the policies folded into it.

    Compared on the trial records (same scenario, trial and mode; the same inspections in the
    same order, the same protocol violation, if any, and the same value), so every score of a
    folded policy is its representative's. Empty for a sealed run (no records) or when no two
    policies agree.
    """
    reads: dict[str, dict[tuple[str, str, int, str], tuple[object, ...]]] = {}
    for t in results.trials:
        if family != ALL_FAMILIES and t.family != family:
            continue
        key = (t.scenario_id, t.family, t.trial, t.mode)
        # The value too: in the adaptive condition an estimated value (one sampled trajectory)
        # and an exact one on the same reads are different numbers, both shown.
        seen = (tuple(t.inspected), t.violation, round(t.value, 12))
        reads.setdefault(t.policy, {})[key] = seen
    out: dict[str, list[str]] = {}
    folded: set[str] = set()
    ranked = [r.policy for r in ranked_rows(results, family) if r.policy in reads]
    for i, rep in enumerate(ranked):
        if rep in folded:
            continue
        for other in ranked[i + 1 :]:
            if other not in folded and reads[other] == reads[rep]:
                out.setdefault(rep, []).append(other)
                folded.add(other)
    return out


#: The mark of a score that is an estimate, not an exact value (issue 36).
ESTIMATE_MARK = "~"
ESTIMATE_NOTE = (
    "~: an estimate, not an exact value — a randomised policy's adaptive value from the "
    "trajectory each trial sampled (the mean over trials, with its 95% CI)"
)


def estimated(results: Results) -> set[str]:
    """Policies with a trial whose value is an estimate (``value_kind`` ``estimate``: a
    randomised policy's adaptive value from one sampled trajectory). Their scores are marked
    :data:`ESTIMATE_MARK` in every table and shown with their interval."""
    return {t.policy for t in results.trials if t.value_kind == "estimate"}


def twin_note(results: Results, family: str = ALL_FAMILIES) -> str:
    """The line under a table that says which rows were folded (:func:`twins`), and on how many
    trials."""
    parts = []
    for rep, others in twins(results, family).items():
        count = sum(
            1
            for t in results.trials
            if t.policy == rep and (family == ALL_FAMILIES or t.family == family)
        )
        parts.append(
            f"{', '.join(others)} read the same sources as {rep} in all {count} trials: one row"
        )
    return "; ".join(parts)


def _label(policy: str, groups: dict[str, list[str]]) -> str:
    return "=".join([policy, *groups.get(policy, [])])


def num(x: float, digits: int) -> str:
    """Fixed-point text without a "-0.000" for values that round to zero."""
    return f"{round(x, digits) + 0.0:.{digits}f}"


def _rate(p: float | None) -> str:
    return f"{100 * p:.0f}%" if p is not None else "—"


def ranked_table(results: Results, family: str = ALL_FAMILIES) -> tuple[Table, str]:
    """The ranked table of one family and the note saying which constant columns it omits."""
    # Folded as in the run as a whole (a pair that agrees on every trial agrees in each family;
    # the same labels in every table).
    groups = twins(results)
    folded = {p for others in groups.values() for p in others}
    rows = [r for r in ranked_rows(results, family) if r.policy not in folded]
    title = "all families" if family == ALL_FAMILIES else f"family {family}"
    table = terminal_table(
        Text(f"heedful benchmark — {title}"),
    )
    trials = sorted({r.n_trials for r in rows})
    show_trials = len(trials) > 1
    show_unin = any(r.n_uninformative for r in rows)
    show_viol = any(r.n_violations for r in rows)
    # In the adaptive condition regret already is the exact adaptive regret (SPEC §3), so the
    # ad.regret column only earns its width (at 80 columns it folds policy names) if it differs.
    adaptive = results.manifest.condition == "adaptive" and any(
        r.adaptive_regret is not None and num(r.adaptive_regret.mean, 3) != num(r.regret.mean, 3)
        for r in rows
    )
    same_ad = results.manifest.condition == "adaptive" and not adaptive
    agents = any(r.n_decided is not None for r in rows)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("policy", overflow="fold", min_width=10)
    for col, shown in [
        ("score", True),
        ("95% CI", True),
        ("regret", True),
        ("opt.", True),
        ("act.", True),
        ("recall", True),
        ("decided", agents),
        ("p.err", agents),
        ("trials", show_trials),
        ("unin.", show_unin),
        ("viol.", show_viol),
        ("ad.regret", adaptive),
    ]:
        if shown:
            table.add_column(col, justify="right", no_wrap=True)
    marked = estimated(results)
    for i, r in enumerate(rows, start=1):
        s = r.score
        mark = ESTIMATE_MARK if r.policy in marked else ""
        cells = [
            str(i),
            _label(r.policy, groups),
            mark + num(s.mean, 1) if s else "—",
            f"[{num(s.lo, 1)}, {num(s.hi, 1)}]" if s else "",
            num(r.regret.mean, 3),
            _rate(r.optimal.p),
            _rate(r.action_correct.p),
            f"{r.critical_recall.mean:.2f}" if r.critical_recall else "—",
        ]
        if agents:
            errors = r.n_protocol_errors
            cells += [decided_cell(r), "—" if errors is None else str(errors)]
        cells += [str(r.n_trials)] if show_trials else []
        cells += [str(r.n_uninformative)] if show_unin else []
        cells += [str(r.n_violations)] if show_viol else []
        if adaptive:
            cells.append(num(r.adaptive_regret.mean, 3) if r.adaptive_regret else "—")
        table.add_row(*cells)
    omitted = []
    if not show_trials and trials:
        omitted.append(f"{trials[0]} trials per policy")
    if not show_unin:
        omitted.append("no uninformative trials")
    if not show_viol:
        omitted.append("no budget violations")
    if same_ad:
        omitted.append("regret is the exact adaptive regret")
    # Folded rows (two policies, one behaviour) get a line of their own under the others, and
    # so does the estimate mark when a row carries it.
    note = twin_note(results).replace("; ", "\n")
    est = ESTIMATE_NOTE if any(r.policy in marked for r in rows) else ""
    return table, "\n".join(x for x in ("; ".join(omitted), note, est) if x)


def print_tables(results: Results, console: Console | None = None) -> None:
    """Print the ranked table over all families, then one per family."""
    if console is None:
        # No markup: family labels and scenario text come from user files.
        console = Console(markup=False) if sys.stdout.isatty() else Console(width=140, markup=False)
    m = results.manifest
    sealed = ", sealed hold-out (aggregates only)" if results.sealed else ""
    console.print(
        Text(
            f"{m.n_scenarios} scenarios × {m.trials} trials, {m.condition} condition, "
            f"seed {m.seed}{sealed}",
            style="bold",
        )
    )
    families = sorted({r.family for r in results.aggregates.inspection_rows()} - {ALL_FAMILIES})
    _print_ranked(console, results, ALL_FAMILIES)
    neighbours = neighbour_differences(results)
    if neighbours:
        console.print(Text("paired score differences between neighbours in the ranking", "bold"))
        for a, b, d in neighbours:
            if d.a_better == d.b_better == 0:
                sep = ", identical"
            else:
                sep = "" if d.lo > 0 else ", not separated"
            line = (
                f"{a} − {b}: {num(d.mean, 1)} [{num(d.lo, 1)}, {num(d.hi, 1)}], {d.n} trials{sep}"
            )
            # Indented as a block, so a line that wraps at 80 columns stays under its first part.
            console.print(Padding(Text(line), (0, 0, 0, 2)))
    if len(families) > 1:
        for fam in families:
            console.print()
            _print_ranked(console, results, fam)
    for extra in [*initiation_tables(results), *agent_tables(results)]:
        console.print()
        console.print(extra)


def _print_ranked(console: Console, results: Results, family: str) -> None:
    table, omitted = ranked_table(results, family)
    console.print(table)
    console.print(Text(LEGEND, "dim"))
    if any(r.n_decided is not None for r in ranked_rows(results, family)):
        console.print(Text(AGENT_LEGEND, "dim"))
    if omitted:
        console.print(Text(omitted, "dim"))


def neighbour_differences(
    results: Results, family: str = ALL_FAMILIES
) -> list[tuple[str, str, PairedDiff]]:
    """Paired score differences ``rank i − rank i+1`` (CI above 0: the ranks are separated);
    a policy folded into a twin (:func:`twins`) has no rank of its own."""
    folded = {p for others in twins(results).values() for p in others}
    rows = [
        r for r in ranked_rows(results, family) if r.score is not None and r.policy not in folded
    ]
    paired = {
        (p.policy_a, p.policy_b): p
        for p in results.aggregates.inspection_paired()
        if p.family == family
    }
    out = []
    for upper, lower in itertools.pairwise(rows):
        a, b = upper.policy, lower.policy
        if (a, b) in paired and paired[(a, b)].score is not None:
            d = paired[(a, b)].score
        elif (b, a) in paired and paired[(b, a)].score is not None:
            f = paired[(b, a)].score
            assert f is not None
            d = f.reversed()
        else:
            continue
        assert d is not None
        out.append((a, b, d))
    return out


def markdown_scores(results: Results) -> str:
    """The README's score table: one row per policy (ranked over all families), one column
    per family, mean attention scores; lines fit 80 columns for up to four families. Policies
    that read the same sources in every trial share one row (:func:`twins`); an estimated score
    is marked :data:`ESTIMATE_MARK` (:func:`estimated`), and a line under the table says so."""
    present = {r.family for r in results.aggregates.inspection_rows()} - {ALL_FAMILIES}
    # The run's order (G before B in the default suite); sorted when a sealed run has none.
    families = [f for f in dict.fromkeys(s.family for s in results.scenarios) if f in present]
    families += sorted(present - set(families))
    scores = {
        (r.policy, r.family): r.score.mean
        for r in results.aggregates.inspection_rows()
        if r.score is not None
    }
    lines = [
        "| policy | " + " | ".join(families) + " |",
        "|---|" + "---:|" * len(families),
    ]
    groups = twins(results)
    folded = {p for others in groups.values() for p in others}
    marked = estimated(results)
    for r in ranked_rows(results):
        if r.policy in folded:
            continue
        mark = ESTIMATE_MARK if r.policy in marked else ""
        cells = [
            mark + num(scores[(r.policy, f)], 1).replace("-", "−")
            if (r.policy, f) in scores
            else "—"
            for f in families
        ]
        label = " = ".join(f"`{p}`" for p in [r.policy, *groups.get(r.policy, [])])
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    if marked - folded:
        lines += ["", ESTIMATE_NOTE]
    return "\n".join(lines)


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
        shown = "\n".join(_sets_shown(r))
        cells: list[str | Text] = [  # ids come from user files: Text, never markup
            Text(scenario_id),
            str(r.budget),
            f"{r.v_star:.4f}",
            Text(shown),
            f"{r.u_random:.4f}",
            f"{r.v_empty:.4f}",
            Text(", ".join(r.critical) or "none"),
        ]
        if v_ad is not None:
            cells.append(f"{v_ad:.4f}")
        table.add_row(*cells)
    return table


def _sets_shown(r: StaticOracleResult) -> list[str]:
    sets = ["{" + (", ".join(s) or "∅") + "}" for s in r.optimal_sets]
    return sets[:3] + ([f"(+{len(sets) - 3} more)"] if len(sets) > 3 else [])


def oracle_records(rows: Sequence[OracleRow]) -> Group:
    """The oracle's answers one scenario per block, for a terminal too narrow for
    :func:`oracle_table` (its eight columns need about 100 at the worked example's ids)."""
    parts: list[Text | Padding] = [Text("Exact static oracle (SPEC §3)", style="italic"), Text()]
    for scenario_id, r, v_ad in rows:
        values = f"V* {r.v_star:.4f} · U_random {r.u_random:.4f} · V(∅) {r.v_empty:.4f}"
        if v_ad is not None:
            values += f" · V adaptive {v_ad:.4f}"
        lines = [
            values,
            "optimal sets: " + " ".join(_sets_shown(r)),
            "critical: " + (", ".join(r.critical) or "none"),
        ]
        if len(parts) > 2:
            parts.append(Text())
        parts.append(Text(f"{scenario_id}  (budget {r.budget})", style="bold"))
        parts += [Padding(Text(line), (0, 0, 0, 2)) for line in lines]
    return Group(*parts)


def kind_oracle_records(records: Sequence[dict[str, Any]]) -> Group:
    """The exact oracles of scenarios of kinds other than inspection (``heedful bench oracle`` on
    D/J files), one block per scenario: V*, U_random and the optimal answers (the kind's
    ``oracle_lines``)."""
    parts: list[Text | Padding] = [Text("Exact oracles of D/J scenarios", style="italic")]
    for rec in records:
        parts.append(Text())
        parts.append(Text(f"{rec['id']}  ({rec['kind']})", style="bold"))
        lines = [f"V* {rec['v_star']:.4f} · U_random {rec['u_random']:.4f}"]
        lines += get_kind(rec["kind"]).oracle_lines(rec)
        parts += [Padding(Text(line), (0, 0, 0, 2)) for line in lines]
    return Group(*parts)


def print_oracle(rows: Sequence[OracleRow], console: Console, adaptive: bool = False) -> None:
    """Print the oracle's answers: the table when it fits the console whole, else the blocks
    of :func:`oracle_records` (the table would fold ids a few letters per line)."""
    table = oracle_table(rows, adaptive=adaptive)
    natural = Measurement.get(console, console.options.update_width(10_000), table).maximum
    fits = natural <= console.width
    console.print(table if fits else oracle_records(rows))
