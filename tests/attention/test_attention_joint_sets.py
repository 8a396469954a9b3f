"""Jointly decisive sets (issue 24 item 1): the BMPS-bounded exact set search of the default."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from tests_attention_time import NOW

from heedful.attention import AttentionConfig, Controller, SelectorConfig, Stop
from heedful.attention import model_estimator as me
from heedful.attention.context import DecisionModel
from heedful.attention.model_estimator import ModelEstimator, _VpiSub
from heedful.bench.run.benchmark import run_benchmark
from heedful.decision import DecisionProblem, value, vpi
from heedful.model import load_scenarios
from heedful.model.candidate import Candidate
from heedful.model.scenario import UtilityRule

JOINT = Path(__file__).parents[2] / "examples" / "scenarios" / "jointly_decisive"


def _parity_controller(budget: int, replicas_first: bool, estimator: ModelEstimator | None = None):
    """Act on the parity of three flags; optionally a cheap, noisy replica of each listed first."""
    # No exploration draws: what is tested is the estimator's valuation.
    config = AttentionConfig(selector=SelectorConfig(exploration_rate=0.0))
    ctl = Controller(config=config, clock=lambda: NOW, estimator=estimator)
    flags = ("a", "b", "c")
    if replicas_first:
        for f in flags:
            ctl.register_source(f"replica_{f}", reports=[f], authority=0.75, cost={"tokens": 30})
    for f in flags:
        ctl.register_source(
            f"store_{f}", reports=[f], authority=0.99, cost={"tool_calls": 1}, trusted=True
        )
        ctl.record_belief(f, None, domain=["0", "1"], volatility="immutable")
    even = [
        UtilityRule(when=dict(zip(flags, bits, strict=True)), value=1.0)
        for bits in itertools.product("01", repeat=3)
        if sum(map(int, bits)) % 2 == 0
    ]
    odd = [
        UtilityRule(when=dict(zip(flags, bits, strict=True)), value=1.0)
        for bits in itertools.product("01", repeat=3)
        if sum(map(int, bits)) % 2 == 1
    ]
    ctl.state_decision(
        DecisionModel(
            variables={f: ("0", "1") for f in flags},
            actions={
                "even": (*even, UtilityRule(value=0.0)),
                "odd": (*odd, UtilityRule(value=0.0)),
            },
            cost_weight=0.01,
        )
    )
    ctl.begin_turn(budget=budget)
    return ctl


def _reads(ctl: Controller) -> list[str]:
    read = []
    while isinstance(step := ctl.next(), Candidate):
        read.append(step.target)
        ctl.resolve(step.id, succeeded=True, observations={step.claim_ids[0]: "1"})
    return read


def test_the_default_reads_a_triple_where_every_pair_is_worthless() -> None:
    read = _reads(_parity_controller(budget=3, replicas_first=True))
    assert sorted(read) == ["store_a", "store_b", "store_c"]


def test_with_two_reads_left_no_set_decides_parity_and_it_stops() -> None:
    assert isinstance(_parity_controller(budget=2, replicas_first=False).next(), Stop)


def test_without_the_set_search_the_greedy_plan_follows_the_cheap_replicas() -> None:
    ctl = _parity_controller(budget=3, replicas_first=True, estimator=ModelEstimator(pairs=False))
    read = _reads(ctl)
    assert any(t.startswith("replica_") for t in read), read


def _random_problem(rng: np.random.Generator) -> DecisionProblem:
    sizes = (2, 3, 2)
    n = int(np.prod(sizes))
    prior = rng.dirichlet(np.ones(n))
    utility = rng.normal(size=(3, n))
    return DecisionProblem(
        prior=prior,
        utility=utility,
        likelihoods=(np.ones((1, n)),),
        costs=np.zeros(1),
        cost_weight=0.0,
        source_ids=("none",),
        action_ids=("a0", "a1", "a2"),
        variables=(("x", ("0", "1")), ("y", ("0", "1", "2")), ("z", ("0", "1"))),
    )


def _perfect(problem: DecisionProblem, names: frozenset[str]) -> float:
    """VPI on ``names`` by brute force: group the worlds by those variables' values."""
    assert problem.variables is not None
    idx = [i for i, (n, _) in enumerate(problem.variables) if n in names]
    sizes = [len(d) for _, d in problem.variables]
    coords = np.indices(sizes).reshape(len(sizes), -1)
    groups: dict[tuple[int, ...], list[int]] = {}
    for w in range(coords.shape[1]):
        groups.setdefault(tuple(int(coords[i, w]) for i in idx), []).append(w)
    now = float((problem.utility @ problem.prior).max())
    total = sum(float((problem.utility[:, ws] @ problem.prior[ws]).max()) for ws in groups.values())
    return max(total - now, 0.0)


@pytest.mark.parametrize("seed", range(5))
def test_vpi_sub_is_the_value_of_perfect_information_on_those_variables(seed: int) -> None:
    problem = _random_problem(np.random.default_rng(seed))
    bound = _VpiSub(problem)
    assert bound(frozenset()) == 0.0
    assert bound(frozenset({"x", "y", "z"})) == pytest.approx(vpi(problem), abs=1e-12)
    for k in (1, 2):
        for names in itertools.combinations("xyz", k):
            got = bound(frozenset(names))
            assert got == pytest.approx(_perfect(problem, frozenset(names)), abs=1e-12)
            assert got <= vpi(problem) + 1e-12


def test_the_vpi_bound_prunes_nothing_the_exhaustive_search_would_keep(monkeypatch) -> None:
    """The same credited values with the bound disabled (every set valued exactly)."""
    pruned = _parity_controller(budget=3, replicas_first=True)
    pruned.refresh()
    with_bound = {c.target: e.net for c, e in pruned.refresh()}

    class _NoBound(_VpiSub):
        def __call__(self, names: frozenset[str]) -> float:
            return float("inf")

    monkeypatch.setattr(me, "_VpiSub", _NoBound)
    me._VALUATIONS.clear()
    plain = _parity_controller(budget=3, replicas_first=True)
    without = {c.target: e.net for c, e in plain.refresh()}
    me._VALUATIONS.clear()
    assert without == pytest.approx(with_bound, abs=1e-12)


def test_the_set_value_credited_is_a_value_some_set_achieves() -> None:
    ctl = _parity_controller(budget=3, replicas_first=True, estimator=ModelEstimator())
    scored = ctl.refresh()
    ctx = ctl.context()
    assert ctx.decision is not None
    problem = me.estimated_problem(ctx.decision, ctx, ctl.config.estimator)
    stores = ["store_a", "store_b", "store_c"]
    whole = value(problem, stores) - value(problem, [])
    for cand, est in scored:
        if cand.target in stores:
            assert est.net == pytest.approx(whole / 3, abs=1e-12)


def test_every_jointly_decisive_example_scores_100_with_the_default_and_voc_reads_nothing() -> None:
    scenarios = [s for f in sorted(JOINT.glob("*.yaml")) for s in load_scenarios(f)]
    assert len(scenarios) >= 6
    r = run_benchmark(scenarios, ["voc-default", "voc"], trials=1, seed=0, progress=False)
    default = [t for t in r.trials if t.policy == "voc-default"]
    heuristic = [t for t in r.trials if t.policy == "voc"]
    assert all(t.score == pytest.approx(100.0) for t in default)
    assert all(not t.inspected for t in heuristic)
