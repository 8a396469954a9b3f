"""The adapter layer: what the MCP tools call, one thin method per tool.

:class:`Backend` is the contract the tools need; :class:`StoreBackend` fulfils it with the real
objects opened on one SQLite file: the memory store, the engine of document 002 over it, and the
attention controller of document 000 loading from and writing through to it. No decision is made
here: every method forwards to library calls and shapes their results as JSON-able mappings.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict
from typing import Any, Protocol, cast

from pydantic import ValidationError

from heedful.attention import Controller, Stop
from heedful.attention.world import Corroboration
from heedful.engine import (
    ControllerResearch,
    Engine,
    EngineConfig,
    Journal,
    StoreGraph,
    journal_path,
)
from heedful.engine.config import AutonomyLevel
from heedful.engine.governance import parse_level
from heedful.engine.host import BackgroundHeartbeat
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.integrations.mcp.resume import ResumeError, in_flight_ids, restore, snapshot
from heedful.memory import Store
from heedful.model.candidate import Candidate
from heedful.model.goal import Goal

__all__ = ["Backend", "SessionBackends", "StoreBackend", "open_backend"]


class Backend(Protocol):
    """What the MCP tools call. Errors are raised as :class:`heedful.errors.HeedfulError`."""

    def survey(self, include_idle: bool) -> Mapping[str, Any]:
        """Return the attention map (document 002 §3.3 response)."""
        ...

    def run_cycle(self, autonomy_override: str | None) -> Mapping[str, Any]:
        """Run one attention cycle (document 002 §3.4 response)."""
        ...

    def review_proposal(self, proposal_id: str, decision: str, reason: str) -> Mapping[str, Any]:
        """Approve (within the operator's ceiling) or reject a queued advise proposal."""
        ...

    def rank(
        self,
        budget: int | None,
        about_to_claim: Sequence[str],
        cost_weight: float | None,
        limit: int,
    ) -> Mapping[str, Any]:
        """Start a turn; return the ranked candidates and the first selection (or stop)."""
        ...

    def resolve(
        self,
        candidate_id: str,
        succeeded: bool,
        observations: Mapping[str, str | None],
        actual_cost: Mapping[str, float] | None,
        decision_changed: bool | None,
        utility_delta: float | None,
    ) -> Mapping[str, Any]:
        """Record a selected computation's outcome; return it and the next selection (or stop)."""
        ...

    def check_claim(self, claim_id: str, claim_type: str | None) -> Mapping[str, Any]:
        """Validate a claim the agent is about to make (document 000 §19)."""
        ...

    def register_source(self, source_id: str, **metadata: Any) -> Mapping[str, Any]:
        """Register (or replace) a source (``trusted``: its metadata are facts, not claims)."""
        ...

    def sources(self, source_ids: Sequence[str], limit: int) -> Mapping[str, Any]:
        """The registered sources as credited, claimed, and their trust records."""
        ...

    def record_belief(self, claim_id: str, value: str | None, **metadata: Any) -> Mapping[str, Any]:
        """Record (or replace) a belief."""
        ...

    def health(self, window_turns: int | None) -> Mapping[str, Any]:
        """The §5.3 funnel and §25 signatures over the trace's latest turns."""
        ...

    def set_goal(self, goal_id: str, **fields: Any) -> Mapping[str, Any]:
        """Add or replace a goal."""
        ...

    def engine_status(self, recent: int) -> Mapping[str, Any]:
        """The engine's state, its latest notices and journal entries."""
        ...

    def close(self) -> None:
        """Release the store."""
        ...


class _ControllerRef:
    """The backend's current controller, as the engine's research port holds it: a backend
    replaces its controller when another process moved its session on (:meth:`_sync`)."""

    def __init__(self, target: Controller) -> None:
        self.target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self.target, name)


def _step(step: Candidate | Stop) -> dict[str, Any]:
    """The controller's next step as ``{"action": "execute", "candidate": ...}`` or a stop."""
    if isinstance(step, Stop):
        return {"action": "stop", "reason": step.reason, "best_voc": step.best_voc}
    return {"action": "execute", "candidate": step.model_dump(mode="json")}


