"""Report sections for the failure split and the document 000 §17 diagnostics (report.html)."""

from __future__ import annotations

from html import escape

from heedful.bench.report.layout import SCROLL_CLASS, breakable, num_td
from heedful.bench.results import ALL_FAMILIES, AggregateRow, Results, Stage
from heedful.bench.stats import MeanCI, Proportion

__all__ = ["diagnostics_html", "failure_split_html"]

_STAGES = [s.value for s in Stage]


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _mean(m: MeanCI | None, digits: int = 2) -> str:
    if m is None:
        return "—"
    return f"{m.mean:.{digits}f} [{m.lo:.{digits}f}, {m.hi:.{digits}f}]"


def _share(p: Proportion | None) -> str:
    if p is None or p.p is None:
        return "—"
    return f"{100 * p.p:.0f}% [{100 * p.lo:.0f}, {100 * p.hi:.0f}]"


def _rows(results: Results) -> list[AggregateRow]:
    rows = [r for r in results.aggregates.inspection_rows() if r.family == ALL_FAMILIES]
    return sorted(rows, key=lambda r: -(r.score.mean if r.score else float("-inf")))


def failure_split_html(results: Results) -> str:
    """The first failing stage per policy (document 000 §13), then the primary codes."""
    rows = _rows(results)
    codes = sorted({c for r in rows for c in r.failures})
    out = [
        "<h2>Failure split (first failing stage, document 000 §13, §18)</h2>",
        "<p class='note'>Stages in order: initiation → selection → retrieval → evidence → "
        "reasoning; the first failure wins. Programmatic policies (decided by the runner) pass "
        "the evidence and reasoning stages <b>by construction</b>: the runner acts "
        "Bayes-optimally on what they read. Only agents that decide can fail them. "
        f"Definitions: docs/metrics.md.</p><div class='{SCROLL_CLASS}'><table><tr>"
        "<th class='l'>policy</th><th>decides</th>"
        "<th>trials</th>",
    ]
    out += [f"<th>{_e(s)}</th>" for s in _STAGES]
    out.append("<th>passed</th></tr>")
    for r in rows:
        failed = sum(r.stages.values())
        cells = "".join(f"<td>{r.stages.get(s, 0)}</td>" for s in _STAGES)
        out.append(
            f"<tr><td class='l'>{_e(r.policy)}</td><td>{_e(r.decided_by)}</td>"
            f"<td>{r.n_trials}</td>{cells}<td>{r.n_trials - failed}</td></tr>"
        )
    out.append("</table></div>")
    if codes:
        out.append(
            "<p class='note'>Primary code of each failed trial (Appendix B):</p>"
            f"<div class='{SCROLL_CLASS}'><table>"
        )
        out.append(
            "<tr><th class='l'>policy</th>" + "".join(f"<th>{breakable(c)}</th>" for c in codes)
        )
        out.append("</tr>")
        for r in rows:
            cells = "".join(f"<td>{r.failures.get(c, 0)}</td>" for c in codes)
            out.append(f"<tr><td class='l'>{_e(r.policy)}</td>{cells}</tr>")
        out.append("</table></div>")
    return "\n".join(out)


def diagnostics_html(results: Results) -> str:
    """Every document 000 §17 diagnostic per policy, with its 95% interval."""
    rows = _rows(results)
    heads = [
        "utility / compute",
        "distractor share",
        "first critical at",
        "precision",
        "critical recall",
        "overinspection",
        "underinspection",
        "stale-belief reuse",
        "candidate recall",
        "selected | generated",
        "evidence use",
        "reasoning | evidence",
    ]
    out = [
        "<h2>Diagnostics (document 000 §17, §18)</h2>",
        "<p class='note'>Means with 95% cluster-bootstrap intervals, shares with clustered "
        "Wilson intervals; — where a metric does not apply (candidate recall: controller "
        "policies; evidence and reasoning: agents).</p>"
        f"<div class='{SCROLL_CLASS}'><table><tr><th class='l'>policy</th>",
    ]
    out += [f"<th>{_e(h)}</th>" for h in heads]
    out.append("</tr>")
    for r in rows:
        cells = [
            _mean(r.utility_per_compute_ci),
            _mean(r.distractor_ci),
            _mean(r.first_critical_at, 1),
            _mean(r.precision),
            _mean(r.critical_recall),
            _share(r.overinspection),
            _share(r.underinspection),
            _share(r.stale_belief_reuse),
            _mean(r.candidate_recall),
            _mean(r.selected_given_generated),
            _share(r.evidence_utilisation),
            _share(r.reasoning_given_evidence),
        ]
        out.append(
            f"<tr><td class='l'>{_e(r.policy)}</td>" + "".join(num_td(c) for c in cells) + "</tr>"
        )
    out.append("</table></div>")
    return "\n".join(out)
