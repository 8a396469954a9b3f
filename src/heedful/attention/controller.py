"""The controller a user drops into an agent loop (SPEC §4.1; document 000 §6, §11, §32).

    ctl = Controller()
    ctl.register_source("registry", reports=["dep_version"], authority=0.99,
                        cost={"tool_calls": 1, "tokens": 180})
    ctl.record_belief("dep_version", "4.1", domain=["4.1", "4.2"], age_s=21600,
                      confidence=0.9, volatility="high")
    ctl.begin_turn(budget=3)
    while not isinstance(step := ctl.next(), Stop):
        value = inspect(step.target)                     # the agent executes it
        ctl.resolve(step.id, succeeded=True, observations={"dep_version": value})

Loop: generate → estimate → select under budget → (agent executes) → resolve: record the outcome,
update beliefs → recompute → stop when the best net value ≤ 0.

The facade composes parts that are objects of their own, each built from the collaborators it
uses (none holds the controller; issue 27 item 4): the candidate columns
(:class:`~heedful.attention.columns.ColumnTable`), the candidate lifecycle
(:class:`~heedful.attention.lifecycle.CandidateLifecycle`), claim enforcement
(:class:`~heedful.attention.enforcement.ClaimEnforcement`) and outcome recording
(:class:`~heedful.attention.outcome.OutcomeRecorder`), over three small shared records
(:mod:`heedful.attention.records`: the turn, the agenda, the table notes). The selection step
(``next``) and the resolve sequence are the facade's own.
"""

from __future__ import annotations

import math
import operator
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, TypeVar, overload

import numpy as np

from heedful.attention.columns import ColumnTable
from heedful.attention.config import DEFAULT_CONFIG, AttentionConfig
from heedful.attention.context import (
    AttentionContext,
    DecisionModel,
    Failure,
    Focus,
    Interruption,
)
from heedful.attention.enforcement import ClaimEnforcement
from heedful.attention.estimators import Estimate, Estimator, action_values
from heedful.attention.generators import Generator, default_generators
from heedful.attention.guard import Guard, Saturation
from heedful.attention.instruments import Instruments
from heedful.attention.lifecycle import CandidateLifecycle
from heedful.attention.model_estimator import default_estimator
from heedful.attention.outcome import OutcomeRecorder
from heedful.attention.persist import StoreMirror
from heedful.attention.records import Agenda, TableNotes, TurnLog, TurnRecord
from heedful.attention.selector import Selector
from heedful.attention.spans import NEXT_SPAN, RESOLVE_SPAN, describe_next, describe_resolve
from heedful.attention.trace import Trace, TraceSink
from heedful.attention.validator import ClaimPolicy, ClaimValidator, ValidatorMode, Verdict
from heedful.attention.world import World, as_cost
from heedful.errors import InvalidArgumentError
from heedful.memory import Store
from heedful.model.base import wall_clock
from heedful.model.candidate import (
    Candidate,
    CandidateKind,
    EventType,
    Resolution,
    TraceEvent,
    Trigger,
)
from heedful.model.goal import Goal
from heedful.model.scenario import Cost, Volatility
from heedful.tracing import traced

__all__ = ["Controller", "Stop"]

_T = TypeVar("_T")
_V = TypeVar("_V")


class _Shared(Generic[_V]):
    """A facade attribute kept in a shared record: reading or assigning ``ctl.<name>`` reads or
    assigns the field of that name of the record the facade holds as ``record``."""

    def __init__(self, record: str) -> None:
        self.record = record
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Shared[_V]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _V: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> _V | _Shared[_V]:
        if obj is None:
            return self
        value: _V = getattr(getattr(obj, self.record), self.name)
        return value

    def __set__(self, obj: object, value: _V) -> None:
        setattr(getattr(obj, self.record), self.name, value)


@dataclass(frozen=True)
class Stop:
    """Stop attending and act (or, with ``reason="stay"``, keep the current focus).

    Attributes:
        reason: ``negative_voc``, ``budget_exhausted``, ``no_candidates`` or ``stay``.
        best_voc: Best predicted net VOC among the scored candidates, when any; for a
            ``negative_voc`` stop, among those the stopping rule ranks (not the exploration-only
            ones, which only the exploration quota may pick), so it is never positive.
    """

    reason: str
    best_voc: float | None = None


