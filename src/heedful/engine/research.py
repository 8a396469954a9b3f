"""Research over the memory itself: the graph's full-text index plus the controller's inspections.

Issue 15 item 1: "research = retrieval over the memory's own FTS5 graph plus the attention
controller's inspection candidates". :class:`ControllerResearch` answers an ``unknown: word``
gap with

1. the graph's best full-text matches (:class:`~heedful.engine.defaults.GraphResearch`);
2. the controller's **beliefs** about claims whose id or type contains the word — knowledge, its
   confidence discounted by the controller's own p_stale of the evidence;
3. **inspection leads**: for those claims, each registered source that reports them, scored by
   the controller's estimator (its live candidate when it has one, else the inspection the
   ``exploration`` trigger would propose), best predicted net VOC first.

It reads the controller (``context()``, ``candidates()``, ``estimator``) and never changes it: no
turn, no trace event, no candidate admitted. A host that also serves the controller from other
threads (the MCP server) passes the lock it guards the controller with.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from heedful.engine.coverage import terms
from heedful.engine.defaults import GraphResearch, normalised
from heedful.engine.ports import Finding, GraphPort, InspectionLead
from heedful.model.candidate import Candidate, CandidateKind, Trigger

if TYPE_CHECKING:
    from heedful.attention import Controller
    from heedful.attention.context import AttentionContext, ClaimState

__all__ = ["ControllerResearch"]


def _gap_word(gap: str) -> str | None:
    kind, _, what = gap.partition(":")
    if kind.strip() != "unknown":
        return None
    return what.strip().lower() or None


class ControllerResearch(GraphResearch):
    """Research port: graph retrieval plus the attention controller's beliefs and inspections.

    Args:
        graph: The graph to search.
        controller: The attention controller over the same memory, or a function that opens
            it on first use (``open_engine`` passes one, so commands that never explore do not
            load the controller).
        per_gap: Graph nodes, and separately inspection leads, returned per gap.
        lock: Guards the controller when other threads use it (default: a private lock).
    """

    def __init__(
        self,
        graph: GraphPort,
        controller: Controller | Callable[[], Controller],
        per_gap: int = 5,
        lock: contextlib.AbstractContextManager[Any] | None = None,
    ) -> None:
        super().__init__(graph, per_gap)
        # A controller has ``context``; anything else given here is the function opening one.
        self._controller: Controller | None = None
        self._open: Callable[[], Controller] | None = None
        if hasattr(controller, "context"):
            self._controller = controller  # type: ignore[assignment]
        else:
            self._open = controller
        self.lock = lock if lock is not None else threading.RLock()

    @property
    def controller(self) -> Controller:
        """The controller (opened now if it was given as a function)."""
        if self._controller is None and self._open is not None:
            self._controller = self._open()
            self._open = None
        if self._controller is None:
            raise RuntimeError("ControllerResearch has no controller")  # unreachable by __init__
        return self._controller

    async def research(self, goal_title: str, gap: str) -> list[Finding]:
        """Graph matches, then controller beliefs, then inspection leads for the gap's word."""
        findings = await super().research(goal_title, gap)
        word = _gap_word(gap)
        if word is None:
            return findings
        with self.lock:
            ctx = self.controller.context()
            claims = [c for c in ctx.claims.values() if word in self._claim_words(c)]
            if not claims:
                return findings
            beliefs = [self._belief(c, ctx) for c in claims if c.value is not None]
            leads = self._leads(claims, ctx)
        return findings + beliefs + leads

    @staticmethod
    def _claim_words(claim: ClaimState) -> set[str]:
        return set(terms(claim.id)) | set(terms(claim.claim_type))

    def _belief(self, claim: ClaimState, ctx: AttentionContext) -> Finding:
        from heedful.attention.context import claim_p_stale

        content = f"{claim.id} is {claim.value}"
        confidence = round(claim.confidence * (1.0 - claim_p_stale(claim, ctx.hazards_per_hour)), 6)
        # Already in the graph (an earlier explore wrote it): link it, do not copy it.
        for node in self.graph.get_nodes(self.graph.search(content, self.per_gap)):
            if normalised(node.content) == normalised(content):
                return Finding(
                    node.content, node.confidence, source="graph-search", node_id=node.id
                )
        return Finding(content, confidence, source=f"belief:{claim.id}")

    def _leads(self, claims: list[ClaimState], ctx: AttentionContext) -> list[Finding]:
        wanted = {c.id for c in claims}
        live = {
            (c.target, c.claim_ids): c
            for c in self.controller.candidates
            if c.kind is CandidateKind.INSPECT_SOURCE and wanted & set(c.claim_ids)
        }
        proposals: list[Candidate] = list(live.values())
        covered = {(src, cid) for src, ids in live for cid in ids}
        for claim in claims:
            for source in ctx.sources_reporting(claim.id):
                if (source.id, claim.id) in covered:
                    continue
                proposals.append(
                    Candidate(
                        id=f"lead-{source.id}-{claim.id}",
                        kind=CandidateKind.INSPECT_SOURCE,
                        target=source.id,
                        trigger=Trigger.EXPLORATION,
                        origin="engine_research",
                        claim_ids=(claim.id,),
                        authority=source.authority_for(claim.claim_type),
                        evidence_age_s=claim.age_s,
                        volatility=claim.volatility,
                        cost=source.cost,
                    )
                )
        scored = []
        for cand in proposals:
            est = self.controller.estimator.estimate(cand, ctx)
            lead = InspectionLead(
                source_id=cand.target,
                claim_ids=tuple(c for c in cand.claim_ids if c in wanted),
                predicted_voc=round(est.net, 6),
                p_change=round(est.p_change, 6),
                cost=cand.cost.scalar(),
                candidate_id=cand.id if cand.origin != "engine_research" else None,
            )
            scored.append(lead)
        scored.sort(key=lambda lead: (-lead.predicted_voc, lead.source_id))
        return [
            Finding(
                f"inspect {lead.source_id} for {', '.join(lead.claim_ids)}",
                0.0,
                source="attention-controller",
                lead=lead,
            )
            for lead in scored[: self.per_gap]
        ]
