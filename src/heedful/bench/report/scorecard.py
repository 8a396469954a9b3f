"""The §29 scorecard as a terminal table or markdown (``heedful bench scorecard``)."""

from __future__ import annotations

from heedful.bench.score.scorecard import (
    CANDIDATES,
    EVIDENCE,
    RECALL,
    RESCUE,
    SPONTANEOUS,
    Cell,
    Metric,
    Scorecard,
    ScoreLine,
)

#: Metrics that are shares: printed as percentages, their Δ in percentage points.
_SHARES = {SPONTANEOUS.name, RECALL.name, CANDIDATES.name, EVIDENCE.name, RESCUE.name}
HEADER = ("Metric", "Baseline", "New", "Δ", "95% CI of Δ", "pairs", "better")


def _number(metric: Metric, value: float, *, signed: bool = False) -> str:
    sign = "+" if signed else ""
    if metric.name in _SHARES:
        return f"{100 * value:{sign}.1f}" + (" pp" if signed else "%")
    return f"{value:{sign}.3f}"


def _cell(metric: Metric, cell: Cell) -> str:
    return "n/a" if cell.value is None else f"{_number(metric, cell.value)} (n={cell.n})"


def _cells(line: ScoreLine) -> tuple[str, ...]:
    m = line.metric
    delta = "n/a" if line.delta is None else _number(m, line.delta, signed=True)
    if line.lo is None or line.hi is None:
        ci = "—"
    else:
        ci = f"[{_number(m, line.lo, signed=True)}, {_number(m, line.hi, signed=True)}]"
    return (m.name, _cell(m, line.base), _cell(m, line.new), delta, ci, str(line.pairs), m.better)


def _title(card: Scorecard) -> str:
    who = (
        card.base_policy
        if card.base_policy == card.new_policy
        else f"{card.base_policy} → {card.new_policy}"
    )
    fams = ",".join(card.families) if card.families else "every inspection family"
    return f"v1 scorecard (document 000 §29): {who}; {fams}; {card.shared} shared scenarios"


def _notes(card: Scorecard) -> list[str]:
    return [f"{line.metric.name}: {line.note}" for line in card.lines if line.note]


def scorecard_text(card: Scorecard) -> str:
    """The scorecard as an aligned plain-text table, then one line per note."""
    rows = [HEADER, *(_cells(line) for line in card.lines)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    out = [_title(card), ""]
    for n, row in enumerate(rows):
        out.append(
            "  ".join(
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if n == 0:
            out.append("  ".join("─" * w for w in widths))
    notes = _notes(card)
    if notes:
        out += ["", *notes]
    out.append("Δ = new − baseline, paired on shared trials (scenario-cluster bootstrap)")
    return "\n".join(out)


def scorecard_markdown(card: Scorecard) -> str:
    """The scorecard as a markdown table (document 000 §29's layout plus the interval)."""
    out = [f"**{_title(card)}**", "", "| " + " | ".join(HEADER) + " |"]
    out.append("|---|" + "---:|" * (len(HEADER) - 2) + "---|")
    out += ["| " + " | ".join(_cells(line)) + " |" for line in card.lines]
    notes = _notes(card)
    if notes:
        out += ["", *(f"- {n}" for n in notes)]
    return "\n".join(out)