class StoreBackend:
    """The engine and the controller over one open memory store.

    The controller is used from the server's worker threads and, when the heartbeat runs, from
    the engine's research port on the heartbeat thread: both hold :attr:`lock` while they use it.

    Args:
        store: The open store (closed by :meth:`close`).
        engine: The document 002 engine over ``store``.
        controller: The attention controller over ``store``.
        lock: Guards the controller (default: a new re-entrant lock).
        heartbeat: The engine's running heartbeat, if any (stopped by :meth:`close`).
        session: The client session this backend serves (``None``: the store's own); its
            controller's trace events are tagged ``<session>.<random>`` and ``attention_health``
            reads only those.
        owns_store: Whether :meth:`close` closes the store and stops the engine (a session
            sharing another backend's store does not).
        controller_ref: The reference the engine's research port reads the controller through
            (kept pointing at :attr:`controller` when it is replaced).

    The session's turn (its budget, the selections in flight) is written to the store after
    every ``rank`` and ``resolve`` (:mod:`heedful.integrations.mcp.resume`), and read back before
    ``rank``, ``resolve`` and ``check_claim`` when another process on the store wrote it since:
    a candidate selected by one server process is resolved by the next as the first would have.
    """

    def __init__(
        self,
        store: Store,
        engine: Engine,
        controller: Controller,
        *,
        lock: threading.RLock | None = None,
        heartbeat: BackgroundHeartbeat | None = None,
        session: str | None = None,
        owns_store: bool = True,
        controller_ref: _ControllerRef | None = None,
    ) -> None:
        self.store = store
        self.engine = engine
        self.controller = controller
        self._controller_ref = controller_ref
        #: Version of the session's stored turn this backend last read or wrote (None: neither).
        self._seen: int | None = None
        #: Whether this backend's controller has served a turn (then a newer stored turn means
        #: it is stale, and a fresh controller restores it).
        self._touched = False
        self.lock = lock if lock is not None else threading.RLock()
        self.heartbeat = heartbeat
        self.session = session
        #: Who this backend's client is, recorded with its decisions on proposals.
        self.client = session or "stdio"
        self.owns_store = owns_store
        self._tag(controller)

    def _tag(self, controller: Controller) -> None:
        if self.session is not None and controller.mirror is not None:
            controller.mirror.session = f"{self.session}.{controller.mirror.session}"

    # --- the session's turn in the store (heedful.integrations.mcp.resume) ----------------------

    @property
    def _key(self) -> str:
        return self.session or ""

    def _sync(self) -> None:
        """Read the session's stored turn back if another process wrote it since this one did.

        Raises:
            ResumeError: The stored turn cannot be resumed (the message says why).
        """
        found = self.store.session_state(self._key)
        if found is None or found[0] == self._seen:
            return
        version, body = found
        if self._touched:  # this controller's turn is behind the store's: start from the store
            fresh = Controller(self.store)
            self._tag(fresh)
            restore(fresh, body)
            self.controller = fresh
            if self._controller_ref is not None:
                self._controller_ref.target = fresh
        else:
            restore(self.controller, body)
        self._seen = version
        self._touched = True

    @contextlib.contextmanager
    def _turn_lock(self) -> Iterator[None]:
        """Hold the store's turn lock (a file beside it) from reading the stored turn back to
        writing the new one, so two server processes on one store cannot both begin the same
        turn number under one session's trace tag; an in-memory store needs none."""
        path = getattr(self.store, "path", "")
        if not path or path == ":memory:":
            yield
            return
        with open(f"{path}.turn-lock", "a+b") as handle:
            os.chmod(handle.name, 0o600)
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

    def _save(self) -> None:
        """Write the session's turn to the store (after a call that changed it)."""
        self._seen = self.store.put_session_state(self._key, snapshot(self.controller))
        self._touched = True

    @property
    def reply_log(self) -> Store:
        """Where the first answers of keyed writes are kept: the store (they outlive a restart,
        so a client retrying after "Connection closed" gets the answer of the write applied)."""
        return self.store

    def session_backend(self, session: str) -> StoreBackend:
        """A backend for another client session on this store: same memory and engine, its own
        controller (turn, budget, candidates in flight), so one session can never resolve or
        see another's selection."""
        return StoreBackend(
            self.store, self.engine, Controller(self.store), session=session, owns_store=False
        )

    # --- engine (document 002 §3.3–§3.4) --------------------------------------------------------

    def survey(self, include_idle: bool) -> Mapping[str, Any]:
        """Forward to :meth:`Engine.survey`."""
        return self.engine.survey(include_idle=include_idle)

    def run_cycle(self, autonomy_override: str | None) -> Mapping[str, Any]:
        """Forward to :meth:`Engine.run_cycle` (raises GovernanceError above the ceiling)."""
        return self.engine.run_cycle(autonomy_override)

    def review_proposal(self, proposal_id: str, decision: str, reason: str) -> Mapping[str, Any]:
        """Forward to :meth:`Engine.approve` (within an act ceiling only) or ``reject``."""
        by = f"mcp:{self.client}"
        if decision == "approve":
            return self.engine.approve(proposal_id, by=by, within_ceiling=True)
        return self.engine.reject(proposal_id, by=by, reason=reason)

    # --- controller (document 000 §6, §11, §19) -------------------------------------------------

    def rank(
        self,
        budget: int | None,
        about_to_claim: Sequence[str],
        cost_weight: float | None,
        limit: int,
    ) -> Mapping[str, Any]:
        """Begin a turn, list live candidates by predicted net VOC, and select the first."""
        with self.lock, self._turn_lock():
            # A turn stored by another layout cannot be resumed; a new turn replaces it.
            with contextlib.suppress(ResumeError):
                self._sync()
            ctl = self.controller
            for claim_id in about_to_claim:
                self._known_claim(claim_id)
            ctl.about_to_claim(*about_to_claim)
            turn_id = ctl.begin_turn(budget, cost_weight=cost_weight)
            # One recomputation: the selection's own estimates are the ranking (the selected
            # candidate leaves the table, so it is put back beside the others).
            step = ctl.next()
            count, top = ctl.ranking(limit, step if isinstance(step, Candidate) else None)
            ranking = [
                {"candidate": cand.model_dump(mode="json"), "estimate": asdict(est)}
                for cand, est in top
            ]
            self._save()
            return {
                "turn_id": turn_id,
                "budget": budget,
                "candidates": count,
                "ranking": ranking,
                "next": _step(step),
            }

    def resolve(
        self,
        candidate_id: str,
        succeeded: bool,
        observations: Mapping[str, str | None],
        actual_cost: Mapping[str, float] | None,
        decision_changed: bool | None,
        utility_delta: float | None,
    ) -> Mapping[str, Any]:
        """Forward to :meth:`Controller.resolve`, then select the turn's next computation.

        Raises:
            UnknownNameError: ``candidate_id`` is not in flight in this session.
            ResumeError: It may have been selected by another server process, whose stored
                turn cannot be resumed.
        """
        with self.lock, self._turn_lock():
            try:
                self._sync()
            except ResumeError:
                if candidate_id not in self._in_flight():
                    raise
            if candidate_id not in self._in_flight():
                raise UnknownNameError(self._not_in_flight(candidate_id))
            ctl = self.controller
            resolution = ctl.resolve(
                candidate_id,
                succeeded=succeeded,
                observations=observations,
                actual_cost=actual_cost,
                decision_changed=decision_changed,
                utility_delta=utility_delta,
            )
            budget_left = ctl.budget  # before the next selection spends a read of it
            step = ctl.next()
            self._save()
            return {
                "candidate_id": candidate_id,
                "resolution": resolution.model_dump(mode="json"),
                "budget_left": budget_left,
                "next": _step(step),
            }

    def _in_flight(self) -> list[str]:
        return [cand.id for cand, _, _ in self.controller.in_flight()]

    def _not_in_flight(self, candidate_id: str) -> str:
        flying = self._in_flight()
        found = self.store.session_state(self._key)
        stored = in_flight_ids(found[1]) if found is not None else []
        now = ", ".join(flying) if flying else "none"
        where = "" if stored or found is None else " (the stored turn has none either)"
        return (
            f"candidate {candidate_id!r} was not selected or is already resolved: in flight in "
            f"this session: {now}{where}; attention_rank starts a turn and selects one"
        )

    def check_claim(self, claim_id: str, claim_type: str | None) -> Mapping[str, Any]:
        """Forward to :meth:`Controller.check_claim` for a claim the controller knows."""
        with self.lock:
            with contextlib.suppress(ResumeError):  # the claim is checked on the store's memory
                self._sync()
            self._known_claim(claim_id)
            verdict = self.controller.check_claim(claim_id, claim_type=claim_type)
            return {**asdict(verdict), "mode": self.controller.validator.mode.value}

    def register_source(self, source_id: str, **metadata: Any) -> Mapping[str, Any]:
        """Forward to :meth:`Controller.register_source` (written through to the store).

        ``trusted`` defaults to false, as in the library (one trust rule, issue 35 item 5):
        whoever registers a source without vouching for it may be an agent that read injected
        content.
        """
        with self.lock:
            self.controller.register_source(source_id, **{"trusted": False, **metadata})
            return {"status": "ok", "source": self._source(source_id)}

    def sources(self, source_ids: Sequence[str], limit: int) -> Mapping[str, Any]:
        """The sources named (every registered one when none is), by id, at most ``limit``."""
        with self.lock:
            world = self.controller.world
            for source_id in source_ids:
                world.source(source_id)  # UnknownNameError names the registered ones
            ids = sorted(set(source_ids) if source_ids else world.sources)
            return {
                "status": "ok",
                "total": len(ids),
                "sources": [self._source(source_id) for source_id in ids[:limit]],
            }

    def _source(self, source_id: str) -> dict[str, Any]:
        """A source as ranking credits it (authority, cost), beside what it claimed and, for an
        untrusted one, its record against trusted reports (document 000 §24)."""
        world = self.controller.world
        credited = world.source(source_id)
        claimed = world.claimed[source_id]
        trust: dict[str, float] | None = None
        if not credited.trusted:
            record = world.corroboration.get(source_id, Corroboration())
            trust = {
                "weight": record.weight,
                "net": record.net,
                "earned": record.earned(world.guard.trust_pseudo_count),
                "lift": record.lift(world.guard.trust_pseudo_count),
            }
        return {
            **asdict(credited),
            "claimed": {
                "authority": dict(claimed.authority),
                "default_authority": claimed.default_authority,
                "cost": claimed.cost,
            },
            "measured_cost": None if credited.trusted else world.measured_cost.get(source_id),
            "trust": trust,
        }

    def record_belief(self, claim_id: str, value: str | None, **metadata: Any) -> Mapping[str, Any]:
        """Forward to :meth:`Controller.record_belief` (written through to the store)."""
        with self.lock:
            self.controller.record_belief(claim_id, value, **metadata)
            now = self.controller.clock()
            return {
                "status": "ok",
                "belief": asdict(self.controller.world.claim_state(claim_id, now)),
            }

    def set_goal(self, goal_id: str, **fields: Any) -> Mapping[str, Any]:
        """Forward to :meth:`Controller.add_goal` (written through to the store)."""
        with self.lock:
            try:
                goal = Goal(id=goal_id, **fields)
            except ValidationError as exc:
                raise InvalidArgumentError(f"goal {goal_id!r}: {exc.errors()[0]['msg']}") from None
            self.controller.add_goal(goal)
            return {"status": "ok", "goal": self.store.get_goal(goal_id).model_dump(mode="json")}

    def health(self, window_turns: int | None) -> Mapping[str, Any]:
        """Compute :func:`heedful.attention.health.health` over the store's trace."""
        with self.lock:
            from dataclasses import replace

            from heedful.attention.health import health, rows_from_store

            config = self.controller.config.health
            if window_turns is not None:
                config = replace(config, window_turns=window_turns)
            records = self.store.trace()
            if self.session is not None:
                mine = f"{self.session}."
                records = [r for r in records if str(r.payload.get("session", "")).startswith(mine)]
            return {"status": "ok", **health(rows_from_store(records), config).to_dict()}

    def engine_status(self, recent: int) -> Mapping[str, Any]:
        """:meth:`Engine.status` plus its latest notices and journal entries (newest last)."""
        notices = list(getattr(self.engine.notifier, "notices", ()))[-recent:]
        entries = self.engine.journal_entries()[-recent:]
        return {
            "status": "ok",
            **self.engine.status(),
            "notices": [
                {"kind": n.kind, "goal_id": n.goal_id, "mode": n.mode, "message": n.message}
                for n in notices
            ],
            "journal": [
                {
                    "id": e.id,
                    "at": e.at,
                    "mode": e.mode,
                    "goal_id": e.goal_id,
                    "summary": e.summary,
                    "changes": e.describe(),
                    "nodes": e.nodes(),
                    "undone_at": e.undone_at,
                }
                for e in entries
            ],
        }

    def close(self) -> None:
        """Stop the engine's heartbeat (a cycle in flight finishes first), close the store."""
        if not self.owns_store:
            return
        if self.heartbeat is not None:
            self.heartbeat.stop()
        self.engine.deactivate()
        self.store.close()

    def _known_claim(self, claim_id: str) -> None:
        self.controller.world.require_claim(claim_id)


