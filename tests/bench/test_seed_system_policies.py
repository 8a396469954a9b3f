from __future__ import annotations

from typing import Any

import numpy as np

from heedful.bench.policy import Observation, get_policy
from heedful.model import ScenarioView, scenario_from_dict


def _view(
    sources: list[dict[str, Any]], beliefs: list[dict[str, Any]] | None = None
) -> ScenarioView:
    raw: dict[str, Any] = {
        "format": "heedful.scenario/v1",
        "id": "t",
        "task": "Choose the next step for Billing with the Ledger",
        "budget": 2,
        "variables": {
            "big": {"domain": ["x", "y"], "prior": [0.5, 0.5], "volatility": "high"},
            "small": {"domain": ["x", "y"], "prior": [0.5, 0.5], "volatility": "high"},
        },
        "actions": {
            "a": {"utility": [{"when": {"big": "x"}, "value": 10.0}, {"value": 0.0}]},
            "b": {"utility": [{"when": {"small": "x"}, "value": 1.0}, {"value": 0.0}]},
        },
        "beliefs": beliefs or [],
        "sources": [
            {"id": s.pop("id"), "accuracy": 0.9, **s} if s.get("reports") else s for s in sources
        ],
    }
    return scenario_from_dict(raw).view


def _ranking(name: str, view: ScenarioView) -> list[str]:
    policy = get_policy(name)
    policy.reset(view, np.random.default_rng(0))
    order = []
    while (sid := policy.next([Observation(s, withheld=True) for s in order])) is not None:
        order.append(sid)
    return order


def test_salience_policy_inspects_the_loudest_text_first() -> None:
    view = _view(
        [
            {"id": "quiet", "label": "registry", "content": "version feed", "reports": ["big"]},
            {"id": "loud", "label": "chat", "content": "URGENT critical error ASAP"},
            {"id": "other", "label": "memo", "content": "notes"},
        ]
    )
    assert _ranking("salience-003", view)[0] == "loud"


def test_salience_policy_prefers_text_naming_the_task_topics_at_equal_urgency() -> None:
    view = _view(
        [
            {"id": "off", "label": "memo", "content": "weather notes"},
            {"id": "on", "label": "memo", "content": "Ledger reconciliation notes"},
            {"id": "third", "label": "memo", "content": "lunch menu"},
        ]
    )
    assert _ranking("salience-003", view)[0] == "on"


def test_triage_policy_ranks_the_stale_high_stakes_belief_first() -> None:
    view = _view(
        [
            {"id": "noise", "label": "digest", "content": "URGENT URGENT"},
            {"id": "small-src", "reports": ["small"]},
            {"id": "big-src", "reports": ["big"]},
        ],
        beliefs=[
            {"variable": "big", "value": "x", "age_s": 36000, "confidence": 0.9},
            {"variable": "small", "value": "x", "age_s": 36000, "confidence": 0.9},
        ],
    )
    assert _ranking("triage-002", view) == ["big-src", "small-src"]


def test_triage_policy_treats_a_fresh_confident_belief_as_covered() -> None:
    view = _view(
        [{"id": "big-src", "reports": ["big"]}, {"id": "noise", "label": "digest"}],
        beliefs=[{"variable": "big", "value": "x", "age_s": 0, "confidence": 1.0}],
    )
    # Coverage 1 → gap 0 → score 0, below the goal-less urgency 0.1 × gap 1 of the noise source.
    assert _ranking("triage-002", view)[0] == "noise"


def test_triage_policy_surprise_from_a_contradiction_moves_a_source_up() -> None:
    view = _view(
        [
            {"id": "small-a", "reports": ["small"], "authority": 0.9},
            {"id": "small-b", "reports": ["small"], "authority": 0.8},
            {"id": "big-src", "reports": ["big"]},
        ],
        beliefs=[
            {"variable": "big", "value": "x", "age_s": 3600, "confidence": 0.9},
            {"variable": "small", "value": "x", "age_s": 36000, "confidence": 0.9},
        ],
    )
    policy = get_policy("triage-002")
    policy.reset(view, np.random.default_rng(0))
    first = policy.next([])
    assert first == "big-src"
    calm = policy.next([Observation("big-src", values={"big": "x"})])
    shocked = policy.next([Observation("big-src", values={"big": "y"})])
    assert calm == "small-a"
    assert shocked == "small-a"  # the contradicted variable has no other source: order holds
    view2 = _view(
        [
            {"id": "big-a", "reports": ["big"]},
            {"id": "small-src", "reports": ["small"]},
            {"id": "big-b", "reports": ["big"]},
        ],
        beliefs=[
            {"variable": "big", "value": "x", "age_s": 0, "confidence": 0.99},
            {"variable": "small", "value": "x", "age_s": 600, "confidence": 0.9},
        ],
    )
    policy.reset(view2, np.random.default_rng(0))
    assert policy.next([Observation("big-a", values={"big": "x"})]) == "small-src"
    assert policy.next([Observation("big-a", values={"big": "y"})]) == "big-b"
