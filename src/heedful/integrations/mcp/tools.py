"""The MCP tools as data: name, description, strict argument model, and the backend call.

This module does not import ``mcp``: it turns raw JSON arguments into one backend call and
either a JSON-able result or a :class:`ToolFailure` with a message for the agent to read. The
transport layer (:mod:`heedful.integrations.mcp.server`) only wraps that in MCP types.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import math
import threading
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from heedful.errors import HeedfulError
from heedful.integrations.mcp.arguments import (
    CheckClaimArgs,
    EngineStatusArgs,
    HealthArgs,
    RankArgs,
    RecordBeliefArgs,
    RegisterSourceArgs,
    ResolveArgs,
    ReviewProposalArgs,
    RunCycleArgs,
    SetGoalArgs,
    SourcesArgs,
    SurveyArgs,
    ToolArgs,
)
from heedful.integrations.mcp.backend import Backend
from heedful.integrations.mcp.salience_tool import SalienceArgs, run_salience
from heedful.memory.replies import RememberedReply
from heedful.model.inputs import MAX_ID_CHARS, Id

__all__ = [
    "REQUEST_KEY",
    "TOOLS",
    "MemoryReplies",
    "ReplyLog",
    "ToolFailure",
    "ToolSpec",
    "call_tool",
    "jsonable",
    "reply_log",
    "tool_names",
]


class ToolFailure(Exception):
    """A tool call that failed in a way the caller can read and correct (an MCP tool error)."""


@dataclass(frozen=True)
class ToolSpec:
    """One MCP tool: what the agent sees (name, description, schema) and what it calls.

    Attributes:
        name: The tool name.
        description: What the tool does, for the agent.
        args: The strict pydantic model of its arguments; its JSON Schema is the input schema.
        run: Calls the backend with validated arguments and returns the response mapping.
        read_only: True when the call never changes stored state.
    """

    name: str
    description: str
    args: type[ToolArgs]
    run: Callable[[Backend, Any], Mapping[str, Any]]
    read_only: bool

    def input_schema(self) -> dict[str, Any]:
        """Return the JSON Schema of the arguments (see :meth:`_args_schema`); a write tool
        also takes the optional ``request_key`` (:data:`REQUEST_KEY_SCHEMA`)."""
        schema = self._args_schema()
        if not self.read_only:
            schema.setdefault("properties", {})[REQUEST_KEY] = dict(REQUEST_KEY_SCHEMA)
        return schema

    def _args_schema(self) -> dict[str, Any]:
        """Return the JSON Schema of the arguments (``additionalProperties: false``).

        An optional argument (default ``null``) is described by its type alone, e.g.
        ``{"type": "integer", "minimum": 0, "default": null}`` rather than ``anyOf`` with
        ``null``: clients that convert command-line text by a property's top-level ``type``
        (the MCP Inspector CLI sends ``budget=3`` as the string ``"3"`` otherwise, which the
        strict arguments refuse) can then pass it. Omitting it means null, and an explicit
        ``null`` is still accepted.
        """
        schema = self.args.model_json_schema()
        # The model's own title and docstring are for developers, not the agent.
        schema.pop("title", None)
        schema.pop("description", None)
        defs = schema.get("$defs", {})
        for name, prop in schema.get("properties", {}).items():
            schema["properties"][name] = _typed_ref(_typed_optional(prop, defs), defs)
        return schema


def _typed_ref(prop: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """A bare ``{"$ref": ...}`` property also states its target's ``type``: a client that
    converts command-line text by a property's top-level type (the MCP Inspector CLI) would
    otherwise send ``cost={"tool_calls": 2}`` as a string."""
    if "type" in prop or "$ref" not in prop:
        return prop
    target = defs.get(str(prop["$ref"]).rsplit("/", 1)[-1], {})
    return {**prop, "type": target["type"]} if "type" in target else prop


def _typed_optional(prop: dict[str, Any], defs: Mapping[str, Any]) -> dict[str, Any]:
    """``{"anyOf": [X, {"type": "null"}], ...}`` with a null default → X's schema, typed."""
    branches = prop.get("anyOf")
    if prop.get("default", 0) is not None or not isinstance(branches, list):
        return prop
    kept = [b for b in branches if b != {"type": "null"}]
    if len(kept) != 1 or len(branches) != 2:
        return prop
    inner = dict(kept[0])
    if "type" not in inner and "$ref" in inner:
        # A $ref sibling: its target's type, so a client knows to send an object.
        target = defs.get(str(inner["$ref"]).rsplit("/", 1)[-1], {})
        if "type" in target:
            inner["type"] = target["type"]
    if "type" not in inner:
        return prop
    rest = {k: v for k, v in prop.items() if k != "anyOf"}
    return {**inner, **rest}


