"""The upper-bound row of document 000 §21: "forced authoritative read (upper-bound diagnostic)".

Evaluator side (it reads the truth through :mod:`heedful.decision`). Per scenario, the
*authoritative reads* are, for each decision variable, the source of highest visible authority
reporting it (listed or hidden; ties go to the cheaper, then the earlier). The bound is the value
of the best static set within the budget when those reads come **free and outside the budget**
(:func:`heedful.decision.static.forced_read_bound`): free information never lowers the gross value,
so the bound is at least ``V*`` — above the oracle and every policy by construction, and the gap
to the oracle is what enforcement of the authoritative reads could add on top of optimal attention.
Its score is ``100·(bound − U_random)/(V* − U_random)`` (≥ 100 on every informative scenario).
"""

from __future__ import annotations

from collections.abc import Sequence

from heedful import decision
from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.decision.static import forced_read_bound
from heedful.model import Scenario

__all__ = ["authoritative_reads", "forced_read_scores"]


def authoritative_reads(scenario: Scenario) -> list[str]:
    """The most authoritative source of each decision variable (by visible authority)."""
    decisive = {v for a in scenario.view.actions.values() for rule in a.utility for v in rule.when}
    sources = list(scenario.sources)
    out: list[str] = []
    for var in sorted(decisive):
        reporting = [(i, s) for i, s in enumerate(sources) if var in s.reports]
        if not reporting:
            continue
        _, best = min(reporting, key=lambda t: (-t[1].authority, t[1].cost.scalar(), t[0]))
        if best.id not in out:
            out.append(best.id)
    return out


def forced_read_scores(
    scenarios: Sequence[Scenario], config: BenchConfig = DEFAULT_CONFIG
) -> dict[str, float]:
    """Scenario id → the forced-read bound's score (uninformative scenarios left out)."""
    out: dict[str, float] = {}
    for sc in scenarios:
        problem = decision.compile_problem(sc.view, sc.truth)
        st = decision.static_oracle(problem, sc.view.budget)
        gap = st.v_star - st.u_random
        if gap < config.uninformative_gap:
            continue
        forced = [problem.source_index(s) for s in authoritative_reads(sc)]
        bound = forced_read_bound(problem, sc.view.budget, forced)
        out[sc.id] = 100.0 * (bound - st.u_random) / gap
    return out
