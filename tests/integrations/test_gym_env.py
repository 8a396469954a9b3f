"""The Gymnasium environment heedful/BudgetedInspection-v1 (and -v0)."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import heedful.integrations.gym  # noqa: E402, F401
from heedful.bench.score.scoring import ScenarioOracle  # noqa: E402
from heedful.errors import InvalidArgumentError  # noqa: E402
from heedful.integrations.gym import ENV_ID, BudgetedInspectionEnv  # noqa: E402
from heedful.learn.dataset import training_scenarios  # noqa: E402

PRIVATE_WORDS = ("world", "prior", "accuracy", "echo", "render", "fails", "truth")


@pytest.fixture(scope="module")
def scenarios():
    return training_scenarios("G", 3, 0) + training_scenarios("B", 2, 0)


def test_registered_env_passes_the_gymnasium_checker() -> None:
    env = gymnasium.make(ENV_ID, family="G", count=3)
    check_env(env.unwrapped, skip_render_check=True)


def test_episode_return_is_the_trials_net_utility(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    _, info = env.reset(seed=3, options={"index": 0})
    oracle = ScenarioOracle.prepare(scenarios[0], adaptive=False)
    total, steps = 0.0, [0, 1]
    for a in steps:
        _, r, term, _, info = env.step(a)
        total += r
        assert not term
    _, r, term, _, info = env.step(env.stop_action)
    total += r
    ids = [scenarios[0].view.sources[i].id for i in steps]
    assert term and info["inspected"] == ids
    assert total == pytest.approx(info["utility"] - oracle.weighted_cost(ids))


def test_info_never_carries_private_fields(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    _, info = env.reset(seed=0)
    infos = [info]
    done = False
    a = 0
    while not done:
        _, _, done, _, info = env.step(a)
        infos.append(info)
        a += 1
    for inf in infos:
        assert not any(w in k.lower() for k in inf for w in PRIVATE_WORDS)
        assert "world" not in repr(inf)


def test_same_seed_same_episode(scenarios) -> None:
    def run(seed: int) -> list[float]:
        env = BudgetedInspectionEnv(scenarios=scenarios)
        obs, _ = env.reset(seed=seed)
        out = [float(obs.sum())]
        for a in (0, 1, env.stop_action):
            obs, r, *_ = env.step(a)
            out += [float(obs.sum()), r]
        return out

    assert run(11) == run(11)


def test_an_invalid_action_ends_the_episode_like_a_protocol_violation(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    env.reset(seed=1, options={"index": 0})
    env.step(0)
    _, _, term, _, info = env.step(0)  # the same source again
    assert term and info["invalid"] and info["inspected"] == [scenarios[0].view.sources[0].id]


def test_make_with_no_arguments_plays_family_g() -> None:
    env = gymnasium.make(ENV_ID)
    scenarios = env.unwrapped.scenarios
    assert scenarios == training_scenarios("G", 20, 0)
    assert {s.view.family for s in scenarios} == {"G"}
    obs, _ = env.reset(seed=0)
    assert env.observation_space.contains(obs)


def test_two_task_sources_are_refused(tmp_path) -> None:
    with pytest.raises(InvalidArgumentError, match="not both"):
        BudgetedInspectionEnv(scenario_file=str(tmp_path / "x.yaml"), family="G")


def test_observation_is_in_the_space(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    obs, _ = env.reset(seed=2)
    assert env.observation_space.contains(obs)
    assert obs.dtype == np.float32
