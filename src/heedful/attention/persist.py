"""Keep the controller's working state in a :class:`heedful.memory.Store`.

The controller works on in-memory registries (fast, recomputed every selection); the store is the
durable copy and the place truth maintenance lives. This mirror

* loads sources (in full: what they report, authority per claim type, cost, data age, trust,
  the cost a resolve measured), claims and goals when the controller opens, and replays the
  stored reports through the world's trust record (what untrusted sources earned against
  trusted reports);
* writes every registration, belief, piece of evidence, measured cost and goal through;
* pulls the store's ``dirty`` flags before each recomputation, so a change upstream that the
  store propagated through justifications (document 000 §4.6) raises a dirty-belief candidate;
* appends every trace event.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from heedful.attention.context import SourceInfo
from heedful.attention.validator import EvidenceRecord
from heedful.attention.world import BeliefRecord, World
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.memory import Store, TraceRecord
from heedful.memory._base import check_text
from heedful.model.candidate import TraceEvent
from heedful.model.claim import Claim, Evidence, SourceRecord
from heedful.model.goal import Goal
from heedful.model.scenario import Cost

__all__ = ["StoreMirror"]


class StoreMirror:
    """Write-through mirror of a controller's world into a memory store.

    Args:
        store: An open store.
    """

    def __init__(self, store: Store) -> None:
        self.store = store
        #: Tags every trace event this mirror writes. Turn and candidate ids restart at
        #: ``turn-1`` / ``attn-1`` in each controller, so events of a restarted server, or of
        #: two servers on one store, would otherwise read as one session's (health windows).
        self.session = secrets.token_hex(4)
        self._buffer: list[TraceRecord] | None = None
        self._reads: list[tuple[str, bool]] = []  # read counts held with the buffer

    # -- loading --------------------------------------------------------------------------------

    def load(self, world: World, now: datetime) -> None:
        """Fill ``world`` with the store's sources, claims, their evidence, and goals."""
        for s in self.store.sources():
            world.register_source(
                s.id,
                reports=s.reports,
                authority=dict(s.authority),
                default_authority=s.default_authority,
                # A source stored before the split was kept has only its scalar cost.
                cost=s.cost_detail if s.cost_detail is not None else Cost(tool_calls=s.cost),
                age_s=s.age_s,
                trusted=s.trusted,
                kind=s.kind,
                failure_rate=s.failure_rate,
                links=s.links,
            )
            if s.reads:  # what its resolved reads returned: the failure rate credited
                world.set_reads(s.id, s.reads, s.failed_reads)
            if s.measured_cost is not None:  # what reading it cost, as a resolve reported
                world.measured(s.id, s.measured_cost)
        # Only untrusted sources have a trust record: a store of trusted sources replays nothing.
        replay = any(not s.trusted for s in world.sources.values())
        for c in self.store.claims():
            domain = tuple(str(v) for v in c.domain) if c.domain is not None else None
            age = max(now.timestamp() - c.observed_at, 0.0)
            world.record_belief(
                c.id,
                None if c.value is None else str(c.value),
                now=now,
                claim_type=c.claim_type,
                domain=domain,
                confidence=c.confidence,
                age_s=age,
                volatility=c.volatility,
            )
            if c.dirty:
                world.mark_dirty(c.id)
            self.learn_hazard(world, c.id)
            # The validator judges claims by their evidence, so a reopened controller needs it.
            stored = sorted(self.store.evidence(c.id), key=lambda e: e.id or 0)  # as they came
            records = [
                EvidenceRecord(
                    id=f"ev-stored-{e.id}",
                    claim_id=e.claim_id,
                    source_id=e.source_id,
                    observed_at=datetime.fromtimestamp(e.observed_at, UTC),
                    value=None if e.value is None else str(e.value),
                )
                for e in stored
            ]
            world.evidence.extend(records)
            # What untrusted sources earned is recomputed from the stored reports (no state of
            # its own to store, so a store written before the rule loads the same way).
            if replay:
                world.replay(records)
        for g in self.store.list_goals():
            world.add_goal(g)

    def pull_dirty(self, world: World) -> None:
        """Copy the store's dirty flags (truth maintenance) onto the world's beliefs."""
        for c in self.store.claims(dirty=True):
            if c.id in world.beliefs and not world.beliefs[c.id].dirty:
                world.mark_dirty(c.id)

    def learn_hazard(self, world: World, claim_id: str) -> None:
        """Adopt the store's learned change rate for a claim when it has learned one."""
        learned, default = self.store.hazard_rates(claim_id)
        world.set_learned_hazard(claim_id, learned if learned not in (None, default) else None)

    # -- writing through ------------------------------------------------------------------------

    def source(self, info: SourceInfo) -> None:
        """Store a registered source."""
        check_text(info.id, "source id")
        check_text(info.kind, f"source {info.id!r}: kind")
        for text in (*info.reports, *info.authority):
            check_text(text, f"source {info.id!r}: claim id or type")
        self.store.add_source(
            SourceRecord(
                id=info.id,
                kind=info.kind,
                authority=dict(info.authority),
                default_authority=info.default_authority,
                trusted=info.trusted,
                cost=info.cost.scalar(),
                cost_detail=info.cost,
                reports=info.reports,
                age_s=info.age_s,
                failure_rate=info.failure_rate,
                links=info.links,
            )
        )

    def read(self, source_id: str, succeeded: bool) -> None:
        """Count one resolved read of a source (its failure rate is learned from them); inside a
        :meth:`batched` block, written with the block's trace events in one transaction."""
        if self._buffer is not None:
            self._reads.append((source_id, succeeded))
            return
        self.store.add_read(source_id, succeeded)

    def measured(self, source_id: str, cost: Cost) -> None:
        """Keep what a resolve reported reading a source cost (the world charges it that)."""
        self.store.set_measured_cost(source_id, cost)

    def belief(self, rec: BeliefRecord) -> None:
        """Store (or update) a belief.

        The existence check and the write share one write transaction, so a second writer
        cannot add the claim in between (which made "add or replace" fail with "already
        exists").
        """
        _check_belief(rec)
        with self.store.transaction():
            self._write_belief(rec, exists=self._stored(rec.claim_id) is not None)

    def _write_belief(self, rec: BeliefRecord, *, exists: bool) -> None:
        if not exists:
            self.store.add_claim(
                Claim(
                    id=rec.claim_id,
                    subject=rec.claim_id,
                    value=rec.value,
                    domain=rec.domain,
                    claim_type=rec.claim_type,
                    volatility=rec.volatility,
                    origin="controller",
                    source_id=rec.source_id,
                    confidence=rec.confidence,
                    observed_at=rec.observed_at.timestamp(),
                )
            )
            return
        self.store.update_claim(
            rec.claim_id,
            value=rec.value,
            observed_at=rec.observed_at.timestamp(),
            confidence=rec.confidence,
            source_id=rec.source_id,
        )

    def evidence(
        self, source_id: str, value: str, observed_at: datetime, belief: BeliefRecord
    ) -> None:
        """Store one report and the belief it led to.

        A claim first known from this report (no belief recorded before) is stored first, so
        its evidence has a claim to belong to.
        """
        _check_belief(belief)
        with self.store.transaction():  # the report and the belief it led to, or neither
            if self._stored(belief.claim_id) is None:
                self._write_belief(belief, exists=False)
            self.store.add_evidence(
                Evidence(
                    claim_id=belief.claim_id,
                    source_id=source_id,
                    value=value,
                    observed_at=observed_at.timestamp(),
                )
            )
            self._write_belief(belief, exists=True)

    def check_evidence(self, claim_id: str, value: str | None) -> None:
        """Raise what :meth:`evidence` would raise for this report, writing nothing.

        The stored claim's domain can differ from the controller's (a belief re-recorded with
        another domain keeps the stored one), so the controller checks here before it changes
        anything in memory.
        """
        stored = None if value is None else self._stored(claim_id)
        domain = None if stored is None else stored.domain
        if domain is not None and value not in domain:
            raise InvalidArgumentError(
                f"value {value!r} is outside the domain of stored claim {claim_id!r}:"
                f" {list(domain)!r}"
            )

    def _stored(self, claim_id: str) -> Claim | None:
        """The stored claim ``claim_id`` (one read), or ``None``."""
        try:
            return self.store.get_claim(claim_id)
        except UnknownNameError:
            return None

    def goal(self, goal: Goal) -> None:
        """Store (or replace) a goal; check and write share one transaction (see :meth:`belief`)."""
        with self.store.transaction():
            try:
                self.store.get_goal(goal.id)
            except UnknownNameError:
                self.store.add_goal(goal)
                return
            self.store.update_goal(goal)

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Hold the trace events written in the block (and the read counts of :meth:`read`) and
        write them in one transaction when it ends (also when it raises), instead of one
        transaction per event: a recomputation over 1,200 sources writes 1,200
        ``candidate_created`` events. Nested blocks join the outer."""
        if self._buffer is not None:
            yield
            return
        self._buffer = []
        try:
            yield
        finally:
            records, self._buffer = self._buffer, None
            reads, self._reads = self._reads, []
            if reads:
                with self.store.transaction():
                    for source_id, succeeded in reads:
                        self.store.add_read(source_id, succeeded)
                    if records:
                        self.store.write_traces(records)
            elif records:
                self.store.write_traces(records)

    def trace(self, event: TraceEvent) -> None:
        """Append one trace event (held until the end of a :meth:`batched` block)."""
        payload: Mapping[str, Any] = {
            **event.model_dump(
                mode="json", exclude={"event", "candidate_id", "timestamp"}, exclude_none=True
            ),
            "session": self.session,
        }
        record = TraceRecord(
            event.event.value,
            payload,
            event.candidate_id,
            event.timestamp.astimezone(UTC).timestamp(),
        )
        if self._buffer is not None:
            self._buffer.append(record)
            return
        self.store.append_traces([record])


def _check_belief(rec: BeliefRecord) -> None:
    """Refuse ids and labels the store cannot keep (control or invisible characters)."""
    check_text(rec.claim_id, "claim id")
    where = f"claim {rec.claim_id!r}"
    check_text(rec.claim_type, f"{where}: claim type")
    for text in (rec.source_id or "", *(rec.domain or ())):
        check_text(text, f"{where}: source id or domain value")
