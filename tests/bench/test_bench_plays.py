"""A run's kept controller plays stand in exactly for replays (calibration and health tables)."""

from __future__ import annotations

from heedful.bench import generate_suite, run_benchmark
from heedful.bench.report.timeline import policy_health
from heedful.bench.results import Results
from heedful.bench.results.plays import Plays
from heedful.bench.run.calibration import calibrate
from heedful.model import Scenario

POLICIES = ["voc", "voc-model", "goal-only", "random"]


def _run(adaptive: bool, workers: int = 1) -> tuple[Results, Plays, list[Scenario]]:
    scenarios = generate_suite(["G", "B"], 3, seed=2)
    plays: Plays = {}
    results = run_benchmark(
        scenarios,
        POLICIES,
        trials=2,
        seed=1,
        adaptive=adaptive,
        progress=False,
        plays=plays,
        workers=workers,
    )
    return results, plays, scenarios


def test_only_controller_policies_keep_plays_static_once_per_scenario() -> None:
    _, plays, scenarios = _run(False)
    assert {k[0] for k in plays} == {"voc", "voc-model", "goal-only"}
    assert {k[2] for k in plays} == {0}  # a deterministic policy plays a static scenario once
    assert len(plays) == 3 * len(scenarios)


def test_kept_plays_match_the_recorded_reads() -> None:
    results, plays, _ = _run(True)
    for t in results.trials:
        if t.policy != "random":
            assert plays[(t.policy, t.scenario_id, t.trial)].inspected == tuple(t.inspected)


def test_health_from_kept_plays_equals_health_from_replays() -> None:
    for adaptive in (False, True):
        results, plays, scenarios = _run(adaptive)
        kept = policy_health(results, scenarios, plays=plays)
        replayed = policy_health(results, scenarios)
        assert kept == replayed
        assert kept  # there is something to compare


def test_calibration_from_kept_plays_equals_calibration_from_replays() -> None:
    _, plays, scenarios = _run(False)
    kept = calibrate(scenarios, POLICIES, plays=plays)
    assert kept == calibrate(scenarios, POLICIES)
    assert [r.policy for r in kept] == ["voc", "voc-model"]


def test_plays_kept_by_worker_processes_equal_the_serial_ones() -> None:
    assert _run(False, workers=2)[1] == _run(False)[1]
