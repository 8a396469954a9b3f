from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest

from heedful.bench.policies.oracle import OraclePolicy
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.bench.results import (
    FailureCode,
    Results,
    Stage,
    Violation,
    load_results,
    write_results,
)
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.errors import InvalidArgumentError
from heedful.model import Scenario, TaskView, scenario_from_dict

PRIVATE_KEYS = {"prior", "accuracy", "fails", "render", "echo", "world", "priors"}


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


@register_policy("test-spy")
class SpyPolicy(Policy):
    """Records everything the runner hands it; inspects sources in file order."""

    seen: ClassVar[list[tuple[str, object]]] = []

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        SpyPolicy.seen.append(("reset", view))
        self._ids = list(view.source_ids)
        self._budget = view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        SpyPolicy.seen.append(("next", tuple(history)))
        return self._ids[len(history)] if len(history) < self._budget else None

    def bind(self, oracle: object) -> None:  # must never be called by the runner
        SpyPolicy.seen.append(("bind", oracle))


@register_policy("test-greedy")
class GreedyPolicy(Policy):
    """Ignores the budget: asks for every source."""

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._ids = list(view.source_ids)

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._ids[len(history)] if len(history) < len(self._ids) else None


@register_policy("test-unknown")
class UnknownSourcePolicy(Policy):
    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        pass

    def next(self, history: Sequence[Observation]) -> str | None:
        return "no-such-source"


@register_policy("test-repeat")
class RepeatPolicy(Policy):
    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        self._first = view.source_ids[0]

    def next(self, history: Sequence[Observation]) -> str | None:
        return self._first


def _run(scenarios: list[Scenario], policies: list[str], **kw: Any) -> Results:
    kw.setdefault("trials", 2)
    kw.setdefault("seed", 0)
    return run_benchmark(scenarios, policies, progress=False, **kw)


def _dump(r: Results) -> str:
    return json.dumps(r.model_dump(mode="json", exclude={"manifest": {"created_utc"}}))


def test_policy_asking_beyond_the_budget_is_stopped_and_flagged(tiny: Scenario) -> None:
    (t, *_) = _run([tiny], ["test-greedy"]).trials
    assert t.violation is Violation.OVER_BUDGET
    assert t.inspected == ["chatter"]  # budget 1: the first request only


def test_policy_asking_for_an_unknown_source_is_stopped_and_flagged(tiny: Scenario) -> None:
    (t, *_) = _run([tiny], ["test-unknown"]).trials
    assert t.violation is Violation.UNKNOWN_SOURCE
    assert t.inspected == []


def test_policy_repeating_a_source_is_stopped_and_flagged(tiny_raw: dict[str, Any]) -> None:
    scenario = scenario_from_dict({**tiny_raw, "budget": 3})
    (t, *_) = _run([scenario], ["test-repeat"]).trials
    assert t.violation is Violation.REPEATED_SOURCE
    assert t.inspected == ["chatter"]


def test_violations_are_counted_in_the_aggregates(tiny: Scenario) -> None:
    r = _run([tiny], ["test-greedy"], trials=3)
    assert r.aggregates.row("test-greedy").n_violations == 3


def test_policies_receive_the_view_and_nothing_private(tiny: Scenario) -> None:
    SpyPolicy.seen.clear()
    _run([tiny], ["test-spy", "oracle"], adaptive=True)
    assert SpyPolicy.seen, "the spy was never called"
    for kind, arg in SpyPolicy.seen:
        assert kind != "bind", "the runner handed the truth to a non-oracle policy"
        if kind == "reset":
            assert type(arg) is TaskView
            dumped = arg.model_dump()  # type: ignore[attr-defined]
            assert not _keys(dumped) & PRIVATE_KEYS
            # Nothing that identifies the scenario, nor the condition label (issue 9).
            assert not {"id", "family", "condition", "format"} & set(dumped)
        else:
            assert isinstance(arg, tuple)
            assert all(type(o) is Observation for o in arg)


def test_static_condition_withholds_every_result(tiny_raw: dict[str, Any]) -> None:
    SpyPolicy.seen.clear()
    _run([scenario_from_dict({**tiny_raw, "budget": 3})], ["test-spy"])
    histories = [h for kind, h in SpyPolicy.seen if kind == "next"]
    assert max(len(h) for h in histories) == 3  # type: ignore[arg-type]
    assert all(o.withheld and o.values is None for h in histories for o in h)  # type: ignore[attr-defined]


def test_adaptive_condition_reveals_real_observations(tiny_raw: dict[str, Any]) -> None:
    SpyPolicy.seen.clear()
    _run([scenario_from_dict({**tiny_raw, "budget": 3})], ["test-spy"], adaptive=True)
    last = [h for kind, h in SpyPolicy.seen if kind == "next"][-1]
    by_id = {o.source_id: o for o in last}  # type: ignore[attr-defined]
    assert not any(o.withheld for o in by_id.values())
    assert by_id["summary"].values == {"up": "no"}  # the echo
    assert by_id["chatter"].values == {}  # reports nothing


