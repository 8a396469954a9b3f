"""Per-family paired gains of a learned policy against a fixed one."""

from __future__ import annotations

import pytest

from heedful.bench.worlds.families import generate_family
from heedful.learn.evaluate import compare_policies, gains_by_family


def test_gains_by_family_are_paired_regret_and_score_differences() -> None:
    scenarios = generate_family("G", 3, 0) + generate_family("A", 3, 0)
    comp = compare_policies(scenarios, ["voc", "voc-model"], "voc-model", trials=2)
    gains = gains_by_family(comp.results, "voc-model", "voc")
    assert set(gains) == {"A", "G"}
    for family, (regret, score) in gains.items():
        trials = [t for t in comp.results.trials if t.family == family]
        reg = {(t.scenario_id, t.trial, t.policy): t.regret for t in trials}
        diffs = [
            reg[(s, k, "voc")] - reg[(s, k, "voc-model")] for (s, k, p) in reg if p == "voc-model"
        ]
        assert regret is not None and regret.mean == pytest.approx(sum(diffs) / len(diffs))
        assert score is not None and regret.n == len(diffs)


def test_a_policy_against_itself_gains_nothing() -> None:
    comp = compare_policies(generate_family("B", 3, 0), ["voc"], "voc", trials=1)
    (regret, score) = gains_by_family(comp.results, "voc", "voc")["B"]
    assert regret is not None and regret.mean == 0.0 and regret.lo == 0.0 == regret.hi
    assert score is not None and score.mean == 0.0
