"""The options of a run as objects (run/options.py, AgentTrials), the family generators' shared
keywords, and family J's hidden model as one table per timescale."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from heedful.bench.agents.runner import AgentTrialOptions, AgentTrials
from heedful.bench.config import BenchConfig
from heedful.bench.run.benchmark import play_benchmark, run_benchmark
from heedful.bench.run.options import BenchRun, Trials
from heedful.bench.worlds.families import DrawOptions, generate_family, generate_suite
from heedful.bench.worlds.schedule import MODEL, ScheduleModel, TimescaleModel, generate_schedule
from heedful.errors import InvalidArgumentError
from heedful.model import Condition
from heedful.model.schedule import Timescale

FAST = BenchConfig(bootstrap_resamples=100)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"trials": 0, "seed": 0}, "trials must be at least 1, got 0"),
        ({"trials": 1, "seed": -3}, "seed must be a non-negative integer, got -3"),
    ],
)
def test_trials_refuse_a_bad_count_or_seed(fields: dict[str, int], message: str) -> None:
    for cls in (Trials, BenchRun, AgentTrials):
        with pytest.raises(InvalidArgumentError, match=message):
            cls(**fields)


def test_agent_trials_refuse_a_bad_concurrency_or_mode() -> None:
    with pytest.raises(InvalidArgumentError, match="--concurrency must be at least 1, got 0"):
        AgentTrials(trials=1, seed=0, concurrency=0)
    with pytest.raises(InvalidArgumentError, match="--mode must be one of"):
        AgentTrials(trials=1, seed=0, mode="sometimes")


def test_run_agents_sync_keywords_are_agent_trials_fields() -> None:
    """``AgentTrialOptions`` (the typed ``**options`` of ``run_agents_sync``) is written by hand:
    its keys, and which of them are required, must stay those of ``AgentTrials``."""
    fields = dataclasses.fields(AgentTrials)
    assert set(AgentTrialOptions.__annotations__) == {f.name for f in fields}
    required = {
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    assert AgentTrialOptions.__required_keys__ == required


def test_world_keys_are_one_per_scenario() -> None:
    assert Trials(trials=1, seed=0).keys_for(3) == [0, 1, 2]
    keyed = Trials(trials=1, seed=0, world_keys=[5, 5, 7])
    assert keyed.world_keys == (5, 5, 7)
    assert keyed.keys_for(3) == [5, 5, 7]
    with pytest.raises(InvalidArgumentError, match="world_keys needs one key per scenario"):
        keyed.keys_for(2)


def test_trial_fields_are_what_policies_and_agents_share() -> None:
    run = BenchRun(trials=2, seed=4, adaptive=True, sealed=True, workers=None, initiation=True)
    shared = run.trial_fields()
    assert set(shared) == {"trials", "seed", "adaptive", "config", "world_keys", "initiation"}
    agents = AgentTrials(**shared, mode="both")
    assert (agents.trials, agents.seed, agents.adaptive, agents.initiation) == (2, 4, True, True)


def test_run_benchmark_is_play_benchmark_of_its_keywords() -> None:
    scenarios = generate_family("G", 2, 0)
    by_keywords = run_benchmark(
        scenarios, ["random", "voc"], trials=2, seed=3, config=FAST, world_keys=[0, 0]
    )
    by_object = play_benchmark(
        scenarios,
        ["random", "voc"],
        BenchRun(trials=2, seed=3, config=FAST, world_keys=(0, 0)),
    )
    assert by_object.trials == by_keywords.trials
    assert by_object.aggregates == by_keywords.aggregates
    assert by_object.manifest.policies == by_keywords.manifest.policies


def test_generate_suite_passes_generate_familys_keywords_on() -> None:
    options: DrawOptions = {"condition": Condition.UNPROMPTED, "shift": 0.5}
    suite = generate_suite(["G", "B"], 2, 1, **options)
    assert suite == generate_family("G", 2, 1, **options) + generate_family("B", 2, 1, **options)
    assert all(s.id.endswith("-u") for s in suite)
    with pytest.raises(InvalidArgumentError, match="shift"):
        generate_suite(["G"], 1, 0, shift=-1.0)


def test_schedule_model_is_one_table_per_timescale() -> None:
    tables = dict(MODEL.timescales)
    tables[Timescale.WEEK] = TimescaleModel(count=(0, 0), work=(1, 1), value=(1, 1), hazard=(0, 0))
    tables[Timescale.HOURS] = TimescaleModel(
        count=(3, 3), work=(2, 2), value=(1.0, 1.0), hazard=(0.05, 0.05)
    )
    model = ScheduleModel(timescales=tables, noise_prob=0.0)
    for i in range(5):
        scenario = generate_schedule(
            np.random.default_rng(i), np.random.default_rng(100 + i), f"j{i}", model
        )
        by_scale = {
            ts: [o for o in scenario.view.obligations if o.timescale is ts] for ts in tables
        }
        assert by_scale[Timescale.WEEK] == []
        assert len(by_scale[Timescale.HOURS]) == 3
        assert 2 <= len(by_scale[Timescale.MINUTES]) <= 4
        for o in by_scale[Timescale.HOURS]:
            assert o.work == 2
            truth = scenario.truth.obligations[o.id]
            assert (truth.value, truth.hazard) == (1.0, 0.05)
