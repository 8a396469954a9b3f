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
from datetime import datetime
from typing import Any

from heedful.engine.config import AutonomyLevel, DispatchMode, EngineConfig
from heedful.engine.decay import StaleEdgeDecay
from heedful.engine.defaults import (
    DuplicateConsolidator,
    GapDecomposer,
    GraphResearch,
    PlanExecutor,
)
from heedful.engine.dispatch import Dispatcher
from heedful.engine.governance import (
    ActionRateLimit,
    apply_escalate_when,
    ceiling_refusal,
    check_override,
    effective_level,
    parse_level,
)
from heedful.engine.journal import Journal, JournalEntry, undo
from heedful.engine.ports import (
    ActionPort,
    ConsolidatorPort,
    DecomposerPort,
    DeliberatorPort,
    EdgeDecayPort,
    FaultLineDeliberator,
    GraphPort,
    LogNotifier,
    NotifierPort,
    ResearchPort,
    check_ports,
)
from heedful.engine.proposals import Proposal, ProposalQueue
from heedful.engine.records import OutcomeRecord
from heedful.engine.reflect import reflect
from heedful.engine.results import CycleResult, DispatchRecord
from heedful.engine.survey import survey
from heedful.engine.telemetry import Subscriber, Telemetry
from heedful.engine.triage import AttentionItem, triage
from heedful.errors import GovernanceError, InvalidArgumentError
from heedful.model import SURPRISING
from heedful.model.base import wall_clock
from heedful.model.goal import GoalStatus

_log = logging.getLogger("heedful.engine")

TRIGGERS = ("start", "heartbeat", "deadline", "surprise", "event", "manual", "approval")