def test_oracle_policy_cannot_be_subclassed() -> None:
    with pytest.raises(TypeError, match="cannot be subclassed"):

        class Sneaky(OraclePolicy):  # type: ignore[misc]
            pass


def test_oracle_policy_refuses_to_run_without_the_runner(tiny: Scenario) -> None:
    with pytest.raises(InvalidArgumentError, match="runner"):
        OraclePolicy().reset(tiny.view, np.random.default_rng(0))


def test_same_seed_reproduces_identical_results() -> None:
    from heedful.bench.worlds.families import generate_suite

    scenarios = generate_suite(["G", "B"], 3, seed=1)
    a = _run(scenarios, ["random", "oracle"], seed=5)
    b = _run(scenarios, ["random", "oracle"], seed=5)
    assert _dump(a) == _dump(b)


def test_different_seeds_draw_different_worlds(tiny: Scenario) -> None:
    a = _run([tiny], ["random"], trials=20, seed=1)
    b = _run([tiny], ["random"], trials=20, seed=2)
    assert [t.world for t in a.trials] != [t.world for t in b.trials]


def test_oracle_scores_100_on_every_informative_trial() -> None:
    from heedful.bench.worlds.families import generate_suite

    r = _run(generate_suite(["G", "B"], 4, seed=2), ["oracle"])
    scores = [t.score for t in r.trials if not t.uninformative]
    assert scores
    assert all(s == pytest.approx(100.0, abs=1e-6) for s in scores)


def test_random_policy_scores_zero_on_average(tiny: Scenario) -> None:
    r = _run([tiny], ["random"], trials=600, seed=3)
    scores = np.array([t.score for t in r.trials], dtype=float)
    se = scores.std(ddof=1) / np.sqrt(scores.size)
    assert abs(scores.mean()) < 4 * se


def test_score_is_not_clipped_below_random(tiny: Scenario) -> None:
    (t, *_) = _run([tiny], ["loudness"]).trials
    assert t.inspected == ["chatter"]
    assert t.score is not None and t.score < 0


def test_regret_and_score_follow_their_definitions(tiny: Scenario) -> None:
    for t in _run([tiny], ["random", "authority-first"], trials=5).trials:
        assert t.regret == pytest.approx(t.v_star - t.value)
        assert t.score == pytest.approx(100 * (t.value - t.u_random) / (t.v_star - t.u_random))


def test_uninformative_trials_are_counted_and_left_out_of_the_mean(
    tiny_raw: dict[str, Any],
) -> None:
    blind = {**tiny_raw, "id": "blind", "cost_weight": 0.0}
    blind["sources"] = [s for s in tiny_raw["sources"] if not s.get("reports")]
    r = _run([scenario_from_dict(blind)], ["random"], trials=3)
    assert all(t.uninformative and t.score is None for t in r.trials)
    row = r.aggregates.row("random")
    assert (row.n_uninformative, row.n_informative, row.score) == (3, 0, None)


def test_critical_recall_and_selection_failure(tiny: Scenario) -> None:
    r = _run([tiny], ["loudness", "authority-first"])
    assert r.scenarios[0].critical == ["probe"]
    for t in r.trials:
        if t.policy == "loudness":
            # Read the loud distractor instead of the quiet probe: a selection failure whose
            # primary code is the specific one (issue 9), with the generic code listed too.
            assert (t.critical_recall, t.stage) == (0.0, Stage.SELECTION)
            assert t.failure is FailureCode.SALIENCE_CAPTURE
            assert FailureCode.SELECTION_WRONG in t.codes
        else:
            assert (t.critical_recall, t.failure) == (1.0, None)


def test_failed_critical_inspection_is_a_retrieval_failure(tiny_raw: dict[str, Any]) -> None:
    raw = json.loads(json.dumps(tiny_raw))
    raw["sources"][2]["fails"] = 0.5
    r = _run([scenario_from_dict(raw)], ["authority-first"], trials=40)
    failures = {t.failure for t in r.trials}
    assert failures == {None, FailureCode.RETRIEVAL_FAILED}
    for t in r.trials:
        assert (t.failure is FailureCode.RETRIEVAL_FAILED) == (t.failed_inspections == ["probe"])


def test_fixed_world_is_used_in_every_trial(tiny_raw: dict[str, Any]) -> None:
    r = _run([scenario_from_dict({**tiny_raw, "world": {"up": "yes"}})], ["random"], trials=6)
    assert all(t.world == {"up": "yes"} for t in r.trials)


def test_realized_net_utility_subtracts_the_weighted_cost(tiny: Scenario) -> None:
    for t in _run([tiny], ["authority-first"], trials=4).trials:
        assert t.inspection_cost == pytest.approx(0.01 * (1 + 0.5))
        assert t.net_utility == pytest.approx(t.utility - t.inspection_cost)


