from __future__ import annotations

import numpy as np
import pytest

from heedful.bench.policy import Observation, get_policy, policy_names
from heedful.bench.worlds.families import generate_family

NAMES = [
    "voc",
    "voc-model",
    "voc-no-staleness",
    "voc-no-authority",
    "voc-no-switch-cost",
    "staleness-only",
    "goal-only",
    "risk-only",
]


def _run(name: str, family: str, index: int, *, static: bool) -> tuple[list[str], int, list[str]]:
    scenario = generate_family(family, index + 1, 3)[index]
    view = scenario.view
    policy = get_policy(name)
    policy.reset(view, np.random.default_rng(0))
    history: list[Observation] = []
    while len(history) <= view.budget + 1:
        sid = policy.next(history)
        if sid is None:
            break
        src = view.source(sid)
        if static:
            history.append(Observation(sid, withheld=True))
        else:
            domain_first = {v: view.variables[v].domain[0] for v in src.reports}
            history.append(Observation(sid, domain_first))
    return [o.source_id for o in history], view.budget, list(view.source_ids)


def test_every_controller_policy_is_registered() -> None:
    assert set(NAMES) <= set(policy_names())


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("static", [True, False])
def test_controller_policies_stay_within_budget_without_repeats(name: str, static: bool) -> None:
    for family in ("G", "B"):
        chosen, budget, ids = _run(name, family, 1, static=static)
        assert len(chosen) <= budget
        assert len(set(chosen)) == len(chosen)
        assert set(chosen) <= set(ids)


def test_voc_reads_the_live_instrument_rather_than_the_summary_in_family_b() -> None:
    scenario = generate_family("B", 1, 5)[0]
    view = scenario.view
    policy = get_policy("voc")
    policy.reset(view, np.random.default_rng(0))
    first = view.source(policy.next([]) or "")
    relevant = [
        s for s in view.sources if s.reports and set(s.reports) & {b.variable for b in view.beliefs}
    ]
    assert first.authority == max(s.authority for s in relevant)


def test_voc_never_inspects_a_source_that_reports_nothing() -> None:
    for i in range(5):
        chosen, _, _ = _run("voc", "G", i, static=True)
        view = generate_family("G", i + 1, 3)[i].view
        assert all(view.source(s).reports for s in chosen)


@pytest.mark.parametrize("name", ["voc", "voc-model"])
def test_controller_policies_do_not_depend_on_the_rng(name: str) -> None:
    view = generate_family("G", 1, 4)[0].view.model_copy(update={"budget": 12})

    def choices(seed: int) -> list[str]:
        policy = get_policy(name)
        policy.reset(view, np.random.default_rng(seed))
        history: list[Observation] = []
        while (sid := policy.next(history)) is not None and len(history) < 12:
            history.append(Observation(sid, withheld=True))
        return [o.source_id for o in history]

    assert choices(0) == choices(12345)
