"""The agents-under-test section of the reports (docs/llm.md): failure split, modes, rescue,
lift and usage. Rendered as Rich tables and as HTML (with the split as a stacked bar); nothing is
shown for a run without agents."""

from __future__ import annotations

import html

from rich.table import Table

from heedful.bench.report.layout import (
    SCROLL_CLASS,
    num_td,
    scroll,
    svg_open,
    terminal_table,
    widest,
)
from heedful.bench.results import ALL_FAMILIES, Results
from heedful.bench.results.agents import STAGES, AgentAggregates, ModeRow
from heedful.bench.stats import MeanCI, PairedDiff, Proportion

__all__ = ["agent_html", "agent_tables"]

#: Colour of each bucket of the split (stage order; pass last).
_COLOURS = {
    "initiation": "#b2182b",
    "selection": "#ef8a62",
    "retrieval": "#fddbc7",
    "evidence": "#d1e5f0",
    "reasoning": "#67a9cf",
    "endpoint": "#999999",
    "pass": "#1b7837",
}
MODE_HEADERS = (
    "policy",
    "mode",
    "score",
    "decided",
    "decision accuracy",
    "net utility",
    "protocol errors",
    "trials",
)
RESCUE_HEADERS = ("policy", "rescue rate", "attention correct", "production correct", "pairs")
LIFT_HEADERS = (
    "advised − base",
    "mode",
    "score",
    "decision accuracy",
    "authoritative read",
    "pairs",
)
USAGE_HEADERS = ("policy", "calls", "cached", "prompt tok", "completion tok", "errors", "latency s")

#: Terminal headers: short, so every table fits 80 columns (intervals go under their means).
_SHORT = {
    "modes": ("policy", "mode", "score", "decided", "accuracy", "net utility", "p.err"),
    "rescue": ("policy", "rescue rate", "attn right", "prod right", "pairs"),
    "lift": ("advised − base", "mode", "score", "accuracy", "auth. read", "pairs"),
    "usage": ("policy", "calls", "cached", "prompt tok", "compl. tok", "errors", "latency s"),
}
#: Terminal header of each failure-split stage.
_STAGE_SHORT = {
    "initiation": "init.",
    "selection": "sel.",
    "retrieval": "retr.",
    "evidence": "evid.",
    "reasoning": "reas.",
    "endpoint": "endp.",
    "pass": "pass",
}


def _pct(p: Proportion, sep: str = " ") -> str:
    return "—" if p.p is None else f"{100 * p.p:.0f}%{sep}[{100 * p.lo:.0f}, {100 * p.hi:.0f}]"


def _mean(m: MeanCI | None, digits: int, sep: str = " ") -> str:
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f}{sep}[{m.lo:.{digits}f}, {m.hi:.{digits}f}]"


def _diff(d: PairedDiff | None, digits: int, sep: str = " ") -> str:
    if d is None:
        return "—"
    return f"{d.mean:+.{digits}f}{sep}[{d.lo:+.{digits}f}, {d.hi:+.{digits}f}]"


def _rows(agents: AgentAggregates, sep: str = " ") -> dict[str, list[list[str]]]:
    """Cells of each table; ``sep`` goes between a value and its interval (and in lift names)."""
    modes = [r for r in agents.modes if r.family == ALL_FAMILIES]
    return {
        "modes": [
            [
                r.policy,
                r.mode,
                _mean(r.score, 1, sep),
                f"{r.decided}/{r.n_trials}" + ("!" if 2 * r.decided < r.n_trials else ""),
                _pct(r.action_correct, sep),
                _mean(r.net_utility, 3, sep),
                str(r.protocol_errors),
                str(r.n_trials),
            ]
            for r in modes
        ],
        "rescue": [
            [
                r.policy,
                _pct(r.rescue, sep),
                _pct(r.attention_correct, sep),
                _pct(r.production_correct, sep),
                str(r.n_pairs),
            ]
            for r in agents.rescue
            if r.family == ALL_FAMILIES
        ],
        "lift": [
            [
                f"{r.advised}{sep}− {r.base}",
                r.mode,
                _diff(r.score, 1, sep),
                _diff(r.action_correct, 2, sep),
                _diff(r.authoritative_rate, 2, sep),
                str(r.n_pairs),
            ]
            for r in agents.lift
            if r.family == ALL_FAMILIES
        ],
        "usage": [
            [
                r.policy,
                str(r.calls),
                str(r.cached_calls),
                str(r.prompt_tokens),
                str(r.completion_tokens),
                str(r.errors),
                "—" if r.mean_latency_s is None else f"{r.mean_latency_s:.3f}",
            ]
            for r in agents.usage
        ],
    }


_TITLES = {
    "modes": ("agents — attention vs production (document 000 Appendix D)", MODE_HEADERS),
    "rescue": (
        "validator rescue rate = P(production right ∧ attention wrong) (§17.3)",
        RESCUE_HEADERS,
    ),
    "lift": ("lift of the controller beside the model (paired)", LIFT_HEADERS),
    "usage": ("model usage", USAGE_HEADERS),
}


