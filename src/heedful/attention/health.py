"""Attention health from the trace: the §5.3 funnel and the §25 failure-mode signatures.

Reads trace events only (the controller's in-memory :class:`~heedful.attention.trace.Trace` or a
memory store's ``trace_events``), over the most recent ``window_turns`` turns, and gives

* the **conditional funnel** per trigger (document 000 §5.3): when an opportunity existed, did
  it fire; when it fired, did a candidate appear; was it selected; did the inspection succeed;
  was the evidence used. The unit is the candidate: opportunities are the candidates created
  plus the opportunities logged as not fired (once per turn each); guard refusals count as fired
  without a candidate (total row only). A read proposed by several triggers is one candidate,
  counted under the trigger that named it (generator precedence);
* one verdict per **failure mode** of §25 — priority inflation, overinspection,
  underinspection, thrashing, starvation, novelty addiction, self-confirmation, candidate
  blindness — each a number, its threshold (from :class:`HealthConfig`) and ``ok``, ``warn`` or
  ``n/a`` (too few events to tell).
"""

from __future__ import annotations

import itertools
import textwrap
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from pydantic import BaseModel

from heedful.attention.config import HealthConfig

__all__ = ["FunnelRow", "HealthReport", "Signature", "TraceRow", "health", "rows_from_store"]

_GUARD_REFUSALS = ("rate_limited", "quota_exceeded", "table_full")
_STAGES = ("opportunity", "fired", "candidate", "selected", "succeeded", "used")


@dataclass(frozen=True)
class TraceRow:
    """One trace event, as health reads it (from a model or a stored payload).

    Several sessions (e.g. replayed benchmark trials) can be read together by prefixing their
    turn ids with ``<session>/``: starvation is then judged within each session.
    """

    event: str
    turn_id: str
    candidate_id: str | None = None
    predicted_voc: float | None = None
    reason_code: str | None = None
    resolution: Mapping[str, Any] | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, event: BaseModel | Mapping[str, Any]) -> TraceRow:
        """From a :class:`~heedful.model.candidate.TraceEvent` or its JSON dump."""
        data = event.model_dump(mode="json") if isinstance(event, BaseModel) else dict(event)
        return cls(
            event=str(data.get("event", "")),
            turn_id=str(data.get("turn_id", "")),
            candidate_id=data.get("candidate_id"),
            predicted_voc=data.get("predicted_voc"),
            reason_code=data.get("reason_code"),
            resolution=data.get("resolution"),
            detail=data.get("detail") or {},
        )


def rows_from_store(records: Iterable[Any]) -> list[TraceRow]:
    """Rows from a memory store's ``trace()`` records (event and candidate id kept apart).

    Each controller that writes to a store tags its events with a ``session``; its turn and
    candidate ids are read as ``<session>/turn-3`` and ``<session>/attn-7``, because every
    controller numbers from 1: a restarted server, or two servers on one store, would otherwise
    merge their ``turn-1``s and their ``attn-1``s. Events stored without a session (written
    before sessions were recorded) keep their ids.
    """
    rows = []
    for r in records:
        data = {**r.payload, "event": r.event, "candidate_id": r.candidate_id}
        session = data.pop("session", None)
        if session:
            data["turn_id"] = f"{session}/{data.get('turn_id', '')}"
            if data["candidate_id"] is not None:
                data["candidate_id"] = f"{session}/{data['candidate_id']}"
        rows.append(TraceRow.of(data))
    return rows


@dataclass(frozen=True)
class FunnelRow:
    """Counts of one trigger through the §5.3 funnel."""

    trigger: str
    opportunity: int = 0
    fired: int = 0
    candidate: int = 0
    selected: int = 0
    succeeded: int = 0
    used: int = 0

    def rates(self) -> dict[str, float | None]:
        """Each stage over the previous one (None when the previous is 0)."""
        counts = [getattr(self, s) for s in _STAGES]
        return {
            f"{b}|{a}": (counts[i + 1] / counts[i] if counts[i] else None)
            for i, (a, b) in enumerate(itertools.pairwise(_STAGES))
        }


@dataclass(frozen=True)
class Signature:
    """One §25 failure-mode signature with its verdict."""

    name: str
    value: float | None
    threshold: float
    verdict: str
    line: str
    n: int


