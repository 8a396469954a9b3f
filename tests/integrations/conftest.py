"""Shared helpers of the MCP tests: a recording fake backend and a bounded async runner."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import pytest

from heedful.errors import GovernanceError

#: Upper bound of any one test's async part, so a hang fails the test instead of the suite.
TEST_TIMEOUT_S = 60.0

_LEVELS = ("observe", "advise", "act")


class FakeBackend:
    """A backend that records calls and answers with document 002-shaped responses."""

    def __init__(self, max_autonomy: str = "advise") -> None:
        self.max_autonomy = max_autonomy
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.explode = False
        self.closed = False

    def survey(self, include_idle: bool) -> Mapping[str, Any]:
        self.calls.append(("survey", {"include_idle": include_idle}))
        if self.explode:
            raise RuntimeError("simulated bug")
        items = [{"goal_id": "g1", "dispatch_mode": "focus", "attention_score": 0.62}]
        if include_idle:
            items.append({"goal_id": "g2", "dispatch_mode": "idle", "attention_score": 0.0})
        return {"status": "ok", "attention_items": items, "autonomy_level": "observe"}

    def run_cycle(self, autonomy_override: str | None) -> Mapping[str, Any]:
        self.calls.append(("run_cycle", {"autonomy_override": autonomy_override}))
        level = autonomy_override or "observe"
        if _LEVELS.index(level) > _LEVELS.index(self.max_autonomy):
            raise GovernanceError(
                f"autonomy {level!r} exceeds the governance maximum {self.max_autonomy!r}"
            )
        return {"status": "ok", "autonomy_level": level, "dispatched": []}

    def review_proposal(self, proposal_id: str, decision: str, reason: str) -> Mapping[str, Any]:
        self.calls.append(("review_proposal", {"proposal_id": proposal_id, "decision": decision}))
        return {"status": "ok", "proposal": {"id": proposal_id, "status": decision + "d"}}

    def rank(
        self, budget: int | None, about_to_claim: Any, cost_weight: float | None, limit: int
    ) -> Mapping[str, Any]:
        self.calls.append(
            (
                "rank",
                {
                    "budget": budget,
                    "about_to_claim": list(about_to_claim),
                    "cost_weight": cost_weight,
                    "limit": limit,
                },
            )
        )
        return {"turn_id": "turn-1", "ranking": [], "next": {"action": "stop"}}

    def resolve(self, candidate_id: str, **outcome: Any) -> Mapping[str, Any]:
        self.calls.append(("resolve", {"candidate_id": candidate_id, **outcome}))
        return {"candidate_id": candidate_id, "next": {"action": "stop"}}

    def check_claim(self, claim_id: str, claim_type: str | None) -> Mapping[str, Any]:
        self.calls.append(("check_claim", {"claim_id": claim_id, "claim_type": claim_type}))
        return {"claim_id": claim_id, "ok": True}

    def register_source(self, source_id: str, **metadata: Any) -> Mapping[str, Any]:
        self.calls.append(("register_source", {"source_id": source_id, **metadata}))
        return {"status": "ok"}

    def sources(self, source_ids: Any, limit: int) -> Mapping[str, Any]:
        self.calls.append(("sources", {"source_ids": list(source_ids), "limit": limit}))
        return {"status": "ok", "total": 0, "sources": []}

    def record_belief(self, claim_id: str, value: str | None, **metadata: Any) -> Mapping[str, Any]:
        self.calls.append(("record_belief", {"claim_id": claim_id, "value": value, **metadata}))
        return {"status": "ok"}

    def set_goal(self, goal_id: str, **fields: Any) -> Mapping[str, Any]:
        self.calls.append(("set_goal", {"goal_id": goal_id, **fields}))
        return {"status": "ok"}

    def health(self, window_turns: int | None) -> Mapping[str, Any]:
        self.calls.append(("health", {"window_turns": window_turns}))
        return {"status": "ok", "funnel": [], "signatures": []}

    def engine_status(self, recent: int) -> Mapping[str, Any]:
        self.calls.append(("engine_status", {"recent": recent}))
        return {"status": "ok", "active": False, "notices": [], "journal": []}

    def close(self) -> None:
        self.closed = True


def run_bounded(fn: Callable[[], Awaitable[Any]], timeout: float = TEST_TIMEOUT_S) -> Any:
    """Run ``fn`` in a fresh event loop; fail (TimeoutError) if it takes longer than ``timeout``."""

    async def bounded() -> Any:
        with anyio.fail_after(timeout):
            return await fn()

    return anyio.run(bounded)


@pytest.fixture
def fake_backend() -> FakeBackend:
    """A fresh recording fake backend whose governance maximum is ``advise``."""
    return FakeBackend()


@pytest.fixture
def make_backend() -> Callable[..., FakeBackend]:
    """A factory of fake backends (keyword: ``max_autonomy``)."""
    return FakeBackend


@pytest.fixture
def bounded() -> Callable[..., Any]:
    """The bounded async runner :func:`run_bounded`."""
    return run_bounded


def seed_store(path: Any) -> None:
    """Give the store at ``path`` one active, high-priority goal (so the survey has an item)."""
    from heedful.memory import Store
    from heedful.model.goal import Goal, GoalPriority, GoalStatus

    with Store.open(path) as store:
        store.add_goal(
            Goal(
                id="goal-deploy",
                title="deploy configuration b",
                status=GoalStatus.ACTIVE,
                priority=GoalPriority.HIGH,
            )
        )


#: Calls that describe the deploy-a-or-b situation of SPEC §2 through the tools.
DEPLOY_SETUP: list[tuple[str, dict[str, Any]]] = [
    (
        "attention_register_source",
        {
            "source_id": "registry",
            "reports": ["dep_version"],
            "authority": 0.99,
            "cost": {"tool_calls": 1, "tokens": 180, "latency_ms": 900},
            "kind": "live_instrument",
            "trusted": True,  # the user's own instruments: vouched for
        },
    ),
    (
        "attention_register_source",
        {
            "source_id": "cached_summary",
            "reports": ["dep_version"],
            "authority": 0.5,
            "cost": {"tool_calls": 1, "tokens": 60, "latency_ms": 50},
            "age_s": 21600,
            "kind": "cached_summary",
            "trusted": True,
        },
    ),
    (
        "attention_record_belief",
        {
            "claim_id": "dep_version",
            "value": "4.1",
            "domain": ["4.1", "4.2"],
            "claim_type": "live_system_state",
            "confidence": 0.9,
            "age_s": 21600,
            "volatility": "high",
        },
    ),
]


@pytest.fixture
def deploy_setup() -> list[tuple[str, dict[str, Any]]]:
    """The tool calls that set up the deploy-a-or-b situation."""
    return DEPLOY_SETUP


@pytest.fixture
def seeded_db(tmp_path: Any) -> Any:
    """A store file with one active goal."""
    path = tmp_path / "heedful.db"
    seed_store(path)
    return path