def open_backend(
    path: str | os.PathLike[str],
    engine_config: EngineConfig | None = None,
    *,
    heartbeat: bool = False,
    autonomy: AutonomyLevel | str | None = None,
) -> StoreBackend:
    """Open (creating if needed) the store at ``path`` with an engine and a controller over it.

    The engine researches with :class:`~heedful.engine.ControllerResearch` over this controller
    (graph full-text matches, the controller's beliefs and inspection leads).

    Args:
        path: The SQLite store.
        engine_config: Engine configuration (default: :class:`EngineConfig`).
        heartbeat: Start the engine's heartbeat on a background thread. It also starts when
            ``engine_config.enabled`` is true (document 002 §3.1: off by default, opt-in).
        autonomy: Autonomy level of the heartbeat's cycles (default: the configured level).

    Raises:
        StoreError: The store cannot be opened.
        InvalidArgumentError: ``autonomy`` is not a level.
    """
    level = parse_level(autonomy) if autonomy is not None else None
    store = Store.open(path)
    try:
        # The engine's journal lives beside the store, as with `heedful engine` (undo by id).
        journal = Journal(journal_path(path)) if os.fspath(path) != ":memory:" else None
        controller = Controller(store)
        lock = threading.RLock()
        graph = StoreGraph(store)
        ref = _ControllerRef(controller)
        research = ControllerResearch(graph, cast(Controller, ref), lock=lock)
        engine = Engine(graph, engine_config, journal=journal, research=research)
        backend = StoreBackend(store, engine, controller, lock=lock, controller_ref=ref)
        if heartbeat or engine.config.enabled:
            backend.heartbeat = BackgroundHeartbeat(engine, level)
            backend.heartbeat.start()
    except BaseException:
        store.close()
        raise
    return backend