def _survey(backend: Backend, args: SurveyArgs) -> Mapping[str, Any]:
    return backend.survey(include_idle=args.include_idle)


def _run_cycle(backend: Backend, args: RunCycleArgs) -> Mapping[str, Any]:
    return backend.run_cycle(autonomy_override=args.autonomy_override)


def _review_proposal(backend: Backend, args: ReviewProposalArgs) -> Mapping[str, Any]:
    return backend.review_proposal(args.proposal_id, args.decision, args.reason)


def _engine_status(backend: Backend, args: EngineStatusArgs) -> Mapping[str, Any]:
    return backend.engine_status(recent=args.recent)


def _rank(backend: Backend, args: RankArgs) -> Mapping[str, Any]:
    return backend.rank(
        budget=args.budget,
        about_to_claim=args.about_to_claim,
        cost_weight=args.cost_weight,
        limit=args.limit,
    )


def _resolve(backend: Backend, args: ResolveArgs) -> Mapping[str, Any]:
    return backend.resolve(
        candidate_id=args.candidate_id,
        succeeded=args.succeeded,
        observations=args.observations,
        actual_cost=args.actual_cost.model_dump() if args.actual_cost is not None else None,
        decision_changed=args.decision_changed,
        utility_delta=args.utility_delta,
    )


def _check_claim(backend: Backend, args: CheckClaimArgs) -> Mapping[str, Any]:
    return backend.check_claim(claim_id=args.claim_id, claim_type=args.claim_type)


def _register_source(backend: Backend, args: RegisterSourceArgs) -> Mapping[str, Any]:
    return backend.register_source(
        args.source_id,
        reports=args.reports,
        authority=args.authority_by_claim_type,
        default_authority=args.authority,
        cost=args.cost.model_dump(),
        age_s=args.age_s,
        kind=args.kind,
        failure_rate=args.failure_rate,
        links=args.links,
        trusted=args.trusted,
    )


def _sources(backend: Backend, args: SourcesArgs) -> Mapping[str, Any]:
    return backend.sources(source_ids=args.source_ids, limit=args.limit)


def _record_belief(backend: Backend, args: RecordBeliefArgs) -> Mapping[str, Any]:
    return backend.record_belief(
        args.claim_id,
        args.value,
        domain=args.domain,
        claim_type=args.claim_type,
        confidence=args.confidence,
        age_s=args.age_s,
        volatility=args.volatility,
        source_id=args.source_id,
    )


def _health(backend: Backend, args: HealthArgs) -> Mapping[str, Any]:
    return backend.health(window_turns=args.window_turns)


