"""Red-team round: attacks a policy or an agent could try for a score it did not earn.

Each test is one attack. Those that found a hole (a policy mutating the view it is handed) failed
before the fix; the others assert that the attack gains nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

from heedful import decision
from heedful.bench.agents.env import TrialEnv
from heedful.bench.policy import _REGISTRY, Observation, Policy, register_policy
from heedful.bench.results import Violation
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld, decision_variables
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family
from heedful.model import Scenario, TaskView

# -- a policy that mutates the (frozen) view it is handed --------------------------------------


class _BudgetRaiser(Policy):
    """Raises the budget of the view it holds (``object.__setattr__`` passes pydantic's frozen
    guard), then asks for every decision-relevant source."""

    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        decisive = decision_variables(view)
        self._plan = [s.id for s in view.sources if set(s.reports) & decisive]
        object.__setattr__(view, "budget", len(view.sources))

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._plan[len(history)] if len(history) < len(self._plan) else None


class _Saboteur(Policy):
    """Plays first (names sort) and rewrites the view: every useful source looks worthless,
    every distractor authoritative, and the budget is zero."""

    in_default_suite = False

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        for s in view.sources:
            object.__setattr__(s, "authority", 0.0 if s.reports else 1.0)
        object.__setattr__(view, "budget", 0)
        view.actions.clear()

    def next(self, history: Sequence[Observation]) -> str | None:
        return None


@pytest.fixture(autouse=True)
def _attackers() -> Iterator[None]:
    """Registered for this module's tests only: `all` of other tests never meets them."""
    named = {"test-budget-raiser": _BudgetRaiser, "test-aa-saboteur": _Saboteur}
    for name, cls in named.items():
        register_policy(name)(cls)
    yield
    for name in named:
        _REGISTRY.pop(name, None)


@pytest.mark.parametrize("adaptive", [False, True])
def test_a_policy_cannot_raise_the_budget_it_is_held_to(adaptive: bool) -> None:
    scenarios = generate_family("B", 6, 0)
    res = run_benchmark(
        scenarios, ["test-budget-raiser"], trials=2, seed=0, adaptive=adaptive, progress=False
    )
    budgets = {s.id: s.view.budget for s in scenarios}
    for t in res.trials:
        assert len(t.inspected) <= budgets[t.scenario_id]
    over = [t for t in res.trials if t.violation is Violation.OVER_BUDGET]
    assert over, "every B scenario has more decision-relevant sources than its budget"
    if adaptive:  # the exact adaptive value is computed within the real budget too
        for t in res.trials:
            assert t.value <= t.v_star + 1e-9


def test_a_policy_cannot_change_what_another_policy_is_shown() -> None:
    scenarios = generate_family("G", 4, 0) + generate_family("B", 4, 0)
    alone = run_benchmark(scenarios, ["authority-first"], trials=2, seed=0, progress=False)
    after = run_benchmark(
        scenarios,
        ["test-aa-saboteur", "authority-first", "voc"],
        trials=2,
        seed=0,
        progress=False,
    )
    mine = [t for t in after.trials if t.policy == "authority-first"]
    assert [t.inspected for t in mine] == [t.inspected for t in alone.trials]
    assert [t.score for t in mine] == [t.score for t in alone.trials]
    # the scenarios the runner scores against are untouched too
    fresh = generate_family("G", 4, 0) + generate_family("B", 4, 0)
    assert [s.model_dump() for s in scenarios] == [s.model_dump() for s in fresh]


# -- statistical give-aways in the visible fields ----------------------------------------------

_WORDING = ("pos", "suffix", "id_len", "label_len", "label_words", "kind")
_HONEST = ("authority", "age", "n_reports", "stake")


