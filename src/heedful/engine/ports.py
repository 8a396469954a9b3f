"""Ports: what the engine needs from storage and from the subsystems document 002 names.

Storage is :class:`GraphPort` (the memory store satisfies it through an adapter; tests use
:class:`heedful.engine.memgraph.InMemoryGraph`).
The subsystems that live elsewhere (§3.2, §5: Domain Explorer research, Deliberator,
OpenSentience, Deliberatic/human notification) are small ports with working defaults.

Ports *compute*; the engine *writes*. A port returns findings, conclusions or an outcome and the
engine stores them during reflect, so a port never touches the store (it may run in a worker
thread) and ``observe`` can guarantee it mutates nothing.

Any port method may be a plain function or a coroutine function; the engine awaits both and cuts
either at the cycle's total timeout.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, runtime_checkable

from heedful.engine.records import EdgeRecord, NodeRecord, OutcomeRecord
from heedful.engine.topology import Component
from heedful.errors import InvalidArgumentError
from heedful.model import OutcomeStatus
from heedful.model.goal import Goal, GoalStatus

_log = logging.getLogger("heedful.engine")


@runtime_checkable
class GraphPort(Protocol):
    """What the engine reads from and writes to the knowledge graph and goal store."""

    def list_goals(self, status: GoalStatus | None = None) -> list[Goal]:
        """Goals, optionally with one status."""
        ...

    def get_goal(self, goal_id: str) -> Goal:
        """One goal; raises ``UnknownNameError`` if absent."""
        ...

    def add_goal(self, goal: Goal) -> Goal:
        """Store a new goal."""
        ...

    def update_goal(self, goal: Goal) -> Goal:
        """Replace a goal (status changes must follow ``GOAL_TRANSITIONS``)."""
        ...

    def search(self, query: str, limit: int) -> list[str]:
        """Ids of the nodes best matching ``query`` (full-text), best first."""
        ...

    def get_nodes(self, node_ids: Sequence[str]) -> list[NodeRecord]:
        """The nodes that exist among ``node_ids``."""
        ...

    def edges_touching(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with at least one endpoint in ``node_ids``."""
        ...

    def edges_among(self, node_ids: Sequence[str]) -> list[EdgeRecord]:
        """Edges with both endpoints in ``node_ids``."""
        ...

    def outcomes_for(self, goal_id: str | None, node_ids: Sequence[str]) -> list[OutcomeRecord]:
        """Outcomes of the goal or bearing on any of the nodes."""
        ...

    def gap_candidates(self, limit: int) -> list[str]:
        """Nodes likely to be coverage gaps (contradicted, low confidence, failed outcomes)."""
        ...

    def add_node(self, node: NodeRecord) -> str:
        """Store a node; returns its id."""
        ...

    def add_edge(self, edge: EdgeRecord) -> None:
        """Store an edge."""
        ...

    def record_outcome(self, outcome: OutcomeRecord) -> str:
        """Store an outcome; returns its id."""
        ...

    def digest(self) -> str:
        """A hash of the whole graph and goal state (equal digests = nothing changed)."""
        ...


# --- explore: research ---------------------------------------------------------------------


@dataclass(frozen=True)
class InspectionLead:
    """Where to look for a gap: an inspection the attention controller would rank (not knowledge).

    Attributes:
        source_id: The registered source to inspect.
        claim_ids: The claims it reports that match the gap.
        predicted_voc: The controller estimator's predicted net value of the inspection.
        p_change: Its estimated probability of changing the decision.
        cost: Scalar cost of one inspection.
        candidate_id: The controller's live candidate for it, when it has one.
    """

    source_id: str
    claim_ids: tuple[str, ...]
    predicted_voc: float
    p_change: float
    cost: float
    candidate_id: str | None = None


@dataclass(frozen=True)
class Finding:
    """A piece of knowledge found by research — or, with ``lead``, where to find it.

    Attributes:
        content: The knowledge, as text.
        confidence: 0..1.
        supports: Existing node ids it supports (the engine adds ``supports`` edges).
        source: Where it came from (URL, tool name).
        node_id: An **existing** node the research retrieved (e.g. from the graph's own
            full-text index): the engine links it to the goal instead of storing a copy.
        lead: An inspection worth running for the gap. A lead is never written as knowledge
            (knowing where to look is not knowing) and does not resolve the gap; the engine
            reports it in the dispatch, notifies it and attaches it to the gap's sub-goal.
    """

    content: str
    confidence: float = 0.6
    supports: tuple[str, ...] = ()
    source: str = ""
    node_id: str | None = None
    lead: InspectionLead | None = None


class ResearchPort(Protocol):
    """Agent-assisted research for one coverage gap (document 002 §3.2.1 strategy 3)."""

    def research(self, goal_title: str, gap: str) -> list[Finding] | Awaitable[list[Finding]]:
        """Research one gap; each call is one explore call of the budget."""
        ...


