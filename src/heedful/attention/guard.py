"""The bounded candidate table and the hijack guard (document 000 §24, §25).

Defences, in the document's order:

* priority is computed from trusted metadata only — :meth:`Guard.sanitize` drops every value a
  submitter declared about itself (predicted VOC, probabilities, floors, authority) and takes
  authority from the source registry; ``content`` is never read;
* per-source rate limits (new candidates per turn) and quotas (live candidates per source);
* a bounded table whose overflow is aggregated into counters instead of growing;
* an anomaly signal when predicted values saturate near the maximum.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from heedful.attention.config import GuardConfig
from heedful.attention.context import SourceInfo
from heedful.model.candidate import Candidate, Trigger

__all__ = [
    "Admission",
    "Aggregate",
    "CandidateTable",
    "Guard",
    "Saturation",
    "merge_candidates",
]


class Admission(StrEnum):
    """What the guard did with a candidate."""

    CREATED = "created"
    UPDATED = "updated"
    RATE_LIMITED = "rate_limited"
    QUOTA_EXCEEDED = "quota_exceeded"
    TABLE_FULL = "table_full"


@dataclass
class Aggregate:
    """Overflow folded into one record per submitting source (document 000 §24 "aggregation")."""

    source: str
    count: int = 0
    targets: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Saturation:
    """Anomaly signal: share of candidates whose predicted p_change is near its maximum."""

    share: float
    count: int
    anomalous: bool


class CandidateTable:
    """Live candidates, bounded, one per (kind, target); ids are assigned here.

    Args:
        max_size: Hard bound on live candidates.
    """

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            from heedful.errors import InvalidArgumentError

            raise InvalidArgumentError(f"table size must be ≥ 1, got {max_size}")
        self.max_size = max_size
        self._by_id: dict[str, Candidate] = {}
        self._by_key: dict[tuple[str, str], str] = {}
        self._per_source: dict[str, int] = {}
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Candidate]:
        return iter(list(self._by_id.values()))

    def __contains__(self, candidate_id: object) -> bool:
        return candidate_id in self._by_id

    def get(self, candidate_id: str) -> Candidate:
        """Return a live candidate (KeyError if absent)."""
        return self._by_id[candidate_id]

    def new_id(self) -> str:
        """A fresh candidate id."""
        return f"attn-{next(self._ids)}"

    def find(self, kind: str, target: str) -> Candidate | None:
        """The live candidate for (kind, target), if any."""
        cid = self._by_key.get((kind, target))
        return self._by_id.get(cid) if cid else None

    def count_for(self, source: str) -> int:
        """Live candidates submitted by a source."""
        return self._per_source.get(source, 0)

    def put(self, candidate: Candidate) -> None:
        """Insert or replace a candidate (the caller checked the bound)."""
        old = self._by_id.get(candidate.id)
        owner = _owner(candidate)
        if old is None:
            if len(self._by_id) >= self.max_size:
                raise OverflowError("candidate table full")  # guarded by Guard.admit
            self._per_source[owner] = self._per_source.get(owner, 0) + 1
        elif _owner(old) != owner:
            self._per_source[_owner(old)] -= 1
            self._per_source[owner] = self._per_source.get(owner, 0) + 1
        if old is not None and (old.kind, old.target) != (candidate.kind, candidate.target):
            self._by_key.pop((old.kind.value, old.target), None)
        self._by_id[candidate.id] = candidate
        self._by_key[(candidate.kind.value, candidate.target)] = candidate.id

    def remove(self, candidate_id: str) -> Candidate | None:
        """Remove a candidate; return it (None if it was not live)."""
        c = self._by_id.pop(candidate_id, None)
        if c is not None:
            self._by_key.pop((c.kind.value, c.target), None)
            owner = _owner(c)
            self._per_source[owner] -= 1
        return c


def _owner(candidate: Candidate) -> str:
    return candidate.submitted_by or f"generator:{candidate.origin}"


class Guard:
    """Admission control in front of the candidate table.

    Args:
        config: Quotas, rate limits, table bound and saturation thresholds.
        sources: The source registry (trusted metadata), looked up at admission time.
    """

    def __init__(self, config: GuardConfig, sources: Mapping[str, SourceInfo]) -> None:
        self.config = config
        self.sources = sources
        self.table = CandidateTable(config.table_size)
        self.aggregates: dict[str, Aggregate] = {}
        self._created_this_turn: dict[str, int] = {}

    def begin_turn(self) -> None:
        """Reset the per-turn rate counters."""
        self._created_this_turn.clear()

    def is_trusted(self, candidate: Candidate) -> bool:
        """Internal generators are trusted; submitted candidates only if their source is."""
        if candidate.submitted_by is None:
            return True
        src = self.sources.get(candidate.submitted_by)
        return bool(src and src.trusted)

    def sanitize(self, candidate: Candidate) -> Candidate:
        """Drop self-declared priority from an untrusted candidate (content is left unread)."""
        if self.is_trusted(candidate):
            return candidate
        target = self.sources.get(candidate.target)
        registry: dict[str, object] = {}
        if target is not None:
            # What an inspection covers and costs is the registry's word, not the submitter's.
            registry = {
                "claim_ids": tuple(c for c in candidate.claim_ids if c in target.reports),
                "cost": target.cost,
            }
        return candidate.model_copy(
            update={
                "predicted_voc": None,
                "p_stale": None,
                "p_wrong": None,
                "p_change": None,
                "floor": None,
                "forced": False,
                "authority": target.default_authority if target else 0.0,
                "loss_if_wrong": 0.0,
                "goal_relevance": 0.0,
                "deadline_s": None,
                **registry,
            }
        )

    def admit(self, candidate: Candidate) -> tuple[Admission, Candidate | None]:
        """Admit, merge, or refuse a candidate; return what happened and the live candidate."""
        candidate = self.sanitize(candidate)
        owner = _owner(candidate)
        trusted = self.is_trusted(candidate)
        existing = self.table.find(candidate.kind.value, candidate.target)
        if existing is not None and _owner(existing) == owner:
            merged = merge_candidates(existing, candidate)
            self.table.put(merged)
            return Admission.UPDATED, merged
        if not trusted:
            made = self._created_this_turn.get(owner, 0)
            if made >= self.config.untrusted_rate_per_turn:
                self._aggregate(owner, candidate)
                return Admission.RATE_LIMITED, None
        quota = self.config.trusted_quota if trusted else self.config.untrusted_quota
        if self.table.count_for(owner) >= quota:
            self._aggregate(owner, candidate)
            return Admission.QUOTA_EXCEEDED, None
        if len(self.table) >= self.table.max_size:
            self._aggregate(owner, candidate)
            return Admission.TABLE_FULL, None
        if existing is not None:
            # Same computation proposed by another owner: keep one, merged, under the first owner.
            merged = merge_candidates(
                existing, candidate.model_copy(update={"submitted_by": existing.submitted_by})
            )
            self.table.put(merged)
            return Admission.UPDATED, merged
        candidate = candidate.model_copy(update={"id": self.table.new_id()})
        self.table.put(candidate)
        self._created_this_turn[owner] = self._created_this_turn.get(owner, 0) + 1
        return Admission.CREATED, candidate

    def _aggregate(self, owner: str, candidate: Candidate) -> None:
        key = (
            owner
            if (owner in self.aggregates or len(self.aggregates) < self.config.max_aggregates)
            else "*"
        )
        agg = self.aggregates.setdefault(key, Aggregate(key))
        agg.count += 1
        if len(agg.targets) < 64:
            agg.targets.add(candidate.target)

    def saturation(self, p_changes: Iterable[float]) -> Saturation:
        """Anomaly signal: are predicted values clustering at the top (document 000 §24, §25)?"""
        values = list(p_changes)
        if not values:
            return Saturation(0.0, 0, False)
        share = sum(v >= self.config.saturation_level for v in values) / len(values)
        anomalous = (
            len(values) >= self.config.saturation_min_count
            and share >= self.config.saturation_share
        )
        return Saturation(share, len(values), anomalous)


def merge_candidates(old: Candidate, new: Candidate) -> Candidate:
    """Union of goals and claims; the stronger trusted signals win; the id and owner stay."""
    trigger = new.trigger if old.trigger is Trigger.EXPLORATION else old.trigger
    floors = [f for f in (old.floor, new.floor) if f is not None]
    deadlines = [d for d in (old.deadline_s, new.deadline_s) if d is not None]
    return old.model_copy(
        update={
            "trigger": trigger,
            "goal_ids": tuple(dict.fromkeys(old.goal_ids + new.goal_ids)),
            "claim_ids": tuple(dict.fromkeys(old.claim_ids + new.claim_ids)),
            "goal_relevance": max(old.goal_relevance, new.goal_relevance),
            "loss_if_wrong": max(old.loss_if_wrong, new.loss_if_wrong),
            "deadline_s": min(deadlines) if deadlines else None,
            "floor": min(floors, key=lambda f: f.rank) if floors else None,
            "forced": old.forced or new.forced,
            "evidence_age_s": max(old.evidence_age_s, new.evidence_age_s),
            "expires_at": new.expires_at or old.expires_at,
        }
    )