def _set_goal(backend: Backend, args: SetGoalArgs) -> Mapping[str, Any]:
    fields = args.model_dump(exclude={"goal_id"})
    return backend.set_goal(args.goal_id, **fields)


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="attention_survey",
        description=(
            "Get the current attention map: a ranked list of what needs attention, based on "
            "active goals, coverage gaps and κ topology. Does not execute actions. Use it to "
            "see what the system would do if given autonomy."
        ),
        args=SurveyArgs,
        run=_survey,
        read_only=True,
    ),
    ToolSpec(
        name="attention_run_cycle",
        description=(
            "Trigger one attention cycle: survey goals and coverage, triage, and dispatch "
            "according to the autonomy level. Returns what was dispatched and the outcomes. "
            "The operator sets a ceiling (observe unless raised with --max-autonomy or a "
            "governance file); an autonomy_override above it is refused. At advise, each "
            "dispatch is queued as a proposal for a person to approve."
        ),
        args=RunCycleArgs,
        run=_run_cycle,
        read_only=False,
    ),
    ToolSpec(
        name="attention_review_proposal",
        description=(
            "Approve or reject a proposal the engine queued at advise level (ids in "
            "attention_engine_status 'pending_proposals'). Approving runs that one dispatch "
            "now at act level and is refused unless the operator's ceiling is act; rejecting "
            "is always allowed. Both are journaled."
        ),
        args=ReviewProposalArgs,
        run=_review_proposal,
        read_only=False,
    ),
    ToolSpec(
        name="attention_engine_status",
        description=(
            "What the proactive engine is doing on its own: whether its heartbeat runs (started "
            "with `heedful mcp serve --engine` or `enabled: true` in the engine config), its "
            "autonomy level, the last cycle, the latest notices (escalations, proposals, "
            "inspections worth running) and journal entries (what it changed, undoable)."
        ),
        args=EngineStatusArgs,
        run=_engine_status,
        read_only=True,
    ),
    ToolSpec(
        name="attention_rank",
        description=(
            "Start a turn and rank the computations worth doing now (inspect a source, check a "
            "belief, handle an interruption...) by predicted value of computation, net of cost. "
            "Returns the ranking and 'next': the one to execute first, or a stop when nothing "
            "is worth its cost or the budget is spent. Execute it, then call attention_resolve."
        ),
        args=RankArgs,
        run=_rank,
        read_only=False,
    ),
    ToolSpec(
        name="attention_resolve",
        description=(
            "Report the outcome of the computation selected in 'next' (what was observed, what "
            "it cost). Updates beliefs and returns the turn's next computation or a stop."
        ),
        args=ResolveArgs,
        run=_resolve,
        read_only=False,
    ),
    ToolSpec(
        name="attention_check_claim",
        description=(
            "Before asserting a claim, check that its evidence meets its type's preconditions "
            "(e.g. live_system_state needs authoritative evidence younger than 300 s). In "
            "production mode a failing claim is blocked and the needed read is forced."
        ),
        args=CheckClaimArgs,
        run=_check_claim,
        read_only=False,
    ),
    ToolSpec(
        name="attention_register_source",
        description=(
            "Register (or replace) a source the agent can inspect: which claims it reports, "
            "its authority, its cost and the age of its data. trusted=false for a source whose "
            "metadata are only its claims: its authority is capped and its cost floored until "
            "its reports agree with trusted ones."
        ),
        args=RegisterSourceArgs,
        run=_register_source,
        read_only=False,
    ),
    ToolSpec(
        name="attention_sources",
        description=(
            "The registered sources as the controller holds them: for each, the authority and "
            "cost it is credited with in ranking (an untrusted source's capped authority, moved "
            "by its agreement with trusted reports, and its floored or measured cost), what it "
            "claimed when registered, and an untrusted source's trust record."
        ),
        args=SourcesArgs,
        run=_sources,
        read_only=True,
    ),
    ToolSpec(
        name="attention_record_belief",
        description=(
            "Record (or replace) what the agent believes about a claim, with its confidence, "
            "the age of its evidence and how fast the underlying state changes."
        ),
        args=RecordBeliefArgs,
        run=_record_belief,
        read_only=False,
    ),
    ToolSpec(
        name="attention_set_goal",
        description=(
            "Add or replace a goal (status, priority, timescale, deadline, the claims its "
            "decision depends on). Active goals drive attention_survey and attention_rank."
        ),
        args=SetGoalArgs,
        run=_set_goal,
        read_only=False,
    ),
    ToolSpec(
        name="attention_health",
        description=(
            "How well the attention controller itself is doing, from its trace: the funnel "
            "(opportunity → fired → candidate → selected → succeeded → used) per trigger and a "
            "verdict (ok, warn, n/a) for each controller failure mode: priority inflation, "
            "overinspection, underinspection, thrashing, starvation, novelty addiction, "
            "self-confirmation, candidate blindness."
        ),
        args=HealthArgs,
        run=_health,
        read_only=True,
    ),
    ToolSpec(
        name="salience",
        description=(
            "Document 003's salience pipeline on one user turn: urgency, topics, focus "
            "duration (from the chat history you pass), priority tools and the context filter "
            "for memory retrieval; optionally filters fragments by the topics. Stateless."
        ),
        args=SalienceArgs,
        run=run_salience,
        read_only=True,
    ),
)


