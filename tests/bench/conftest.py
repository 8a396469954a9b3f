from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from heedful.bench.agents.aggregate import agent_aggregates
from heedful.bench.config import BenchConfig
from heedful.bench.results import Results
from heedful.model import Scenario, scenario_from_dict


def tiny_scenario_dict(**overrides: Any) -> dict[str, Any]:
    """A two-world scenario: one good instrument, one echo summary, two loud distractors."""
    raw: dict[str, Any] = {
        "format": "heedful.scenario/v1",
        "id": "tiny",
        "family": "T",
        "task": "Ship or hold?",
        "budget": 1,
        "cost_weight": 0.01,
        "variables": {"up": {"domain": ["yes", "no"], "prior": [0.5, 0.5], "volatility": "high"}},
        "actions": {
            "ship": {"utility": [{"when": {"up": "yes"}, "value": 1.0}, {"value": -1.0}]},
            "hold": {"utility": [{"value": 0.0}]},
        },
        "beliefs": [{"variable": "up", "value": "no", "origin": "summary", "age_s": 7200}],
        "sources": [
            {
                "id": "chatter",
                "kind": "chat",
                "authority": 0.9,
                "age_s": 10,
                "salience": {"urgent_words": 5, "verbosity": 500, "recency_s": 5, "repeats": 3},
                "cost": {"tool_calls": 1},
            },
            {
                "id": "summary",
                "kind": "cached_summary",
                "reports": ["up"],
                "authority": 0.4,
                "age_s": 7200,
                "echo": {"up": "no"},
                "salience": {"urgent_words": 1, "verbosity": 200, "recency_s": 60, "repeats": 1},
                "cost": {"tool_calls": 1},
            },
            {
                "id": "probe",
                "kind": "live_instrument",
                "reports": ["up"],
                "authority": 0.95,
                "age_s": 0,
                "accuracy": 0.95,
                "salience": {"verbosity": 10, "recency_s": 3600},
                "cost": {"tool_calls": 1, "latency_ms": 500},
            },
            {
                "id": "digest",
                "kind": "digest",
                "authority": 0.3,
                "age_s": 100,
                "salience": {"urgent_words": 2, "verbosity": 900, "recency_s": 30, "repeats": 0},
                "cost": {"tool_calls": 1},
            },
        ],
    }
    raw.update(overrides)
    return raw


@pytest.fixture
def tiny() -> Scenario:
    return scenario_from_dict(tiny_scenario_dict())


@pytest.fixture
def tiny_raw() -> dict[str, Any]:
    return tiny_scenario_dict()


def _with_agent_rows(res: Results, config: BenchConfig) -> Results:
    """``res`` with agent rows made of its own records: ``random`` as ``llm``, ``voc`` as
    ``llm-advised``, each in attention and production mode (the agent tables' every part)."""
    base = [t.model_copy(update={"policy": "llm"}) for t in res.trials if t.policy == "random"]
    advised = [
        t.model_copy(update={"policy": "llm-advised"}) for t in res.trials if t.policy == "voc"
    ]
    recs = [*base, *advised]
    recs += [t.model_copy(update={"mode": "production"}) for t in recs]
    agents = agent_aggregates(recs, ["llm", "llm-advised"], config, 0)
    return res.model_copy(
        update={"aggregates": res.aggregates.model_copy(update={"agents": agents})}
    )


@pytest.fixture(scope="session")
def with_agent_rows() -> Callable[[Results, BenchConfig], Results]:
    """Adds agent rows to results made by programmatic policies (``voc`` and ``random``)."""
    return _with_agent_rows
