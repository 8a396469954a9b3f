"""The candidate table as columns: an incremental ``next()`` for the common steady state.

:meth:`Controller.next` normally rebuilds every proposal, copies every live candidate and
estimates each one in Python. In the common steady state — the default generators and the
heuristic estimator, no stated decision, no pending claims, contradictions, failures,
interruptions, commitments, focus, floors, deadlines, submitted or forced candidates, every
source reporting one claim — each live candidate is "inspect source *s*" for the one claim *s*
reports, and everything the generators and the estimator would compute is a function of a few
per-claim and per-source columns. :class:`ColumnTable` keeps those columns and recomputes only
what changed: a belief a resolve (or the caller) touched updates its claim's row; the clock,
which ages every piece of evidence, is applied to the whole age column at once; the estimate
and the selection run over numpy arrays. Candidate objects are built only for what leaves the
table (the selected candidate) or when a caller reads the table (:meth:`ColumnTable.sync`):
new candidates enter the guard's table deferred (:meth:`Guard.admit_own`, the guard's rules
applied to each in order), their creation is traced as one batch (:meth:`Trace.write_many`),
and a first recomputation fills every column in bulk — the first ``next()`` over 10,000 sources
builds one candidate object, not 10,000.

Every number is computed with the same floating-point operations, in the same order, as the
object path (``math.expm1`` per claim for staleness, so no last-bit drift), and events are
written in the same order; the equivalence tests drive both paths with the same workloads.
Anything outside the steady state falls back to the object path for that call, after
:meth:`ColumnTable.sync` has written the table back.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from heedful.attention.column_estimate import ColumnEstimation, _expm1, p_stale_of
from heedful.attention.column_select import (
    DIRTY,
    EXPLORE,
    GOAL,
    ORIGINS,
    STALE,
    TRIGGERS,
    ColumnSelection,
    Scored,
    column_heuristic,
)
from heedful.attention.config import AttentionConfig
from heedful.attention.estimators import Estimator
from heedful.attention.generators import Generator, default_generators
from heedful.attention.guard import CODED, Guard
from heedful.attention.instruments import Instruments
from heedful.attention.records import Agenda, TableNotes, TurnLog, TurnRecord
from heedful.attention.selector import Selector
from heedful.attention.world import World
from heedful.model.base import as_utc
from heedful.model.candidate import CandidateKind, EventType, Trigger
from heedful.model.goal import GoalStatus
from heedful.model.scenario import Volatility

__all__ = ["ColumnTable", "Scored"]

_DEFAULT_GENERATOR_TYPES = tuple(type(g) for g in default_generators())
_US = timedelta(microseconds=1)
_TRIGGER_VALUES = tuple(t.value for t in TRIGGERS)
#: The generators the guard counts, and each trigger code's (a dirty belief's is staleness's).
_ORIGIN_NAMES = ("stale_belief", "goal_dependency", "exploration")
_ORIGIN_OF_TRIGGER = np.array([_ORIGIN_NAMES.index(o) for o in ORIGINS], dtype=np.int64)


class ColumnTable(ColumnSelection, ColumnEstimation):
    """Columns of the live candidates of one controller (see the module docstring).

    Built from the collaborators it reads, not from the controller (issue 27 item 4).

    Args:
        world: Sources, beliefs, goals (the columns' rows and claims).
        guard: The admission guard and its candidate table (mirrored by the columns).
        estimator: The controller's estimator (the columns apply while it is the heuristic).
        generators: The controller's generators (the columns apply while they are the default).
        selector: The selector whose rules and random draws the selection follows.
        instruments: The controller's self-measurement (value memory, anomalies, funnel).
        config: The controller's configuration.
        turn: The shared turn record.
        agenda: What the agent declared and read.
        notes: What is kept about the live candidates beside the table (written back by
            :meth:`sync`).
        log: Writes a trace event of the current turn.
        mirrored: Whether a memory store mirrors the controller (its dirty flags are pulled
            before each recomputation, by the controller, on either path).
        repeat_inspections: Whether a source already inspected may be inspected again.
    """

    def __init__(
        self,
        *,
        world: World,
        guard: Guard,
        estimator: Estimator,
        generators: list[Generator],
        selector: Selector,
        instruments: Instruments,
        config: AttentionConfig,
        turn: TurnRecord,
        agenda: Agenda,
        notes: TableNotes,
        log: TurnLog,
        mirrored: bool = False,
        repeat_inspections: bool = True,
    ) -> None:
        self.world = world
        self.guard = guard
        self.estimator = estimator
        self.generators = generators  # the facade's list (shared, not copied)
        self.selector = selector
        self.instruments = instruments
        self.config = config
        self.turn = turn
        self.agenda = agenda
        self.notes = notes
        self.log = log
        self.mirrored = mirrored
        self.repeat_inspections = repeat_inspections
        self.active = False  # columns hold the truth (the table objects may lag)
        self.version = -1  # world version the columns were built for
        self.dirty = False  # table objects lag the columns (sync() writes them)
        self.scored: Scored | None = None  # the last recomputation's estimates
        self.last_removed: tuple[str, int] = ("", -1)

    # -- when the columns apply

    def eligible(self, now: datetime) -> bool:
        """Whether this recomputation is in the steady state the columns cover."""
        w = self.world
        est = column_heuristic(self.estimator)
        if est is None or est.config.hazards_per_hour != w.hazards:
            return False
        gens = self.generators
        if tuple(type(g) for g in gens) != _DEFAULT_GENERATOR_TYPES:
            return False
        config = self.config
        if any(getattr(g, "config", None) != config.generator for g in gens):
            return False
        if w.decision is not None or config.floors.claim_types:
            return False
        a = self.agenda
        if a.pending_claims or w.contradictions or a.failures or a.interruptions:
            return False
        if a.committed or a.focus is not None or self.instruments.volatility.learned:
            return False
        if self.active and self.version == w.version and self.goals == _goals_key(w):
            if len(self.guard.table) != int(self.live.sum()):
                return False  # something was submitted or forced in between
            if as_utc(now) < as_utc(self.now) or as_utc(self.expires) <= as_utc(now):
                return False  # the clock went back, or every candidate expired
            # A new claim changes the claims' order: rebuild.
            return all(t in self.claim_index for t in w.touched)
        if self.active:
            self.leave()
        return self._build(now)

    def leave(self) -> None:
        """Write the table back and stop using the columns (the object path takes over)."""
        self.sync()
        self.active = False

    # -- building the columns from the objects

    def _build(self, now: datetime) -> bool:
        w = self.world
        for g in w.goals.values():
            if g.status is GoalStatus.ACTIVE and g.due_at is not None:
                return False
        sources = list(w.sources.values())
        if any(len(s.reports) != 1 for s in sources):
            return False
        slot = {s.id: i for i, s in enumerate(sources)}
        live = np.zeros(len(sources), dtype=bool)
        seq = np.zeros(len(sources), dtype=np.int64)
        ids: list[str | None] = [None] * len(sources)
        created: list[datetime | None] = [None] * len(sources)
        origin = np.full(len(sources), -1, dtype=np.int64)
        expires: datetime | None = None
        for cand in self.guard.table:
            i = slot.get(cand.target)
            if (
                i is None
                or cand.kind is not CandidateKind.INSPECT_SOURCE
                or cand.submitted_by is not None
                or cand.forced
                or cand.floor is not None
                or not cand.id.startswith("attn-")
                or cand.expires_at is None
                or (expires is not None and cand.expires_at != expires)
            ):
                return False
            expires = cand.expires_at
            live[i] = True
            seq[i] = int(cand.id.removeprefix("attn-"))
            ids[i] = cand.id
            created[i] = cand.created_at
            origin[i] = ORIGINS.index(cand.origin) if cand.origin in ORIGINS else -1
            if origin[i] < 0:
                return False
        if expires is not None and as_utc(expires) <= as_utc(now):
            return False  # the object path expires them
        self.sources = sources
        self.source_ids = np.array([s.id for s in sources], dtype=object)
        self.slot = slot
        self.live, self.seq, self.ids, self.created = live, seq, ids, created
        self.row_of_id = {cid: r for r, cid in enumerate(ids) if cid is not None}
        self.origin = origin
        self.trigger = np.full(len(sources), GOAL, dtype=np.int64)
        waited = self.notes.waited
        self.waited = np.array([waited.get(i or "", 0) for i in ids], dtype=np.int64)
        last = self.instruments._last_voc
        self.last_voc = np.array([last.get(i or "", math.nan) for i in ids], dtype=float)
        self.ref = now
        self.now = now
        self.expires = expires if expires is not None else now + timedelta(days=36500)
        self._build_claims(now)
        self.version = w.version
        self.goals = _goals_key(w)
        self.active = True
        self.dirty = False
        self.scored = None
        return True

    def _build_claims(self, now: datetime) -> None:
        w = self.world
        ids = set(w.beliefs) | {s.reports[0] for s in self.sources}
        claims = sorted(ids)
        self.claims = claims
        self.claim_index = {cid: i for i, cid in enumerate(claims)}
        n = len(claims)
        self.row_claim = np.array([self.claim_index[s.reports[0]] for s in self.sources], dtype=int)
        # The rows reporting each claim, ascending: rows_by_claim[row_start[i]:row_start[i + 1]].
        per_claim = np.bincount(self.row_claim, minlength=n)[:n]
        self.rows_by_claim = np.argsort(self.row_claim, kind="stable")
        self.row_start = np.concatenate([[0], np.cumsum(per_claim)])
        self.has_source = per_claim > 0
        est = column_heuristic(self.estimator)
        assert est is not None
        self.cost = np.array([s.cost.scalar() for s in self.sources], dtype=float)
        # A read that returns nothing is worth nothing (the credited failure rate; a change of
        # it changes the world's version, so the columns are rebuilt).
        self.reliability = np.array([1.0 - s.failure_rate for s in self.sources], dtype=float)
        self._build_goals(n, est.config.default_pivotality)
        self.stale_ctx = np.zeros(n)
        self._touch_all()  # the per-claim belief columns, and each row's authority
        w.touched.clear()
        self._age_now: datetime | None = None

    def _build_goals(self, n: int, default_pivotality: float) -> None:
        """Which claims a goal dependency proposes, with which goals, relevance and loss; the
        pivotality and loss the goals give each claim; the dependencies no source serves."""
        index = self.claim_index
        dep = [False] * n
        dep_goals: list[tuple[str, ...]] = [()] * n
        dep_rel = [0.0] * n
        dep_loss = [0.0] * n
        dep_rank = [-1] * n
        piv = [default_pivotality] * n
        impact_loss = [math.nan] * n  # NaN: no goal weighs on it
        best = [0.0] * n  # the largest weight × consequence of a dependency on the claim
        weighed = [False] * n  # some dependency (of any weight) is on the claim
        wanted = [False] * n  # some dependency of positive weight is on the claim
        unknown_wanted: set[str] = set()  # … on a claim the columns do not hold
        rank = 0
        for g in self.world.goals.values():
            if g.status is not GoalStatus.ACTIVE:
                continue
            gid, cons, own = g.id, g.consequence, (g.id,)
            for d in g.depends_on:
                weight = d.weight
                i = index.get(d.claim_id)
                if i is None:
                    if weight > 0.0:
                        unknown_wanted.add(d.claim_id)
                    continue
                # max(weights, key=weight × consequence): the first largest wins.
                if not weighed[i] or weight * cons > best[i]:
                    weighed[i], best[i] = True, weight * cons
                    piv[i], impact_loss[i] = weight, cons
                if weight <= 0.0:
                    continue
                wanted[i] = True
                if not dep[i]:
                    dep[i], dep_rank[i] = True, rank
                    dep_rel[i], dep_loss[i] = weight, max(0.0, cons)
                    dep_goals[i] = own
                else:
                    dep_rel[i] = max(dep_rel[i], weight)
                    dep_loss[i] = max(dep_loss[i], cons)
                    if gid not in dep_goals[i]:
                        dep_goals[i] = (*dep_goals[i], gid)
                rank += 1
        self.dep = np.array(dep, dtype=bool)
        self.dep_goals = dep_goals
        self.dep_rel = np.array(dep_rel, dtype=float)
        self.dep_loss = np.array(dep_loss, dtype=float)
        self.dep_rank = np.array(dep_rank, dtype=np.int64)
        self.piv = np.array(piv, dtype=float)
        self.impact_loss = np.array(impact_loss, dtype=float)
        tuples: dict[tuple[str, ...], int] = {(): 0}
        self.goal_code = np.array(
            [
                tuples.setdefault(g, len(tuples)) if d else 0
                for g, d in zip(dep_goals, dep, strict=True)
            ],
            dtype=np.int64,
        )
        self.goal_tuples = list(tuples)
        self.unreported = np.flatnonzero(~self.has_source).tolist()
        claims = self.claims
        unserved = np.flatnonzero(np.array(wanted, dtype=bool) & ~self.has_source).tolist()
        self.goal_missed = {
            (Trigger.GOAL_DEPENDENCY.value, cid)
            for cid in [*(claims[i] for i in unserved), *unknown_wanted]
        }

    def _touch_all(self) -> None:
        """:meth:`_touch` of every claim, in bulk: the same values, column by column."""
        w = self.world
        est = column_heuristic(self.estimator)
        assert est is not None
        beliefs, hazards, ref, slot = w.beliefs, w.hazards, self.ref, self.slot
        none_src = len(self.sources)
        medium = hazards[Volatility.MEDIUM]
        claims = self.claims
        bs = [beliefs.get(cid) for cid in claims]
        # A claim without a belief reads as World.claim_state gives it: no value, confidence 1,
        # medium volatility, its claim id as its type, the domain the decision gives it.
        has_value = [b is not None and b.value is not None for b in bs]
        conf = [b.confidence if b is not None else 1.0 for b in bs]
        obs_us = [(b.observed_at - ref) // _US if b is not None else 0 for b in bs]
        has_belief = [b is not None for b in bs]
        dirty = [b is not None and b.dirty for b in bs]
        rate_h = [
            medium
            if b is None
            else (b.hazard_per_hour if b.hazard_per_hour is not None else hazards[b.volatility])
            for b in bs
        ]
        domains = [
            b.domain if b is not None else w.domain_of(cid)
            for b, cid in zip(bs, claims, strict=True)
        ]
        n_values = [len(d) if d else 2 for d in domains]
        src = [
            -1 if b is None or b.source_id is None else slot.get(b.source_id, none_src) for b in bs
        ]
        ctype = [b.claim_type if b is not None else cid for b, cid in zip(bs, claims, strict=True)]
        vol = [b.volatility if b is not None else Volatility.MEDIUM for b in bs]
        self.has_value = np.array(has_value, dtype=bool)
        self.conf = np.array(conf, dtype=float)
        self.obs_us = np.array(obs_us, dtype=np.int64)
        self.has_belief = np.array(has_belief, dtype=bool)
        self.dirty_claim = np.array(dirty, dtype=bool)
        self.rate_s = np.array(rate_h, dtype=float) / 3600.0
        self.uniform_wrong = 1.0 - 1.0 / np.array(n_values, dtype=float)
        self.evidence_src = np.array(src, dtype=np.int64)
        self.claim_type: list[str] = ctype
        self.volatility: list[Any] = vol
        # Per row: the registry's authority for the claim's type (the guard's admission order)
        # and, for the estimate, times the source-age factor.
        rows_ = self.row_claim.tolist()
        self.claimed_authority = np.array(
            [s.authority_for(ctype[i]) for s, i in zip(self.sources, rows_, strict=True)],
            dtype=float,
        )
        if not est.use_authority:
            self.authority = np.ones(len(self.sources))
        else:
            rows = rows_
            self.authority = self.claimed_authority.copy()
            if est.use_staleness:
                rate = np.array([hazards[vol[i]] for i in rows], dtype=float) / 3600.0
                age = np.array([s.age_s for s in self.sources], dtype=float)
                self.authority *= 1.0 + _expm1(-rate * np.maximum(age, 0.0))
        self._age_now = None

    def _touch(self, claim_id: str) -> None:
        """Refresh one claim's belief columns and the authority of the rows reporting it."""
        w = self.world
        est = column_heuristic(self.estimator)
        assert est is not None
        i = self.claim_index[claim_id]
        state = w.claim_state(claim_id, self.ref)
        b = w.beliefs.get(claim_id)
        self.has_value[i] = state.value is not None
        self.conf[i] = state.confidence
        self.obs_us[i] = (b.observed_at - self.ref) // _US if b is not None else 0
        self.has_belief[i] = b is not None
        self.dirty_claim[i] = state.dirty
        rate_h = (
            state.hazard_per_hour
            if state.hazard_per_hour is not None
            else w.hazards[state.volatility]
        )
        self.rate_s[i] = rate_h / 3600.0
        n = len(state.domain) if state.domain else 2
        self.uniform_wrong[i] = 1.0 - 1.0 / n
        src = state.evidence_source
        self.evidence_src[i] = self.slot.get(src, len(self.sources)) if src is not None else -1
        self.claim_type[i] = state.claim_type
        self.volatility[i] = state.volatility
        for r in self.rows_by_claim[self.row_start[i] : self.row_start[i + 1]].tolist():
            s = self.sources[r]
            a = s.authority_for(state.claim_type)
            self.claimed_authority[r] = a
            if not est.use_authority:
                self.authority[r] = 1.0
                continue
            if est.use_staleness:
                a *= 1.0 - p_stale_of(s.age_s, w.hazards[state.volatility] / 3600.0)
            self.authority[r] = a
        self._age_now = None  # ages of a touched claim must be recomputed

    # -- one recomputation

    def refresh(self, now: datetime) -> Scored:
        """Generate, admit, expire and estimate from the columns; log as the object path would."""
        w = self.world
        generator = self.config.generator
        guard = self.guard
        for claim_id in w.touched:
            self._touch(claim_id)
        w.touched.clear()
        self._ages(now)
        has_value, dirty = self.has_value, self.dirty_claim
        stale_prop = has_value & (dirty | (self.stale_ctx >= generator.stale_threshold))
        explore = self._exploration_rows()
        self.explore_rows = set(explore)
        rc = self.row_claim
        row_stale = stale_prop[rc]
        row_dep = self.dep[rc]
        exists = row_stale | row_dep
        exists[explore] = True
        trigger = np.where(
            row_stale, np.where(dirty[rc], DIRTY, STALE), np.where(row_dep, GOAL, EXPLORE)
        )
        self.trigger = trigger
        self.now = now
        self.expires = now + timedelta(seconds=generator.ttl_s)
        self._funnel(stale_prop, now)
        # Live candidates no longer proposed leave the table, in table order.
        gone = np.flatnonzero(self.live & ~exists)
        for r in gone[np.argsort(self.seq[gone], kind="stable")].tolist():
            cid = self.ids[r]
            assert cid is not None
            guard.table.discard(cid)
            self.row_of_id.pop(cid, None)
            self.live[r] = False
            self.waited[r] = 0
            self.last_voc[r] = math.nan
            self.log(
                EventType.CANDIDATE_EXPIRED,
                now,
                candidate_id=cid,
                reason_code="no_longer_generated",
            )
        # A renewed candidate whose first proposer changed changes owner in the guard's counts.
        origin = np.where(trigger == DIRTY, STALE, trigger)
        moved = np.flatnonzero(self.live & (origin != self.origin))
        for r in moved.tolist():
            self.origin[r] = origin[r]
            guard.table.put(self._candidate(r))
        # New candidates are admitted in the order the generators propose them.
        new = np.flatnonzero(exists & ~self.live)
        new = new[self._proposal_order(new, row_stale, row_dep)]
        self.origin[new] = origin[new]
        per_origin = np.bincount(origin[new], minlength=len(ORIGINS))
        if not guard.all_fit({ORIGINS[o]: int(n) for o, n in enumerate(per_origin) if n}):
            # Guard.admission_order on arrays: the most authoritative first, then the cheaper,
            # then the generators' order (lexsort is stable).
            new = new[np.lexsort((self.cost[new], -self.claimed_authority[new]))]
        self.dirty = True  # the table's objects lag the columns from here on
        self._admit_all(new, now)
        return self._estimate(now)

    def _proposal_order(
        self, new: np.ndarray, row_stale: np.ndarray, row_dep: np.ndarray
    ) -> np.ndarray:
        """The order the generators propose the rows ``new`` (ascending) in: staleness by
        claim, then goal dependencies in the goals' order, then exploration."""
        ci = self.row_claim[new]
        stale, dep = row_stale[new], row_dep[new]
        group = np.where(stale, 0, np.where(dep, 1, 2))
        within = np.where(stale, ci, np.where(dep, self.dep_rank[ci], 0))
        return np.lexsort((within, group))  # stable: rows in order among equals

    def _admit_all(self, rows: np.ndarray, now: datetime) -> None:
        """Admit new rows through the guard in this order, deferred (built when read), and log
        what :meth:`CandidateLifecycle.admit` logs for each, in the same order (the refused
        ones without a Python object each: :meth:`Guard.admit_own_coded`)."""
        guard = self.guard
        guard.table.materialize = self.sync
        code = _ORIGIN_OF_TRIGGER[self.trigger[rows]]
        targets = self.source_ids[rows]
        status, made_ids, made_at = guard.admit_own_coded(
            CandidateKind.INSPECT_SOURCE, _ORIGIN_NAMES, code, targets, checked=True
        )
        logged = self.notes.skip_logged
        # As the object path logs them: the created rows in order, and at its place the first
        # refusal of each generator and reason in a turn (one ``candidate_skipped`` each; the
        # later refusals log nothing).
        refused = np.flatnonzero(status)
        firsts: list[int] = []
        if len(refused):
            pair = code[refused] * len(CODED) + status[refused]
            _, first = np.unique(pair, return_index=True)
            for j in np.sort(refused[first]).tolist():
                key = (_ORIGIN_NAMES[int(code[j])], CODED[int(status[j])].value)
                if key not in logged:
                    logged.add(key)
                    firsts.append(j)
        start = 0
        for j in [*firsts, len(rows)]:
            lo, hi = np.searchsorted(made_at, [start, j])
            at = made_at[lo:hi]
            self._log_created(
                rows[at].tolist(),
                made_ids[lo:hi],
                [_ORIGIN_NAMES[t] for t in code[at].tolist()],
                targets[at].tolist(),
                now,
            )
            start = j + 1
            if j == len(rows):
                break
            self.log(
                EventType.CANDIDATE_SKIPPED,
                now,
                reason_code=CODED[int(status[j])].value,
                detail={"submitted_by": None, "target": str(targets[j])},
            )

    def _log_created(
        self,
        rows: list[int],
        ids: Sequence[str | None],
        origins: list[str],
        targets: list[str],
        now: datetime,
    ) -> None:
        """Record rows the guard created (with these ids) and log their ``candidate_created``."""
        if not rows:
            return
        made = [cid for cid in ids if cid is not None]
        assert len(made) == len(rows)
        at = np.array(rows, dtype=np.int64)
        for r, cid in zip(rows, made, strict=True):
            self.ids[r] = cid
            self.row_of_id[cid] = r
            self.created[r] = now
        self.live[at] = True
        self.seq[at] = [int(cid.removeprefix("attn-")) for cid in made]
        self.waited[at] = 0
        self.last_voc[at] = math.nan
        self.log.many(
            EventType.CANDIDATE_CREATED,
            now,
            candidate_ids=made,
            reason_codes=[_TRIGGER_VALUES[t] for t in self.trigger[at].tolist()],
            detail={"origin": origins, "target": targets},
        )

    def _exploration_rows(self) -> list[int]:
        inspected = self.agenda.inspected
        k = self.config.generator.exploration_per_turn
        out: list[int] = []
        for r, s in enumerate(self.sources):
            if len(out) >= k:
                break
            if inspected.get(s.id) or not s.reports:
                continue
            out.append(r)
        return out

    def _funnel(self, stale_prop: np.ndarray, now: datetime) -> None:
        """Opportunities whose trigger did not fire: claims no source reports (§5.3)."""
        missed: set[tuple[str, str]] = set(self.goal_missed)
        for i in self.unreported:
            if stale_prop[i]:
                t = Trigger.DIRTY_BELIEF if self.dirty_claim[i] else Trigger.STALE_BELIEF
                missed.add((t.value, self.claims[i]))
        if not missed:
            return
        ins = self.instruments
        for trigger, subject in sorted(missed):
            key = (trigger, subject)
            if key in ins._not_fired:
                continue
            ins._not_fired.add(key)
            ins.log(
                EventType.CANDIDATE_SKIPPED,
                now,
                reason_code="not_fired",
                detail={"trigger": trigger, "subject": subject},
            )


def _goals_key(world: World) -> tuple[object, ...]:
    """What the columns read of the goals (goals are mutable models: checked on every call;
    the goal itself compares by identity first, its dependency list by identity and length)."""
    return tuple(
        (g, g.status, g.due_at, g.consequence, id(g.depends_on), len(g.depends_on))
        for g in world.goals.values()
    )
