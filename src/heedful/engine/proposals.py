"""Advise-mode proposals: queued in the journal until a person approves or rejects them.

Document 002 §3.1.3: at ``advise`` the engine "proposes but doesn't execute" and waits for
approval. Each proposal is a journal record (``kind: "proposal"``) naming the attention item it
would dispatch; a decision (``kind: "decision"``: approved, rejected or stale) is another record,
so the queue and its history survive restarts and share the journal's file beside the store.
An item proposed again while its proposal is pending reuses that proposal (the queue does not
grow by one line per heartbeat).
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from heedful.engine.journal import Journal
from heedful.errors import InvalidArgumentError, UnknownNameError

__all__ = ["PENDING", "Proposal", "ProposalQueue", "new_proposal_id"]

#: Status of a proposal nobody has decided yet.
PENDING = "pending"
#: Decisions a person can take (``stale`` is set by the engine when the item has moved on).
DECISIONS = ("approved", "rejected", "stale")


def new_proposal_id() -> str:
    """A fresh proposal id (``p-…``), what ``heedful engine approve`` takes."""
    return f"p-{uuid.uuid4().hex[:10]}"


@dataclass
class Proposal:
    """One proposed dispatch awaiting a person.

    Attributes:
        id: Proposal id (``p-…``).
        cycle_id: The cycle that proposed it.
        at: When it was proposed (ISO 8601).
        item_key: The attention item's key (goal id, or region key for goal-less items).
        goal_id: The item's goal, if any.
        mode: The dispatch mode it would run (explore, focus, act, escalate, propose).
        message: What the notifier was told.
        status: ``pending``, ``approved``, ``rejected`` or ``stale``.
        decided_at: When it was decided, or ``None``.
        decided_by: Who decided (``cli``, ``mcp:<session>``), or ``None``.
        detail: What the decision did (the approval's cycle and journal entries, or why stale).
    """

    id: str
    cycle_id: str
    at: str
    item_key: str
    goal_id: str | None
    mode: str
    message: str
    status: str = PENDING
    decided_at: str | None = None
    decided_by: str | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


class ProposalQueue:
    """The proposals recorded in a journal, with their decisions.

    Args:
        journal: The engine's journal (in memory or beside the store).
    """

    _FIELDS = frozenset(Proposal.__dataclass_fields__) - {
        "status",
        "decided_at",
        "decided_by",
        "detail",
    }

    def __init__(self, journal: Journal) -> None:
        self.journal = journal

    def all(self) -> list[Proposal]:
        """Every proposal, oldest first, with its latest decision."""
        found: dict[str, Proposal] = {}
        for record in self.journal.records():
            kind = record.get("kind")
            if kind == "proposal":
                data = {k: v for k, v in record.items() if k in self._FIELDS}
                found[data["id"]] = Proposal(**data)
            elif kind == "decision" and record.get("proposal_id") in found:
                p = found[record["proposal_id"]]
                p.status = record.get("status", p.status)
                p.decided_at = record.get("at")
                p.decided_by = record.get("by")
                p.detail = record.get("detail", "")
        return list(found.values())

    def pending(self) -> list[Proposal]:
        """Proposals awaiting a decision, oldest first."""
        return [p for p in self.all() if p.status == PENDING]

    def pending_for(self, item_key: str, mode: str) -> Proposal | None:
        """The pending proposal of this item in this mode, if there is one."""
        for p in self.pending():
            if p.item_key == item_key and p.mode == mode:
                return p
        return None

    def get(self, proposal_id: str) -> Proposal:
        """One proposal; ``UnknownNameError`` naming the id (and the pending ones) otherwise."""
        for p in self.all():
            if p.id == proposal_id:
                return p
        waiting = ", ".join(p.id for p in self.pending()) or "none"
        raise UnknownNameError(f"no proposal {proposal_id!r} (pending: {waiting})")

    def add(self, proposal: Proposal) -> None:
        """Queue a proposal."""
        self.journal.append_record({"kind": "proposal", **asdict(proposal)})

    def open(self, proposal_id: str) -> Proposal:
        """The pending proposal ``proposal_id``; refuses one already decided."""
        p = self.get(proposal_id)
        if p.status != PENDING:
            raise InvalidArgumentError(
                f"proposal {proposal_id} was already {p.status} at {p.decided_at} by {p.decided_by}"
            )
        return p

    def decide(
        self, proposal_id: str, status: str, *, at: datetime, by: str, detail: str = ""
    ) -> Proposal:
        """Record a decision on a pending proposal and return it updated."""
        if status not in DECISIONS:
            raise InvalidArgumentError(f"unknown decision {status!r} (use {', '.join(DECISIONS)})")
        p = self.open(proposal_id)
        self.journal.append_record(
            {
                "kind": "decision",
                "proposal_id": proposal_id,
                "status": status,
                "at": at.isoformat(),
                "by": by,
                "detail": detail,
            }
        )
        p.status, p.decided_at, p.decided_by, p.detail = status, at.isoformat(), by, detail
        return p