class Engine:
    """Proactive attention engine over a graph port.

    Args:
        graph: Storage (goals, knowledge graph, outcomes).
        config: Engine configuration (autonomy, budget, triage, governance...).
        research: Research port for explore (default: :class:`GraphResearch`, retrieval over
            the graph's own full-text index).
        deliberator: Deliberator port for focus (default: :class:`FaultLineDeliberator`).
        actions: Action port for act (default: :class:`PlanExecutor`, the goal's plan steps;
            pass :class:`NoActionExecutor` to never act).
        notifier: Notifier for escalations and advise proposals (default: :class:`LogNotifier`).
        decomposer: Goal decomposition for explore (default: :class:`GapDecomposer`).
        consolidator: Duplicate merging for explore and IDLE (default:
            :class:`DuplicateConsolidator`).
        edge_decay: Stale-edge decay for explore and IDLE (default: :class:`StaleEdgeDecay`
            with ``config.edge_decay``).
        journal: Where reflect journals its writes (default: in memory).
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
        decomposer: DecomposerPort | None = None,
        consolidator: ConsolidatorPort | None = None,
        edge_decay: EdgeDecayPort | None = None,
        journal: Journal | None = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        check_ports(
            {
                "research": research,
                "deliberator": deliberator,
                "actions": actions,
                "notifier": notifier,
                "decomposer": decomposer,
                "consolidator": consolidator,
                "edge_decay": edge_decay,
            }
        )
        self.graph = graph
        self.config = config or EngineConfig()
        # `is None`, not `or`: a port object that happens to be falsy is still the caller's port.
        self.research: ResearchPort = GraphResearch(graph) if research is None else research
        self.deliberator: DeliberatorPort = (
            FaultLineDeliberator() if deliberator is None else deliberator
        )
        self.actions: ActionPort = PlanExecutor(graph) if actions is None else actions
        self.notifier: NotifierPort = LogNotifier() if notifier is None else notifier
        self.decomposer: DecomposerPort = GapDecomposer(graph) if decomposer is None else decomposer
        self.consolidator: ConsolidatorPort = (
            DuplicateConsolidator() if consolidator is None else consolidator
        )
        self._default_decay = edge_decay is None
        self.edge_decay: EdgeDecayPort = (
            StaleEdgeDecay(self.config.edge_decay, self.config.coverage)
            if edge_decay is None
            else edge_decay
        )
        self.journal = journal or Journal()
        self.proposals = ProposalQueue(self.journal)
        self._waiting: dict[str, int] = {}
        self._deferrals: dict[str, int] = {}
        self.clock = clock or wall_clock
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

    def configure(self, config: EngineConfig) -> None:
        """Replace the configuration, including the requested autonomy level and rate limit."""
        self.config = config
        self._requested_level = config.autonomy
        self._rate = ActionRateLimit(config.governance.max_actions_per_hour)
        if self._default_decay:
            self.edge_decay = StaleEdgeDecay(config.edge_decay, config.coverage)

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
        ranked = triage(survey(self.graph, now, self.config), now, self.config.triage)
        return apply_escalate_when(ranked, self.config.governance)

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
        return _run_sync(lambda: self.arun_cycle(level, trigger=trigger)).to_dict()

    # --- advise: proposals a person approves or rejects -----------------------------------------

    def pending_proposals(self) -> list[Proposal]:
        """Proposals awaiting approval, oldest first."""
        return self.proposals.pending()

    def approve(
        self, proposal_id: str, *, by: str = "cli", within_ceiling: bool = False
    ) -> dict[str, Any]:
        """Run an approved proposal's dispatch now, at ``act`` level for that one item.

        The item is looked up in a fresh attention map: if it no longer needs that mode (the
        graph moved on) the proposal is marked ``stale`` and nothing runs.

        Args:
            proposal_id: The proposal (``p-…``).
            by: Who approves, recorded with the decision.
            within_ceiling: Refuse unless the operator's ceiling is ``act`` (an MCP client
                approving: running a dispatch is acting, which only the operator grants).

        Raises:
            GovernanceError: ``within_ceiling`` and the ceiling is below act.
            UnknownNameError: No such proposal.
            InvalidArgumentError: Already decided, or stale.
        """
        ceiling = self.config.governance.max_level
        if within_ceiling and ceiling != AutonomyLevel.ACT:
            raise GovernanceError(
                ceiling_refusal(
                    "approving a proposal runs it at autonomy", AutonomyLevel.ACT, ceiling
                )
            )
        proposal = self.proposals.open(proposal_id)
        result = _run_sync(lambda: self._arun_approval(proposal, by))
        return {
            "status": "ok",
            "proposal": self.proposals.get(proposal_id).to_dict(),
            "cycle": result.to_dict(),
        }

    def reject(self, proposal_id: str, *, by: str = "cli", reason: str = "") -> dict[str, Any]:
        """Reject a pending proposal (recorded in the journal; nothing runs)."""
        with self._cycle_lock:
            p = self.proposals.decide(
                proposal_id, "rejected", at=self.clock(), by=by, detail=reason
            )
        return {"status": "ok", "proposal": p.to_dict()}

    async def _arun_approval(self, proposal: Proposal, by: str) -> CycleResult:
        while not self._cycle_lock.acquire(blocking=False):
            await asyncio.sleep(0.005)
        try:
            match = next(
                (
                    i
                    for i in self.attention_map()
                    if i.key == proposal.item_key and i.dispatch_mode.value == proposal.mode
                ),
                None,
            )
            if match is None:
                why = f"the attention map no longer asks for {proposal.mode} on {proposal.item_key}"
                self.proposals.decide(proposal.id, "stale", at=self.clock(), by=by, detail=why)
                raise InvalidArgumentError(
                    f"proposal {proposal.id} is stale: {why}; run a new cycle to propose again"
                )
            with self.telemetry.cycle_span("approval"):
                result = await self._cycle(
                    AutonomyLevel.ACT, "approval", only=match.key, approved=True
                )
            record = result.dispatches[0] if result.dispatches else None
            detail = (
                f"ran in {result.cycle_id}: {record.result}: {record.reason}"
                if record is not None
                else f"ran in {result.cycle_id}: nothing dispatched"
            )
            if result.journal_entry_ids:
                detail += f" (journal {', '.join(result.journal_entry_ids)})"
            self.proposals.decide(proposal.id, "approved", at=self.clock(), by=by, detail=detail)
            return result
        finally:
            self._cycle_lock.release()

    async def _cycle(
        self,
        level: AutonomyLevel,
        trigger: str,
        *,
        only: str | None = None,
        approved: bool = False,
    ) -> CycleResult:
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
        live = [i for i in items if i.dispatch_mode != DispatchMode.IDLE]
        selected = [i for i in live if i.key == only][:1] if only else self._select(live)
        dispatcher = Dispatcher(
            self.graph,
            self.config,
            level,
            research=self.research,
            deliberator=self.deliberator,
            actions=self.actions,
            notifier=self.notifier,
            decomposer=self.decomposer,
            consolidator=self.consolidator,
            edge_decay=self.edge_decay,
            escalations=self._escalations,
            actions_allowed=lambda: self._allow_action(now),
            now=now,
            proposals=self.proposals,
            cycle_id=result.cycle_id,
            approved=approved,
        )
        try:
            async with asyncio.timeout_at(deadline):
                for item in selected:
                    record = await dispatcher.dispatch(item)
                    result.dispatches.append(record)
                    self._emit_dispatch(record, result.cycle_id)
                if (
                    not selected
                    and only is None
                    and items
                    and level == AutonomyLevel.ACT
                    and budget.max_items_per_cycle
                    and DispatchMode.IDLE not in self.config.governance.require_approval_for
                ):
                    await self._idle_consolidation(dispatcher, items, result)
        except TimeoutError:
            result.timed_out = True
            if dispatcher.current is not None:
                dispatcher.timed_out(dispatcher.current)
                result.dispatches.append(dispatcher.current)
                self._emit_dispatch(dispatcher.current, result.cycle_id)
            for item in selected[len(result.dispatches) :]:
                record = DispatchRecord(
                    item, item.dispatch_mode, "timeout", "not started: cycle timed out"
                )
                result.dispatches.append(record)
                self._emit_dispatch(record, result.cycle_id)
        result.ledger = dispatcher.ledger
        if level != AutonomyLevel.OBSERVE:
            reflection = reflect(
                self.graph,
                result.dispatches,
                now=now,
                config=self.config,
                telemetry=self.telemetry,
                level=level,
                journal=self.journal,
                cycle_id=result.cycle_id,
                surveyed=items,
            )
            result.proposed_goal_ids = reflection.proposed_goal_ids
            result.journal_entry_ids = reflection.journal_entry_ids
            result.resurveyed = reflection.resurveyed
            if only is None:
                self._age(items, result, level)
            threshold = self.config.surprise_trigger
            if (
                threshold is not None
                and trigger != "surprise"
                and reflection.max_new_surprise >= threshold
                and reflection.max_new_surprise > 0
            ):
                result.surprise_triggered = self._active
                self._poke("surprise")
        result.duration_ms = (time.perf_counter() - started) * 1000.0
        result.next_heartbeat_ms = self._next_heartbeat_in_ms()
        # last_cycle before the count, and status() reads the count first: a status read on
        # another thread that sees cycle n counted also sees a last cycle (never None).
        self.last_cycle = result
        self.cycles_run += 1
        modes = result.to_dict()["modes"]
        self.telemetry.emit(
            "cycle_complete",
            {"total_duration_ms": result.duration_ms, "items_dispatched": result.items_dispatched},
            {"modes": modes, "cycle_id": result.cycle_id, "timed_out": result.timed_out},
        )
        return result

    async def _idle_consolidation(
        self, dispatcher: Dispatcher, items: list[AttentionItem], result: CycleResult
    ) -> None:
        """IDLE (§2.1): nothing needs attention, so run the consolidator over every region."""
        record = DispatchRecord(items[0], DispatchMode.IDLE, "ok", "idle: consolidation")
        region = list(dict.fromkeys(n for i in items for n in i.region_node_ids))
        if await dispatcher.consolidate(record, region):
            merged = len(record.details.get("merged", []))
            decayed = len(record.details.get("decayed_edges", []))
            record.reason = (
                f"idle: merged {merged} duplicate node(s), decayed {decayed} stale edge(s)"
            )
            result.dispatches.append(record)
            self._emit_dispatch(record, result.cycle_id)

    def _emit_dispatch(self, record: DispatchRecord, cycle_id: str) -> None:
        """The ``dispatch`` event, as soon as the item is dispatched (before reflect)."""
        self.telemetry.emit(
            "dispatch",
            {"duration_ms": record.duration_ms, "attention_score": record.item.attention_score},
            {
                "mode": record.mode.value,
                "result": record.result,
                "goal_id": record.item.goal_id,
                "kappa": record.item.topology.max_kappa,
                "coverage": record.item.coverage.coverage_score,
                "cycle_id": cycle_id,
            },
        )

    def _select(self, candidates: list[AttentionItem]) -> list[AttentionItem]:
        """The items this cycle serves: best first, with bounded aging and yielding.

        Document 000 §11.5: an item that waits unserved gains ``aging_bonus`` per cycle (capped
        at ``aging_cap``) on top of its triage score — for selection only, its
        ``attention_score`` is unchanged — and an item deferred ``yield_after_deferrals``
        cycles in a row yields its slot once. Only non-idle items compete, so aging never
        promotes an item that needs nothing.
        """
        b = self.config.budget
        use_voc = self.config.triage.method == "voc"

        def key(item: AttentionItem) -> tuple[bool, float, str]:
            yielding = self._deferrals.get(item.key, 0) >= b.yield_after_deferrals
            bonus = min(b.aging_cap, b.aging_bonus * self._waiting.get(item.key, 0))
            base = item.voc if use_voc else item.attention_score
            return (yielding, -(base + bonus), item.key)

        ranked = sorted(candidates, key=key)
        return ranked[: b.max_items_per_cycle]

    def _age(self, items: list[AttentionItem], result: CycleResult, level: AutonomyLevel) -> None:
        """Update waiting and deferral counts after a cycle (advise and act levels)."""
        served = {r.item.key: r for r in result.dispatches}
        b = self.config.budget
        for item in items:
            if item.dispatch_mode == DispatchMode.IDLE:
                self._waiting.pop(item.key, None)
                continue
            record = served.get(item.key)
            if record is None:
                self._waiting[item.key] = self._waiting.get(item.key, 0) + 1
                if self._deferrals.get(item.key, 0) >= b.yield_after_deferrals:
                    self._deferrals[item.key] = 0  # it has yielded its slot once
                continue
            self._waiting[item.key] = 0
            deferred = level == AutonomyLevel.ACT and record.result == "deferred"
            self._deferrals[item.key] = self._deferrals.get(item.key, 0) + 1 if deferred else 0

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

    async def join(self) -> None:
        """Wait until the heartbeat that :meth:`activate` started in this loop has stopped."""
        if self._task is not None:
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
        if self.config.first_cycle_at_start and self._active:
            try:
                await self.arun_cycle(trigger="start")
            except Exception:
                if self._stop_on_error:
                    self._active = False
                    raise
                _log.exception("attention cycle (start) failed")
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

    # --- outcomes, journal -----------------------------------------------------------------------

    def record_outcome(self, outcome: OutcomeRecord) -> str:
        """Record an outcome reported from outside; a surprising one triggers a cycle now.

        A failed, timed-out or unexpected outcome whose confidence reaches
        ``config.surprise_trigger`` wakes the heartbeat (trigger ``surprise``, document 002 §2.2)
        when it is running.

        Returns:
            The outcome id.
        """
        outcome_id = self.graph.record_outcome(outcome)
        threshold = self.config.surprise_trigger
        if (
            threshold is not None
            and outcome.status in SURPRISING
            and outcome.confidence >= threshold
        ):
            self._poke("surprise")
        return outcome_id

    def journal_entries(self) -> list[JournalEntry]:
        """Every journal entry, oldest first (what each dispatch changed, and undo state)."""
        return self.journal.entries()

    def undo(self, entry_id: str) -> JournalEntry:
        """Reverse one journal entry (see :func:`heedful.engine.journal.undo`)."""
        with self._cycle_lock:
            return undo(self.graph, self.journal, entry_id, now=self.clock())

    def start_if_enabled(self) -> bool:
        """Start the heartbeat if ``config.enabled`` (document 002 §3.1: off by default).

        Call from inside a running event loop (a host such as the MCP server).

        Returns:
            Whether the heartbeat was started.
        """
        if not self.config.enabled:
            return False
        self.activate()
        return True

    def close(self) -> None:
        """Stop the heartbeat and close the graph port if it can be closed."""
        self.deactivate()
        close = getattr(self.graph, "close", None)
        if callable(close):
            close()

    def status(self) -> dict[str, Any]:
        """The engine's state for observability (document 002 §3.1 ``status/0``)."""
        cycles_run = self.cycles_run
        last = self.last_cycle
        return {
            "active": self._active,
            "heartbeat_running": self._task is not None and not self._task.done(),
            "autonomy_level": self.autonomy_level.value,
            "requested_level": self._requested_level.value,
            "governance_max_level": self.config.governance.max_level.value,
            "pending_proposals": [p.to_dict() for p in self.proposals.pending()],
            "heartbeat_ms": self.config.heartbeat_ms,
            "next_heartbeat_in_ms": self._next_heartbeat_in_ms(),
            "triage": self.config.triage.method,
            "budget": self.config.budget.model_dump(),
            "cycles_run": cycles_run,
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


def _run_sync(coro_factory: Callable[[], Any]) -> Any:
    """Run a coroutine to completion from sync code (on a helper thread inside a running loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(lambda: asyncio.run(coro_factory())).result()
