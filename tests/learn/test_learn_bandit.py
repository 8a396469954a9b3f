"""The contextual bandit: partial-feedback updates, bounded exploration, floors, persistence."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import numpy as np
import pytest

from heedful.attention import Controller
from heedful.errors import InvalidArgumentError
from heedful.learn.bandit import BanditEstimator, LinUCB
from heedful.learn.config import BanditConfig
from heedful.learn.features import FEATURE_NAMES
from heedful.memory import Store
from heedful.model.candidate import Candidate

D = len(FEATURE_NAMES)
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _bandit(**cfg: float) -> LinUCB:
    return LinUCB(np.zeros(D), np.ones(D), BanditConfig(**cfg))


def test_bandit_learns_a_correction_to_the_model_estimate() -> None:
    bandit = _bandit(ridge=0.1)
    rng = np.random.default_rng(0)
    for _ in range(400):
        x = rng.normal(size=D)
        bandit.update(x, 0.3 * x[5] - 0.1)
    x = rng.normal(size=D)
    assert bandit.correction(x) == pytest.approx(0.3 * x[5] - 0.1, abs=0.02)


def test_bonus_shrinks_where_the_bandit_has_data() -> None:
    bandit = _bandit()
    x = np.full(D, 0.5)
    before = bandit.bonus(x)
    for _ in range(50):
        bandit.update(x, 0.0)
    assert bandit.bonus(x) < before / 3


def test_non_finite_reward_is_refused() -> None:
    with pytest.raises(InvalidArgumentError):
        _bandit().update(np.zeros(D), float("nan"))


def test_state_persists_in_the_memory_store(tmp_path) -> None:
    bandit = _bandit()
    bandit.update(np.ones(D), 1.0)
    path = tmp_path / "mem.db"
    with Store(path) as store:
        assert LinUCB.load(store) is None
        bandit.save(store)
        bandit.update(np.ones(D), 2.0)
        bandit.save(store)  # replaces the node
    with Store(path) as store:
        back = LinUCB.load(store)
    assert back is not None and back.updates == 2
    x = np.linspace(0, 1, D)
    assert back.correction(x) == pytest.approx(bandit.correction(x))


def test_exploration_allowance_is_a_bounded_share_of_the_budget() -> None:
    est = BanditEstimator(_bandit(exploration_share=0.2))
    est.begin_turn(10)
    assert est.explorations_left == 2
    est.begin_turn(None)
    assert est.explorations_left == 0  # unlimited turn: no exploration reads at all


def _controller(est: BanditEstimator) -> Controller:
    ctl = Controller(clock=lambda: NOW, validator_mode="production", estimator=est)
    ctl.register_source("health", reports=["feed_up"], authority={"live_system_state": 0.99})
    ctl.register_source("gossip", reports=["feed_up"], authority=0.2)
    ctl.record_belief(
        "feed_up", "yes", claim_type="live_system_state", domain=["yes", "no"],
        confidence=0.5, age_s=86400.0, volatility="high",
    )  # fmt: skip
    return ctl


def test_exploration_never_pre_empts_a_governance_floor() -> None:
    # A bandit convinced (and maximally curious) that the low-authority source is worth a lot.
    bandit = _bandit(alpha=100.0, exploration_share=1.0)
    bandit.b[:] = 50.0  # and convinced every read is worth a lot
    est = BanditEstimator(bandit)
    ctl = _controller(est)
    ctl.begin_turn(budget=2)
    est.begin_turn(2)
    assert ctl.check_claim("feed_up").blocked
    step = ctl.next()
    assert isinstance(step, Candidate) and step.forced and step.target == "health"


def test_a_stream_of_turns_updates_only_from_reads_made_and_saves_each_turn(tmp_path) -> None:
    from heedful.learn.dataset import training_scenarios
    from heedful.learn.online import bandit_stream, fresh_bandit

    scenarios = training_scenarios("G", 3, 1)
    est = BanditEstimator(fresh_bandit())
    with Store(tmp_path / "m.db") as store:
        turns = bandit_stream(scenarios, est, np.random.default_rng(0), store=store, name="t")
    reads = sum(len(t.inspected) for t in turns)
    assert reads > 0 and est.bandit.updates == reads
    for t, s in zip(turns, scenarios, strict=True):
        assert len(t.inspected) <= s.view.budget and t.regret >= -1e-9
        assert t.explored <= math.ceil(0.2 * s.view.budget)
    with Store(tmp_path / "m.db") as store:
        saved = LinUCB.load(store, "t")
    assert saved is not None and saved.updates == reads


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