def _rows(scenarios: list[Scenario]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features of every decision-relevant source, whether the oracle's optimal sets use it, and
    its scenario (sources reporting no decision variable are never critical, and say so)."""
    feats, labels, groups = [], [], []
    for k, sc in enumerate(scenarios):
        view = sc.view
        st = decision.static_oracle(decision.compile_problem(view, sc.truth), view.budget)
        critical = {s for opt in st.optimal_sets for s in opt}
        decisive = decision_variables(view)
        stake: dict[str, float] = {}
        for a in view.actions.values():
            for rule in a.utility:
                for var in rule.when:
                    stake[var] = max(stake.get(var, 0.0), abs(rule.value))
        for pos, s in enumerate(view.sources):
            if not set(s.reports) & decisive:
                continue
            tail = s.id.rsplit("-", 1)[-1]
            f = {
                "pos": pos / len(view.sources),
                "suffix": float("-" in s.id and tail.isdigit()),
                "id_len": len(s.id),
                "label_len": len(s.label),
                "label_words": len(s.label.split()),
                "kind": float(sum(map(ord, s.kind)) % 97),
                "authority": s.authority,
                "age": np.log1p(s.age_s),
                "n_reports": len(s.reports),
                "stake": max(stake.get(r, 0.0) for r in s.reports),
            }
            feats.append([f[c] for c in (*_WORDING, *_HONEST)])
            labels.append(float(s.id in critical))
            groups.append(k)
    return np.array(feats), np.array(labels), np.array(groups)


def _auc(score: np.ndarray, y: np.ndarray) -> float:
    pos, neg = score[y == 1], score[y == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def _within_auc(score: np.ndarray, y: np.ndarray, g: np.ndarray) -> float:
    """Mean over scenarios of P(a critical source outranks a non-critical one): the ranking a
    policy could use inside one scenario."""
    vals = [
        _auc(score[g == k], y[g == k]) for k in np.unique(g) if 0 < y[g == k].sum() < (g == k).sum()
    ]
    return float(np.mean(vals))


def _probe(train: tuple[Any, ...], test: tuple[Any, ...], cols: list[int]) -> float:
    """Ridge regression with squares (non-monotone give-aways too), fit on one seed's
    scenarios, within-scenario AUC on another's."""
    (xa, ya, _), (xb, yb, gb) = train, test
    a, b = xa[:, cols], xb[:, cols]
    mu, sd = a.mean(0), a.std(0) + 1e-9
    a, b = (a - mu) / sd, (b - mu) / sd
    a = np.hstack([a, a**2, np.ones((len(a), 1))])
    b = np.hstack([b, b**2, np.ones((len(b), 1))])
    w = np.linalg.solve(a.T @ a + np.eye(a.shape[1]), a.T @ ya)
    return _within_auc(b @ w, yb, gb)


@pytest.mark.parametrize("family", ["G", "B"])
def test_ids_labels_order_and_kind_do_not_predict_critical_sources(family: str) -> None:
    train = _rows(generate_family(family, 60, 0))
    test = _rows(generate_family(family, 60, 1))
    wording = list(range(len(_WORDING)))
    honest = list(range(len(_WORDING), len(_WORDING) + len(_HONEST)))
    alone = _probe(train, test, wording)
    assert alone < 0.6, f"{family}: ids/labels/order/kind rank critical sources (AUC {alone})"
    base = _probe(train, test, honest)
    both = _probe(train, test, honest + wording)
    assert base > 0.75  # the honest signals do carry the answer: the probe works
    assert both < base + 0.02, f"{family}: wording adds to the honest signals ({base} → {both})"


# -- an agent's tool calls -----------------------------------------------------------------------


def _agent_env(scenario: Scenario, world_seed: int, *, adaptive: bool) -> TrialEnv:
    oracle = ScenarioOracle.prepare(scenario, adaptive=adaptive)
    world = TrialWorld.draw(oracle, np.random.default_rng(world_seed))
    renders = {sid: t.render for sid, t in scenario.truth.sources.items()}
    return TrialEnv(policy_view(scenario), world.observation, renders, adaptive=adaptive)


@pytest.mark.parametrize("adaptive", [False, True])
def test_an_agents_refused_calls_read_nothing_and_say_nothing_of_the_world(
    adaptive: bool,
) -> None:
    (sc,) = generate_family("G", 1, 5)
    ids = list(policy_view(sc).source_ids)
    budget = sc.view.budget
    tool = "inspect_source" if adaptive else "plan_inspections"
    calls: list[tuple[str, Any]] = [
        ("plan_inspections", {"source_ids": ids[: budget + 1]}),  # over budget
        ("plan_inspections", {"source_ids": [ids[0], "no-such-source"]}),  # one bad id
        ("plan_inspections", {"source_ids": [ids[0], ids[0]]}),  # the same source twice
        ("inspect_source", {"source_id": "../../etc/passwd"}),
        ("inspect_source", {"source_id": ids[0], "path": "/"}),
        ("read_file", {"path": "scenario.yaml"}),
        ("decide", {"action": "reveal-truth", "beliefs": {}}),
        ("decide", {"action": next(iter(sc.view.actions)), "beliefs": {"x": "y"}}),
        (tool, "{not json"),
    ]
    worlds: list[list[str]] = []
    for world_seed in range(6):
        env = _agent_env(sc, world_seed, adaptive=adaptive)
        replies = []
        for name, args in calls:
            reply = env.call(name, args if isinstance(args, str) else json.dumps(args))
            assert reply.error
            replies.append(reply.text)
        assert env.transcript.history == [] and not env.done
        worlds.append(replies)
    assert all(w == worlds[0] for w in worlds), "an error message depends on the hidden world"


def test_an_agent_reads_each_source_once_and_never_past_the_budget() -> None:
    (sc,) = generate_family("G", 1, 5)
    ids = list(policy_view(sc).source_ids)
    budget = sc.view.budget
    env = _agent_env(sc, 0, adaptive=True)
    for sid in ids[:budget]:
        env.call("inspect_source", {"source_id": sid})  # may fail (a failed read still counts)
        assert env.call("inspect_source", {"source_id": sid}).error  # a second read is refused
    assert env.call("inspect_source", {"source_id": ids[budget]}).error
    assert [o.source_id for o in env.transcript.history] == ids[:budget]
    static = _agent_env(sc, 0, adaptive=False)
    static.call("plan_inspections", {"source_ids": ids[:budget]})
    assert static.call("plan_inspections", {"source_ids": ids[budget : budget + 1]}).error
    assert len(static.transcript.history) == budget