class NoResearch:
    """Default research port: no external source is configured, so nothing is found."""

    def research(self, goal_title: str, gap: str) -> list[Finding]:
        """Return no findings."""
        return []


# --- focus: deliberator --------------------------------------------------------------------


@dataclass(frozen=True)
class DeliberationRequest:
    """One component to deliberate on, decomposed along its fault lines."""

    goal_title: str
    component: Component
    nodes: tuple[NodeRecord, ...]


@dataclass(frozen=True)
class Conclusion:
    """A crystallised conclusion over a component.

    Attributes:
        content: The conclusion text.
        confidence: 0..1.
        node_ids: The nodes it settles (the engine contracts them into the conclusion when it
            measures effective κ).
    """

    content: str
    confidence: float
    node_ids: tuple[str, ...]


@dataclass(frozen=True)
class DeliberationResult:
    """Outcome of a deliberation: a conclusion, or no convergence (→ escalate)."""

    converged: bool
    conclusion: Conclusion | None = None
    passes: int = 0
    note: str = ""


class DeliberatorPort(Protocol):
    """Deliberator (KAPPA_DELIBERATOR_PROMPT): fault-line reasoning over one SCC."""

    def deliberate(
        self, request: DeliberationRequest
    ) -> DeliberationResult | Awaitable[DeliberationResult]:
        """Deliberate on one component."""
        ...


class FaultLineDeliberator:
    """Deterministic default deliberator.

    Splits the component along its minimum cut into the two sides, takes each side's most
    confident node as that side's position (one focused pass per side, up to the budget's
    ``max_iterations``), and reconciles them into one conclusion whose confidence is the
    component's mean node confidence. It converges when that confidence reaches the budget's
    ``confidence_threshold``; otherwise the engine escalates.
    """

    def deliberate(self, request: DeliberationRequest) -> DeliberationResult:
        """Decompose, take one pass per side, reconcile."""
        comp = request.component
        by_id = {n.id: n for n in request.nodes}
        positions: list[str] = []
        passes = 0
        for side in (comp.side_a, comp.side_b):
            if passes >= comp.budget.max_iterations:
                break
            members = [by_id[x] for x in side if x in by_id]
            if members:
                lead = max(members, key=lambda n: (n.confidence, n.id))
                positions.append(lead.content or lead.id)
            passes += 1
        confs = [by_id[x].confidence for x in comp.nodes if x in by_id]
        confidence = sum(confs) / len(confs) if confs else 0.0
        cut = ", ".join(f"{s}→{t}" for s, t in comp.fault_lines)
        # The goal's title is left out on purpose: restating the question is not knowledge.
        content = (
            f"Conclusion over {len(comp.nodes)} nodes: "
            + " / ".join(positions)
            + (f" (fault lines: {cut})" if cut else "")
        )
        if confidence < comp.budget.confidence_threshold:
            return DeliberationResult(
                converged=False,
                passes=passes,
                note=f"confidence {confidence:.2f} below {comp.budget.confidence_threshold:.2f}",
            )
        return DeliberationResult(
            converged=True,
            conclusion=Conclusion(content, round(confidence, 6), comp.nodes),
            passes=passes,
        )


# --- act: action executor ------------------------------------------------------------------


@dataclass(frozen=True)
class ActionRequest:
    """The next action toward a goal (document 002 §3.2.3)."""

    goal: Goal
    context: tuple[NodeRecord, ...]
    rationale: str


@dataclass(frozen=True)
class ActionResult:
    """What happened when the action ran.

    Attributes:
        status: Outcome classification.
        confidence: Confidence in the classification.
        detail: Description.
        progress: New goal progress 0..1 (1.0 completes the goal), or ``None``.
        goal_status: A status the goal should move to (e.g. ``blocked``), or ``None``.
        nodes: Knowledge the action produced, stored (and journaled) by reflect.
        edges: Edges the action produced.
        activate_goals: Proposed goals the action activates.
        goal_metadata: Keys to set in the goal's metadata (e.g. plan progress).
    """

    status: OutcomeStatus
    confidence: float = 1.0
    detail: str = ""
    progress: float | None = None
    goal_status: GoalStatus | None = None
    nodes: tuple[NodeRecord, ...] = ()
    edges: tuple[EdgeRecord, ...] = ()
    activate_goals: tuple[str, ...] = ()
    goal_metadata: dict[str, object] = field(default_factory=dict)


class ActionPort(Protocol):
    """Executes real-world actions (OpenSentience.execute_action)."""

    def execute(
        self, request: ActionRequest
    ) -> ActionResult | Awaitable[ActionResult | None] | None:
        """Run the next action toward the goal; ``None`` means nothing was executed."""
        ...


class NoActionExecutor:
    """Default action port: no executor is configured, so nothing runs.

    The engine recognises it and reports act dispatches as ``deferred`` with the reason "no
    action executor configured", consuming no action budget and recording no outcome — it never
    pretends an action succeeded.
    """

    def execute(self, request: ActionRequest) -> ActionResult | None:
        """Do nothing."""
        return None


