from __future__ import annotations

from pathlib import Path

import pytest

from heedful.decision import (
    DecisionProblem,
    adaptive_oracle,
    compile_problem,
    myopic_voi,
    static_oracle,
    value,
)
from heedful.model import load_scenarios

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"


def _load(name: str) -> tuple[DecisionProblem, int]:
    (sc,) = load_scenarios(EXAMPLES / name)
    return compile_problem(sc.view, sc.truth), sc.view.budget


def test_deploy_example_has_30_sources_and_budget_3() -> None:
    p, budget = _load("deploy_a_or_b.yaml")
    assert (p.n_sources, budget) == (30, 3)


def test_deploy_example_oracle_inspects_exactly_registry_and_matrix() -> None:
    p, budget = _load("deploy_a_or_b.yaml")
    result = static_oracle(p, budget)
    assert result.optimal_sets == (("compat_matrix", "registry"),)
    assert result.critical == ("registry", "compat_matrix")


def test_deploy_example_manifest_helps_on_its_own() -> None:
    p, _ = _load("deploy_a_or_b.yaml")
    assert value(p, ["deploy_manifest"]) > value(p, [])


def test_deploy_example_manifest_does_not_resolve_compatibility() -> None:
    p, _ = _load("deploy_a_or_b.yaml")
    assert value(p, ["deploy_manifest", "compat_matrix"]) < value(p, ["registry", "compat_matrix"])


def test_deploy_example_cached_summary_has_zero_information() -> None:
    p, _ = _load("deploy_a_or_b.yaml")
    voi = myopic_voi(p, None, "cached_summary")
    assert voi.gross == pytest.approx(0.0, abs=1e-12)
    assert voi.net < 0


def test_deploy_example_distractors_are_worth_nothing_and_cost_something() -> None:
    p, _ = _load("deploy_a_or_b.yaml")
    base = value(p, ["registry", "compat_matrix"])
    for sid in p.source_ids:
        if sid.startswith("distractor_") or sid in ("worker_chat", "security_digest"):
            assert value(p, ["registry", "compat_matrix", sid]) < base


def test_deploy_example_adaptive_oracle_starts_with_an_authoritative_source() -> None:
    p, budget = _load("deploy_a_or_b.yaml")
    result = adaptive_oracle(p, budget)
    assert result.first in ("registry", "compat_matrix")
    assert result.v_adaptive >= static_oracle(p, budget).v_star


def test_xor_example_sources_are_worthless_alone_and_decisive_together() -> None:
    p, budget = _load("xor_jointly_informative.yaml")
    assert myopic_voi(p, None, "primary_status").gross == pytest.approx(0.0, abs=1e-12)
    assert myopic_voi(p, None, "standby_status").gross == pytest.approx(0.0, abs=1e-12)
    result = static_oracle(p, budget)
    assert result.optimal_sets == (("primary_status", "standby_status"),)