class SessionBackends:
    """One backend per authenticated client of the HTTP transport (issue 25).

    Each token's name is a session. By default every session but the first has its own store
    beside the served one (``agent.db`` → ``agent.<name>.db``): beliefs, goals, turns and
    candidates are private, so one client can never resolve, overwrite or even see another's.
    With ``shared_store`` (the operator's choice) all sessions share the served store and its
    engine, each still with its own controller (turn, budget, candidates in flight).

    Args:
        main: The backend on the served store (the first token's session).
        main_session: The name of the session ``main`` serves.
        db: The served store's path (for the siblings' paths).
        engine_config: Configuration of the siblings' engines.
        shared_store: Share ``main``'s store between sessions.
    """

    def __init__(
        self,
        main: StoreBackend,
        main_session: str,
        db: str | os.PathLike[str],
        engine_config: EngineConfig | None = None,
        *,
        shared_store: bool = False,
    ) -> None:
        self.main = main
        self.main_session = main_session
        self.db = os.fspath(db)
        self.engine_config = engine_config
        self.shared_store = shared_store
        self._sessions: dict[str, StoreBackend] = {main_session: main}
        self._lock = threading.Lock()

    def store_path(self, session: str) -> str:
        """Where ``session``'s store lives (the served one when shared or the main session)."""
        if self.shared_store or session == self.main_session or self.db == ":memory:":
            return self.db
        root, dot, ext = self.db.rpartition(".")
        return f"{root}.{session}.{ext}" if dot and "/" not in ext else f"{self.db}.{session}"

    def get(self, session: str) -> StoreBackend:
        """The backend of ``session`` (opened on first use)."""
        with self._lock:
            found = self._sessions.get(session)
            if found is None:
                if self.shared_store or self.db == ":memory:":
                    found = self.main.session_backend(session)
                else:
                    found = open_backend(self.store_path(session), self.engine_config)
                    found.client = session
                self._sessions[session] = found
            return found

    def close(self) -> None:
        """Close every session's backend (the main one last)."""
        for name, backend in list(self._sessions.items()):
            if name != self.main_session:
                backend.close()
        self.main.close()
