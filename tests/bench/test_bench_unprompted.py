"""The unprompted condition (SPEC §4.2; document 000 §15): twins, policies, metrics, gap."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from heedful import decision
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.policy import Observation, Policy, get_policy, register_policy
from heedful.bench.results import InitiationMetrics, TrialRecord
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.score.initiation import authoritative_sources, initiation_gaps
from heedful.bench.worlds.families import generate_family
from heedful.bench.worlds.families.unprompted import (
    TASK_TEMPLATES,
    mentions_inspection,
    twin_world_keys,
)
from heedful.cli import app
from heedful.model import Condition, Scenario, TaskView, scenario_from_dict

UNPROMPTED = Condition.UNPROMPTED


def _b(count: int, condition: Condition = Condition.ANNOUNCED) -> list[Scenario]:
    return generate_family("B", count, 5, condition=condition)


def _feed(*, age_s: float, volatility: str, stakes: float, cost_weight: float) -> Scenario:
    """Hand-made unprompted scenario: a summary says the feed is offline; a live probe exists."""
    return scenario_from_dict(
        {
            "format": "heedful.scenario/v1",
            "id": "feed",
            "family": "T",
            "condition": "unprompted",
            "task": "Send the morning digest if the feed is available.",
            "budget": 2,
            "cost_weight": cost_weight,
            "variables": {
                "feed": {
                    "domain": ["online", "offline"],
                    "prior": [0.3, 0.7],
                    "volatility": volatility,
                }
            },
            "actions": {
                "send": {
                    "utility": [{"when": {"feed": "online"}, "value": stakes}, {"value": -stakes}]
                },
                "hold": {"utility": [{"value": 0.0}]},
            },
            "beliefs": [
                {
                    "variable": "feed",
                    "value": "offline",
                    "origin": "summary",
                    "age_s": age_s,
                    "confidence": 0.95,
                }
            ],
            "sources": [
                {
                    "id": "summary",
                    "kind": "cached_summary",
                    "reports": ["feed"],
                    "authority": 0.5,
                    "age_s": age_s,
                    "echo": {"feed": "offline"},
                    "cost": {"tool_calls": 1},
                },
                {
                    "id": "probe",
                    "kind": "live_instrument",
                    "reports": ["feed"],
                    "authority": 0.98,
                    "age_s": 0,
                    "accuracy": 0.98,
                    "cost": {"tool_calls": 1, "tokens": 200, "latency_ms": 900},
                },
            ],
        }
    )


def _reads(name: str, scenario: Scenario) -> list[str]:
    policy = get_policy(name)
    policy.reset(scenario.view, np.random.default_rng(0))
    history: list[Observation] = []
    while (choice := policy.next(tuple(history))) is not None:
        history.append(Observation(choice, withheld=True))
    return [o.source_id for o in history]


# --- scenarios ---------------------------------------------------------------------------------


def test_the_inspection_word_filter_catches_instructions_but_not_names() -> None:
    assert mentions_inspection("Check the feed, then decide.")
    assert mentions_inspection("You have a budget of 2 reads.")
    assert not mentions_inspection("Restart checkout or hold checkout.")


def test_task_templates_never_ask_for_inspection_or_state_a_budget() -> None:
    for template in TASK_TEMPLATES:
        assert not mentions_inspection(template), template


def test_unprompted_twins_keep_structure_and_truth_and_only_change_the_task() -> None:
    for a, u in zip(_b(8), _b(8, UNPROMPTED), strict=True):
        assert u.id == a.id + "-u"
        assert u.view.condition is UNPROMPTED
        assert not mentions_inspection(u.view.task), u.view.task
        assert str(a.view.budget) not in u.view.task
        same = {"id", "task", "condition"}
        assert u.view.model_dump(exclude=same) == a.view.model_dump(exclude=same)
        assert u.truth == a.truth


def test_announced_runs_keep_their_world_streams() -> None:
    assert twin_world_keys(_b(5)) == [0, 1, 2, 3, 4]


def test_twins_share_world_keys_so_conditions_see_the_same_worlds() -> None:
    a, u = _b(4), _b(4, UNPROMPTED)
    assert twin_world_keys([*a, *u]) == [0, 1, 2, 3, 0, 1, 2, 3]
    r = run_benchmark([*a, *u], ["random"], trials=3, seed=1, world_keys=twin_world_keys([*a, *u]))
    worlds = {(t.scenario_id.removesuffix("-u"), t.trial): [] for t in r.trials}
    for t in r.trials:
        worlds[(t.scenario_id.removesuffix("-u"), t.trial)].append(t.world)
    assert all(len(w) == 2 and w[0] == w[1] for w in worlds.values())


# --- policies ----------------------------------------------------------------------------------


def test_summary_trusting_never_reads_the_authoritative_source_unprompted() -> None:
    r = run_benchmark(_b(25, UNPROMPTED), ["summary-trusting"], trials=2, seed=0)
    row = next(x for x in r.aggregates.initiation if x.policy == "summary-trusting")
    assert row.authoritative_rate.k == 0 and row.authoritative_rate.n == 50
    assert all(t.inspected == [] for t in r.trials)


def test_summary_trusting_can_reread_only_the_summary_its_belief_came_from() -> None:
    s = _feed(age_s=10_800, volatility="high", stakes=1.0, cost_weight=0.01)
    policy = get_policy("summary-trusting", read_summary=True)
    policy.reset(s.view, np.random.default_rng(0))
    assert policy.next(()) == "summary"
    assert policy.next((Observation("summary", withheld=True),)) is None


def test_guarded_policies_record_their_constructor_parameters() -> None:
    assert get_policy("voc-guarded").get_params() == {"estimator": "heuristic"}
    assert get_policy("voc-model-guarded").get_params() == {}


def test_summary_trusting_follows_an_announced_instruction() -> None:
    r = run_benchmark(_b(10), ["summary-trusting"], trials=1, seed=0, initiation=True)
    assert all(t.inspected for t in r.trials)


def test_voc_guarded_reads_the_authoritative_source_when_it_is_worth_it() -> None:
    scenarios = _b(40, UNPROMPTED)
    # Evaluator side: the oracle says reading an authoritative source beats acting at once.
    worth = []
    for s in scenarios:
        problem = decision.compile_problem(s.view, s.truth)
        best = max(decision.value(problem, [a]) for a in authoritative_sources(s))
        if best > decision.value(problem, []) + 1e-6:
            worth.append(s)
    assert len(worth) >= 20
    r = run_benchmark(worth, ["voc-guarded"], trials=1, seed=0)
    rate = r.aggregates.initiation[0].authoritative_rate
    assert rate.p is not None and rate.p >= 0.9
    assert all(t.violation is None for t in r.trials)


def test_voc_guarded_reads_the_live_probe_on_a_stale_high_stakes_claim() -> None:
    s = _feed(age_s=10_800, volatility="high", stakes=1.0, cost_weight=0.01)
    assert _reads("voc-guarded", s) == ["probe"]
    assert _reads("summary-trusting", s) == []


@pytest.mark.parametrize("name", ["voc-guarded", "voc-model-guarded"])
def test_guarded_agents_do_not_read_when_the_summary_is_fresh_and_stakes_tiny(name: str) -> None:
    s = _feed(age_s=5, volatility="low", stakes=0.001, cost_weight=0.05)
    assert _reads(name, s) == []


@pytest.mark.parametrize("name", ["voc-guarded", "voc-model-guarded"])
def test_guarded_agents_do_not_read_when_a_stale_claim_is_not_worth_the_cost(name: str) -> None:
    s = _feed(age_s=10_800, volatility="high", stakes=0.001, cost_weight=0.05)
    assert _reads(name, s) == []


def test_model_guarded_agent_reads_the_live_probe_on_a_stale_high_stakes_claim() -> None:
    s = _feed(age_s=10_800, volatility="high", stakes=1.0, cost_weight=0.01)
    assert _reads("voc-model-guarded", s) == ["probe"]


def test_unprompted_policies_stay_out_of_the_default_suite() -> None:
    from heedful.bench.policy import parse_policy_list

    opt_in = {"summary-trusting", "voc-guarded", "voc-model-guarded"}
    assert not opt_in & set(parse_policy_list("all"))


# --- the authoritative definition stays on the evaluator side ----------------------------------


@register_policy("test-unprompted-spy")
class _Spy(Policy):
    """Records what it receives; reads every source within the cap."""

    in_default_suite = False
    seen: ClassVar[list[object]] = []

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        _Spy.seen.append(view)
        self._ids, self._cap = list(view.source_ids), view.budget

    def next(self, history: Sequence[Observation]) -> str | None:
        _Spy.seen.append(tuple(history))
        return self._ids[len(history)] if len(history) < self._cap else None


def test_the_authoritative_definition_never_reaches_a_policy() -> None:
    scenarios = _b(5, UNPROMPTED)
    _Spy.seen.clear()
    r = run_benchmark(scenarios, ["test-unprompted-spy"], trials=2, seed=0, initiation=True)
    views = [v for v in _Spy.seen if isinstance(v, TaskView)]
    assert len(views) == len(scenarios)  # deterministic: asked once per scenario (static)
    for v in views:
        assert type(v) is TaskView
        text = json.dumps(v.model_dump(mode="json")).lower()
        assert "authoritative" not in text and "accuracy" not in text
    for item in _Spy.seen:
        if isinstance(item, tuple):
            assert all(type(o) is Observation and o.values is None for o in item)
    # ... while the evaluator did compute it for every trial.
    assert all(t.initiation is not None and t.initiation.authoritative for t in r.trials)


# --- metrics -----------------------------------------------------------------------------------


def test_summary_substitution_is_counted_only_when_the_authority_would_disagree() -> None:
    s = _feed(age_s=10_800, volatility="high", stakes=1.0, cost_weight=0.01)
    r = run_benchmark([s], ["summary-trusting", "voc-guarded"], trials=40, seed=3)
    for t in r.trials:
        m = t.initiation
        assert m is not None and m.authoritative == ["probe"]
        if t.policy == "summary-trusting":
            assert m.claimed == {"feed": "offline"} and m.evidence_age_s == 10_800
            assert m.summary_substituted == m.summary_contradicted
        else:
            assert m.authoritative_inspected and m.inspections_before_authoritative == 0
            assert not m.summary_substituted and m.evidence_age_s == 0
    trusting = next(x for x in r.aggregates.initiation if x.policy == "summary-trusting")
    assert trusting.summary_substitution.n > 0
    assert trusting.summary_substitution.k == trusting.summary_substitution.n


def _record(sid: str, family: str, trial: int, score: float, net: float) -> TrialRecord:
    return TrialRecord(
        scenario_id=sid,
        family=family,
        policy="p",
        trial=trial,
        condition="static",
        world={},
        inspected=[],
        failed_inspections=[],
        violation=None,
        value=0.0,
        v_star=1.0,
        u_random=0.0,
        regret=0.0,
        score=score,
        uninformative=False,
        optimal=False,
        action="a",
        utility=net,
        inspection_cost=0.0,
        net_utility=net,
        action_correct=True,
        critical_recall=None,
        missing_critical=[],
        precision=None,
        first_critical_at=None,
        distractor_inspections=0,
        failure=None,
        initiation=InitiationMetrics(
            scenario_condition="unprompted" if family.endswith("/unprompted") else "announced",
            state_variables=["x"],
            authoritative=["s"],
            authoritative_inspected=False,
            inspections_before_authoritative=None,
            cost_before_authoritative=None,
            claimed={"x": "a"},
            claim_correct=score > 50,
            summary_contradicted=False,
            summary_substituted=False,
            evidence_age_s=1.0,
        ),
    )


def test_initiation_gap_on_a_hand_made_case() -> None:
    trials = [
        _record("s1", "B", 0, 80.0, 1.0),
        _record("s1-u", "B/unprompted", 0, 20.0, 0.5),
        _record("s2", "B", 0, 60.0, 0.2),
        _record("s2-u", "B/unprompted", 0, 60.0, 0.2),
        _record("s3-u", "B/unprompted", 0, 0.0, 0.0),  # no announced twin: not paired
    ]
    (gap,) = initiation_gaps(trials, ["p"], DEFAULT_CONFIG, seed=0)
    assert (gap.family, gap.policy, gap.n_pairs) == ("B", "p", 2)
    assert gap.score is not None and gap.score.mean == pytest.approx(30.0)
    assert (gap.score.a_better, gap.score.b_better, gap.score.ties) == (1, 0, 1)
    assert gap.net_utility is not None and gap.net_utility.mean == pytest.approx(0.25)
    assert gap.claim_accuracy is not None and gap.claim_accuracy.mean == pytest.approx(0.5)


def test_a_policy_that_reads_no_task_text_gets_n_a_not_a_gap() -> None:
    from heedful.bench.report.initiation import NOT_READING, gap_cells

    trials = [
        _record("s1", "B", 0, 80.0, 1.0),
        _record("s1-u", "B/unprompted", 0, 20.0, 0.5),
    ]
    trials = [t.model_copy(update={"policy": "voc"}) for t in trials]
    (gap,) = initiation_gaps(trials, ["voc"], DEFAULT_CONFIG, seed=0)
    assert not gap.reads_task and gap.score is None and gap.n_pairs == 1
    assert NOT_READING in gap_cells(gap)
    assert get_policy("summary-trusting").reads_task and not get_policy("voc").reads_task


def test_summary_trusting_reads_the_task_with_its_own_words_not_the_generators() -> None:
    from heedful.bench.policies.unprompted import asks_to_inspect

    # The generator's check passes this wording as unprompted; the agent reads a request in it.
    task = "Make sure the state is right, then deploy checkout or hold checkout."
    assert not mentions_inspection(task) and asks_to_inspect(task)
    assert not asks_to_inspect(
        "Please deploy checkout — or hold checkout if that is the right call."
    )
    (s,) = _b(1, UNPROMPTED)
    told = s.view.task_view().model_copy(update={"task": task})
    policy = get_policy("summary-trusting")
    policy.reset(told, np.random.default_rng(0))
    assert policy.next(()) is not None
    policy.reset(s.view.task_view(), np.random.default_rng(0))
    assert policy.next(()) is None


# --- command line ------------------------------------------------------------------------------


def test_bench_run_condition_both_reports_the_initiation_gap(tmp_path: Path) -> None:
    res = CliRunner().invoke(
        app,
        [
            "bench", "run", "--family", "B", "--condition", "both", "--count", "3",
            "--trials", "1", "--policies", "summary-trusting,voc-guarded",
            "--out", str(tmp_path),
        ],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "initiation gap" in res.output
    data: dict[str, Any] = json.loads((tmp_path / "results.json").read_text())
    assert {r["policy"] for r in data["aggregates"]["initiation_gap"]} == {
        "summary-trusting",
        "voc-guarded",
    }
    assert {r["family"] for r in data["aggregates"]["initiation"]} == {"B", "B/unprompted"}
    assert "Initiation gap" in (tmp_path / "report.html").read_text()


def test_bench_run_rejects_an_unknown_condition(tmp_path: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "heedful.cli", "bench", "run", "--family", "B",
         "--condition", "maybe", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert res.returncode == 2
    assert "condition must be one of" in res.stderr + res.stdout
    assert "Traceback" not in res.stderr
