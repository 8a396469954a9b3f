"""The one trial loop (bench/run/loop.py): every scenario kind is a ScenarioKindSpec of
bench/kinds/ played by play_scenario — inspection as well as switching and schedule."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from heedful.bench import generate_suite
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.kinds import ScenarioKindSpec, generate_kind_family, get_kind, kind_names
from heedful.bench.policy import get_policy
from heedful.bench.results import PolicySpec
from heedful.bench.run.kinds import KindTask
from heedful.bench.run.loop import TrialJob, play_scenario
from heedful.bench.run.runner import INSPECTION, ScenarioTask
from heedful.model.scenario import ScenarioKind


@dataclass
class _Scenario:
    id: str


@dataclass
class _Case:
    scenario: _Scenario
    key: int
    events: list[tuple[str, ...]] = field(default_factory=list)


def _fake_kind(major: bool) -> ScenarioKindSpec[_Case, tuple[str, int]]:
    class Fake(ScenarioKindSpec[_Case, tuple[str, int]]):  # not registered: the loop alone
        kind = "fake"
        policy_major = major

        def prepare(self, scenario: _Scenario, key: int, job: TrialJob) -> _Case:
            return _Case(scenario, key)

        def bind(self, case: _Case, policy: Any) -> None:
            case.events.append(("bind", policy))

        def play(
            self, case: _Case, name: str, policy: Any, trial: int, job: TrialJob
        ) -> tuple[str, int]:
            case.events.append(("play", name, str(trial)))
            return (name, trial)

    return Fake()


def test_the_loop_plays_trial_by_trial_or_policy_by_policy_after_binding_every_policy() -> None:
    policies = [("a", "pa"), ("b", "pb")]
    job = TrialJob(trials=2, seed=0, config=DEFAULT_CONFIG)
    labels: list[str] = []
    case, by_trial = play_scenario(
        _fake_kind(False), _Scenario("s1"), 7, policies, job, labels.append
    )
    assert by_trial == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]
    assert case.key == 7
    assert case.events[:2] == [("bind", "pa"), ("bind", "pb")]
    assert labels == ["s1"] * 4
    _, by_policy = play_scenario(_fake_kind(True), _Scenario("s1"), 7, policies, job)
    assert by_policy == [("a", 0), ("a", 1), ("b", 0), ("b", 1)]


def test_a_sealed_scenario_is_never_named_in_the_progress_labels() -> None:
    job = TrialJob(trials=1, seed=0, config=DEFAULT_CONFIG, sealed=True)
    labels: list[str] = []
    play_scenario(_fake_kind(False), _Scenario("secret-id"), 0, [("a", "pa")], job, labels.append)
    assert labels == ["sealed"]


def test_every_scenario_kind_is_a_registered_kind_of_the_one_loop() -> None:
    assert kind_names() == [k.value for k in ScenarioKind]
    assert get_kind("inspection") is INSPECTION
    for name in kind_names():
        assert get_kind(name).kind == name
    # Inspection trials share a trial's world across policies: written trial by trial.
    assert not INSPECTION.policy_major
    assert get_kind("switching").policy_major


def test_the_inspection_job_is_the_loop_with_the_inspection_kind() -> None:
    scenario = generate_suite(["B"], 1, seed=3)[0]
    names = ("random", "voc")
    job = TrialJob(trials=2, seed=3, config=DEFAULT_CONFIG)
    summary, records, plays = ScenarioTask(tuple(PolicySpec(name=n) for n in names), job)(
        (scenario, 0)
    )
    policies = [(n, get_policy(n)) for n in names]
    case, direct = play_scenario(INSPECTION, scenario, 0, policies, job)
    assert [r.model_dump() for r in records] == [r.model_dump() for r in direct]
    assert [(r.policy, r.trial) for r in records] == [
        ("random", 0),
        ("voc", 0),
        ("random", 1),
        ("voc", 1),
    ]
    assert summary == case.oracle.summary(DEFAULT_CONFIG)
    assert plays == {}


def test_a_kind_job_is_the_loop_with_its_kind() -> None:
    scenario = generate_kind_family("D", 1, seed=2)[0]
    played = KindTask(("random", "oracle"), 2, 2, DEFAULT_CONFIG)(scenario)
    assert [(t.policy, t.trial) for t in played] == [
        ("random", 0),
        ("random", 1),
        ("oracle", 0),
        ("oracle", 1),
    ]
    # The oracle policy is bound to the case: it plays the optimum.
    assert all(t.optimal for t in played if t.policy == "oracle")