#: Collaborators built once by the facade and handed to its parts: assigning one afterwards
#: would leave the parts on the old one, so the facade refuses it (how to get another: the hint).
_FIXED: dict[str, str] = {
    "config": "pass config=... to Controller(...)",
    "world": "register sources, beliefs and goals on it instead",
    "guard": "set its numbers with config=AttentionConfig(guard=...)",
    "selector": "set its numbers with config=AttentionConfig(selector=...), or pass rng=/seed=",
    "instruments": "it is built from config",
    "validator": "pass validator_mode=/claim_policies= to Controller(...)",
    "trace": "pass trace_sink=... to Controller(...)",
    "store": "pass the store (or its path) to Controller(...)",
    "mirror": "pass the store (or its path) to Controller(...)",
}


class Controller:
    """The attention controller facade.

    Args:
        store: Optional memory store, or a path to open one: its sources, claims and goals are
            loaded, everything recorded is written through, its truth-maintenance dirty flags
            are honoured, and the trace is appended to it.
        config: All numbers (document sections cited in :mod:`heedful.attention.config`).
        estimator: Any estimator with the ``estimate(candidate, context)`` shape (default: the
            model-based one, :class:`~heedful.attention.model_estimator.ModelEstimator`).
        generators: Candidate generators (default: the eight of document 000 §7).
        validator_mode: ``attention_only`` logs violations; ``production`` blocks and forces reads.
        claim_policies: Claim type → evidence policy (default: document 000 §19).
        rng: Explicit random generator (exploration draws). Defaults to ``default_rng(seed)``.
        seed: Seed used when ``rng`` is not given.
        trace_sink: Extra callable receiving every trace event.
        clock: Returns "now"; pass a fixed clock for reproducible runs.
        repeat_inspections: Whether a source already inspected may be inspected again (a noisy
            source can be worth a second read; a benchmark counting sets forbids it).

    The turn numbers (``turn``, ``turn_id``, ``budget``, ``turn_budget``, ``cost_weight``), the
    agenda (``pending_claims``, ``failures``, ``interruptions``, ``focus``, ``inspected``,
    ``committed``, ``spontaneous_reads``, ``forced_reads``) and ``saturation`` read and assign
    the shared records the parts hold (:mod:`heedful.attention.records`); assigning
    ``estimator``, ``generators``, ``clock`` or ``repeat_inspections`` hands the new one to
    every part that uses it. The other collaborators (``config``, ``world``, ``guard``,
    ``selector``, ``instruments``, ``validator``, ``trace``, ``store``, ``mirror``) are fixed at
    construction: assigning one raises :class:`AttributeError` saying what to do instead.
    """

    turn = _Shared[int]("_turn")
    turn_id = _Shared[str]("_turn")
    budget = _Shared[int | None]("_turn")
    turn_budget = _Shared[int | None]("_turn")
    cost_weight = _Shared[float | None]("_turn")
    pending_claims = _Shared[list[str]]("_agenda")
    failures = _Shared[list[Failure]]("_agenda")
    interruptions = _Shared[list[Interruption]]("_agenda")
    focus = _Shared[Focus | None]("_agenda")
    inspected = _Shared[dict[str, int]]("_agenda")
    committed = _Shared[list[str]]("_agenda")
    spontaneous_reads = _Shared[int]("_agenda")
    forced_reads = _Shared[int]("_agenda")
    saturation = _Shared[Saturation]("_notes")

    def __init__(
        self,
        store: Store | str | os.PathLike[str] | None = None,
        *,
        config: AttentionConfig = DEFAULT_CONFIG,
        estimator: Estimator | None = None,
        generators: Sequence[Generator] | None = None,
        validator_mode: ValidatorMode | str = ValidatorMode.ATTENTION_ONLY,
        claim_policies: Mapping[str, ClaimPolicy] | None = None,
        rng: np.random.Generator | None = None,
        seed: int = 0,
        trace_sink: TraceSink | None = None,
        clock: Callable[[], datetime] | None = None,
        repeat_inspections: bool = True,
    ) -> None:
        self.config = config
        self.world = World(
            config.estimator.hazards_per_hour,
            config.estimator.max_accuracy,
            config.guard,
            failure_prior_reads=config.estimator.failure_prior_reads,
        )
        # The default measures best on shifted held-out worlds (issue 24): exact VOI on the
        # estimated problem when a decision is stated, the heuristic otherwise.
        estimator = estimator or default_estimator(config.estimator)
        gens = list(generators) if generators is not None else default_generators(config.generator)
        try:
            mode = ValidatorMode(validator_mode)
        except ValueError:
            raise InvalidArgumentError(f"unknown validator mode {validator_mode!r}") from None
        self.validator = ClaimValidator(claim_policies, mode)
        self.guard = Guard(config.guard, self.world.sources)
        self.selector = Selector(
            config.selector, rng if rng is not None else np.random.default_rng(seed)
        )
        self.store: Store | None = _open_store(store)
        self.mirror = StoreMirror(self.store) if self.store is not None else None
        sinks = [x for x in (trace_sink, self.mirror.trace if self.mirror else None) if x]
        self.trace = Trace(_fan_out(sinks) if sinks else None)
        self._clock = clock or wall_clock
        # The records the parts share, and the log of the current turn.
        self._turn = TurnRecord()
        self._agenda = Agenda()
        self._notes = TableNotes()
        self._log = TurnLog(self.trace, self._turn)
        self.instruments = Instruments(config, self._log)
        # The parts, each given what it uses.
        self._columns = ColumnTable(
            world=self.world,
            guard=self.guard,
            estimator=estimator,
            generators=gens,
            selector=self.selector,
            instruments=self.instruments,
            config=config,
            turn=self._turn,
            agenda=self._agenda,
            notes=self._notes,
            log=self._log,
            mirrored=self.mirror is not None,
            repeat_inspections=repeat_inspections,
        )
        self._lifecycle = CandidateLifecycle(
            world=self.world,
            guard=self.guard,
            generators=gens,
            estimator=estimator,
            instruments=self.instruments,
            floors=config.floors,
            turn=self._turn,
            agenda=self._agenda,
            notes=self._notes,
            log=self._log,
            clock=self._clock,
            leave_columns=self._columns.leave,
            mirror=self.mirror,
            repeat_inspections=repeat_inspections,
        )
        self._enforcement = ClaimEnforcement(
            world=self.world,
            validator=self.validator,
            admit=self._lifecycle.admit,
            log=self._log,
            clock=self._clock,
        )
        self._outcome = OutcomeRecorder(
            world=self.world,
            instruments=self.instruments,
            config=config,
            agenda=self._agenda,
            log=self._log,
            mirror=self.mirror,
        )
        if self.mirror is not None:
            self.mirror.load(self.world, self._clock())

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FIXED and name in self.__dict__:
            raise AttributeError(
                f"Controller.{name} is fixed when the controller is built (its parts hold it): "
                f"{_FIXED[name]}"
            )
        object.__setattr__(self, name, value)

    # -- collaborators the parts share (assigning one hands it to each part that uses it) -------

    @property
    def estimator(self) -> Estimator:
        """The estimator (``estimate(candidate, context)``)."""
        return self._lifecycle.estimator

    @estimator.setter
    def estimator(self, value: Estimator) -> None:
        self._lifecycle.estimator = self._columns.estimator = value

    @property
    def generators(self) -> list[Generator]:
        """The candidate generators."""
        return self._lifecycle.generators

    @generators.setter
    def generators(self, value: list[Generator]) -> None:
        self._lifecycle.generators = self._columns.generators = value

    @property
    def clock(self) -> Callable[[], datetime]:
        """Returns "now"."""
        return self._clock

    @clock.setter
    def clock(self, value: Callable[[], datetime]) -> None:
        self._clock = self._lifecycle.clock = self._enforcement.clock = value

    @property
    def repeat_inspections(self) -> bool:
        """Whether a source already inspected may be inspected again."""
        return self._lifecycle.repeat_inspections

    @repeat_inspections.setter
    def repeat_inspections(self, value: bool) -> None:
        self._lifecycle.repeat_inspections = self._columns.repeat_inspections = value

    def _trace_batch(self) -> AbstractContextManager[None]:
        """One store transaction for the trace events of a public call (the mirror's batch)."""
        return self.mirror.batched() if self.mirror is not None else nullcontext()

    # -- registration (delegates to the world, which validates) ---------------------------------

    def register_source(
        self,
        source_id: str,
        *,
        reports: tuple[str, ...] | list[str] = (),
        authority: float | Mapping[str, float] = 0.5,
        default_authority: float | None = None,
        cost: Cost | Mapping[str, Any] | None = None,
        age_s: float = 0.0,
        trusted: bool = False,
        kind: str = "document",
        failure_rate: float = 0.0,
        links: int = 0,
    ) -> None:
        """Register (or replace) a source the agent can inspect (document 000 §10, §24).

        Args:
            source_id: Its id; registering it again replaces it.
            reports: The claims one read of it informs.
            authority: Its authority, or claim type → authority, in [0, 1].
            default_authority: Authority for claim types ``authority`` does not list.
            cost: Cost of one read (``Cost`` or ``{tokens, tool_calls, latency_ms}``).
            age_s: Age of the data it holds, in seconds.
            trusted: Whether whoever registers it vouches for it (its authority and cost are
                facts). False by default: a source an agent learned of (a page, a tool result,
                another agent) claims what it likes, so its claims are priors the controller
                caps until trusted reads corroborate them (docs/controller.md, "One trust rule").
            kind: Free label (``live_instrument``, ``cached_summary`` …).
            failure_rate: The stated probability that a read returns nothing, in [0, 1); the
                reads resolved move it (``World.failure_rate``).
            links: How many further sources one read of it names that are not registered yet
                (an index, a catalogue, a cache that names what it was built from). With a
                stated decision such a read is proposed even when it reports nothing, and valued
                by what a source it reveals may be worth (docs/controller.md, "Sources a read
                reveals"). Register a revealed source when a read names it.

        Raises:
            InvalidArgumentError: A value out of range (authority, age, cost, failure rate,
                links).
        """
        with (
            _restored_on_error(self.world.sources, source_id),
            _restored_on_error(self.world.claimed, source_id),
        ):
            info = self.world.register_source(
                source_id,
                reports=reports,
                authority=authority,
                default_authority=default_authority,
                cost=cost,
                age_s=age_s,
                trusted=trusted,
                kind=kind,
                failure_rate=failure_rate,
                links=links,
            )
            if self.mirror is not None:
                self.mirror.source(info)

    def record_belief(
        self,
        claim_id: str,
        value: str | None,
        *,
        claim_type: str | None = None,
        domain: tuple[str, ...] | list[str] | None = None,
        confidence: float = 1.0,
        age_s: float = 0.0,
        volatility: Volatility | str = Volatility.MEDIUM,
        source_id: str | None = None,
    ) -> None:
        """Record (or replace) what the agent believes about a claim, and how old that is.

        Args:
            claim_id: The claim.
            value: Its believed value (None: unknown).
            claim_type: Its type (the authority registry's key; default: the claim id).
            domain: The values it can take.
            confidence: How sure the agent is, in [0, 1].
            age_s: Age of the evidence behind it, in seconds.
            volatility: How fast it changes (``immutable`` … ``very_high``).
            source_id: The source the belief came from, if one did.
        """
        with _restored_on_error(self.world.beliefs, claim_id):
            rec = self.world.record_belief(
                claim_id,
                value,
                now=self._clock(),
                claim_type=claim_type,
                domain=domain,
                confidence=confidence,
                age_s=age_s,
                volatility=volatility,
                source_id=source_id,
            )
            if self.mirror is not None:
                self.mirror.belief(rec)

    def record_evidence(
        self,
        claim_id: str,
        source_id: str,
        value: str | None,
        *,
        succeeded: bool = True,
        forced: bool = False,
    ) -> bool:
        """Record evidence obtained outside the controller; return whether the belief changed.

        Args:
            claim_id: The claim the source reported on.
            source_id: The registered source that reported.
            value: What it reported (None: nothing).
            succeeded: Whether the read returned anything.
            forced: Whether the read was forced (by the claim validator).
        """
        return self._evidence(
            claim_id, source_id, value, now=self._clock(), succeeded=succeeded, forced=forced
        )

    def _evidence(
        self,
        claim_id: str,
        source_id: str,
        value: str | None,
        *,
        now: datetime,
        checked: bool = False,
        **kwargs: Any,
    ) -> bool:
        # ``checked``: the store already checked this report (a resolve checks every
        # observation before it changes anything), so it is not read back a second time.
        if self.mirror is not None and not checked:
            self.mirror.check_evidence(claim_id, value)
        prev = self.world.beliefs.get(claim_id)
        ev, changed = self.world.record_evidence(claim_id, source_id, value, now=now, **kwargs)
        if prev is not None and ev.succeeded:
            interval = (ev.observed_at - prev.observed_at).total_seconds()
            self.instruments.revisit(prev.claim_type, source_id, interval, changed)
        if self.mirror is not None and ev.succeeded and ev.value is not None:
            self.mirror.evidence(source_id, ev.value, ev.observed_at, self.world.beliefs[claim_id])
            self.mirror.learn_hazard(self.world, claim_id)
        return changed

    def mark_dirty(self, claim_id: str) -> None:
        """Mark a belief dirty (its support changed); the store propagates to dependents."""
        self.world.mark_dirty(claim_id)
        if self.store is not None:
            self.store.mark_dirty(claim_id, "marked by the controller")

    def add_goal(self, goal: Goal) -> None:
        """Add or replace a goal (a change the store refuses changes nothing)."""
        if self.mirror is not None:
            self.mirror.goal(goal)
        self.world.add_goal(goal)

    def state_decision(self, decision: DecisionModel | None) -> None:
        """State the decision about to be made (enables decision-based pivotality and VOI)."""
        self.world.set_decision(decision)

    def about_to_claim(self, *claim_ids: str) -> None:
        """Declare claims the agent is about to assert or act on (state-sensitive generator)."""
        self.pending_claims.extend(c for c in claim_ids if c not in self.pending_claims)

    def report_failure(self, failure_id: str, target: str, *, loss: float = 1.0) -> None:
        """Report a failed action or tool call (failed-action generator)."""
        if not (math.isfinite(loss) and loss >= 0):
            raise InvalidArgumentError(
                f"failure {failure_id!r}: loss must be a finite number ≥ 0, got {loss}"
            )
        self.failures.append(Failure(failure_id, target, loss))

    def interrupt(
        self,
        event_id: str,
        source_id: str,
        content: str = "",
        *,
        declared_loss: float = 0.0,
        switch_cost: float = 0.0,
        category: str = "event",
        goal_ids: Sequence[str] = (),
    ) -> None:
        """An incoming event from a registered source; its content is never parsed for priority.

        ``category`` (interruption class) and ``goal_ids`` (the goals it bears on) are trusted
        metadata of the caller; a switch cost left at 0 is estimated from the focus.
        """
        self.world.source(source_id)
        if not all(math.isfinite(x) and x >= 0 for x in (declared_loss, switch_cost)):
            raise InvalidArgumentError(
                f"event {event_id!r}: losses and costs must be finite numbers ≥ 0"
            )
        self.interruptions.append(
            Interruption(
                event_id,
                source_id,
                content,
                declared_loss,
                goal_ids=tuple(goal_ids),
                switch_cost=switch_cost,
                category=category,
            )
        )

    def set_focus(self, candidate_id: str | None, voc: float = 0.0) -> None:
        """Set (or clear) the computation currently being worked on, for the switching rule."""
        self.focus = Focus(candidate_id, voc) if candidate_id is not None else None

    # -- the parts' public side --------------------------------------------------------------

    def context(self, now: datetime | None = None) -> AttentionContext:
        """A snapshot of everything generators and estimators read (at ``now``: the clock's)."""
        return self._lifecycle.context(now)

    def submit(self, candidate: Candidate) -> Candidate | None:
        """Submit a candidate from outside (e.g. a tool or worker); it passes the guard."""
        if candidate.submitted_by is not None:
            self.world.source(candidate.submitted_by)
        # Only the claim validator forces reads (budget-exempt, never spontaneous).
        return self._lifecycle.admit(candidate.model_copy(update={"forced": False}), self._clock())

    def refresh(self) -> list[tuple[Candidate, Estimate]]:
        """Expire, generate, admit and estimate; return the scored live candidates."""
        with self._trace_batch():
            self._columns.leave()
            return self._lifecycle.refresh(None)

    def check_claim(self, claim_id: str, *, claim_type: str | None = None) -> Verdict:
        """Validate a claim the agent is about to make (document 000 §19).

        Raises:
            UnknownNameError: No belief, source or stated decision knows the claim (a typo).
        """
        return self._enforcement.check_claim(claim_id, claim_type=claim_type)

    # -- the loop -------------------------------------------------------------------------------

    def begin_turn(self, budget: int | None = None, *, cost_weight: float | None = None) -> str:
        """Start a turn with a hard inspection budget (None = unlimited, stopping rule only)."""
        if budget is not None:
            # A fractional budget would allow one read more than it says (2.5 → 3 reads).
            try:
                budget = operator.index(budget)
            except TypeError:
                raise InvalidArgumentError(
                    f"budget must be a whole number of reads, got {budget!r}"
                ) from None
            if budget < 0:
                raise InvalidArgumentError(f"budget must be ≥ 0, got {budget}")
        if cost_weight is not None and not (math.isfinite(cost_weight) and cost_weight >= 0):
            raise InvalidArgumentError(
                f"cost_weight must be a finite number ≥ 0, got {cost_weight}"
            )
        t = self._turn
        t.turn += 1
        t.turn_id = f"turn-{t.turn}"
        t.budget = budget
        t.turn_budget = budget
        t.cost_weight = cost_weight
        self.guard.begin_turn()
        self.selector.begin_turn()
        self.instruments.begin_turn()
        self._notes.skip_logged.clear()
        t.started = True
        return t.turn_id

    @traced(NEXT_SPAN, describe_next)
    def next(self) -> Candidate | Stop:
        """The next computation to execute, or :class:`Stop`."""
        with self._trace_batch():
            return self._next()

    def _next(self) -> Candidate | Stop:
        t = self._turn
        if not t.started:
            self.begin_turn()
        agenda = self._agenda
        notes = self._notes
        columns = self._columns
        log = self._log
        now = self._clock()
        ctx_now = self._clock()
        passed_over: Callable[[str], None]
        if self.mirror is not None:
            # Truth maintenance upstream (document 000 §4.6): a belief the store marked dirty
            # raises a dirty-belief candidate, on the columns as on the object path.
            self.mirror.pull_dirty(self.world)
        if columns.eligible(ctx_now):
            # The steady state: columns, recomputing only what changed (heedful.attention.columns).
            sel, best, max_p_change = columns.select(ctx_now)
            passed_over = columns.passed_over
        else:
            columns.leave()
            scored = self._lifecycle.refresh(ctx_now)
            forced = [(c, e) for c, e in scored if c.forced]
            pool = forced or scored
            budget_left = None if forced else t.budget
            keys = notes.explorable_keys
            explorable = (
                {c.id for c, _ in pool if (c.kind.value, c.target) in keys}
                if self.config.selector.explore_merged
                else set()
            )
            sel = self.selector.select(
                pool,
                turn=t.turn,
                budget_left=budget_left,
                turn_budget=t.turn_budget,
                waited=notes.waited,
                focus=agenda.focus,
                explorable=explorable,
            )
            if sel.reason == "stop:negative_voc":
                # The stopping rule's number: exploration-only candidates are not ranked.
                best = max(
                    (e.net for c, e in scored if c.trigger is not Trigger.EXPLORATION),
                    default=None,
                )
            else:
                best = max((e.net for _, e in scored), default=None)
            max_p_change = max((e.p_change for _, e in scored), default=None)

            def passed_over(chosen: str) -> None:
                waited = notes.waited
                for c, e in scored:  # eligible candidates passed over this time age by one step
                    if c.id != chosen and e.net > 0:
                        waited[c.id] = waited.get(c.id, 0) + 1
                waited.pop(chosen, None)

        if sel.switch is not None:
            log(
                EventType.SWITCH_REQUESTED,
                now,
                candidate_id=sel.candidate.id if sel.candidate else None,
            )
            ev = (
                EventType.SWITCH_ACCEPTED if sel.switch == "accepted" else EventType.SWITCH_REJECTED
            )
            log(
                ev,
                now,
                reason_code=sel.reason,
                detail={"focus": agenda.focus.candidate_id if agenda.focus else None},
            )
        if sel.candidate is None:
            reason = sel.reason.removeprefix("stop:")
            ev_type = {
                "budget_exhausted": EventType.ATTENTION_BUDGET_EXHAUSTED,
                "no_candidates": EventType.ATTENTION_TERMINATED_NO_CANDIDATES,
            }.get(reason, EventType.ATTENTION_TERMINATED_NEGATIVE_VOC)
            if reason != "stay":
                log(
                    ev_type,
                    now,
                    predicted_voc=best,
                    budget_before=t.budget,
                    reason_code=reason,
                    # For the §25 underinspection signature: how pivotal was what went unread.
                    detail={"max_p_change": max_p_change},
                )
            return Stop(reason, best)
        cand, est = sel.candidate, sel.estimate
        assert est is not None
        passed_over(cand.id)
        self.instruments.forget(cand.id)
        log(
            EventType.CANDIDATE_SELECTED,
            now,
            candidate_id=cand.id,
            predicted_voc=est.net,
            rank=sel.rank,
            budget_before=t.budget,
            reason_code=sel.reason,
            forced=cand.forced,
            detail={
                "target": cand.target,
                "kind": cand.kind.value,
                "trigger": cand.trigger.value,
                "saturation": notes.saturation.share,
                "saturated": notes.saturation.anomalous,
                "category": next(  # interruption class (Phase 5), trusted metadata
                    (i.category for i in agenda.interruptions if i.id == cand.target), None
                )
                if cand.kind is CandidateKind.HANDLE_INTERRUPTION
                else None,
            },
        )
        if t.budget is not None and not cand.forced:
            t.budget -= 1
        self.guard.table.discard(cand.id)
        columns.removed(cand.id)
        self._outcome.dispatch(cand, est)  # in flight (an interruption keeps the focus to resume)
        if cand.kind is CandidateKind.INSPECT_SOURCE:
            log(
                EventType.INSPECTION_STARTED,
                now,
                candidate_id=cand.id,
                forced=cand.forced,
            )
        if cand.kind in (CandidateKind.HANDLE_INTERRUPTION, CandidateKind.CONTINUE_TASK):
            agenda.focus = Focus(cand.id, est.net)
            agenda.interruptions = [i for i in agenda.interruptions if i.id != cand.target]
        if cand.kind is CandidateKind.DIAGNOSE_FAILURE:
            agenda.failures = [f for f in agenda.failures if f.target != cand.target]
        return cand

    @traced(RESOLVE_SPAN, describe_resolve)
    def resolve(
        self,
        candidate_id: str,
        *,
        succeeded: bool = True,
        observations: Mapping[str, str | None] | None = None,
        actual_cost: Cost | Mapping[str, Any] | None = None,
        decision_changed: bool | None = None,
        utility_delta: float | None = None,
        withheld: bool = False,
    ) -> Resolution:
        """Record the outcome of a selected computation and update beliefs.

        Args:
            candidate_id: The selected candidate.
            succeeded: Whether the computation returned anything.
            observations: Claim id → observed value (inspections only).
            actual_cost: What it really cost.
            decision_changed: Whether the agent's decision changed (computed when a decision is
                stated and this is None).
            utility_delta: Realised utility change, when the agent knows it.
            withheld: The inspection was made but its result is revealed only later (static
                condition); later selections value sources *given* this one is in the set.
        """
        with self._trace_batch():
            return self._resolve(
                candidate_id,
                succeeded=succeeded,
                observations=observations,
                actual_cost=actual_cost,
                decision_changed=decision_changed,
                utility_delta=utility_delta,
                withheld=withheld,
            )

    def _resolve(
        self,
        candidate_id: str,
        *,
        succeeded: bool,
        observations: Mapping[str, str | None] | None,
        actual_cost: Cost | Mapping[str, Any] | None,
        decision_changed: bool | None,
        utility_delta: float | None,
        withheld: bool,
    ) -> Resolution:
        outcome = self._outcome
        agenda = self._agenda
        cand = outcome.check(candidate_id, succeeded, observations, withheld)
        cost = (
            as_cost(actual_cost, f"candidate {candidate_id!r}")
            if actual_cost is not None and not withheld
            else None
        )
        # Everything is checked: from here on the selection is consumed.
        est = outcome.take(candidate_id)
        now = self._clock()
        if withheld:
            agenda.committed.append(cand.target)
            agenda.count_read(cand.target, cand.forced)
            return Resolution(inspection_succeeded=succeeded)
        before = self.best_action()
        kw: dict[str, Any] = {
            "turn_id": self._turn.turn_id,
            "now": now,
            "candidate_id": cand.id,
            "forced": cand.forced,
        }
        ev = EventType.INSPECTION_SUCCEEDED if succeeded else EventType.INSPECTION_FAILED
        self.trace.write(
            ev, **kw, resolution=Resolution(inspection_succeeded=succeeded, actual_cost=cost)
        )
        belief_changed = False
        if cand.kind is CandidateKind.INSPECT_SOURCE:
            # An untrusted source's claimed cost gives way to the measured one, kept in the store.
            if cost is not None and self.world.measured(cand.target, cost) and self.mirror:
                self.mirror.measured(cand.target, cost)
            agenda.count_read(cand.target, cand.forced)
            # What the read returned moves the failure rate it is credited with (kept in the
            # store): a backup read is worth what the first read's failures leave undecided.
            self.world.record_read(cand.target, succeeded)
            if self.mirror is not None:
                self.mirror.read(cand.target, succeeded)
        if outcome.observes(cand):
            for claim_id, value in (observations or {}).items():
                changed = self._evidence(
                    claim_id,
                    cand.target,
                    value if succeeded else None,
                    now=now,
                    checked=True,
                    succeeded=succeeded,
                    forced=cand.forced,
                )
                belief_changed |= changed
                self.trace.write(
                    EventType.BELIEF_CHANGED if changed else EventType.BELIEF_UNCHANGED,
                    **kw,
                    detail={"claim_id": claim_id},
                )
            if not observations and not succeeded and cand.kind is CandidateKind.INSPECT_SOURCE:
                for claim_id in cand.claim_ids:
                    self.world.record_evidence(
                        claim_id, cand.target, None, now=now, succeeded=False, forced=cand.forced
                    )
        after = self.best_action()
        if decision_changed is None and before is not None:
            decision_changed = before != after
        if utility_delta is None and before is not None and after is not None:
            utility_delta = self._utility_delta(before, after)
        res = Resolution(
            inspection_succeeded=succeeded,
            belief_changed=belief_changed,
            decision_changed=decision_changed,
            utility_delta=utility_delta,
            actual_cost=cost,
        )
        if decision_changed is not None:
            ev = EventType.DECISION_CHANGED if decision_changed else EventType.DECISION_UNCHANGED
            self.trace.write(ev, **kw, resolution=res)
        outcome.record(cand, est, res, bool(observations) and succeeded, now)
        if cand.forced:
            self._enforcement.rescue_if_satisfied(now)
        return res

    def in_flight(self) -> list[tuple[Candidate, Estimate | None, Focus | None]]:
        """The selected computations not yet resolved, in selection order: each candidate, its
        estimate at selection and, for an interruption, the focus its resolve hands back."""
        out = self._outcome
        return [(c, out.selected.get(cid), out.resume.get(cid)) for cid, c in out.inflight.items()]

    def adopt(
        self, candidate: Candidate, estimate: Estimate, *, resume: Focus | None = None
    ) -> None:
        """Hold ``candidate`` in flight as if this controller had selected it with ``estimate``.

        For a server resuming a selection another process made on the same store (what
        :meth:`in_flight` listed there): ``resolve(candidate.id, ...)`` then records the outcome
        as that process would have. ``resume`` is the focus an interruption hands back. Nothing
        is logged: the selection was, when it was made.

        Raises:
            InvalidArgumentError: ``candidate`` is already in flight here.
        """
        if candidate.id in self._outcome.inflight:
            raise InvalidArgumentError(f"candidate {candidate.id!r} is already in flight")
        self._outcome.dispatch(candidate, estimate)
        if candidate.kind is CandidateKind.HANDLE_INTERRUPTION:
            self._outcome.resume[candidate.id] = resume

    def _utility_delta(self, before: str, after: str) -> float:
        """Realised value of the change of mind: EU(after) − EU(before) under the new beliefs."""
        d = self.world.decision
        if d is None or before == after:
            return 0.0
        values = action_values(d, self.context())
        return values.get(after, 0.0) - values.get(before, 0.0)

    def best_action(self) -> str | None:
        """The Bayes-optimal action under current beliefs, when a decision is stated."""
        d = self.world.decision
        if d is None:
            return None
        values = action_values(d, self.context())
        return max(values, key=lambda a: values[a]) if values else None

    @property
    def candidates(self) -> list[Candidate]:
        """Live candidates (not yet selected)."""
        self._columns.sync()
        return list(self.guard.table)

    def ranking(
        self, limit: int, selected: Candidate | None = None
    ) -> tuple[int, list[tuple[Candidate, Estimate]]]:
        """The live candidates the last recomputation scored, and ``selected`` (the candidate
        that recomputation's ``next()`` returned, which left the table), by predicted net VOC,
        highest first (ties in table order): how many, and the first ``limit`` with their
        estimates. On the candidate columns only those ``limit`` are built (``attention_rank``
        over 1,200 sources builds 20 candidates, not 1,200)."""
        columns = self._columns
        if columns.active and columns.scored is not None:
            return columns.ranking(limit, selected)
        live = {c.id: c for c in self.candidates}
        if selected is not None:
            live[selected.id] = selected
        scored = sorted(
            ((live[cid], est) for cid, est in self.last_estimates.items() if cid in live),
            key=lambda pair: pair[1].net,
            reverse=True,
        )
        return len(scored), scored[: max(limit, 0)]

    @property
    def scored_count(self) -> int:
        """How many candidates the last recomputation scored (without building any object)."""
        if self._columns.active and self._columns.scored is not None:
            return len(self._columns.scored.rows)
        return len(self._notes.last_estimates)

    @property
    def last_estimates(self) -> dict[str, Estimate]:
        """Candidate id → estimate, of every candidate scored by the last recomputation."""
        self._columns.sync()
        return self._notes.last_estimates

    @last_estimates.setter
    def last_estimates(self, value: dict[str, Estimate]) -> None:
        self._notes.last_estimates = value


@contextmanager
def _restored_on_error(table: dict[str, _T], key: str) -> Iterator[None]:
    """Put ``table[key]`` back as it was when the block raises (e.g. the store refused a write)."""
    saved = {key: table[key]} if key in table else {}
    try:
        yield
    except BaseException:
        table.pop(key, None)
        table.update(saved)
        raise


def _open_store(store: Store | str | os.PathLike[str] | None) -> Store | None:
    """Open a memory store from a path, or pass a store object through."""
    if store is None or isinstance(store, Store):
        return store
    return Store.open(store)


def _fan_out(sinks: list[TraceSink]) -> TraceSink:
    def fan_out(event: TraceEvent) -> None:
        for s in sinks:
            s(event)

    return fan_out