def test_a_source_gives_the_same_outcome_whatever_the_inspection_order(tiny: Scenario) -> None:
    oracle = ScenarioOracle.prepare(tiny, adaptive=False)
    w1 = TrialWorld.draw(oracle, np.random.default_rng(9))
    w2 = TrialWorld.draw(oracle, np.random.default_rng(9))
    first = [w1.outcome(s) for s in ("probe", "summary")]
    second = [w2.outcome(s) for s in ("summary", "probe")][::-1]
    assert first == second


def test_adaptive_run_records_exact_values_of_deterministic_policies(tiny: Scenario) -> None:
    r = _run([tiny], ["oracle", "authority-first", "random"], adaptive=True)
    by = {t.policy: t for t in r.trials}
    assert by["oracle"].adaptive_regret == pytest.approx(0.0, abs=1e-9)
    assert by["authority-first"].adaptive_value is not None
    assert by["random"].adaptive_value is None
    assert r.scenarios[0].adaptive_v_star is not None


def test_aggregates_have_rows_per_family_and_overall() -> None:
    from heedful.bench.worlds.families import generate_suite

    r = _run(generate_suite(["G", "B"], 2, seed=0), ["random", "recency"])
    keys = {(row.family, row.policy) for row in r.aggregates.rows}
    assert keys == {(f, p) for f in ("G", "B", "all") for p in ("random", "recency")}
    assert {(p.family, p.policy_a, p.policy_b) for p in r.aggregates.paired} == {
        (f, "random", "recency") for f in ("G", "B", "all")
    }


def test_results_file_round_trips(tiny: Scenario, tmp_path: Path) -> None:
    r = _run([tiny], ["random", "oracle"])
    path = write_results(r, tmp_path / "results.json")
    assert load_results(path) == r
    assert json.loads(path.read_text())["format"] == "heedful.results/v2"


def test_manifest_records_seed_policies_and_hashes(tiny: Scenario) -> None:
    m = _run([tiny], ["loudness"], seed=7).manifest
    assert m.seed == 7
    assert m.policies[0].params["urgent_weight"] == 1.0
    assert len(m.scenario_set_hash) == len(m.policy_config_hash) == 64


@pytest.mark.parametrize(
    ("kw", "message"),
    [({"trials": 0}, "trials"), ({"seed": -1}, "seed")],
)
def test_bad_run_arguments_are_invalid(tiny: Scenario, kw: dict[str, int], message: str) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        _run([tiny], ["random"], **kw)


def test_precision_first_critical_and_distractor_count(tiny_raw: dict[str, Any]) -> None:
    scenario = scenario_from_dict({**tiny_raw, "budget": 3})
    r = _run([scenario], ["loudness", "authority-first"], trials=1)
    by = {t.policy: t for t in r.trials}
    # loudness: chatter, digest (report nothing), then summary — no critical source.
    assert by["loudness"].inspected == ["chatter", "digest", "summary"]
    assert (by["loudness"].precision, by["loudness"].first_critical_at) == (0.0, None)
    assert by["loudness"].distractor_inspections == 2
    # authority-first: probe (critical) first, then chatter, summary.
    assert by["authority-first"].first_critical_at == 1
    assert by["authority-first"].precision == pytest.approx(1 / 3)
    row = r.aggregates.row("loudness")
    assert row.distractor_rate == pytest.approx(2 / 3)


def test_deterministic_policy_is_asked_once_per_scenario_in_the_static_condition(
    tiny: Scenario,
) -> None:
    SpyPolicy.seen.clear()
    r = _run([tiny], ["test-spy"], trials=3)
    assert sum(1 for kind, _ in SpyPolicy.seen if kind == "reset") == 1
    assert len({tuple(t.inspected) for t in r.trials}) == 1 and len(r.trials) == 3


def test_deterministic_policy_is_asked_every_trial_in_the_adaptive_condition(
    tiny: Scenario,
) -> None:
    SpyPolicy.seen.clear()
    _run([tiny], ["test-spy"], trials=3, adaptive=True)
    # Three trials, plus the replays of the exact adaptive valuation.
    assert sum(1 for kind, _ in SpyPolicy.seen if kind == "reset") >= 3


def test_neighbour_differences_follow_the_ranking_whatever_the_pair_order(tiny: Scenario) -> None:
    from heedful.bench.report.page import neighbour_differences

    r = _run([tiny], ["loudness", "random", "oracle"], trials=30)
    diffs = neighbour_differences(r)
    assert [(a, b) for a, b, _ in diffs] == [("oracle", "random"), ("random", "loudness")]
    by_score = {row.policy: row.score.mean for row in r.aggregates.rows if row.score}
    for a, b, d in diffs:
        assert d.mean == pytest.approx(by_score[a] - by_score[b])