# --- explore strategy 4: goal decomposition ------------------------------------------------


class DecomposerPort(Protocol):
    """Goal decomposition (document 002 §3.2.1 strategy 4): sub-goals for what research missed."""

    def decompose(
        self, goal: Goal, unresolved_gaps: Sequence[str], now: datetime
    ) -> list[Goal] | Awaitable[list[Goal]]:
        """Proposed sub-goals (status ``proposed``, source ``inferred``) — or none."""
        ...


# --- explore strategy 2 and IDLE: consolidation ------------------------------------------


class ConsolidatorPort(Protocol):
    """Consolidator (document 002 §3.2.1 strategy 2, §2.1 IDLE): which nodes to merge."""

    def consolidate(
        self, nodes: Sequence[NodeRecord]
    ) -> list[tuple[str, str]] | Awaitable[list[tuple[str, str]]]:
        """``(kept, merged)`` node id pairs; the engine writes (and journals) the merges."""
        ...


class EdgeDecayPort(Protocol):
    """Consolidator, second half: which stale edges lose weight (explore strategy 2, IDLE)."""

    def decay(
        self, nodes: Sequence[NodeRecord], edges: Sequence[EdgeRecord], now: datetime
    ) -> list[tuple[EdgeRecord, float]] | Awaitable[list[tuple[EdgeRecord, float]]]:
        """``(edge, new_weight)`` pairs; the engine writes (and journals) each weight change."""
        ...


# --- escalate / advise: notifier -----------------------------------------------------------


@dataclass(frozen=True)
class Notice:
    """A message for a human or for Deliberatic.

    Attributes:
        kind: ``"escalation"``, ``"proposal"`` (advise-mode suggestion) or ``"inspection"``
            (inspections explore's research pointed to, in ``item["inspection_leads"]``).
        goal_id: The goal concerned, if any.
        mode: The dispatch mode the engine would run.
        message: Human-readable text.
        item: The attention item as a dict.
    """

    kind: str
    goal_id: str | None
    mode: str
    message: str
    item: dict[str, object] = field(default_factory=dict)


class NotifierPort(Protocol):
    """Delivers escalations and advise-mode proposals."""

    def notify(self, notice: Notice) -> Awaitable[None] | None:
        """Deliver one notice."""
        ...


class LogNotifier:
    """Default notifier: logs each notice and keeps the most recent ones in memory."""

    def __init__(self, keep: int = 200) -> None:
        self.notices: deque[Notice] = deque(maxlen=keep)

    def notify(self, notice: Notice) -> None:
        """Log and remember the notice."""
        self.notices.append(notice)
        _log.warning("attention %s (%s): %s", notice.kind, notice.mode, notice.message)


# --- checking replaced ports ---------------------------------------------------------------

#: Each replaceable port: the method the engine calls and the default it replaces
#: (docs/engine.md, "Ports and defaults").
PORT_METHODS: dict[str, tuple[str, str]] = {
    "research": ("research(goal_title, gap)", "GraphResearch"),
    "deliberator": ("deliberate(request)", "FaultLineDeliberator"),
    "actions": ("execute(request)", "PlanExecutor"),
    "notifier": ("notify(notice)", "LogNotifier"),
    "decomposer": ("decompose(goal, unresolved_gaps, now)", "GapDecomposer"),
    "consolidator": ("consolidate(nodes)", "DuplicateConsolidator"),
    "edge_decay": ("decay(nodes, edges, now)", "StaleEdgeDecay"),
}


def _what(value: object, method: str) -> str:
    """What was passed instead of a port, and how to fix it."""
    if isinstance(value, type):
        return f"the class {value.__qualname__!r} (pass an instance)"
    if callable(value):
        name = getattr(value, "__name__", "")
        fn = name if name.isidentifier() else "fn"
        return (
            f"the callable {getattr(value, '__qualname__', name or repr(value))!r} "
            f"(wrap a function as types.SimpleNamespace({method}={fn}))"
        )
    return f"an instance of {type(value).__qualname__!r}"


def check_ports(ports: Mapping[str, object]) -> None:
    """Refuse a port that lacks the method the engine calls, when it is handed in, not mid-cycle.

    Every port is an object with one named method (plain or ``async``); a bare function passed
    as a port would otherwise only fail at its first dispatch, as an ``error`` dispatch.

    Raises:
        InvalidArgumentError: A port (``None`` means the default) has no such callable method.
    """
    for name, (signature, default) in PORT_METHODS.items():
        port = ports.get(name)
        if port is None:
            continue
        method = signature.split("(")[0]
        if isinstance(port, type) or not callable(getattr(port, method, None)):
            raise InvalidArgumentError(
                f"{name} must be an object with a method {signature} (plain or async), "
                f"like {default}(); got {_what(port, method)}"
            )
