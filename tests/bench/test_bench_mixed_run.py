"""One call plays every kind: ``run_benchmark`` on a mix of inspection, switching and schedule
scenarios is the three run apart and spliced into one results table."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from heedful.bench.agents.suite import AgentRun, run_suite
from heedful.bench.config import BenchConfig
from heedful.bench.kinds import generate_kind_family
from heedful.bench.results import Results
from heedful.bench.run.benchmark import policies_of_kind, run_benchmark
from heedful.bench.run.kinds import KindRun, run_kinds
from heedful.bench.run.options import BenchRun
from heedful.bench.worlds.families import generate_suite
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model.scenario import ScenarioKind

FAST = BenchConfig(bootstrap_resamples=100)
#: ``voc``/``random`` exist for every kind, ``always-queue`` for D only, ``first-open`` for J
#: only, ``voc-no-cost`` for inspection only.
NAMES = ["voc", "random", "always-queue", "first-open", "voc-no-cost"]
G = generate_suite(["G"], 3, 0)
D = generate_kind_family("D", 3, 0)
J = generate_kind_family("J", 3, 0)


def _kinds(scenarios: Sequence[object]) -> KindRun:
    return run_kinds(scenarios, ",".join(NAMES), trials=2, seed=4, config=FAST)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def mixed() -> Results:
    return run_benchmark([*G, *D, *J], NAMES, trials=2, seed=4, config=FAST)


def test_a_mixed_list_gives_the_rows_of_its_kinds_run_apart_and_spliced(mixed: Results) -> None:
    apart = run_benchmark(G, ["voc", "random", "voc-no-cost"], trials=2, seed=4, config=FAST)
    d, j = _kinds(D), _kinds(J)
    assert mixed.aggregates.rows == [*apart.aggregates.rows, *d.rows, *j.rows]
    assert mixed.aggregates.paired == [*apart.aggregates.paired, *d.paired, *j.paired]
    assert mixed.trials == apart.trials and mixed.scenarios == apart.scenarios
    assert mixed.kinds is not None
    assert mixed.kinds.switching == d.trials.switching
    assert mixed.kinds.schedule == j.trials.schedule


def test_each_kind_plays_the_names_that_exist_for_it(mixed: Results) -> None:
    played = {(r.kind, r.policy) for r in mixed.aggregates.rows if r.family != "all"}
    assert {p for k, p in played if k == "inspection"} == {"voc", "random", "voc-no-cost"}
    assert {p for k, p in played if k == "switching"} == {"voc", "random", "always-queue"}
    assert {p for k, p in played if k == "schedule"} == {"voc", "random", "first-open"}


def test_the_manifest_counts_every_kind_and_names_its_families(mixed: Results) -> None:
    assert mixed.manifest.n_scenarios == len(G) + len(D) + len(J)
    assert mixed.manifest.generator_versions == {"G": "file", "D": "file", "J": "file"}
    given = run_benchmark(
        [*G, *D], ["voc"], trials=1, seed=4, config=FAST, generator_versions={"G": "1", "D": "2"}
    )
    assert given.manifest.generator_versions == {"G": "1", "D": "2"}


def test_switching_and_schedule_scenarios_alone_give_a_results_table() -> None:
    res = run_benchmark([*D, *J], NAMES, trials=2, seed=4, config=FAST)
    assert res.trials == [] and res.scenarios == [] and res.manifest.policies == []
    assert res.aggregates.rows == [*_kinds(D).rows, *_kinds(J).rows]
    assert res.manifest.n_scenarios == len(D) + len(J)


def test_a_mapping_gives_each_kind_its_own_list() -> None:
    res = run_benchmark(
        [*G, *D],
        {ScenarioKind.INSPECTION: ["oracle"], ScenarioKind.SWITCHING: ["always-queue"]},
        trials=1,
        seed=0,
        config=FAST,
    )
    assert {(r.kind, r.policy) for r in res.aggregates.rows} == {
        ("inspection", "oracle"),
        ("switching", "always-queue"),
    }


def test_a_mapping_naming_a_policy_its_kind_lacks_fails_before_any_work() -> None:
    with pytest.raises(UnknownNameError, match="no switching version"):
        run_benchmark(D, {ScenarioKind.SWITCHING: ["voc-no-cost"]}, trials=1, seed=0)
    with pytest.raises(InvalidArgumentError, match="no policies given for the switching"):
        run_benchmark(D, {ScenarioKind.INSPECTION: ["voc"]}, trials=1, seed=0)


def test_a_name_no_kind_knows_is_refused() -> None:
    with pytest.raises(UnknownNameError, match="nope"):
        policies_of_kind(["voc", "nope"], ScenarioKind.SWITCHING)
    with pytest.raises(UnknownNameError, match="nope"):
        run_benchmark([*G, *D], ["voc", "nope"], trials=1, seed=0)


def test_a_sealed_run_refuses_switching_scenarios() -> None:
    with pytest.raises(InvalidArgumentError, match="sealed hold-outs"):
        run_benchmark([*G, *D], ["voc"], trials=1, seed=0, sealed=True)


def test_agents_play_inspection_scenarios_only() -> None:
    agent_run = AgentRun(settings=None)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="inspection scenarios only"):
        run_suite([*G, *D], ["voc"], ["llm"], agent_run, BenchRun(trials=1, seed=0))
