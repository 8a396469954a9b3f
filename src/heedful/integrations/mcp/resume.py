"""A client session's turn kept in the store, so that another server process can resume it.

The MCP loop spans calls: ``attention_rank`` selects a computation, the agent executes it, and
``attention_resolve`` reports the outcome. Over stdio a client may spawn one server process per
call, and an HTTP server may restart in between, so what the controller holds between the calls
— the turn, its budget, the selections in flight — is written to the store after every call that
changes it (:meth:`heedful.memory.Store.put_session_state`, one document per client session),
and a process that finds the stored document newer than what it last wrote or read restores it
(:func:`restore`) before it answers.

What is carried: the turn (number, id, budget left, the budget it began with, cost weight), each
selection in flight (the candidate, its estimate at selection, the focus an interruption hands
back), the agenda the agent declared (claims about to be made, failures to diagnose, the focus,
what was read and how often) and the trace tag of the session, so ``attention_health`` reads the
turns as one session's. Sources, beliefs, evidence and goals are in the store already. What is
recomputed rather than carried: the live candidate table (regenerated from the same memory at
the next selection; its ids continue after the ones already issued, so an id names one
candidate), and the per-turn counters of exploration and switching.
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any

from pydantic import ValidationError

from heedful.attention import Controller
from heedful.attention.context import Failure, Focus
from heedful.attention.estimators import Estimate
from heedful.errors import HeedfulError
from heedful.model.candidate import Candidate
from heedful.model.scenario import Cost

__all__ = ["FORMAT", "ResumeError", "restore", "snapshot"]

#: Version of the document's layout; a document of another layout is not resumed.
FORMAT = 1


class ResumeError(HeedfulError):
    """The session's turn in the store cannot be resumed (the message says why)."""


def _num(value: float | None) -> float | str | None:
    """JSON has no infinities: a non-finite estimate term is kept as its name."""
    if value is None or math.isfinite(value):
        return value
    return str(value)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _estimate_json(est: Estimate) -> dict[str, Any]:
    return {k: _num(v) if isinstance(v, float) else v for k, v in asdict(est).items()}


def _focus_json(focus: Focus | None) -> dict[str, Any] | None:
    return None if focus is None else {"candidate_id": focus.candidate_id, "voc": _num(focus.voc)}


def _focus(raw: Any) -> Focus | None:
    return None if raw is None else Focus(str(raw["candidate_id"]), float(raw["voc"]))


def _failure_json(f: Failure) -> dict[str, Any]:
    return {
        "id": f.id,
        "target": f.target,
        "loss": _num(f.loss),
        "claim_ids": list(f.claim_ids),
        "cost": f.cost.model_dump(mode="json"),
    }


def _next_id(ctl: Controller) -> int:
    """The number of the next candidate id (this one is spent, so it is never issued twice)."""
    return int(ctl.guard.table.new_id().removeprefix("attn-"))


def snapshot(ctl: Controller) -> dict[str, Any]:
    """What :func:`restore` needs to put another controller where ``ctl`` is now."""
    return {
        "format": FORMAT,
        "trace_session": ctl.mirror.session if ctl.mirror is not None else None,
        "next_id": _next_id(ctl),
        "turn": {
            "turn": ctl.turn,
            "turn_id": ctl.turn_id,
            "budget": ctl.budget,
            "turn_budget": ctl.turn_budget,
            "cost_weight": _num(ctl.cost_weight),
        },
        "agenda": {
            "pending_claims": list(ctl.pending_claims),
            "failures": [_failure_json(f) for f in ctl.failures],
            "focus": _focus_json(ctl.focus),
            "inspected": dict(ctl.inspected),
            "committed": list(ctl.committed),
            "spontaneous_reads": ctl.spontaneous_reads,
            "forced_reads": ctl.forced_reads,
        },
        "inflight": [
            {
                "candidate": cand.model_dump(mode="json"),
                "estimate": _estimate_json(est) if est is not None else None,
                "resume": _focus_json(resume),
            }
            for cand, est, resume in ctl.in_flight()
        ],
    }


def in_flight_ids(body: dict[str, Any]) -> list[str]:
    """The ids of the selections in flight in a stored document (for error messages)."""
    items = body.get("inflight")
    if not isinstance(items, list):
        return []
    return [str(i.get("candidate", {}).get("id")) for i in items if isinstance(i, dict)]


def restore(ctl: Controller, body: dict[str, Any]) -> None:
    """Put a controller that has selected nothing yet where the document's controller was.

    Raises:
        ResumeError: The document was written by another layout of heedful, or an entry does
            not read back (its message names which); nothing is changed then.
    """
    layout = body.get("format")
    if layout != FORMAT:
        raise ResumeError(
            f"the turn stored for this session has layout {layout!r}, this heedful reads "
            f"layout {FORMAT}: it cannot be resumed; start a new turn with attention_rank"
        )
    try:
        turn = body["turn"]
        agenda = body["agenda"]
        adopted = []
        for item in body["inflight"]:
            cand = Candidate.model_validate(item["candidate"])
            raw = item["estimate"]
            words = ("candidate_id", "method")
            fields: dict[str, Any] = {k: v if k in words else _float(v) for k, v in raw.items()}
            est = Estimate(**fields)
            adopted.append((cand, est, _focus(item["resume"])))
        failures = [
            Failure(
                str(f["id"]),
                str(f["target"]),
                float(f["loss"]),
                claim_ids=tuple(f["claim_ids"]),
                cost=Cost.model_validate(f["cost"]),
            )
            for f in agenda["failures"]
        ]
        focus = _focus(agenda["focus"])
        next_id = int(body["next_id"])
        cost_weight = _float(turn["cost_weight"])
    except (KeyError, TypeError, ValueError, ValidationError) as exc:
        raise ResumeError(
            f"the turn stored for this session does not read back ({type(exc).__name__}: "
            f"{exc}): it cannot be resumed; start a new turn with attention_rank"
        ) from None
    # One selection in flight per id: a second adopt of the same id would be refused midway.
    ids = [c.id for c, _, _ in adopted]
    if len(set(ids)) != len(ids):
        raise ResumeError(
            "the turn stored for this session lists a selection twice: it cannot be resumed; "
            "start a new turn with attention_rank"
        )
    if body.get("trace_session") and ctl.mirror is not None:
        ctl.mirror.session = str(body["trace_session"])
    ctl.begin_turn(turn["turn_budget"], cost_weight=cost_weight)
    ctl.turn = int(turn["turn"])
    ctl.turn_id = str(turn["turn_id"])
    ctl.budget = turn["budget"]
    ctl.guard.table.new_ids(next_id)
    ctl.pending_claims = [str(c) for c in agenda["pending_claims"]]
    ctl.failures = failures
    ctl.inspected = {str(k): int(v) for k, v in agenda["inspected"].items()}
    ctl.committed = [str(c) for c in agenda["committed"]]
    ctl.spontaneous_reads = int(agenda["spontaneous_reads"])
    ctl.forced_reads = int(agenda["forced_reads"])
    for cand, est, resume in adopted:
        ctl.adopt(cand, est, resume=resume)
    ctl.focus = focus