def tool_names() -> list[str]:
    """Return the names of every tool, in registration order."""
    return [spec.name for spec in TOOLS]


def _find(name: str) -> ToolSpec:
    for spec in TOOLS:
        if spec.name == name:
            return spec
    raise ToolFailure(f"unknown tool {name!r}; available: {', '.join(tool_names())}")


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _describe(spec: ToolSpec, exc: ValidationError) -> str:
    """One readable line per argument problem, e.g. ``include_idle: must be a boolean``."""
    allowed = ", ".join(spec.args.model_fields) or "(none)"
    problems: list[str] = []
    for error in exc.errors():
        where = ".".join(str(part) for part in error["loc"]) or "arguments"
        if error["type"] == "extra_forbidden" and len(error["loc"]) == 1:
            problems.append(f"unknown argument {where!r} (accepted: {allowed})")
        elif error["type"] == "extra_forbidden":
            problems.append(f"unknown field {where!r}")
        else:
            problems.append(f"{where}: {error['msg']} (got {_short(error.get('input'))})")
    return f"invalid arguments for {spec.name}: " + "; ".join(problems)


#: The argument every write tool takes to make a retry safe (docs/mcp.md "Retrying writes").
REQUEST_KEY = "request_key"
#: Its JSON Schema.
REQUEST_KEY_SCHEMA: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_ID_CHARS,
    "description": (
        "Optional: a key of your choosing, new for each write. Sent again with the same "
        "arguments (a retry after a lost answer), the first answer is returned and the write "
        "is not applied twice."
    ),
}


class _KeyArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    request_key: Id


class ReplyLog(Protocol):
    """Where the first answers of keyed writes are kept (a :class:`~heedful.memory.Store`)."""

    def remembered_reply(self, session: str, key: str) -> RememberedReply | None:
        """The answer remembered for ``key``, or ``None``."""
        ...

    def remember_reply(
        self, session: str, key: str, tool: str, digest: str, reply: dict[str, Any]
    ) -> None:
        """Remember the answer to ``key`` (a key remembered already keeps its first answer)."""
        ...


class MemoryReplies:
    """A :class:`ReplyLog` in memory (a backend without a store): the latest ``limit`` keys."""

    def __init__(self, limit: int = 10_000) -> None:
        self.limit = limit
        self._replies: dict[tuple[str, str], RememberedReply] = {}

    def remembered_reply(self, session: str, key: str) -> RememberedReply | None:
        """The answer remembered for ``key``, or ``None``."""
        return self._replies.get((session, key))

    def remember_reply(
        self, session: str, key: str, tool: str, digest: str, reply: dict[str, Any]
    ) -> None:
        """Remember the answer to ``key`` (the first one stays)."""
        self._replies.setdefault((session, key), RememberedReply(tool, digest, reply, 0.0))
        while len(self._replies) > self.limit:
            del self._replies[next(iter(self._replies))]


_MEMORY_LOGS: weakref.WeakKeyDictionary[Any, MemoryReplies] = weakref.WeakKeyDictionary()
_KEYED = threading.RLock()


