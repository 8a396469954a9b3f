"""Shared fixtures for the attention tests: a fixed clock and the deploy-A-or-B example."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

import pytest
from tests_attention_time import NOW

from heedful.attention.context import DecisionModel
from heedful.attention.controller import Controller
from heedful.model.scenario import UtilityRule


@pytest.fixture
def clock() -> Callable[[], datetime]:
    """A clock that always says NOW."""
    return lambda: NOW


def make_deploy_decision(cost_weight: float = 0.01) -> DecisionModel:
    """Document 000 §30: deploy A (needs 4.1) or B (needs 4.2 and compatibility)."""
    return DecisionModel(
        variables={"dep_version": ("4.1", "4.2"), "compat_b_42": ("yes", "no")},
        actions={
            "deploy_a": (
                UtilityRule(when={"dep_version": "4.1"}, value=1.0),
                UtilityRule(value=-1.0),
            ),
            "deploy_b": (
                UtilityRule(when={"dep_version": "4.2", "compat_b_42": "yes"}, value=1.0),
                UtilityRule(value=-1.0),
            ),
        },
        cost_weight=cost_weight,
    )


@pytest.fixture
def deploy_decision() -> DecisionModel:
    """The decision of document 000 §30."""
    return make_deploy_decision()


@pytest.fixture
def deploy_controller() -> Controller:
    """A controller loaded with document 000 §30's example (stale summary says 4.1)."""
    ctl = Controller(clock=lambda: NOW)
    ctl.register_source(
        "registry",
        reports=["dep_version"],
        authority=0.99,
        cost={"tool_calls": 1, "tokens": 180, "latency_ms": 900},
        kind="live_instrument",
        trusted=True,
    )
    ctl.register_source(
        "cached_summary",
        reports=["dep_version"],
        authority=0.5,
        age_s=21600,
        cost={"tool_calls": 1, "tokens": 60, "latency_ms": 50},
        kind="cached_summary",
    )
    ctl.register_source(
        "matrix", reports=["compat_b_42"], authority=0.95, cost={"tool_calls": 1}, trusted=True
    )
    ctl.record_belief(
        "dep_version", "4.1", domain=["4.1", "4.2"], age_s=21600, confidence=0.9, volatility="high"
    )
    ctl.record_belief(
        "compat_b_42", "yes", domain=["yes", "no"], age_s=86400, confidence=0.8, volatility="low"
    )
    ctl.state_decision(make_deploy_decision())
    return ctl
