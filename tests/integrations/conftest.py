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
