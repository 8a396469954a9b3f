"""Hidden sources in heedful/BudgetedInspection-v1 (issue 23): an empty slot until revealed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from heedful.bench.score.scoring import ScenarioOracle  # noqa: E402
from heedful.integrations.gym import ENV_ID, ENV_ID_V0, BudgetedInspectionEnv  # noqa: E402
from heedful.integrations.gym.env import PER_SOURCE, V0_PER_SOURCE  # noqa: E402
from heedful.model import Scenario, scenario_from_dict  # noqa: E402

HIDDEN_LIVE = Path(__file__).resolve().parents[1] / "data" / "hidden_live.yaml"


def _scenario() -> Scenario:
    """The shared hidden-source world (tests/data/hidden_live.yaml), as this file uses it."""
    raw = yaml.safe_load(HIDDEN_LIVE.read_text(encoding="utf-8"))
    raw["task"] = "Ship or hold."
    for key in ("label", "age_s"):
        del raw["sources"][2][key]
    return scenario_from_dict(raw, file="hidden.yaml")


def _slot(obs: np.ndarray, i: int) -> np.ndarray:
    return obs[i * PER_SOURCE : (i + 1) * PER_SOURCE]


def test_the_hidden_source_has_a_slot_that_is_empty_until_revealed() -> None:
    env = BudgetedInspectionEnv(scenarios=[_scenario()])
    assert env.max_sources == 3  # two listed, one hidden
    obs, info = env.reset(seed=0)
    assert not _slot(obs, 2).any()  # all zeros, like padding
    assert info["n_sources"] == 2 and info["revealed"] == []
    _, _, done, _, info = env.step(2)  # inspecting it before its revealer: invalid
    assert done and info["invalid"] and info["inspected"] == []


def test_a_source_that_reveals_nothing_leaves_the_slot_empty() -> None:
    env = BudgetedInspectionEnv(scenarios=[_scenario()])
    env.reset(seed=0)
    obs, _, done, _, info = env.step(1)
    assert not done and not _slot(obs, 2).any() and info["revealed"] == []


def test_reading_the_revealer_fills_the_slot_and_opens_it() -> None:
    sc = _scenario()
    env = BudgetedInspectionEnv(scenarios=[sc])
    env.reset(seed=1)
    obs, r1, done, _, info = env.step(0)
    assert not done and info["revealed"] == ["live-probe"] and info["n_sources"] == 3
    row = _slot(obs, 2)
    assert row[0] == 1.0 and row[1] == pytest.approx(0.95) and row[4] == 1.0 and row[5] == 0.0
    obs, r2, done, _, info = env.step(2)
    assert not done and info["inspected"] == ["catalogue", "live-probe"]
    assert _slot(obs, 2)[5] == 1.0  # inspected
    _, r3, done, _, info = env.step(env.stop_action)
    assert done and not info["invalid"]
    oracle = ScenarioOracle.prepare(sc, adaptive=False)
    cost = oracle.weighted_cost(["catalogue", "live-probe"])
    assert r1 + r2 + r3 == pytest.approx(info["utility"] - cost)


def test_the_env_with_hidden_sources_passes_the_gymnasium_checker() -> None:
    check_env(BudgetedInspectionEnv(scenarios=[_scenario()]), skip_render_check=True)


def test_each_slot_shows_how_many_hidden_sources_reading_it_reveals() -> None:
    sc = _scenario()
    assert [s.links for s in sc.view.sources] == [1, 0]  # the view's visible count
    env = BudgetedInspectionEnv(scenarios=[sc])
    obs, _ = env.reset(seed=0)
    assert [_slot(obs, i)[8] for i in range(2)] == [1.0, 0.0]
    obs, *_ = env.step(0)
    assert _slot(obs, 0)[8] == 1.0  # structure: it stays after the read
    assert _slot(obs, 2)[8] == 0.0  # the revealed source links to nothing further


@pytest.mark.filterwarnings("ignore:.*BudgetedInspection-v0 is out of date")
def test_v0_is_the_same_environment_without_the_links_feature() -> None:
    sc = _scenario()
    v0 = gymnasium.make(ENV_ID_V0, scenarios=[sc])
    v1 = gymnasium.make(ENV_ID, scenarios=[sc])
    assert v0.observation_space.shape == (3 * V0_PER_SOURCE + 2,)
    assert v1.observation_space.shape == (3 * PER_SOURCE + 2,)
    for action in (0, 2):
        o0, *_ = v0.reset(seed=3) if action == 0 else v0.step(action)
        o1, *_ = v1.reset(seed=3) if action == 0 else v1.step(action)
        slots0 = o0[: 3 * V0_PER_SOURCE].reshape(3, V0_PER_SOURCE)
        slots1 = o1[: 3 * PER_SOURCE].reshape(3, PER_SOURCE)
        assert (slots0 == slots1[:, :V0_PER_SOURCE]).all()
        assert (o0[-2:] == o1[-2:]).all()
    check_env(BudgetedInspectionEnv(scenarios=[sc], links=False), skip_render_check=True)
