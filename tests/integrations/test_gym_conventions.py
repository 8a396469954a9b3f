"""Gymnasium conventions of heedful/BudgetedInspection-v2: the module-qualified id, the action
mask (``info["action_mask"]``, ``action_masks()``), the invalid-action penalty, versions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

gymnasium = pytest.importorskip("gymnasium")

import heedful.integrations.gym  # noqa: E402
from heedful.integrations.gym import (  # noqa: E402
    ENV_ID,
    ENV_ID_V0,
    ENV_ID_V1,
    INVALID_PENALTY,
    BudgetedInspectionEnv,
)
from heedful.learn.dataset import training_scenarios  # noqa: E402
from heedful.model import scenario_from_dict  # noqa: E402

HIDDEN_LIVE = Path(__file__).resolve().parents[1] / "data" / "hidden_live.yaml"


@pytest.fixture(scope="module")
def scenarios():
    return training_scenarios("G", 3, 0) + training_scenarios("B", 2, 0)


def test_the_module_qualified_id_makes_the_env_with_nothing_imported_first() -> None:
    code = (
        "import sys, gymnasium as gym\n"
        "env = gym.make('heedful.integrations.gym:heedful/BudgetedInspection-v2', count=2)\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__name__, env.observation_space.contains(obs))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["BudgetedInspectionEnv", "True"]


def test_register_envs_idiom_and_the_three_versions_are_registered() -> None:
    gymnasium.register_envs(heedful.integrations.gym)
    assert ENV_ID == "heedful/BudgetedInspection-v2"
    assert {ENV_ID, ENV_ID_V1, ENV_ID_V0} <= set(gymnasium.registry)


def test_the_mask_in_info_is_action_masks_and_stop_is_always_valid(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    _, info = env.reset(seed=0, options={"index": 0})
    n = len(scenarios[0].view.sources)
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (env.action_space.n,)
    assert mask.tolist() == env.action_masks().astype(np.int8).tolist()
    assert mask[:n].all() and not mask[n : env.stop_action].any() and mask[env.stop_action]


def test_an_inspected_source_is_masked_out(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    env.reset(seed=0, options={"index": 0})
    _, _, _, _, info = env.step(1)
    assert info["action_mask"][1] == 0 and info["action_mask"][0] == 1


def test_with_the_budget_spent_only_stop_is_valid(scenarios) -> None:
    env = BudgetedInspectionEnv(scenarios=scenarios)
    env.reset(seed=0, options={"index": 3})
    budget = scenarios[3].view.budget
    for a in range(budget):
        _, _, done, _, info = env.step(a)
        assert not done
    assert np.flatnonzero(info["action_mask"]).tolist() == [env.stop_action]


def test_a_hidden_source_is_masked_until_revealed() -> None:
    raw = yaml.safe_load(HIDDEN_LIVE.read_text(encoding="utf-8"))
    raw["task"] = "Ship or hold."
    env = BudgetedInspectionEnv(scenarios=[scenario_from_dict(raw, file="hidden.yaml")])
    _, info = env.reset(seed=1)
    assert info["action_mask"].tolist() == [1, 1, 0, 1]
    _, _, _, _, info = env.step(0)  # reading the revealer opens the hidden slot
    assert info["revealed"] == ["live-probe"]
    assert info["action_mask"].tolist() == [0, 1, 1, 1]


def test_a_masked_random_agents_200_episodes_all_end_valid() -> None:
    env = gymnasium.make(ENV_ID, family="G", count=10)
    rng = np.random.default_rng(0)
    ends = []
    for episode in range(200):
        _, info = env.reset(seed=episode)
        env.action_space.seed(int(rng.integers(2**31)))
        done = False
        while not done:
            action = env.action_space.sample(mask=info["action_mask"])
            _, _, done, _, info = env.step(action)
        ends.append(info["invalid"])
    assert not any(ends)


def _invalid_and_stop_rewards(env_id: str, scenarios) -> tuple[float, float]:
    rewards = []
    for second in (0, None):  # the same source twice (invalid), or stop
        env = gymnasium.make(env_id, scenarios=scenarios)
        env.reset(seed=4, options={"index": 0})
        env.step(0)
        action = second if second is not None else env.unwrapped.stop_action
        _, reward, done, _, info = env.step(action)
        assert done and info["invalid"] is (second is not None)
        rewards.append(reward)
    return rewards[0], rewards[1]


def test_v2_penalises_an_invalid_action_below_the_stop_it_forces(scenarios) -> None:
    invalid, stop = _invalid_and_stop_rewards(ENV_ID, scenarios)
    assert invalid == pytest.approx(stop - INVALID_PENALTY)


@pytest.mark.filterwarnings("ignore:.*BudgetedInspection-v1 is out of date")
def test_v1_keeps_its_reward_an_invalid_action_pays_as_the_stop(scenarios) -> None:
    invalid, stop = _invalid_and_stop_rewards(ENV_ID_V1, scenarios)
    assert invalid == stop


def test_a_negative_penalty_is_refused(scenarios) -> None:
    from heedful.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="invalid_penalty"):
        BudgetedInspectionEnv(scenarios=scenarios, invalid_penalty=-1.0)