@dataclass(frozen=True)
class HealthReport:
    """The funnel and the signatures over a window of turns."""

    turns: int
    events: int
    funnel: list[FunnelRow]
    signatures: list[Signature]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form (CLI ``--json``, MCP tool)."""
        return {
            "turns": self.turns,
            "events": self.events,
            "funnel": [{**asdict(r), "rates": r.rates()} for r in self.funnel],
            "signatures": [asdict(s) for s in self.signatures],
        }

    def lines(self, width: int = 80) -> list[str]:
        """A plain-text table: the funnel, then one verdict per signature, within ``width``.

        Funnel columns are as wide as their names; a signature's explanation that does not
        fit after its verdict and name continues on indented lines.
        """
        out = [f"attention health over {self.turns} turn(s), {self.events} event(s)", ""]
        first = max([len("trigger"), *(len(r.trigger) for r in self.funnel)]) + 1
        out.append(f"{'trigger':<{first}}" + "".join(f"{s:>{len(s) + 2}}" for s in _STAGES))
        for r in self.funnel:
            out.append(
                f"{r.trigger:<{first}}" + "".join(f"{getattr(r, s):>{len(s) + 2}}" for s in _STAGES)
            )
        out.append("")
        for s in self.signatures:
            head = f"{s.verdict:<5} {s.name:<20} "
            out += textwrap.wrap(
                s.line,
                width=max(width, len(head) + 20),
                initial_indent=head,
                subsequent_indent=" " * len(head),
                break_on_hyphens=False,
            ) or [head.rstrip()]
        return out


def _window(rows: list[TraceRow], turns: int) -> tuple[list[TraceRow], list[str]]:
    order: list[str] = list(dict.fromkeys(r.turn_id for r in rows))
    keep = set(order[-turns:]) if turns > 0 else set()
    return [r for r in rows if r.turn_id in keep], order[-turns:] if turns > 0 else []


def _share(k: int, n: int) -> float | None:
    return k / n if n else None


def health(
    events: Iterable[BaseModel | Mapping[str, Any] | TraceRow],
    config: HealthConfig | None = None,
) -> HealthReport:
    """Compute the funnel and the §25 signatures over the last ``window_turns`` turns."""
    cfg = config or HealthConfig()
    all_rows = [e if isinstance(e, TraceRow) else TraceRow.of(e) for e in events]
    rows, turns = _window(all_rows, cfg.window_turns)
    turn_index = {t: i for i, t in enumerate(turns)}
    by = defaultdict(list)
    for r in rows:
        by[r.event].append(r)

    # -- the funnel ----------------------------------------------------------------------------
    trig_of: dict[str, str] = {}
    created: dict[str, int] = defaultdict(int)
    missed: dict[str, int] = defaultdict(int)
    for r in by["candidate_created"]:
        t = r.reason_code or "unknown"
        if r.candidate_id:
            trig_of[r.candidate_id] = t
        created[t] += 1
    refused = 0
    for r in by["candidate_skipped"]:
        if r.reason_code == "not_fired":
            missed[str(r.detail.get("trigger"))] += 1
        elif r.reason_code in _GUARD_REFUSALS:
            refused += 1
    selected: dict[str, int] = defaultdict(int)
    for r in by["candidate_selected"]:
        selected[_trigger(r, trig_of)] += 1
    succeeded: dict[str, int] = defaultdict(int)
    used: dict[str, int] = defaultdict(int)
    resolved = by["resolved"]
    for r in resolved:
        t = _trigger(r, trig_of)
        ok = bool((r.resolution or {}).get("inspection_succeeded"))
        succeeded[t] += ok
        inspection = r.detail.get("kind") == "inspect_source"
        used[t] += bool(r.detail.get("evidence_used")) if inspection else ok
    triggers = sorted(set(created) | set(missed) | set(selected) | set(succeeded))
    funnel = [
        FunnelRow(
            t,
            opportunity=created[t] + missed[t],
            fired=created[t],
            candidate=created[t],
            selected=selected[t],
            succeeded=succeeded[t],
            used=used[t],
        )
        for t in triggers
    ]
    total = FunnelRow(
        "all",
        opportunity=sum(r.opportunity for r in funnel) + refused,
        fired=sum(r.fired for r in funnel) + refused,
        candidate=sum(r.candidate for r in funnel),
        selected=sum(r.selected for r in funnel),
        succeeded=sum(r.succeeded for r in funnel),
        used=sum(r.used for r in funnel),
    )
    funnel.append(total)

    sigs = [
        _inflation(by, cfg),
        _overinspection(resolved, cfg),
        _underinspection(by, cfg),
        _thrashing(by, cfg),
        _starvation(by, turn_index, cfg),
        _novelty(by, resolved, cfg),
        _self_confirmation(funnel, cfg),
        _blindness(total, cfg),
    ]
    return HealthReport(len(turns), len(rows), funnel, sigs)


def _trigger(row: TraceRow, created: Mapping[str, str]) -> str:
    """A candidate counts under the trigger it was created with (renewals may rename it)."""
    if row.candidate_id is not None and row.candidate_id in created:
        return created[row.candidate_id]
    return str(row.detail.get("trigger") or "unknown")


def _verdict(value: float | None, n: int, bad: bool, cfg: HealthConfig) -> str:
    if value is None or n < cfg.min_events:
        return "n/a"
    return "warn" if bad else "ok"


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _inflation(by: Mapping[str, list[TraceRow]], cfg: HealthConfig) -> Signature:
    sel = by.get("candidate_selected", [])
    k = sum(bool(r.detail.get("saturated")) for r in sel)
    alerts = len(by.get("anomaly_raised", []))
    v = _share(k, len(sel))
    bad = v is not None and v >= cfg.inflation_share
    line = (
        f"{_fmt(v)} of {len(sel)} selections made on a saturated table "
        f"(threshold {cfg.inflation_share:.2f}); {alerts} anomaly alert(s)"
    )
    verdict = _verdict(v, len(sel), bad, cfg)
    return Signature("priority_inflation", v, cfg.inflation_share, verdict, line, len(sel))


def _overinspection(resolved: list[TraceRow], cfg: HealthConfig) -> Signature:
    reads = [r for r in resolved if r.detail.get("kind") == "inspect_source"]
    useless = sum(
        not (r.resolution or {}).get("belief_changed")
        and not (r.resolution or {}).get("decision_changed")
        for r in reads
    )
    gained = sum(float((r.resolution or {}).get("utility_delta") or 0.0) for r in reads)
    spent = sum(float(r.detail.get("cost_term") or 0.0) for r in reads)
    v = _share(useless, len(reads))
    bad = v is not None and v >= cfg.overinspection_useless_share and gained < spent
    line = (
        f"{_fmt(v)} of {len(reads)} reads changed nothing; realised {gained:.3f} "
        f"vs spent {spent:.3f} (threshold {cfg.overinspection_useless_share:.2f})"
    )
    verdict = _verdict(v, len(reads), bad, cfg)
    return Signature(
        "overinspection", v, cfg.overinspection_useless_share, verdict, line, len(reads)
    )


def _underinspection(by: Mapping[str, list[TraceRow]], cfg: HealthConfig) -> Signature:
    stops = by.get("attention_terminated_negative_voc", [])
    pivotal = sum(float(r.detail.get("max_p_change") or 0.0) >= cfg.pivotal_p_change for r in stops)
    v = _share(pivotal, len(stops))
    bad = v is not None and v >= cfg.underinspection_share
    line = (
        f"{_fmt(v)} of {len(stops)} stops left a candidate with p_change ≥ "
        f"{cfg.pivotal_p_change:.2f} unread (threshold {cfg.underinspection_share:.2f})"
    )
    verdict = _verdict(v, len(stops), bad, cfg)
    return Signature("underinspection", v, cfg.underinspection_share, verdict, line, len(stops))


def _thrashing(by: Mapping[str, list[TraceRow]], cfg: HealthConfig) -> Signature:
    sel = len(by.get("candidate_selected", []))
    acc = len(by.get("switch_accepted", []))
    rej = len(by.get("switch_rejected", []))
    v = _share(acc, sel)
    bad = v is not None and v >= cfg.thrashing_share
    line = (
        f"{acc} accepted switch(es) ({rej} rejected) over {sel} selections: {_fmt(v)} "
        f"(threshold {cfg.thrashing_share:.2f})"
    )
    return Signature("thrashing", v, cfg.thrashing_share, _verdict(v, sel, bad, cfg), line, sel)


def _starvation(
    by: Mapping[str, list[TraceRow]], turn_index: Mapping[str, int], cfg: HealthConfig
) -> Signature:
    born: dict[str, tuple[int, str]] = {}
    for r in by.get("candidate_created", []):
        if r.candidate_id:
            born[r.candidate_id] = (turn_index.get(r.turn_id, 0), _session(r.turn_id))
    done = {
        r.candidate_id
        for e in ("candidate_selected", "candidate_expired")
        for r in by.get(e, [])
        if r.candidate_id
    }
    last: dict[str, int] = {}
    for turn, i in turn_index.items():
        last[_session(turn)] = max(last.get(_session(turn), 0), i)
    starving = [
        c
        for c, (t, session) in born.items()
        if c not in done and last.get(session, t) - t >= cfg.starvation_turns
    ]
    n = len(born)
    v = float(len(starving)) if n else None
    line = (
        f"{len(starving)} of {n} candidate(s) alive ≥ {cfg.starvation_turns} turns without service"
    )
    verdict = _verdict(v, n, bool(starving), cfg)
    return Signature("starvation", v, float(cfg.starvation_turns), verdict, line, n)


def _session(turn_id: str) -> str:
    return turn_id.rsplit("/", 1)[0] if "/" in turn_id else ""


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _novelty(
    by: Mapping[str, list[TraceRow]], resolved: list[TraceRow], cfg: HealthConfig
) -> Signature:
    sel = by.get("candidate_selected", [])
    explored = {r.candidate_id for r in sel if r.reason_code == "exploration"}
    v = _share(len(explored), len(sel))
    deltas = [
        (r.candidate_id in explored, float((r.resolution or {}).get("utility_delta") or 0.0))
        for r in resolved
    ]
    m_new = _mean([d for e, d in deltas if e])
    m_rest = _mean([d for e, d in deltas if not e])
    bad = (
        v is not None
        and v > cfg.novelty_share
        and m_new is not None
        and (m_rest is None or m_new < m_rest)
    )
    line = (
        f"exploration took {_fmt(v)} of {len(sel)} selections (threshold "
        f"{cfg.novelty_share:.2f}); realised {_fmt(m_new)} vs {_fmt(m_rest)} for the rest"
    )
    verdict = _verdict(v, len(sel), bad, cfg)
    return Signature("novelty_addiction", v, cfg.novelty_share, verdict, line, len(sel))


def _self_confirmation(funnel: list[FunnelRow], cfg: HealthConfig) -> Signature:
    rows = {r.trigger: r for r in funnel if r.trigger != "all"}
    c = rows.get("contradiction")
    others = [r for t, r in rows.items() if t != "contradiction"]
    o_cand = sum(r.candidate for r in others)
    o_rate = _share(sum(r.selected for r in others), o_cand)
    c_rate = _share(c.selected, c.candidate) if c is not None else None
    v = c_rate / o_rate if c_rate is not None and o_rate else None
    n = c.candidate if c is not None else 0
    bad = v is not None and v < cfg.self_confirmation_ratio
    line = (
        f"contradiction candidates selected at {_fmt(c_rate)} vs {_fmt(o_rate)} for others: "
        f"ratio {_fmt(v)} (threshold {cfg.self_confirmation_ratio:.2f})"
    )
    verdict = _verdict(v, n, bad, cfg)
    return Signature("self_confirmation", v, cfg.self_confirmation_ratio, verdict, line, n)


def _blindness(total: FunnelRow, cfg: HealthConfig) -> Signature:
    recall = _share(total.fired, total.opportunity)
    conditional = _share(total.selected, total.candidate)
    bad = recall is not None and recall < cfg.blindness_recall
    line = (
        f"{_fmt(recall)} of {total.opportunity} opportunities fired (threshold "
        f"{cfg.blindness_recall:.2f}); selection given a candidate {_fmt(conditional)}"
    )
    verdict = _verdict(recall, total.opportunity, bad, cfg)
    return Signature(
        "candidate_blindness", recall, cfg.blindness_recall, verdict, line, total.opportunity
    )
