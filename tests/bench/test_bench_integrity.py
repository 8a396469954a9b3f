"""Issue 9 — benchmark integrity: each defect the review found, as a test that failed before."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from heedful.bench.policies.baselines import RandomPolicy
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.bench.results import FailureCode, Stage
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.score.plan import plan_comparisons
from heedful.bench.score.taxonomy import closest_optimal_set
from heedful.bench.stats import paired_difference
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import generate_family, generate_suite
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.model import Condition, TaskView


@register_policy("test-id-reader")
class _IdReader(Policy):
    """The attack of issue 9: look for the scenario id in what the policy is handed."""

    in_default_suite = False
    seen: list[str] = []  # noqa: RUF012

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        _IdReader.seen.append(json.dumps(view.model_dump(mode="json")))

    def next(self, history: Sequence[Observation]) -> str | None:
        return None


def test_a_policy_is_handed_nothing_that_names_the_scenario() -> None:
    scenarios = generate_family("G", 3, 0) + generate_family(
        "B", 2, 0, condition=Condition.UNPROMPTED
    )
    _IdReader.seen.clear()
    run_benchmark(scenarios, ["test-id-reader"], trials=1, seed=0, progress=False)
    assert len(_IdReader.seen) == len(scenarios)
    for text, scenario in zip(_IdReader.seen, scenarios, strict=True):
        assert scenario.id not in text
        assert '"condition"' not in text and '"family"' not in text


def test_the_conditions_differ_only_in_the_task_text() -> None:
    (announced,) = generate_family("B", 1, 3)
    (twin,) = generate_family("B", 1, 3, condition=Condition.UNPROMPTED)
    a, u = policy_view(announced), policy_view(twin)
    assert a.model_dump(exclude={"task"}) == u.model_dump(exclude={"task"})
    assert "inspect up to" in a.task and "inspect" not in u.task.lower()


@pytest.fixture(scope="module")
def adaptive_run():  # type: ignore[no-untyped-def]
    scenarios = generate_family("G", 10, 0)
    return run_benchmark(
        scenarios,
        ["oracle", "voc", "voc-model", "random", "recency"],
        trials=3,
        seed=0,
        adaptive=True,
        progress=False,
    )


def test_adaptive_oracle_scores_100_and_ranks_first(adaptive_run) -> None:  # type: ignore[no-untyped-def]
    rows = {r.policy: r for r in adaptive_run.aggregates.rows if r.family == "all"}
    assert rows["oracle"].score is not None
    assert rows["oracle"].score.mean == pytest.approx(100.0)
    assert all(r.score is None or r.score.mean <= 100.0 + 1e-9 for r in rows.values()), (
        "no policy may beat the adaptive oracle"
    )
    assert rows["oracle"].optimal.p == 1.0


def test_adaptive_oracle_never_fails_selection(adaptive_run) -> None:  # type: ignore[no-untyped-def]
    oracle = [t for t in adaptive_run.trials if t.policy == "oracle"]
    # Its reads may still fail (a retrieval failure is the tool's, not attention's).
    assert oracle and all(t.stage in (None, Stage.RETRIEVAL) for t in oracle)
    assert all(FailureCode.SELECTION_WRONG not in t.codes for t in oracle)
    assert all(t.value == pytest.approx(t.v_star) for t in oracle)
    # The static numbers stay as extra columns.
    assert all(t.static_value is not None and t.static_score is not None for t in oracle)


@register_policy("test-random-adaptive")
class _RandomButLooking(RandomPolicy):
    """The random policy, declared as one whose choices may depend on what it observed."""

    in_default_suite = False
    uses_observations = True


@pytest.mark.parametrize(
    ("name", "kind"), [("test-random-adaptive", "estimate"), ("random", "set")]
)
def test_adaptive_value_of_a_randomised_policy_is_unbiased(name: str, kind: str) -> None:
    # Its true adaptive value is U_random: the choices are uniform and ignore the observations.
    (scenario,) = generate_family("G", 1, 2)
    r = run_benchmark([scenario], [name], trials=800, seed=1, adaptive=True, progress=False)
    values = np.array([t.value for t in r.trials])
    assert all(t.value_kind == kind for t in r.trials)
    se = values.std() / np.sqrt(values.size)
    assert abs(values.mean() - r.trials[0].u_random) < 4 * se + 1e-9


def test_closest_optimal_set_makes_any_optimal_choice_full_recall() -> None:
    sets = [("a", "b"), ("c", "d")]
    assert closest_optimal_set(["c", "d"], sets) == ("c", "d")
    assert closest_optimal_set(["a", "d"], sets) == ("a", "b")
    assert closest_optimal_set([], [()]) == ()
    assert closest_optimal_set(["x"], [("a",), ("b", "c")]) == ("a",)


def test_paired_win_counts_are_per_scenario_not_per_trial() -> None:
    rng = np.random.default_rng(0)
    # Scenario s1: a wins in all 5 trials; s2: b wins in 1 trial by a lot.
    a = [1.0] * 5 + [0.0]
    b = [0.0] * 5 + [3.0]
    d = paired_difference(a, b, rng, clusters=["s1"] * 5 + ["s2"])
    assert d is not None and (d.a_better, d.b_better, d.ties) == (1, 1, 0)


@pytest.fixture(scope="module")
def pilot():  # type: ignore[no-untyped-def]
    return run_benchmark(
        generate_suite(["G"], 8, 0), ["voc", "random"], trials=2, seed=0, progress=False
    )


def test_plan_follows_the_paired_sample_size_formula(pilot) -> None:  # type: ignore[no-untyped-def]
    (row,) = plan_comparisons(pilot, min_diff=10.0)
    per: dict[str, list[float]] = {}
    by = {(t.policy, t.scenario_id, t.trial): t for t in pilot.trials}
    for (pol, sid, trial), t in by.items():
        other = by[("random", sid, trial)]
        if pol == "voc" and t.score is not None and other.score is not None:
            per.setdefault(sid, []).append(t.score - other.score)
    sd = float(np.std([np.mean(v) for v in per.values()], ddof=1))
    expected = int(np.ceil(((1.959964 + 0.841621) * sd / 10.0) ** 2))
    assert row.needed_scenarios == expected
    (wider,) = plan_comparisons(pilot, min_diff=20.0)
    assert wider.needed_scenarios is not None and wider.needed_scenarios < expected


def test_plan_refuses_what_it_cannot_plan(pilot) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidArgumentError, match="positive"):
        plan_comparisons(pilot, min_diff=0.0)
    with pytest.raises(InvalidArgumentError, match="not in the results"):
        plan_comparisons(pilot, min_diff=5.0, policies=["voc", "oracle"])
    sealed = pilot.model_copy(update={"sealed": True, "trials": [], "scenarios": []})
    with pytest.raises(InvalidArgumentError, match="sealed"):
        plan_comparisons(sealed, min_diff=5.0)


def test_plan_and_holdout_make_from_the_cli(tmp_path: Path, pilot) -> None:  # type: ignore[no-untyped-def]
    from heedful.bench.results import write_results

    runner = CliRunner()
    path = write_results(pilot, tmp_path / "results.json")
    res = runner.invoke(app, ["bench", "plan", str(path), "--min-diff", "10"])
    assert res.exit_code == 0, res.output
    assert "voc − random" in res.output
    summary = " ".join(res.output.split())
    assert "need more scenarios than the pilot's" in summary or "already separates" in summary
    res = runner.invoke(app, ["bench", "plan", str(path), "--min-diff", "-1"])
    assert res.exit_code == 2 and "positive" in res.output
    out = tmp_path / "sealed"
    args = ["holdout", "make", "--family", "G", "--count", "2"]
    res = runner.invoke(app, [*args, "--key-file", str(tmp_path / "k"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert len(list(out.glob("hx-*.yaml"))) == 2
    res = runner.invoke(app, ["scenario", "generate", "--family", "G", "--holdout"])
    assert res.exit_code == 2 and "holdout make" in res.output


def test_controller_policies_report_a_missing_candidate() -> None:
    # voc-guarded has only the state-sensitive-claim generator: on G it often never proposes a
    # critical source (issue 9: 47 of 60 scenarios were blamed on selection before).
    r = run_benchmark(
        generate_family("G", 12, 0), ["voc-guarded", "voc"], trials=1, seed=0, progress=False
    )
    recs = [t for t in r.trials if t.policy == "voc-guarded"]
    assert all(t.candidates is not None for t in recs)
    missing = [t for t in recs if t.failure is FailureCode.CANDIDATE_MISSING]
    assert missing, "expected some trial where the critical source never became a candidate"
    for t in missing:
        assert t.stage is Stage.INITIATION
        assert set(t.missing_critical) - set(t.candidates or [])
    for t in recs:
        if t.failure is not FailureCode.CANDIDATE_MISSING and not t.optimal:
            assert t.stage is Stage.SELECTION


def test_summary_trusting_acts_on_the_wording_not_a_label() -> None:
    announced = generate_family("B", 6, 0)
    twins = generate_family("B", 6, 0, condition=Condition.UNPROMPTED)
    r = run_benchmark(announced + twins, ["summary-trusting"], trials=1, seed=0, progress=False)
    reads = {t.scenario_id: len(t.inspected) for t in r.trials}
    assert all(reads[s.id] > 0 for s in announced)
    assert all(reads[s.id] == 0 for s in twins)
