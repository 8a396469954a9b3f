"""Shared helpers of the LLM integration tests: a scenario and scripted endpoints on loopback."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from typing import Any

import pytest

from heedful.bench.agents.contract import AgentSettings
from heedful.integrations.llm import ScriptedServer, serve_in_thread
from heedful.model import Scenario, scenario_from_dict


def llm_scenario_dict(**overrides: Any) -> dict[str, Any]:
    """Ship or hold on a live service: a live probe, the stale summary the notes came from, a
    loud chat distractor and a quiet digest distractor."""
    raw: dict[str, Any] = {
        "format": "heedful.scenario/v1",
        "id": "agent-tiny",
        "family": "T",
        "task": "Ship the release if the service is up, else hold.",
        "budget": 1,
        "cost_weight": 0.01,
        "variables": {"up": {"domain": ["yes", "no"], "prior": [0.5, 0.5], "volatility": "high"}},
        "actions": {
            "ship": {
                "description": "Ship the release",
                "utility": [{"when": {"up": "yes"}, "value": 1.0}, {"value": -1.0}],
            },
            "hold": {"description": "Hold the release", "utility": [{"value": 0.0}]},
        },
        "beliefs": [{"variable": "up", "value": "no", "origin": "summary", "age_s": 7200}],
        "sources": [
            {
                "id": "chatter",
                "label": "team chat",
                "kind": "chat",
                "authority": 0.3,
                "age_s": 10,
                "salience": {"urgent_words": 5, "verbosity": 500, "recency_s": 5, "repeats": 3},
                "cost": {"tool_calls": 1},
                "accuracy": 0.5,
                "content": "URGENT!!! read me first",
            },
            {
                "id": "summary",
                "label": "status summary",
                "kind": "cached_summary",
                "reports": ["up"],
                "authority": 0.4,
                "age_s": 7200,
                "echo": {"up": "no"},
                "cost": {"tool_calls": 1},
            },
            {
                "id": "probe",
                "label": "live probe",
                "kind": "live_instrument",
                "reports": ["up"],
                "authority": 0.95,
                "age_s": 0,
                "accuracy": 1.0,
                "render": "Live probe: the service is up={up}",
                "cost": {"tool_calls": 1, "latency_ms": 500},
            },
        ],
        "world": {"up": "yes"},
    }
    raw.update(overrides)
    return raw


@pytest.fixture
def llm_scenario() -> Scenario:
    return scenario_from_dict(llm_scenario_dict())


@pytest.fixture
def llm_unprompted() -> Scenario:
    return scenario_from_dict(llm_scenario_dict(condition="unprompted", id="agent-tiny-u"))


@pytest.fixture
def llm_scenario_raw() -> Callable[..., dict[str, Any]]:
    """The scenario as a dict, with overrides."""
    return llm_scenario_dict


@pytest.fixture
def scripted() -> Iterator[Callable[..., ScriptedServer]]:
    """Start scripted endpoints (in their own threads) that stop when the test ends."""
    with ExitStack() as stack:

        def start(behaviour: str, **kwargs: Any) -> ScriptedServer:
            return stack.enter_context(serve_in_thread(behaviour, **kwargs))

        yield start


def _settings_for(server: ScriptedServer, **overrides: Any) -> AgentSettings:
    base: dict[str, Any] = {
        "model": "scripted",
        "base_url": server.base_url,
        "api_key_env": None,
        "timeout_s": 10.0,
        "backoff_s": 0.01,
        "retries": 2,
    }
    base.update(overrides)
    return AgentSettings(**base)


@pytest.fixture
def settings_for() -> Callable[..., AgentSettings]:
    """Fast-failing settings for a scripted endpoint (no key, short timeout and backoff)."""
    return _settings_for
