"""Dispatch: run each selected item in its mode under the autonomy level and the budget.

Document 002 §3.1.3 and §3.2. Executors call ports and return a :class:`DispatchRecord` whose
:class:`Writes` the engine applies during reflect — executors themselves never write, which keeps
``observe`` and ``advise`` free of mutations by construction.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from heedful.engine.coherence import Verdict, check_sub_goals
from heedful.engine.config import AutonomyLevel, DispatchMode, EngineConfig
from heedful.engine.coverage import terms
from heedful.engine.ports import (
    ActionPort,
    ActionRequest,
    ActionResult,
    ConsolidatorPort,
    DecomposerPort,
    DeliberationRequest,
    DeliberationResult,
    DeliberatorPort,
    EdgeDecayPort,
    Finding,
    GraphPort,
    InspectionLead,
    NoActionExecutor,
    Notice,
    NotifierPort,
    ResearchPort,
)
from heedful.engine.proposals import Proposal, ProposalQueue, new_proposal_id
from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.results import DispatchRecord, Ledger
from heedful.engine.survey import (
    CRYSTALLIZES,
    ENGINE_TRACE,
    ENGINE_TRACE_KEY,
    MERGED_INTO,
    is_inactive,
)
from heedful.engine.topology import Component, deliberation_budget
from heedful.engine.triage import AttentionItem
from heedful.model import EdgeType, NodeType
from heedful.model import OutcomeStatus as OS
from heedful.model.goal import Goal, GoalPriority, GoalSource, GoalStatus, GoalTimescale

_log = logging.getLogger("heedful.engine")

#: Goal metadata key holding the ISO time of the goal's last escalation.
LAST_ESCALATED = "last_escalated_at"


async def call_port(fn: Callable[..., Any], *args: Any) -> Any:
    """Call a port method that may be sync or async, so that the caller can cut it by timeout.

    Coroutine functions are awaited (cancellation stops them). Plain functions run in a daemon
    thread whose result is awaited; on timeout the await is cancelled and the thread is left to
    finish on its own (it cannot be killed, but it no longer holds up the cycle or exit).
    """
    if inspect.iscoroutinefunction(fn):
        return await fn(*args)
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def deliver(setter: Callable[[Any], None], value: Any) -> None:
        if not future.done():
            setter(value)

    def run() -> None:
        try:
            value = fn(*args)
        except BaseException as exc:
            outcome: tuple[Callable[[Any], None], Any] = (future.set_exception, exc)
        else:
            outcome = (future.set_result, value)
        # A closed loop means the cycle was cut and nobody is waiting any more.
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(deliver, *outcome)

    threading.Thread(target=run, name="heedful-engine-port", daemon=True).start()
    result = await future
    if inspect.isawaitable(result):
        result = await result
    return result


def _new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def _lead_row(lead: InspectionLead) -> dict[str, Any]:
    return {
        "source_id": lead.source_id,
        "claim_ids": list(lead.claim_ids),
        "predicted_voc": lead.predicted_voc,
        "p_change": lead.p_change,
        "cost": lead.cost,
        "candidate_id": lead.candidate_id,
    }


def _explore_reason(
    linked: list[str],
    retrieved: list[str],
    new_ids: list[str],
    leads: list[InspectionLead],
    researched: list[str],
    unresolved: list[str],
) -> str:
    """What an explore found, or why it found nothing (never an empty reason)."""
    found = (
        f"linked {len(linked) + len(retrieved)} node(s), {len(new_ids)} new finding(s), "
        f"{len(leads)} inspection lead(s) from {len(researched)} research call(s)"
    )
    if not researched:
        return found + " (no gap to research, or budget: max_explore_calls reached)"
    if unresolved:
        words = ", ".join(g.partition(":")[2].strip() for g in unresolved)
        found += f"; nothing in memory answers: {words}"
    return found


def _with_leads(goal: Goal, leads: list[InspectionLead]) -> Goal:
    """A sub-goal about a gap (``unknown: word`` or ``claim: id``) learns which inspections
    research found for it."""
    gap = goal.metadata.get("gap")
    kind, _, what = gap.partition(":") if isinstance(gap, str) else ("", "", "")
    what = what.strip()
    if kind.strip() == "claim":
        mine = [_lead_row(lead) for lead in leads if what in lead.claim_ids]
    else:
        word = what.lower()
        mine = [
            _lead_row(lead)
            for lead in leads
            if word and any(word in terms(c) for c in lead.claim_ids)
        ]
    if not mine:
        return goal
    return goal.model_copy(update={"metadata": {**goal.metadata, "inspect": mine}})


class Dispatcher:
    """Runs one cycle's dispatches; holds the cycle's ledger.

    Args:
        graph: Read access for explore's internal expansion (never written here).
        config: Engine configuration.
        level: Autonomy level of this cycle.
        ports: ``research``, ``deliberator``, ``actions``, ``notifier``, ``decomposer``,
            ``consolidator`` and ``edge_decay``.
        escalations: Last escalation time per item key (shared across cycles; updated here).
        actions_allowed: Callback asking the action-rate governor for permission.
        now: Cycle time.
        proposals: Where advise-mode proposals are queued (none: notified only).
        cycle_id: The cycle's id, recorded with each proposal.
        approved: The cycle runs a proposal a person approved: its item executes even where
            governance requires approval.
    """

    def __init__(
        self,
        graph: GraphPort,
        config: EngineConfig,
        level: AutonomyLevel,
        *,
        research: ResearchPort,
        deliberator: DeliberatorPort,
        actions: ActionPort,
        notifier: NotifierPort,
        decomposer: DecomposerPort,
        consolidator: ConsolidatorPort,
        edge_decay: EdgeDecayPort,
        escalations: dict[str, datetime],
        actions_allowed: Callable[[], bool],
        now: datetime,
        proposals: ProposalQueue | None = None,
        cycle_id: str = "",
        approved: bool = False,
    ) -> None:
        self.graph = graph
        self.config = config
        self.level = level
        self.research = research
        self.deliberator = deliberator
        self.actions = actions
        self.notifier = notifier
        self.decomposer = decomposer
        self.consolidator = consolidator
        self.edge_decay = edge_decay
        self.escalations = escalations
        self.actions_allowed = actions_allowed
        self.now = now
        self.proposals = proposals
        self.cycle_id = cycle_id
        self.approved = approved
        self.ledger = Ledger()
        self.current: DispatchRecord | None = None

    async def dispatch(self, item: AttentionItem) -> DispatchRecord:
        """Dispatch one item (the caller enforces ``max_items_per_cycle`` and the timeout)."""
        record = DispatchRecord(item=item, mode=item.dispatch_mode)
        self.current = record
        self.ledger.items += 1
        started = time.perf_counter()
        try:
            await self._run(record)
        except Exception as exc:
            # A failing port is reported as an error result, never as success.
            _log.exception("dispatch of %s failed", item.key)
            record.result, record.reason = "error", f"{type(exc).__name__}: {exc}"
            if record.mode == DispatchMode.ACT and self.level == AutonomyLevel.ACT:
                record.writes.outcomes.append(self._outcome(item, OS.FAILURE, record.reason))
        finally:
            record.duration_ms = (time.perf_counter() - started) * 1000.0
        self.current = None
        return record

    def _outcome(self, item: AttentionItem, status: OS, detail: str) -> OutcomeRecord:
        return OutcomeRecord(
            status=status,
            confidence=1.0,
            goal_id=item.goal_id,
            node_ids=item.region_node_ids[:20],
            detail=detail,
            created_at=self.now,
        )

    def timed_out(self, record: DispatchRecord) -> None:
        """Mark an in-flight dispatch as cut by the cycle timeout (an action's outcome is kept)."""
        record.result, record.reason = "timeout", "cut at budget.total_timeout_ms"
        if record.mode == DispatchMode.ACT and record.details.get("executing"):
            record.writes.outcomes.append(
                self._outcome(record.item, OS.TIMEOUT, "action cut at the cycle timeout")
            )

    async def _run(self, record: DispatchRecord) -> None:
        item, mode = record.item, record.mode
        if self.level == AutonomyLevel.OBSERVE:
            record.reason = "observe: logged, no action"
            _log.info("observe %s: %s", mode.value, item.rationale())
            return
        needs_approval = not self.approved and (
            self.level == AutonomyLevel.ADVISE
            or mode in self.config.governance.require_approval_for
        )
        if needs_approval:
            if mode == DispatchMode.ESCALATE and self._cooling(item):
                record.reason = self._cooldown_reason()
                return
            await self._propose_to_human(record)
            return
        handler = {
            DispatchMode.EXPLORE: self._explore,
            DispatchMode.FOCUS: self._focus,
            DispatchMode.ACT: self._act,
            DispatchMode.ESCALATE: self._escalate,
            DispatchMode.PROPOSE: self._propose,
        }.get(mode)
        if handler is None:
            record.reason = "idle"
            return
        await handler(record)

    def _cooldown_reason(self) -> str:
        seconds = self.config.budget.escalation_cooldown_ms / 1000
        return f"escalated recently (cooldown {seconds:g} s)"

    def _cooling(self, item: AttentionItem) -> bool:
        """Escalated within the cooldown? Remembered in memory and, for goals escalated at
        ``act`` level, in the goal's metadata (so separate processes share the cooldown)."""
        cooldown = timedelta(milliseconds=self.config.budget.escalation_cooldown_ms)
        times = [self.escalations.get(item.key)]
        stored = item.goal.metadata.get(LAST_ESCALATED) if item.goal is not None else None
        if isinstance(stored, str):
            # A malformed stamp is ignored, like an absent one.
            with contextlib.suppress(ValueError):
                times.append(datetime.fromisoformat(stored))
        return any(t is not None and timedelta(0) <= self.now - t < cooldown for t in times)

    async def _propose_to_human(self, record: DispatchRecord) -> None:
        item = record.item
        why = "advise" if self.level == AutonomyLevel.ADVISE else "governance: requires approval"
        queued = (
            self.proposals.pending_for(item.key, record.mode.value)
            if self.proposals is not None
            else None
        )
        if queued is not None:
            record.details["proposal_id"] = queued.id
            record.reason = f"{why}: awaiting approval of {queued.id}"
            return
        proposal_id = new_proposal_id()
        how = f" (heedful engine approve {proposal_id} | reject {proposal_id})"
        message = f"proposed {record.mode.value} for '{item.goal_title}': {item.rationale()}"
        notice = Notice(
            kind="proposal",
            goal_id=item.goal_id,
            mode=record.mode.value,
            message=message + (how if self.proposals is not None else ""),
            item=item.to_dict(),
        )
        await call_port(self.notifier.notify, notice)
        if record.mode == DispatchMode.ESCALATE:
            self.escalations[item.key] = self.now
        if self.proposals is None:
            record.reason = f"{why}: proposal sent, awaiting approval"
            return
        self.proposals.add(
            Proposal(
                id=proposal_id,
                cycle_id=self.cycle_id,
                at=self.now.isoformat(),
                item_key=item.key,
                goal_id=item.goal_id,
                mode=record.mode.value,
                message=message,
            )
        )
        record.details["proposal_id"] = proposal_id
        record.reason = f"{why}: proposal {proposal_id} queued, awaiting approval"

    async def _escalate(self, record: DispatchRecord, why: str = "") -> None:
        item = record.item
        if self._cooling(item):
            record.result, record.reason = "deferred", self._cooldown_reason()
            return
        message = f"needs attention: '{item.goal_title}' — {why or item.rationale()}"
        await call_port(
            self.notifier.notify,
            Notice("escalation", item.goal_id, record.mode.value, message, item.to_dict()),
        )
        self.escalations[item.key] = self.now
        record.writes.escalated_at = self.now
        record.result, record.reason = "escalated", why or "coverage decision: escalate"

    async def _explore(self, record: DispatchRecord) -> None:
        item = record.item
        region = set(item.region_node_ids)
        frontier, linked = list(region), list[str]()
        limit = self.config.region_search_limit
        for _ in range(self.config.explore_depth):
            found: list[str] = []
            for edge in self.graph.edges_touching(frontier):
                for node_id in (edge.source, edge.target):
                    if node_id not in region:
                        region.add(node_id)
                        found.append(node_id)
            # Engine traces are bookkeeping, not knowledge: never link them to a goal.
            found = [n.id for n in self.graph.get_nodes(found) if not is_inactive(n)]
            linked.extend(found[: max(0, limit - len(linked))])
            frontier = found
        # Strategy 2: consolidation over what the goal's region now reaches.
        await self.consolidate(record, [*region])
        gaps = sorted(item.coverage.gaps, key=lambda g: (not g.startswith("unknown:"), g))
        if not gaps:
            gaps = [f"unknown: {w}" for w in terms(item.goal_title)[:3]]
        findings: list[Finding] = []
        researched: list[str] = []
        for gap in gaps:
            if self.ledger.explore_calls >= self.config.budget.max_explore_calls:
                break
            self.ledger.explore_calls += 1
            researched.append(gap)
            findings.extend(await call_port(self.research.research, item.goal_title, gap))
        w = record.writes
        new_ids = []
        retrieved: list[str] = []
        leads = [f.lead for f in findings if f.lead is not None]
        findings = [f for f in findings if f.lead is None]
        for finding in findings:
            if finding.node_id is not None:
                # Retrieved knowledge already in the graph: link it, do not copy it.
                if finding.node_id not in region and finding.node_id not in retrieved:
                    retrieved.append(finding.node_id)
                continue
            node_id = _new_id("finding")
            new_ids.append(node_id)
            w.nodes.append(
                NodeRecord(
                    id=node_id,
                    type=NodeType.SEMANTIC,
                    content=finding.content,
                    confidence=finding.confidence,
                    updated_at=self.now,
                    metadata={"source": finding.source, "explored_for": item.goal_id or ""},
                )
            )
            # Only link to nodes known to exist (the region and what expansion found).
            w.edges.extend(
                EdgeRecord(node_id, target, EdgeType.SUPPORTS)
                for target in finding.supports
                if target in region
            )
        # An episodic trace of the exploration. It deliberately omits the goal's words and is
        # not linked to the goal, so recording that we looked never counts as knowing.
        trace_id = _new_id("explore")
        w.nodes.append(
            NodeRecord(
                id=trace_id,
                type=NodeType.EPISODIC,
                content=(
                    f"Exploration trace: linked {len(linked)} related node(s), "
                    f"{len(findings)} finding(s) and {len(leads)} inspection lead(s) "
                    f"from {len(researched)} research call(s)"
                ),
                confidence=1.0,
                updated_at=self.now,
                metadata={ENGINE_TRACE_KEY: ENGINE_TRACE, "goal_id": item.goal_id or ""},
            )
        )
        w.edges.extend(
            EdgeRecord(trace_id, n, EdgeType.DERIVED_FROM) for n in [*new_ids, *linked][:20]
        )
        w.link_nodes.extend(dict.fromkeys([*linked, *retrieved, *new_ids]))
        unresolved = [
            g for g in researched if g.startswith("unknown:") and not self._found_for(g, findings)
        ]
        refused: list[Verdict] = []
        if item.goal is not None and unresolved:
            words = {g.partition(":")[2].strip().lower() for g in unresolved}
            claims = [c for lead in leads for c in lead.claim_ids if words & set(terms(c))]
            asked = [*unresolved, *(f"claim: {c}" for c in dict.fromkeys(claims))]
            subs = await call_port(self.decomposer.decompose, item.goal, asked, self.now)
            # Document 002 §3.2.4: no sub-goal is written (or activated) before this check.
            kept, refused = check_sub_goals(subs, item.goal, self.graph.list_goals())
            w.sub_goals.extend(_with_leads(sub, leads) for sub in kept)
        if leads:
            await self._report_leads(record, leads)
        record.result = "ok"
        record.reason = _explore_reason(linked, retrieved, new_ids, leads, researched, unresolved)
        if refused:
            record.details["refused_sub_goals"] = [v.reason for v in refused]
            record.reason += f"; {len(refused)} sub-goal(s) refused by the coherence check"
        record.details = {
            **record.details,
            "linked_nodes": len(linked),
            "retrieved_nodes": retrieved,
            "findings": len(findings),
            "inspection_leads": record.details.get("inspection_leads", []),
            "explore_calls": len(researched),
            "new_node_ids": new_ids,
            "trace_node_id": trace_id,
            "sub_goals": [g.id for g in w.sub_goals],
        }

    async def consolidate(self, record: DispatchRecord, node_ids: list[str]) -> int:
        """Merge duplicates and decay stale edges among ``node_ids`` into ``record.writes``.

        Returns:
            How many changes were planned (merges plus decayed edges).
        """
        nodes = self.graph.get_nodes(node_ids)
        pairs = await call_port(self.consolidator.consolidate, nodes)
        by_id = {n.id: n for n in nodes}
        w = record.writes
        for keep, drop in pairs:
            old = by_id.get(drop)
            if old is None or keep not in by_id:
                continue
            w.nodes.append(
                NodeRecord(
                    old.id,
                    old.type,
                    old.content,
                    old.confidence,
                    self.now,
                    {**old.metadata, MERGED_INTO: keep},
                )
            )
            for e in self.graph.edges_touching([drop]):
                src = keep if e.source == drop else e.source
                dst = keep if e.target == drop else e.target
                if src != dst:
                    w.edges.append(EdgeRecord(src, dst, e.type, e.weight))
        merged = [[k, d] for k, d in pairs if d in by_id and k in by_id]
        if merged:
            record.details["merged"] = merged
        # Merged duplicates are about to be retired; their edges are not worth decaying.
        live = [n for n in nodes if not is_inactive(n) and n.id not in {d for _, d in merged}]
        decayed = await call_port(
            self.edge_decay.decay, live, self.graph.edges_among([n.id for n in live]), self.now
        )
        for edge, weight in decayed:
            w.edge_weights.append((edge, weight))
        if decayed:
            record.details["decayed_edges"] = [
                [e.source, e.target, e.type.value, e.weight, weight] for e, weight in decayed
            ]
        return len(merged) + len(decayed)

    async def _report_leads(self, record: DispatchRecord, leads: list[InspectionLead]) -> None:
        """List the inspections research pointed to, and tell the notifier (act level only)."""
        item = record.item
        rows = [_lead_row(lead) for lead in leads]
        record.details["inspection_leads"] = rows
        best = ", ".join(
            f"{r['source_id']} ({'/'.join(r['claim_ids'])}, VOC {r['predicted_voc']:.3g})"
            for r in rows[:3]
        )
        await call_port(
            self.notifier.notify,
            Notice(
                "inspection",
                item.goal_id,
                record.mode.value,
                f"to fill gaps of '{item.goal_title}', inspect: {best}",
                {"inspection_leads": rows},
            ),
        )

    @staticmethod
    def _found_for(gap: str, findings: list[Finding]) -> bool:
        word = gap.partition(":")[2].strip().lower()
        return any(word in f.content.lower() for f in findings)

    async def _focus(self, record: DispatchRecord) -> None:
        item = record.item
        components = sorted(item.topology.sccs, key=lambda c: (-c.kappa, c.id))
        if not components and item.region_node_ids:
            # A DAG region that still needs deliberation: treat it as one κ=0 component.
            region = tuple(sorted(item.region_node_ids))
            components = [
                Component(
                    "region",
                    region,
                    0,
                    (),
                    region,
                    (),
                    deliberation_budget(0, self.config.deliberation),
                )
            ]
        nodes = {n.id: n for n in self.graph.get_nodes(list(item.region_node_ids))}
        concluded: list[str] = []
        failures: list[str] = []
        for comp in components:
            if self.ledger.deliberation_sccs >= self.config.budget.max_deliberation_sccs:
                break
            self.ledger.deliberation_sccs += 1
            request = DeliberationRequest(
                item.goal_title, comp, tuple(nodes[x] for x in comp.nodes if x in nodes)
            )
            result: DeliberationResult = await call_port(self.deliberator.deliberate, request)
            if not result.converged or result.conclusion is None:
                failures.append(f"{comp.id}: {result.note or 'did not converge'}")
                continue
            conclusion_id = _new_id("conclusion")
            record.writes.nodes.append(
                NodeRecord(
                    id=conclusion_id,
                    type=NodeType.SEMANTIC,
                    content=result.conclusion.content,
                    confidence=result.conclusion.confidence,
                    updated_at=self.now,
                    metadata={CRYSTALLIZES: list(result.conclusion.node_ids), "kappa": comp.kappa},
                )
            )
            record.writes.edges.extend(
                EdgeRecord(conclusion_id, m, EdgeType.DERIVED_FROM)
                for m in result.conclusion.node_ids
            )
            record.writes.link_nodes.append(conclusion_id)
            concluded.append(conclusion_id)
        record.details = {"deliberated": len(concluded) + len(failures), "conclusions": concluded}
        if failures and not concluded:
            record.details["not_converged"] = failures
            await self._escalate(record, "deliberation did not converge: " + "; ".join(failures))
        elif not concluded:
            record.reason = "budget: max_deliberation_sccs reached"
        else:
            record.result = "ok"
            record.reason = (
                f"deliberated {len(concluded) + len(failures)} component(s): "
                f"{len(concluded)} conclusion(s) written"
            )

    async def _act(self, record: DispatchRecord) -> None:
        item = record.item
        if item.goal is None:
            record.reason = "no goal to act on"
            return
        if self.ledger.action_dispatches >= self.config.budget.max_action_dispatches:
            record.reason = "budget: max_action_dispatches reached"
            return
        if isinstance(self.actions, NoActionExecutor):
            record.reason = "no action executor configured"
            return
        if not self.actions_allowed():
            record.reason = "governance: max_actions_per_hour reached"
            return
        self.ledger.action_dispatches += 1
        context = tuple(self.graph.get_nodes(list(item.region_node_ids[:20])))
        record.details["executing"] = True
        result: ActionResult | None = await call_port(
            self.actions.execute, ActionRequest(item.goal, context, item.rationale())
        )
        record.details["executing"] = False
        if result is None:
            self.ledger.action_dispatches -= 1
            record.reason = "nothing to execute (no metadata.plan step, no proposed sub-goal)"
            return
        record.writes.nodes.extend(result.nodes)
        record.writes.edges.extend(result.edges)
        record.writes.activate_goals.extend(result.activate_goals)
        record.writes.goal_metadata.update(result.goal_metadata)
        record.writes.outcomes.append(
            OutcomeRecord(
                status=result.status,
                confidence=result.confidence,
                goal_id=item.goal_id,
                node_ids=item.region_node_ids[:20],
                detail=result.detail,
                created_at=self.now,
            )
        )
        record.writes.progress = result.progress
        record.writes.goal_status = result.goal_status
        record.result = "ok" if result.status in (OS.SUCCESS, OS.PARTIAL) else "failed"
        record.reason = result.detail
        record.details["outcome"] = result.status.value

    async def _propose(self, record: DispatchRecord) -> None:
        item = record.item
        goals = self.graph.list_goals()
        region = set(item.region_node_ids)
        for g in goals:
            if (
                g.source == GoalSource.INFERRED
                and g.status in (GoalStatus.PROPOSED, GoalStatus.ACTIVE, GoalStatus.BLOCKED)
                and region <= set(g.linked_node_ids)
            ):
                record.reason = f"already proposed as {g.id}"
                return
        anchors = [g for g in goals if g.source in (GoalSource.USER, GoalSource.SYSTEM)]
        region_terms = set(terms(item.goal_title))
        for node in self.graph.get_nodes(list(item.region_node_ids)):
            region_terms.update(terms(node.content))
        related = [
            g.id
            for g in anchors
            if set(g.linked_node_ids) & set(item.region_node_ids)
            or region_terms & set(terms(f"{g.title} {g.description}"))
        ]
        if not related:
            record.reason = "coherence check: gap unrelated to any user or system goal"
            return
        title = "Refresh knowledge: " + item.goal_title.removeprefix("Coverage gap: ")
        priority = GoalPriority.HIGH if item.attention_score >= 0.5 else GoalPriority.NORMAL
        goal = Goal(
            id=_new_id("goal"),
            title=title[:200],
            description="Proposed by the attention engine from a coverage gap: "
            + "; ".join(item.coverage.gaps[:5]),
            status=GoalStatus.PROPOSED,
            source=GoalSource.INFERRED,
            timescale=GoalTimescale.SHORT_TERM,
            priority=priority,
            linked_node_ids=list(item.region_node_ids),
            metadata={
                "generated_by": "attention_engine",
                "coverage_at_proposal": item.coverage.coverage_score,
                "kappa_at_proposal": item.topology.max_kappa,
                "gaps": list(item.coverage.gaps),
                "related_goals": related,
                "completion_criteria": {
                    "coverage_threshold": self.config.coverage.thresholds.act_coverage,
                    "target_node_ids": list(item.region_node_ids),
                },
            },
        )
        record.writes.proposed_goal = goal
        record.result = "ok"
        record.details = {"proposed_goal_id": goal.id, "related_goals": related}
