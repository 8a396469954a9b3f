"""``voc-production`` (document 000 Appendix D): the controller's production score and rescue rate.

The policy reads exactly what ``voc`` reads; its validator then forces the authoritative read of
a claim without fresh authoritative evidence. Forced reads are outside the budget, never counted
as attention, and scored in production mode.
"""

from __future__ import annotations

from typing import Any

import pytest

from heedful.bench.ablations import production_report, production_text
from heedful.bench.results import FailureCode
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.worlds.families import generate_family
from heedful.model import Scenario, scenario_from_dict


def _no_budget(world_state: str = "down") -> Scenario:
    raw: dict[str, Any] = {
        "format": "heedful.scenario/v1",
        "id": "claim-without-evidence",
        "task": "Ship or hold.",
        "budget": 0,
        "cost_weight": 0.01,
        "variables": {
            "state": {"domain": ["up", "down"], "prior": [0.8, 0.2], "volatility": "high"}
        },
        "actions": {
            "ship": {"utility": [{"when": {"state": "up"}, "value": 1.0}, {"value": -1.0}]},
            "hold": {"utility": [{"when": {"state": "down"}, "value": 0.5}, {"value": 0.0}]},
        },
        "beliefs": [{"variable": "state", "value": "up", "age_s": 7200, "confidence": 0.8}],
        "sources": [
            {
                "id": "live",
                "reports": ["state"],
                "accuracy": 1.0,
                "authority": 0.95,
                "cost": {"tool_calls": 1},
            },
            {"id": "chatter", "reports": [], "authority": 0.3},
        ],
        "world": {"state": world_state},
    }
    return scenario_from_dict(raw, file="production.yaml")


def test_the_validator_forces_the_authoritative_read_and_rescues_the_decision() -> None:
    results = run_benchmark([_no_budget()], ["voc", "voc-production"], trials=2, seed=0)
    by = {(t.policy, t.trial): t for t in results.trials}
    for k in range(2):
        attention, production = by[("voc", k)], by[("voc-production", k)]
        assert attention.inspected == production.inspected == []
        assert production.forced_inspections == ["live"] and attention.forced_inspections == []
        assert production.mode == "production" and attention.mode == "attention"
        assert not attention.action_correct and production.action_correct
        assert FailureCode.VALIDATOR_RESCUED in production.codes
        assert production.score == attention.score  # attention: the spontaneous reads only
    report = production_report(results)
    assert report is not None and report.n_pairs == 2
    assert report.rescue.k == 2 and report.harmed.k == 0
    assert report.forced_per_trial == 1.0
    text = production_text(report)
    assert "rescued" in text and max(len(line) for line in text.splitlines()) <= 80


def test_no_rescue_where_the_prior_was_right_anyway() -> None:
    results = run_benchmark([_no_budget("up")], ["voc", "voc-production"], trials=1, seed=0)
    report = production_report(results)
    assert report is not None and report.rescue.k == 0
    prod = next(t for t in results.trials if t.policy == "voc-production")
    assert prod.forced_inspections == ["live"]  # the claim still lacked evidence
    # The trial code says only "forced reads, then a right action"; the paired rate above says
    # whether enforcement changed the outcome (here it did not: acting at once was right too).
    assert FailureCode.VALIDATOR_RESCUED in prod.codes


@pytest.mark.parametrize("adaptive", [False, True])
def test_voc_production_reads_what_voc_reads(adaptive: bool) -> None:
    scenarios = [*generate_family("G", 4, 0), *generate_family("E", 4, 0)]
    results = run_benchmark(
        scenarios, ["voc", "voc-production"], trials=2, seed=0, adaptive=adaptive
    )
    by = {(t.policy, t.scenario_id, t.trial): t for t in results.trials}
    for (policy, sid, k), t in by.items():
        if policy == "voc-production":
            assert t.inspected == by[("voc", sid, k)].inspected
            assert not set(t.forced_inspections) & set(t.inspected)
        else:
            assert t.production_score is None


def test_production_report_is_none_without_the_production_policy() -> None:
    results = run_benchmark(generate_family("G", 2, 0), ["voc"], trials=1, seed=0)
    assert production_report(results) is None