def agent_tables(results: Results) -> list[Table]:
    """Rich tables of the agent aggregates (empty for a run without agents).

    Made for an 80-column terminal: short headers (a caption spells out the failure-split
    ones), each interval on the line under its value, names never cut.
    """
    agents = results.aggregates.agents
    if agents is None or not agents.modes:
        return []
    out: list[Table] = []
    for key, rows in _rows(agents, sep="\n").items():
        if not rows:
            continue
        title = _TITLES[key][0]
        t = terminal_table(
            title,
        )
        for i, h in enumerate(_SHORT[key]):
            t.add_column(
                h,
                justify="left" if i == 0 or h == "mode" else "right",
                overflow="fold",
                min_width=widest([cells[i] for cells in rows]),
            )
        for cells in rows:
            # Trials per mode are the failure split's row totals: not repeated in 80 columns.
            t.add_row(*cells[: len(_SHORT[key])])
        out.append(t)
    split = terminal_table(
        "agents — failure split (first failing stage, document 000 §13)",
        caption=" · ".join(
            f"{short} {stage}" for stage, short in _STAGE_SHORT.items() if short != stage
        )
        + " (no answer)",
        caption_justify="left",
    )
    shown = [r for r in agents.modes if r.family == ALL_FAMILIES]
    split.add_column("policy", overflow="fold", min_width=widest([r.policy for r in shown]))
    split.add_column("mode", overflow="fold", min_width=widest([r.mode for r in shown]))
    for stage in STAGES:
        split.add_column(_STAGE_SHORT.get(stage, stage), justify="right")
    for r in shown:
        split.add_row(r.policy, r.mode, *(str(r.split.get(s, 0)) for s in STAGES))
    out.insert(0, split)
    return out


def _stacked_bar(row: ModeRow, width: int = 520) -> str:
    total = max(row.n_trials, 1)
    x = 0.0
    rects = []
    for stage in STAGES:
        n = row.split.get(stage, 0)
        if not n:
            continue
        w = width * n / total
        rects.append(
            f"<rect x='{x:.1f}' y='0' width='{w:.1f}' height='18' fill='{_COLOURS[stage]}'>"
            f"<title>{stage}: {n} of {row.n_trials}</title></rect>"
        )
        x += w
    return f"{svg_open(width, 18, role='img')}{''.join(rects)}</svg>"


def _html_table(headers: tuple[str, ...], rows: list[list[str]]) -> str:
    head = "".join(
        f"<th class='l'>{html.escape(h)}</th>" if i == 0 else f"<th>{html.escape(h)}</th>"
        for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td class='l'>{html.escape(c)}</td>" if i == 0 else num_td(c)
            for i, c in enumerate(cells)
        )
        + "</tr>"
        for cells in rows
    )
    return scroll(f"<table><tr>{head}</tr>{body}</table>")


def agent_html(results: Results) -> str:
    """The HTML section of the agents under test ("" for a run without agents)."""
    agents = results.aggregates.agents
    if agents is None or not agents.modes:
        return ""
    legend = " ".join(
        f"<span style='background:{c};padding:0 .6em'>&nbsp;</span> {html.escape(s)}"
        for s, c in _COLOURS.items()
    )
    parts = [
        "<h2>Agents under test — failure split (document 000 §13)</h2>",
        "<p class='note'>Each bar: the share of an agent's trials by first failing stage "
        "(initiation → selection → retrieval → evidence → reasoning), <i>endpoint</i> when the "
        "model never answered, and <i>pass</i>. Agents choose their own action, so every stage "
        "can fail; programmatic policies keep the runner's Bayes-best action, so their evidence "
        "and reasoning stages pass by construction. Definitions: docs/llm.md, docs/metrics.md."
        f"</p><p class='note'>{legend}</p><div class='{SCROLL_CLASS}'><table>",
    ]
    for r in agents.modes:
        if r.family == ALL_FAMILIES:
            parts.append(
                f"<tr><td class='l'>{html.escape(r.policy)}</td><td class='l'>{r.mode}</td>"
                f"<td class='l'>{_stacked_bar(r)}</td><td>{r.n_trials}</td></tr>"
            )
    parts.append("</table></div>")
    rows = _rows(agents)
    headings = {
        "modes": "Attention vs production score (Appendix D)",
        "rescue": "Validator rescue rate (§17.3)",
        "lift": "Lift of the controller beside the model: advised − plain, paired",
        "usage": "Model usage",
    }
    for key, table_rows in rows.items():
        if table_rows:
            parts.append(f"<h2>{html.escape(headings[key])}</h2>")
            if key == "modes":
                parts.append(
                    "<p class='note'><i>decided</i>: trials that ended in an accepted "
                    "<code>decide</code> (a trial without one has no action: the worst action's "
                    "utility); <i>protocol errors</i>: trials flagged with one (docs/llm.md). "
                    "<b>!</b> marks an agent that decided in fewer than half of its trials: its "
                    "score rates what it read, not a decision.</p>"
                )
            parts.append(_html_table(_TITLES[key][1], table_rows))
    return "\n".join(parts)