def reply_log(backend: Backend) -> ReplyLog:
    """Where ``backend``'s keyed answers are kept: its ``reply_log`` (the store, so a retry
    reaches the answer after a server restart), else one in memory for this backend."""
    found = getattr(backend, "reply_log", None)
    if found is not None:
        return cast(ReplyLog, found)
    with _KEYED:
        return _MEMORY_LOGS.setdefault(backend, MemoryReplies())


def _digest(name: str, args: BaseModel) -> str:
    text = json.dumps(
        {"tool": name, "arguments": args.model_dump(mode="json")},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _request_key(spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
    """Take ``request_key`` out of a write tool's arguments (checked like an id)."""
    if spec.read_only or REQUEST_KEY not in arguments:
        return None
    raw = arguments.pop(REQUEST_KEY)
    try:
        return _KeyArgs.model_validate({REQUEST_KEY: raw}).request_key
    except ValidationError as exc:
        raise ToolFailure(_describe(spec, exc)) from exc


def call_tool(backend: Backend, name: str, arguments: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``arguments``, call the backend and return a JSON-able response.

    A write tool's ``request_key`` makes a retry safe: the first answer to a key is kept (in
    the backend's store when it has one) before this returns, and the same key with the same
    arguments returns that answer again without calling the backend; the same key with other
    arguments is refused. A call that failed keeps nothing (a retry runs it).

    Raises:
        ToolFailure: Unknown tool, invalid arguments, a key reused for another call, or a
            :class:`HeedfulError` from the backend (its message is passed on, prefixed with
            the error type).
    """
    spec = _find(name)
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ToolFailure(f"invalid arguments for {name}: expected an object")
    given = dict(arguments or {})
    key = _request_key(spec, given)
    try:
        args = spec.args.model_validate(given)
    except ValidationError as exc:
        raise ToolFailure(_describe(spec, exc)) from exc
    if key is None:
        return _run(spec, backend, args)
    log, session = reply_log(backend), str(getattr(backend, "client", ""))
    digest = _digest(name, args)
    with _KEYED:  # one keyed call at a time: a retry racing its first attempt waits for it
        first = log.remembered_reply(session, key)
        if first is not None:
            if (first.tool, first.digest) != (name, digest):
                raise ToolFailure(
                    f"{REQUEST_KEY} {key!r} was already used for another call ({first.tool} "
                    "with other arguments); use a new key for each new write"
                )
            return dict(first.reply)
        out = _run(spec, backend, args)
        try:
            log.remember_reply(session, key, name, digest, out)
        except HeedfulError as exc:
            # Applied but not remembered: say so rather than let a retry apply it again.
            raise ToolFailure(
                f"{name} was applied, but its answer could not be kept for {REQUEST_KEY} "
                f"{key!r} ({exc}); do not retry it"
            ) from exc
        return out


def _run(spec: ToolSpec, backend: Backend, args: BaseModel) -> dict[str, Any]:
    try:
        result = spec.run(backend, args)
    except HeedfulError as exc:
        raise ToolFailure(f"{type(exc).__name__}: {exc}") from exc
    out = jsonable(result)
    if not isinstance(out, dict):
        raise TypeError(f"{spec.name} returned {type(result).__name__}, expected a mapping")
    return out


def jsonable(value: Any) -> Any:
    """Convert a backend response into plain JSON types (enums, dataclasses, models, dates).

    Non-finite floats become ``None`` because JSON has no NaN or infinity.
    """
    if isinstance(value, enum.Enum):
        return jsonable(value.value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, BaseModel):
        return jsonable(value.model_dump(mode="python"))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, Mapping):
        return {str(jsonable(k)): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        items = [jsonable(v) for v in value]
        return sorted(items, key=repr) if isinstance(value, set | frozenset) else items
    if callable(getattr(value, "tolist", None)):  # numpy arrays and scalars
        return jsonable(value.tolist())
    raise TypeError(f"cannot convert {type(value).__name__} to JSON")
