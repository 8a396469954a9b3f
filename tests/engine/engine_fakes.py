"""Test doubles for the engine's ports."""

from __future__ import annotations

import asyncio
import threading

from heedful.engine.ports import (
    ActionRequest,
    ActionResult,
    DeliberationRequest,
    DeliberationResult,
    FaultLineDeliberator,
    Finding,
    Notice,
)
from heedful.model import OutcomeStatus


class RecordingActions:
    """Succeeds and completes the goal; remembers every request."""

    def __init__(self, progress: float | None = 1.0) -> None:
        self.requests: list[ActionRequest] = []
        self.progress = progress

    def execute(self, request: ActionRequest) -> ActionResult:
        self.requests.append(request)
        return ActionResult(OutcomeStatus.SUCCESS, 1.0, "done", progress=self.progress)


class HangingAsyncActions:
    """Never finishes (until cancelled)."""

    def __init__(self) -> None:
        self.started = 0

    async def execute(self, request: ActionRequest) -> ActionResult:
        self.started += 1
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


class HangingSyncActions:
    """Blocks a thread until ``release`` is set (the test releases it at teardown)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0

    def execute(self, request: ActionRequest) -> ActionResult:
        self.started += 1
        self.release.wait(30)
        return ActionResult(OutcomeStatus.SUCCESS)


class ListNotifier:
    """Keeps every notice."""

    def __init__(self) -> None:
        self.notices: list[Notice] = []

    def notify(self, notice: Notice) -> None:
        self.notices.append(notice)


class CountingDeliberator:
    """The default deliberator, counting its calls."""

    def __init__(self) -> None:
        self.requests: list[DeliberationRequest] = []
        self._inner = FaultLineDeliberator()

    def deliberate(self, request: DeliberationRequest) -> DeliberationResult:
        self.requests.append(request)
        return self._inner.deliberate(request)


class StaticResearch:
    """Answers every gap with one finding mentioning the gap's word."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def research(self, goal_title: str, gap: str) -> list[Finding]:
        self.calls.append(gap)
        word = gap.split(":", 1)[-1].strip()
        return [Finding(f"{word} research note for {goal_title}", 0.9, source="test")]
