"""The attention engine: heartbeat → survey → triage → dispatch → reflect (document 002 §2–§3).

:class:`Engine` is the public API (also used by the MCP tools ``attention_survey`` and
``attention_run_cycle``): ``survey(include_idle)`` and ``run_cycle(autonomy_override)`` return the
JSON-able response shapes of document 002 §3.3–§3.4; ``activate``/``deactivate``/``status`` drive
the heartbeat; deadlines and external events trigger extra cycles.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from heedful.engine.config import AutonomyLevel, DispatchMode, EngineConfig
from heedful.engine.dispatch import Dispatcher
from heedful.engine.governance import (
    ActionRateLimit,
    check_override,
    effective_level,
    parse_level,
)
from heedful.engine.ports import (
    ActionPort,
    DeliberatorPort,
    FaultLineDeliberator,
    GraphPort,
    LogNotifier,
    NoActionExecutor,
    NoResearch,
    NotifierPort,
    ResearchPort,
)
from heedful.engine.reflect import reflect
from heedful.engine.results import CycleResult, DispatchRecord
from heedful.engine.survey import survey
from heedful.engine.telemetry import Subscriber, Telemetry
from heedful.engine.triage import AttentionItem, triage
from heedful.model.goal import GoalStatus

_log = logging.getLogger("heedful.engine")

TRIGGERS = ("heartbeat", "deadline", "event", "manual")


class Engine:
    """Proactive attention engine over a graph port.

    Args:
        graph: Storage (goals, knowledge graph, outcomes).
        config: Engine configuration (autonomy, budget, triage, governance...).
        research: Research port for explore (default: none configured).
        deliberator: Deliberator port for focus (default: :class:`FaultLineDeliberator`).
        actions: Action port for act (default: none configured → act is deferred).
        notifier: Notifier for escalations and advise proposals (default: :class:`LogNotifier`).
        clock: Wall-clock source (UTC); tests pass a fixed clock.
    """

    def __init__(
        self,
        graph: GraphPort,
        config: EngineConfig | None = None,
        *,
        research: ResearchPort | None = None,
        deliberator: DeliberatorPort | None = None,
        actions: ActionPort | None = None,
        notifier: NotifierPort | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.graph = graph
        self.config = config or EngineConfig()
        self.research: ResearchPort = research or NoResearch()
        self.deliberator: DeliberatorPort = deliberator or FaultLineDeliberator()
        self.actions: ActionPort = actions or NoActionExecutor()
        self.notifier: NotifierPort = notifier or LogNotifier()
        self.clock = clock or (lambda: datetime.now(UTC))
        self.telemetry = Telemetry()
        self._requested_level = self.config.autonomy
        self._escalations: dict[str, datetime] = {}
        self._rate = ActionRateLimit(self.config.governance.max_actions_per_hour)
        self._cycle_lock = threading.Lock()
        self._active = False
        self._task: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._pending: str | None = None
        self._next_beat: float | None = None
        self._fired_deadlines: set[tuple[str, str]] = set()
        self._stop_on_error = False
        self.cycles_run = 0
        self.last_cycle: CycleResult | None = None

    # --- levels ---------------------------------------------------------------------------------

    @property
    def autonomy_level(self) -> AutonomyLevel:
        """The configured level after the governance downgrade."""
        return effective_level(self._requested_level, self.config.governance.max_level)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Subscribe to telemetry events; returns the unsubscribe function."""
        return self.telemetry.subscribe(subscriber)

    # --- survey ---------------------------------------------------------------------------------

    def attention_map(self) -> list[AttentionItem]:
        """Survey and triage: the ranked attention items (reads only)."""
        now = self.clock()
        return triage(survey(self.graph, now, self.config), now, self.config.triage)

    def survey(self, include_idle: bool = False) -> dict[str, Any]:
        """The ``attention_survey`` response (document 002 §3.3); dispatches nothing."""
        items = self.attention_map()
        if not include_idle:
            items = [i for i in items if i.dispatch_mode != DispatchMode.IDLE]
        return {
            "status": "ok",
            "attention_items": [i.to_dict() for i in items],
            "autonomy_level": self.autonomy_level.value,
            "triage": self.config.triage.method,
            "next_heartbeat_in_ms": self._next_heartbeat_in_ms(),
        }

    # --- one cycle ------------------------------------------------------------------------------

    def _cycle_level(self, autonomy_override: AutonomyLevel | str | None) -> AutonomyLevel:
        if autonomy_override is None:
            return self.autonomy_level
        return check_override(parse_level(autonomy_override), self.config.governance.max_level)

    async def arun_cycle(
        self, autonomy_override: AutonomyLevel | str | None = None, *, trigger: str = "manual"
    ) -> CycleResult:
        """Run one cycle now.

        Args:
            autonomy_override: Level for this cycle only; must not exceed the governance maximum.
            trigger: Why the cycle runs (heartbeat, deadline, event, manual).

        Raises:
            GovernanceError: The override exceeds the governance maximum.
        """
        level = self._cycle_level(autonomy_override)
        while not self._cycle_lock.acquire(blocking=False):
            await asyncio.sleep(0.005)
        try:
            with self.telemetry.cycle_span(trigger):
                return await self._cycle(level, trigger)
        finally:
            self._cycle_lock.release()

    def run_cycle(
        self, autonomy_override: AutonomyLevel | str | None = None, *, trigger: str = "manual"
    ) -> dict[str, Any]:
        """Run one cycle and return the ``attention_run_cycle`` response (document 002 §3.4).

        From async code prefer ``await arun_cycle()``: when called inside a running event loop
        this runs the cycle on a helper thread with its own loop.
        """
        level = self._cycle_level(autonomy_override)  # raise GovernanceError before any work
        coro_factory = lambda: self.arun_cycle(level, trigger=trigger)  # noqa: E731
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(coro_factory()).to_dict()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(lambda: asyncio.run(coro_factory())).result().to_dict()

    async def _cycle(self, level: AutonomyLevel, trigger: str) -> CycleResult:
        started = time.perf_counter()
        budget = self.config.budget
        deadline = asyncio.get_running_loop().time() + budget.total_timeout_ms / 1000.0
        now = self.clock()
        items = self.attention_map()
        result = CycleResult(
            cycle_id=f"cycle-{uuid.uuid4().hex[:12]}",
            timestamp=now,
            trigger=trigger,
            autonomy_level=level,
            items_surveyed=len(items),
        )
        self.telemetry.emit(
            "cycle_start",
            {"items_surveyed": len(items)},
            {"trigger": trigger, "autonomy": level.value, "cycle_id": result.cycle_id},
        )
        selected = [i for i in items if i.dispatch_mode != DispatchMode.IDLE]
        selected = selected[: budget.max_items_per_cycle]
        dispatcher = Dispatcher(
            self.graph,
            self.config,
            level,
            research=self.research,
            deliberator=self.deliberator,
            actions=self.actions,
            notifier=self.notifier,
            escalations=self._escalations,
            actions_allowed=lambda: self._allow_action(now),
            now=now,
        )
        try:
            async with asyncio.timeout_at(deadline):
                for item in selected:
                    result.dispatches.append(await dispatcher.dispatch(item))
        except TimeoutError:
            result.timed_out = True
            if dispatcher.current is not None:
                dispatcher.timed_out(dispatcher.current)
                result.dispatches.append(dispatcher.current)
            for item in selected[len(result.dispatches) :]:
                result.dispatches.append(
                    DispatchRecord(
                        item, item.dispatch_mode, "timeout", "not started: cycle timed out"
                    )
                )
        result.ledger = dispatcher.ledger
        if level != AutonomyLevel.OBSERVE:
            result.proposed_goal_ids = reflect(
                self.graph, result.dispatches, now=now, config=self.config, telemetry=self.telemetry
            )
        for record in result.dispatches:
            self.telemetry.emit(
                "dispatch",
                {"duration_ms": record.duration_ms, "attention_score": record.item.attention_score},
                {
                    "mode": record.mode.value,
                    "result": record.result,
                    "goal_id": record.item.goal_id,
                    "kappa": record.item.topology.max_kappa,
                    "coverage": record.item.coverage.coverage_score,
                    "cycle_id": result.cycle_id,
                },
            )
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        result.next_heartbeat_ms = self._next_heartbeat_in_ms()
        self.cycles_run += 1
        self.last_cycle = result
        modes = result.to_dict()["modes"]
        self.telemetry.emit(
            "cycle_complete",
            {"total_duration_ms": result.duration_ms, "items_dispatched": result.items_dispatched},
            {"modes": modes, "cycle_id": result.cycle_id, "timed_out": result.timed_out},
        )
        return result

    def _allow_action(self, now: datetime) -> bool:
        stamp = now.timestamp()
        if not self._rate.allows(stamp):
            return False
        self._rate.record(stamp)
        return True

    # --- lifecycle and triggers -----------------------------------------------------------------

    def activate(self, level: AutonomyLevel | str | None = None) -> None:
        """Activate the engine at ``level`` (downgraded to the governance maximum).

        Inside a running event loop the heartbeat starts at once; otherwise it starts when
        :meth:`serve` is awaited.
        """
        if level is not None:
            self._requested_level = parse_level(level)
        self._active = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._task is None or self._task.done():
            self._loop = loop
            self._task = loop.create_task(self._heartbeat())

    def deactivate(self) -> None:
        """Stop the heartbeat; the engine stays usable (survey and manual cycles still work)."""
        self._active = False
        self._poke("stop")

    async def serve(self, *, stop_on_error: bool = False) -> None:
        """Activate (if needed) and run the heartbeat in this loop until :meth:`deactivate`.

        Args:
            stop_on_error: Re-raise the first failing cycle's exception (and stop) instead of
                logging it and waiting for the next trigger.
        """
        self._stop_on_error = stop_on_error
        self._active = True
        if self._task is None or self._task.done():
            self._loop = asyncio.get_running_loop()
            self._task = self._loop.create_task(self._heartbeat())
        await self._task

    def trigger_event(self, name: str = "event") -> bool:
        """External-event trigger: run a cycle now if the heartbeat is active. Thread-safe."""
        if not self._active or self._loop is None:
            return False
        self._poke("event")
        return True

    def _poke(self, why: str) -> None:
        loop, wake = self._loop, self._wake
        if loop is None or wake is None or loop.is_closed():
            return

        def set_pending() -> None:
            self._pending = why
            wake.set()

        try:
            same_thread = asyncio.get_running_loop() is loop
        except RuntimeError:
            same_thread = False
        if same_thread:
            set_pending()
            return
        loop.call_soon_threadsafe(set_pending)

    def _next_deadline(self, now: datetime) -> tuple[float, tuple[str, str]] | None:
        lead = self.config.deadline_lead_ms / 1000.0
        best: tuple[float, tuple[str, str]] | None = None
        for goal in self.graph.list_goals(GoalStatus.ACTIVE):
            if goal.due_at is None:
                continue
            key = (goal.id, goal.due_at.isoformat())
            if key in self._fired_deadlines:
                continue
            wait = (goal.due_at - now).total_seconds() - lead
            if best is None or wait < best[0]:
                best = (wait, key)
        return best

    async def _heartbeat(self) -> None:
        beat = self.config.heartbeat_ms / 1000.0
        self._next_beat = time.monotonic() + beat
        self._wake = asyncio.Event()
        while self._active:
            delay = self._next_beat - time.monotonic()
            try:
                deadline = self._next_deadline(self.clock())
            except Exception:
                if self._stop_on_error:
                    self._active = False
                    raise
                _log.exception("deadline check failed")
                deadline = None
            trigger = "heartbeat"
            if deadline is not None and deadline[0] < delay:
                delay, trigger = deadline[0], "deadline"
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=max(0.0, delay))
                self._wake.clear()
                trigger, self._pending = self._pending or "event", None
            except TimeoutError:
                pass
            if not self._active:
                break
            if trigger == "heartbeat":
                self._next_beat = time.monotonic() + beat
            elif trigger == "deadline" and deadline is not None:
                self._fired_deadlines.add(deadline[1])
            try:
                await self.arun_cycle(trigger=trigger)
            except Exception:
                if self._stop_on_error:
                    self._active = False
                    raise
                # Keep the heartbeat alive; the failure is logged with its traceback.
                _log.exception("attention cycle (%s) failed", trigger)

    def _next_heartbeat_in_ms(self) -> float | None:
        if not self._active or self._next_beat is None:
            return None
        return max(0.0, (self._next_beat - time.monotonic()) * 1000.0)

    def close(self) -> None:
        """Stop the heartbeat and close the graph port if it can be closed."""
        self.deactivate()
        close = getattr(self.graph, "close", None)
        if callable(close):
            close()

    def status(self) -> dict[str, Any]:
        """The engine's state for observability (document 002 §3.1 ``status/0``)."""
        last = self.last_cycle
        return {
            "active": self._active,
            "heartbeat_running": self._task is not None and not self._task.done(),
            "autonomy_level": self.autonomy_level.value,
            "requested_level": self._requested_level.value,
            "governance_max_level": self.config.governance.max_level.value,
            "heartbeat_ms": self.config.heartbeat_ms,
            "next_heartbeat_in_ms": self._next_heartbeat_in_ms(),
            "triage": self.config.triage.method,
            "budget": self.config.budget.model_dump(),
            "cycles_run": self.cycles_run,
            "last_cycle": None
            if last is None
            else {
                "cycle_id": last.cycle_id,
                "trigger": last.trigger,
                "timestamp": last.timestamp.isoformat(),
                "items_dispatched": last.items_dispatched,
                "timed_out": last.timed_out,
            },
        }
