"""The bounded candidate table and the hijack guard (document 000 §24, §25).

Defences, in the document's order:

* priority is computed from trusted metadata only — :meth:`Guard.sanitize` drops every value a
  submitter declared about itself (predicted VOC, probabilities, floors, authority) and takes
  authority from the source registry; ``content`` is never read;
* sources are untrusted unless registered as trusted;
* per-source rate limits (new candidates per turn) and quotas (live candidates per source);
* a bounded table whose overflow is aggregated into counters instead of growing. A share of it
  is reserved: submitted candidates never take it, so the controller's own generators and
  floors always find room (and may evict the lowest-value untrusted candidate when the table
  is full); submitted candidates without an expiry get a default one, so a flood drains;
* an anomaly signal when predicted values saturate near the maximum, or when submissions are
  refused against a full table (a flood).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

import numpy as np

from heedful.attention._copy import copy_candidate
from heedful.attention.config import GuardConfig
from heedful.attention.context import SourceInfo
from heedful.model.candidate import Candidate, CandidateKind, Trigger

__all__ = [
    "CODED",
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


#: The statuses :meth:`Guard.admit_own_coded` codes: created, over a quota, the table full.
CODED = (Admission.CREATED, Admission.QUOTA_EXCEEDED, Admission.TABLE_FULL)


@dataclass
class Aggregate:
    """Overflow folded into one record per submitting source (document 000 §24 "aggregation")."""

    source: str
    count: int = 0
    targets: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Saturation:
    """Anomaly signal (document 000 §24 "anomaly detection", §25 "priority inflation").

    Attributes:
        share: Share of candidates whose predicted p_change is near its maximum.
        count: Candidates the share is computed on.
        anomalous: Priorities saturate, or a flood is being refused against a full table.
        fill: Share of the submitted candidates' capacity in use.
        refused: Submissions refused (rate, quota or full table) since the turn began.
        evicted: Untrusted candidates evicted since the turn began.
        flood: Submissions were refused while the submitted capacity was nearly full.
    """

    share: float
    count: int
    anomalous: bool
    fill: float = 0.0
    refused: int = 0
    evicted: int = 0
    flood: bool = False


class CandidateTable:
    """Live candidates, bounded, one per (kind, target); ids are assigned here.

    A candidate of the controller's own generators may be *deferred*: its id, (kind, target)
    and owner are in the table (it counts, it has its place in the table's order, it can be
    found and removed), its object is built on the first read that needs it — by
    :attr:`materialize`, which must put every deferred candidate (the candidate columns,
    :mod:`heedful.attention.columns`, admit thousands at a time and build objects only for what
    leaves them).

    Args:
        max_size: Hard bound on live candidates.
    """

    def __init__(self, max_size: int) -> None:
        if max_size < 1:
            from heedful.errors import InvalidArgumentError

            raise InvalidArgumentError(f"table size must be ≥ 1, got {max_size}")
        self.max_size = max_size
        self._by_id: dict[str, Candidate | None] = {}  # None: deferred
        self._by_key: dict[tuple[str, str], str] = {}
        self._per_source: dict[str, int] = {}
        self._submitted = 0
        self._ids = itertools.count(1)
        self._deferred: dict[str, tuple[str, str]] = {}  # id → (kind, target), not built
        self._deferred_owner: dict[str, str] = {}
        #: Puts every deferred candidate (set by whoever defers them).
        self.materialize: Callable[[], None] | None = None

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[Candidate]:
        self._built()
        return iter([c for c in self._by_id.values() if c is not None])

    def __contains__(self, candidate_id: object) -> bool:
        return candidate_id in self._by_id

    def get(self, candidate_id: str) -> Candidate:
        """Return a live candidate (KeyError if absent)."""
        c = self._by_id[candidate_id]
        if c is None:
            self._built()
            c = self._by_id[candidate_id]
        assert c is not None
        return c

    def new_id(self) -> str:
        """A fresh candidate id."""
        return f"attn-{next(self._ids)}"

    def new_ids(self, n: int) -> list[str]:
        """``n`` fresh candidate ids, in order."""
        return [f"attn-{i}" for i in itertools.islice(self._ids, n)]

    def find(self, kind: str, target: str) -> Candidate | None:
        """The live candidate for (kind, target), if any."""
        cid = self._by_key.get((kind, target))
        return self.get(cid) if cid else None

    def held(self, keys: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
        """The (kind, target) keys among ``keys`` a live candidate holds (nothing is built)."""
        by_key = self._by_key
        if not by_key:
            return []
        return [key for key in keys if key in by_key]

    def count_for(self, source: str) -> int:
        """Live candidates submitted by a source."""
        return self._per_source.get(source, 0)

    @property
    def submitted(self) -> int:
        """Live candidates submitted from outside the controller."""
        return self._submitted

    @property
    def deferred(self) -> int:
        """Live candidates whose objects are not built yet."""
        return len(self._deferred)

    def submitted_candidates(self) -> list[Candidate]:
        """The live submitted candidates, in table order (never deferred: nothing is built)."""
        if not self._submitted:
            return []
        return [c for c in self._by_id.values() if c is not None and c.submitted_by is not None]

    def put(self, candidate: Candidate) -> None:
        """Insert or replace a candidate (the caller checked the bound)."""
        cid = candidate.id
        owner = _owner(candidate)
        if cid not in self._by_id:
            if len(self._by_id) >= self.max_size:
                raise OverflowError("candidate table full")  # guarded by Guard.admit
            self._per_source[owner] = self._per_source.get(owner, 0) + 1
            self._submitted += candidate.submitted_by is not None
        else:
            old_kind, old_target, old_owner, old_submitted = self._entry(cid)
            if old_owner != owner:
                self._per_source[old_owner] -= 1
                self._per_source[owner] = self._per_source.get(owner, 0) + 1
                self._submitted += (candidate.submitted_by is not None) - old_submitted
            if (old_kind, old_target) != (candidate.kind.value, candidate.target):
                self._by_key.pop((old_kind, old_target), None)
            if self._deferred.pop(cid, None) is not None:
                del self._deferred_owner[cid]
        self._by_id[cid] = candidate
        self._by_key[(candidate.kind.value, candidate.target)] = cid

    def defer(self, candidate_id: str, key: tuple[str, str], owner: str) -> None:
        """Insert a deferred candidate of the controller's own generators (``owner``
        ``generator:<origin>``): a fresh id, a ``(kind, target)`` key not in the table (the
        caller — :meth:`Guard.admit_own` — checked the bound)."""
        if candidate_id in self._by_id or key in self._by_key or len(self._by_id) >= self.max_size:
            raise ValueError(f"cannot defer {candidate_id!r} {key}")
        self._by_id[candidate_id] = None
        self._by_key[key] = candidate_id
        self._deferred[candidate_id] = key
        self._deferred_owner[candidate_id] = owner
        self._per_source[owner] = self._per_source.get(owner, 0) + 1

    def defer_many(
        self, candidate_ids: Sequence[str], keys: Sequence[tuple[str, str]], owners: Sequence[str]
    ) -> None:
        """:meth:`defer` of each ``(candidate_ids[i], keys[i], owners[i])``, in order."""
        n = len(candidate_ids)
        if len(keys) != n or len(owners) != n:
            raise ValueError("defer_many: one key and one owner per id")
        by_id, by_key = self._by_id, self._by_key
        if (
            len(by_id) + n > self.max_size
            or len(set(candidate_ids)) != n
            or len(set(keys)) != n
            or not by_id.keys().isdisjoint(candidate_ids)
            or not by_key.keys().isdisjoint(keys)
        ):
            raise ValueError("cannot defer: ids or keys live or repeated, or the table is full")
        by_id.update(dict.fromkeys(candidate_ids))
        by_key.update(zip(keys, candidate_ids, strict=True))
        self._deferred.update(zip(candidate_ids, keys, strict=True))
        self._deferred_owner.update(zip(candidate_ids, owners, strict=True))
        for owner, count in Counter(owners).items():
            self._per_source[owner] = self._per_source.get(owner, 0) + count

    def remove(self, candidate_id: str) -> Candidate | None:
        """Remove a candidate; return it (None if it was not live)."""
        if self._by_id.get(candidate_id, False) is None:
            self._built()
        c = self._by_id.get(candidate_id)
        self.discard(candidate_id)
        return c

    def discard(self, candidate_id: str) -> bool:
        """Remove a candidate without building it; return whether it was live."""
        if candidate_id not in self._by_id:
            return False
        kind, target, owner, submitted = self._entry(candidate_id)
        del self._by_id[candidate_id]
        if self._deferred.pop(candidate_id, None) is not None:
            del self._deferred_owner[candidate_id]
        self._by_key.pop((kind, target), None)
        self._per_source[owner] -= 1
        self._submitted -= submitted
        return True

    def _entry(self, candidate_id: str) -> tuple[str, str, str, bool]:
        """(kind, target, owner, submitted) of a live candidate, built or deferred."""
        c = self._by_id[candidate_id]
        if c is None:
            kind, target = self._deferred[candidate_id]
            return kind, target, self._deferred_owner[candidate_id], False
        return c.kind.value, c.target, _owner(c), c.submitted_by is not None

    def _built(self) -> None:
        """Have every deferred candidate built (before a read of the objects)."""
        if not self._deferred:
            return
        if self.materialize is not None:
            self.materialize()
        if self._deferred:
            raise RuntimeError(f"{len(self._deferred)} deferred candidates were never built")


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
        self.refused = 0
        self.evicted = 0
        self.submitted_capacity = config.table_size - math.ceil(
            config.table_size * config.controller_reserve
        )
        #: Live candidates one of the controller's own generators may hold.
        self.generator_quota = (
            config.table_size if config.generator_quota is None else config.generator_quota
        )

    def begin_turn(self) -> None:
        """Reset the per-turn rate counters and the turn's refusal and eviction counts."""
        self._created_this_turn.clear()
        self.refused = 0
        self.evicted = 0

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

    def admission_order(self, proposals: Sequence[tuple[str, float, float]]) -> list[int]:
        """The order in which to admit new proposals of the controller's own generators.

        Args:
            proposals: One ``(origin, authority, scalar cost)`` per new proposal, in the
                generators' order.

        Returns:
            Indices into ``proposals``: the generators' order when all of them fit, otherwise
            (a generator's quota or the table would refuse some) the most authoritative first,
            the cheaper first among equals, then the generators' order. Admitted in
            registration order, sources registered first would take every place, and a flood
            of low-authority sources registered before the authoritative one would crowd it out
            (document 000 §24).
        """
        order = list(range(len(proposals)))
        if not self.all_fit(Counter(origin for origin, _, _ in proposals)):
            order.sort(key=lambda i: (-proposals[i][1], proposals[i][2]))
        return order

    def all_fit(self, per_origin: Mapping[str, int]) -> bool:
        """Whether new proposals of the controller's own generators, ``per_origin[o]`` of
        generator ``o``, all fit: neither a generator's quota nor the table refuses any."""
        return len(self.table) + sum(per_origin.values()) <= self.table.max_size and all(
            self.table.count_for(f"generator:{origin}") + n <= self.generator_quota
            for origin, n in per_origin.items()
        )

    def admit_own(
        self, kind: CandidateKind, origins: Sequence[str], targets: Sequence[str]
    ) -> tuple[list[Admission], list[str | None]]:
        """Admit new proposals of the controller's own generators, deferred (see
        :class:`CandidateTable`): what :meth:`admit` does one proposal at a time, in order,
        for proposals that are trusted and not in the table, without building an object.

        Args:
            kind: The proposals' kind.
            origins: Each proposal's generator, in admission order.
            targets: Each proposal's target, distinct; no ``(kind, target)`` may be live
                already (ValueError: that is a merge, :meth:`admit`'s to do).

        Returns:
            For each proposal, what happened and, when created, the new candidate's id. The
            refused are aggregated and counted as :meth:`admit` does; a full table evicts the
            lowest-value untrusted candidate, as it does.
        """
        if len(origins) != len(targets):
            raise ValueError("admit_own: one origin per target")
        table = self.table
        quota = self.generator_quota
        statuses: list[Admission] = []
        ids: list[str | None] = []
        created = self._created_this_turn
        keys = [(kind.value, t) for t in targets]
        live = table.held(keys)
        if live:
            raise ValueError(f"{live[0]} is live already: admit() merges it")
        per_origin = Counter(origins)
        owners = {origin: f"generator:{origin}" for origin in per_origin}
        if self.all_fit(per_origin):
            # Nothing is refused: every proposal is created, in order.
            made = table.new_ids(len(targets))
            table.defer_many(made, keys, [owners[o] for o in origins])
            for origin, n in per_origin.items():
                created[owners[origin]] = created.get(owners[origin], 0) + n
            return [Admission.CREATED] * len(made), list(made)
        if not table.submitted:
            # No candidate could be evicted: what the loop below does, computed on arrays.
            names = list(per_origin)
            index = {origin: k for k, origin in enumerate(names)}
            code = np.array([index[o] for o in origins], dtype=np.int64)
            coded, made_ids, made_at = self.admit_own_coded(
                kind, names, code, np.array(targets, dtype=object), checked=True
            )
            ids_out: list[str | None] = [None] * len(targets)
            for i, cid in zip(made_at.tolist(), made_ids, strict=True):
                ids_out[i] = cid
            return [CODED[k] for k in coded.tolist()], ids_out
        for origin, target, key in zip(origins, targets, keys, strict=True):
            owner = owners[origin]
            status = Admission.CREATED
            if table.count_for(owner) >= quota:
                status = Admission.QUOTA_EXCEEDED
            elif len(table) >= table.max_size and not self._evict_lowest_untrusted():
                status = Admission.TABLE_FULL
            if status is not Admission.CREATED:
                self._aggregate(owner, target)
                self.refused += 1
                statuses.append(status)
                ids.append(None)
                continue
            cid = table.new_id()
            table.defer(cid, key, owner)
            created[owner] = created.get(owner, 0) + 1
            statuses.append(status)
            ids.append(cid)
        return statuses, ids

    def admit_own_coded(
        self,
        kind: CandidateKind,
        names: Sequence[str],
        code: np.ndarray,
        targets: np.ndarray,
        *,
        checked: bool = False,
    ) -> tuple[np.ndarray, list[str], np.ndarray]:
        """:meth:`admit_own` on arrays, for a table holding no submitted candidate (so a full
        table evicts nothing): proposal ``i`` is generator ``names[code[i]]``'s read of
        ``targets[i]``. The same ids, counts and aggregates as :meth:`admit_own`, without a
        Python object per refused proposal (the candidate columns re-propose every refused
        read at each recomputation: 90,000 of them over 100,000 sources).

        A proposal is created while its generator is under quota and the table has room; the
        table fills once and stays full, so the created ones are the first ``room`` of those
        under quota, and a refused one is over quota when its generator had created its quota
        by then, refused for a full table otherwise.

        Returns:
            Each proposal's status as an index into :data:`CODED`, the new ids, and the
            positions of the created proposals (ascending).
        """
        table = self.table
        if table.submitted:
            raise ValueError("admit_own_coded: the table holds submitted candidates")
        m = len(code)
        owners = [f"generator:{origin}" for origin in names]
        per = np.bincount(code, minlength=len(names)) if m else np.zeros(len(names), np.int64)
        if not checked:
            keys = [(kind.value, t) for t in targets.tolist()]
            live = table.held(keys)
            if live:
                raise ValueError(f"{live[0]} is live already: admit() merges it")
        status = np.zeros(m, dtype=np.int64)
        if self.all_fit({names[k]: int(n) for k, n in enumerate(per.tolist()) if n}):
            made_at = np.arange(m)
        else:
            under = np.zeros(m, dtype=bool)
            left = [max(self.generator_quota - table.count_for(o), 0) for o in owners]
            at_of = [np.flatnonzero(code == k) for k in range(len(names))]
            for k, at in enumerate(at_of):
                under[at[: left[k]]] = True
            room = max(table.max_size - len(table), 0)
            made_mask = under & (np.cumsum(under) <= room)
            for k, at in enumerate(at_of):
                made_here = made_mask[at]
                before: np.ndarray = np.cumsum(made_here) - made_here  # created of it before
                status[at[~made_here]] = np.where(before[~made_here] >= left[k], 1, 2)
            made_at = np.flatnonzero(made_mask)
            refused = np.flatnonzero(~made_mask)
            self._aggregate_coded(owners, code[refused], targets[refused])
            self.refused += len(refused)
        made = table.new_ids(len(made_at))
        made_code = code[made_at].tolist()
        table.defer_many(
            made,
            [(kind.value, t) for t in targets[made_at].tolist()],
            [owners[k] for k in made_code],
        )
        created = self._created_this_turn
        for k, n in enumerate(np.bincount(code[made_at], minlength=len(names)).tolist()):
            if n:
                created[owners[k]] = created.get(owners[k], 0) + n
        return status, made, made_at

    def _aggregate_coded(
        self, owners: Sequence[str], code: np.ndarray, targets: np.ndarray
    ) -> None:
        """:meth:`_aggregate` of each refusal ``(owners[code[i]], targets[i])``, in order,
        visiting only the refusals that can add a target (an aggregate keeps 64)."""
        if not len(code):
            return
        distinct, first = np.unique(code, return_index=True)
        counts = np.bincount(code, minlength=len(owners))
        keys: dict[int, str] = {}
        for k in distinct[np.argsort(first)].tolist():  # each owner's key: at its first refusal
            owner = owners[k]
            key = (
                owner
                if (owner in self.aggregates or len(self.aggregates) < self.config.max_aggregates)
                else "*"
            )
            keys[k] = key
            self.aggregates.setdefault(key, Aggregate(key)).count += int(counts[k])
        open_keys = {key for key in keys.values() if len(self.aggregates[key].targets) < 64}
        i = 0
        while open_keys and i < len(code):
            key = keys[int(code[i])]
            if key in open_keys:
                agg = self.aggregates[key]
                agg.targets.add(targets[i])
                if len(agg.targets) >= 64:
                    open_keys.discard(key)
            i += 1

    def admit(
        self, candidate: Candidate, now: datetime | None = None
    ) -> tuple[Admission, Candidate | None]:
        """Admit, merge, or refuse a candidate; return what happened and the live candidate.

        Args:
            candidate: The proposal (its id is assigned here).
            now: Current time; a submitted candidate without ``expires_at`` then expires
                ``submitted_ttl_s`` later.
        """
        candidate = self.sanitize(candidate)
        owner = _owner(candidate)
        trusted = self.is_trusted(candidate)
        if candidate.submitted_by is not None and candidate.expires_at is None and now is not None:
            expiry = now + timedelta(seconds=self.config.submitted_ttl_s)
            candidate = candidate.model_copy(update={"expires_at": expiry})
        existing = self.table.find(candidate.kind.value, candidate.target)
        if existing is not None and _owner(existing) == owner:
            merged = merge_candidates(existing, candidate)
            self.table.put(merged)
            return Admission.UPDATED, merged
        if not trusted:
            made = self._created_this_turn.get(owner, 0)
            if made >= self.config.untrusted_rate_per_turn:
                return self._refuse(owner, candidate, Admission.RATE_LIMITED)
        if candidate.submitted_by is None:
            quota = self.generator_quota
        else:
            quota = self.config.trusted_quota if trusted else self.config.untrusted_quota
        if self.table.count_for(owner) >= quota:
            return self._refuse(owner, candidate, Admission.QUOTA_EXCEEDED)
        if existing is not None:
            # Same computation proposed by another owner: keep one, merged, under the first owner.
            merged = merge_candidates(
                existing, candidate.model_copy(update={"submitted_by": existing.submitted_by})
            )
            self.table.put(merged)
            return Admission.UPDATED, merged
        if not self._make_room(candidate, trusted):
            return self._refuse(owner, candidate, Admission.TABLE_FULL)
        candidate = copy_candidate(candidate, {"id": self.table.new_id()})
        self.table.put(candidate)
        self._created_this_turn[owner] = self._created_this_turn.get(owner, 0) + 1
        return Admission.CREATED, candidate

    def _make_room(self, candidate: Candidate, trusted: bool) -> bool:
        """Whether a new candidate fits, evicting the lowest-value untrusted one if it may.

        The controller's own candidates and floors (only trusted submitters keep a floor) may
        use the reserved share; other submissions stop at ``submitted_capacity``. Trusted and
        reserved candidates may evict an untrusted one; untrusted ones never evict.
        """
        reserved = candidate.submitted_by is None or candidate.floor is not None
        full = len(self.table) >= self.table.max_size
        if not reserved and self.table.submitted >= self.submitted_capacity:
            full = True
        if not full:
            return True
        return trusted and self._evict_lowest_untrusted()

    def _evict_lowest_untrusted(self) -> bool:
        victims = [c for c in self.table.submitted_candidates() if not self.is_trusted(c)]
        if not victims:
            return False
        # Lowest predicted value first (never estimated counts as lowest), then the oldest.
        victim = min(
            victims,
            key=lambda c: -math.inf if c.predicted_voc is None else c.predicted_voc,
        )
        self.table.remove(victim.id)
        self.evicted += 1
        return True

    def _refuse(
        self, owner: str, candidate: Candidate, status: Admission
    ) -> tuple[Admission, Candidate | None]:
        self._aggregate(owner, candidate.target)
        self.refused += 1
        return status, None

    def _aggregate(self, owner: str, target: str) -> None:
        key = (
            owner
            if (owner in self.aggregates or len(self.aggregates) < self.config.max_aggregates)
            else "*"
        )
        agg = self.aggregates.setdefault(key, Aggregate(key))
        agg.count += 1
        if len(agg.targets) < 64:
            agg.targets.add(target)

    def saturation(self, p_changes: Iterable[float]) -> Saturation:
        """Anomaly signal: are predicted values clustering at the top, or is a flood being
        refused against a full table (document 000 §24, §25)?"""
        values = p_changes if isinstance(p_changes, np.ndarray) else np.array(list(p_changes))
        high = int(np.count_nonzero(values >= self.config.saturation_level))
        share = high / len(values) if len(values) else 0.0
        inflated = (
            len(values) >= self.config.saturation_min_count
            and share >= self.config.saturation_share
        )
        fill = self.table.submitted / self.submitted_capacity if self.submitted_capacity else 1.0
        flood = self.refused > 0 and fill >= self.config.flood_fill
        return Saturation(
            share,
            len(values),
            inflated or flood,
            fill=fill,
            refused=self.refused,
            evicted=self.evicted,
            flood=flood,
        )


def merge_candidates(old: Candidate, new: Candidate) -> Candidate:
    """Union of goals and claims; the stronger trusted signals win; the id and owner stay."""
    trigger = new.trigger if old.trigger is Trigger.EXPLORATION else old.trigger
    floors = [f for f in (old.floor, new.floor) if f is not None]
    deadlines = [d for d in (old.deadline_s, new.deadline_s) if d is not None]
    return copy_candidate(
        old,
        {
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
        },
    )
