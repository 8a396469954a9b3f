"""The per-trial tool environment of an agent under test (SPEC §5.1).

The environment owns the rules; the agent only calls tools:

* ``inspect_source(source_id)`` (adaptive condition): one observation at a time;
* ``plan_inspections(source_ids)`` (static condition): every observation at once, called once;
* ``decide(action, beliefs)``: ends the trial;
* ``attention_next()`` (advised agents only): the controller's next recommendation.

Every id is a JSON-schema ``enum``, so a conforming model cannot invent one. A call that breaks
the protocol (over budget, unknown id, repeated source, malformed arguments, unknown tool) gets a
tool error the model can read and flags the trial (``protocol_error``, first reason wins) — it
never raises. In **production** mode the claim validator (document 000 §19) checks ``decide``:
a state-sensitive belief without fresh authoritative evidence is refused, the validator reads the
authoritative source itself, and that read is recorded as *forced*, never as spontaneous.

**Hidden sources** (issue 23): a source the view does not list appears only when the read of its
revealer returns. That tool result then ends with a ``revealed`` line giving each new source's
visible metadata as JSON, its observation carries it (``Observation.revealed``), and from then
on it is in the tools' id enums (``tools`` is rebuilt, so a JSON-protocol grammar built from it
admits the id) and may be inspected. Before that its id is refused exactly like an id that does
not exist. In the static condition ``plan_inspections`` may be called once more for sources the
plan revealed (only those, within the budget): a policy in the static condition likewise learns
of a hidden source from its revealer's withheld read and may then ask for it.

**Legal moves** (``legal_moves=True``, docs/llm.md): :attr:`TrialEnv.offered_tools` is then,
each turn, exactly the moves legal in the trial's current state — no inspection tool once the
budget is used or nothing is left unread, no source already read in an id enum, no second plan
(except for the sources a plan revealed, within the budget left), ``attention_next`` only while
an inspection is still possible and something was read since it last answered — and only
``decide`` once nothing else is legal. An endpoint that enforces the schema (a grammar) then
cannot make a protocol error; :attr:`TrialEnv.tools` stays the full set, and a call outside the
offered moves gets the same error code as without them.

**Order**: given ``order`` (a generator seeded from the trial), the sources of the prompt
(:attr:`TrialEnv.prompt_view`), the source ids, actions and belief values of every enum are in
an order drawn per trial, so "the first option" is a random pick, never a cue.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import numpy as np

from heedful.attention.context import SourceInfo
from heedful.attention.validator import (
    ClaimPolicy,
    ClaimValidator,
    EvidenceRecord,
    Requirement,
    ValidatorMode,
)
from heedful.bench.agents.advice import Advisor
from heedful.bench.agents.bounded import json_depth_ok, loads_bounded
from heedful.bench.agents.config import DEFAULT_AGENT_CONFIG, AgentConfig
from heedful.bench.agents.hygiene import neutralise
from heedful.bench.policy import Observation
from heedful.bench.results import Violation
from heedful.model import SourceView, TaskView, Volatility

__all__ = ["Mode", "ToolReply", "ToolSpec", "Transcript", "TrialEnv", "render_observation"]

Mode = Literal["attention", "production"]
_CLAIM_TYPE = "live_system_state"
_NOW = datetime(2026, 1, 1, tzinfo=UTC)
#: Longest tool-call argument text the environment parses.
MAX_ARGUMENT_CHARS = 8192
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, what it does, and the JSON Schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any]

    def as_openai(self) -> dict[str, Any]:
        """The tool in the OpenAI ``tools`` format (plain data; no client involved)."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


@dataclass(frozen=True)
class ToolReply:
    """What the environment answers to one tool call."""

    text: str
    error: bool = False


@dataclass
class Transcript:
    """Everything the scorer needs from one trial (maps onto the bench's ``TrialOutcome``)."""

    history: list[Observation] = field(default_factory=list)
    forced: list[Observation] = field(default_factory=list)
    action: str | None = None
    beliefs: dict[str, str] | None = None
    violation: Violation | None = None
    protocol_error: str | None = None
    validator_blocked: bool = False
    tool_errors: int = 0
    text_turns: int = 0


def render_observation(label: str, template: str | None, obs: Observation) -> str:
    """The observation text of one inspection: the PRIVATE ``render`` template filled with the
    drawn report, or ``"<label>: <variable> = <value>"`` when the scenario has none."""
    values = obs.values or {}
    if template:
        return _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), template)
    if not values:
        return f"{label}: nothing relevant reported"
    return "; ".join(f"{label}: {var} = {val}" for var, val in values.items())


def _enum(values: Sequence[str]) -> dict[str, Any]:
    return {"type": "string", "enum": list(values)}


def describe_revealed(sources: Sequence[SourceView]) -> str:
    """The ``revealed:`` line of a tool result: each newly revealed source's visible metadata as
    compact JSON (the fields the prompt lists for a source the view lists up front)."""
    data = [
        {
            "id": s.id,
            "label": s.label,
            "kind": s.kind,
            "reports": list(s.reports),
            "authority": s.authority,
            "age_s": s.age_s,
            "cost": s.cost.model_dump(),
            "cues": s.salience.model_dump(),
            "content": s.content,
            **({"links": s.links} if s.links else {}),
            # Untrusted sources say so (document 000 §24): their authority is only a claim.
            **({"trusted": False} if not s.trusted else {}),
        }
        for s in sources
    ]
    return "revealed (you may inspect these from now on): " + neutralise(
        json.dumps(data, ensure_ascii=False)
    )


class TrialEnv:
    """One trial's tools and rules (see the module docstring).

    Args:
        view: The task view the agent sees (no id, family or condition; in the announced
            condition its task states the budget).
        reveal: The real observation of a source in this trial's world (evaluator side).
        renders: Source id → PRIVATE render template (or ``None``); used only to word results.
        adaptive: One inspection at a time (else: one plan, all results at once).
        mode: ``attention`` (validator off) or ``production`` (validator blocks ``decide``).
        advisor: The controller running on the same view (``llm-advised``), or ``None``.
        config: Protocol numbers.
        draw: Names the trial for a response cache (evaluator side; never shown to the agent).
        reveals: PRIVATE, evaluator side: per source id, the hidden sources its read reveals
            (:meth:`~heedful.model.Scenario.reveals`); shown only once revealed.
        legal_moves: :attr:`offered_tools` holds only the moves legal now (module docstring).
        order: Draws the per-trial order of sources and enum values (``None``: file order).
    """

    def __init__(
        self,
        view: TaskView,
        reveal: Callable[[str], Observation],
        renders: Mapping[str, str | None],
        *,
        adaptive: bool,
        mode: Mode = "attention",
        advisor: Advisor | None = None,
        config: AgentConfig = DEFAULT_AGENT_CONFIG,
        draw: str = "",
        reveals: Mapping[str, Sequence[SourceView]] | None = None,
        legal_moves: bool = False,
        order: np.random.Generator | None = None,
    ) -> None:
        self.view = view
        self.legal_moves = legal_moves
        self._order = order
        self.draw = draw
        self.adaptive = adaptive
        self.mode: Mode = mode
        self.advisor = advisor
        self.config = config
        self.transcript = Transcript()
        self.done = False
        self._reveal = reveal
        self._renders = dict(renders)
        self._links = {k: tuple(v) for k, v in (reveals or {}).items()}
        # Every source the agent may name: the listed ones (in the trial's order), then the
        # revealed ones in the order they appeared.
        self._actions = self._shuffled(list(view.actions))
        self._domains = {name: self._shuffled(list(v.domain)) for name, v in view.variables.items()}
        self._known: dict[str, SourceView] = {s.id: s for s in self._shuffled(list(view.sources))}
        self._advised_at: int | None = None
        self._revealed: list[str] = []
        self._planned = False
        self._text_run = 0
        self._unsatisfiable: set[str] = set()
        self._decision_vars = [
            v
            for v in view.variables
            if any(v in rule.when for a in view.actions.values() for rule in a.utility)
        ]
        self.tools = self._tool_specs()
        self._handlers: dict[str, Callable[[dict[str, Any]], ToolReply]] = {
            "inspect_source": self._inspect,
            "plan_inspections": self._plan,
            "decide": self._decide,
            "attention_next": self._advice,
        }

    # -- tool schemas ---------------------------------------------------------------------

    def _shuffled(self, items: list[Any]) -> list[Any]:
        if self._order is None or len(items) < 2:
            return items
        return [items[i] for i in self._order.permutation(len(items))]

    @property
    def prompt_view(self) -> TaskView:
        """The view as the prompt shows it: sources, actions and each domain in the trial's
        order (the same order as the tools' enums)."""
        listed = {s.id for s in self.view.sources}
        return self.view.model_copy(
            update={
                "sources": tuple(s for sid, s in self._known.items() if sid in listed),
                "actions": {a: self.view.actions[a] for a in self._actions},
                "variables": {
                    name: v.model_copy(update={"domain": tuple(self._domains[name])})
                    for name, v in self.view.variables.items()
                },
            }
        )

    @property
    def offered_tools(self) -> tuple[ToolSpec, ...]:
        """The tools to offer the model this turn: with ``legal_moves`` exactly the legal
        moves (module docstring), else :attr:`tools`."""
        if not self.legal_moves:
            return self.tools
        return self._tool_specs(legal=True)

    @property
    def revealed(self) -> tuple[str, ...]:
        """Ids of the hidden sources revealed so far, in the order they appeared."""
        return tuple(self._revealed)

    def _legal_ids(self) -> tuple[list[str], int]:
        """The ids an inspection may name now, and how many it may name (legal moves)."""
        read = self._read_ids()
        left = self.view.budget - len(self.transcript.history)
        if self.adaptive:
            ids = [sid for sid in self._known if sid not in read]
        elif not self._planned:
            ids = list(self._known)
        else:
            ids = [sid for sid in self._revealed if sid not in read]
        return (ids, left) if ids and left > 0 else ([], 0)

    def _tool_specs(self, *, legal: bool = False) -> tuple[ToolSpec, ...]:
        ids, most = list(self._known), self.view.budget
        if legal:
            ids, most = self._legal_ids()
        specs: list[ToolSpec] = []
        if legal and not ids:
            pass  # nothing left to inspect: no inspection tool
        elif self.adaptive:
            specs.append(
                ToolSpec(
                    "inspect_source",
                    "Inspect one source and read what it reports now.",
                    {
                        "type": "object",
                        "properties": {"source_id": _enum(ids)},
                        "required": ["source_id"],
                        "additionalProperties": False,
                    },
                )
            )
        else:
            specs.append(
                ToolSpec(
                    "plan_inspections",
                    "Inspect a set of sources at once (one call only); returns every report.",
                    {
                        "type": "object",
                        "properties": {
                            "source_ids": {
                                "type": "array",
                                "items": _enum(ids),
                                "maxItems": most,
                                "uniqueItems": True,
                            }
                        },
                        "required": ["source_ids"],
                        "additionalProperties": False,
                    },
                )
            )
        beliefs = {
            name: _enum(self._domains[name])
            for name in self.view.variables
            if name in self._decision_vars
        }
        specs.append(
            ToolSpec(
                "decide",
                "Take the final action and state what you believe about each variable.",
                {
                    "type": "object",
                    "properties": {
                        "action": _enum(self._actions),
                        "beliefs": {
                            "type": "object",
                            "properties": beliefs,
                            "additionalProperties": False,
                        },
                    },
                    "required": ["action", "beliefs"],
                    "additionalProperties": False,
                },
            )
        )
        # Legal moves: advice only while an inspection is still possible, and not twice on the
        # same reads (it would answer the same).
        ask = not legal or (bool(ids) and self._advised_at != len(self.transcript.history))
        if self.advisor is not None and ask:
            specs.append(
                ToolSpec(
                    "attention_next",
                    "Ask the attention controller which computation is worth doing next.",
                    {"type": "object", "properties": {}, "additionalProperties": False},
                )
            )
        return tuple(specs)

    # -- dispatch ---------------------------------------------------------------------------

    def flag(self, reason: str, violation: Violation | None = None) -> None:
        """Record a protocol error on the trial (the first reason is kept)."""
        if self.transcript.protocol_error is None:
            self.transcript.protocol_error = reason
        if violation is not None and self.transcript.violation is None:
            self.transcript.violation = violation

    def _error(self, text: str, reason: str, violation: Violation | None = None) -> ToolReply:
        self.transcript.tool_errors += 1
        self.flag(reason, violation)
        return ToolReply(f"error: {text}", error=True)

    def call(self, name: str, arguments: object) -> ToolReply:
        """Execute one tool call; never raises for anything the agent sends."""
        if self.done:
            return self._error("the trial is over: decide was already accepted", "call_after_end")
        self._text_run = 0
        handler = self._handlers.get(name)
        if handler is None or name not in {t.name for t in self.tools}:
            known = ", ".join(t.name for t in self.tools)
            return self._error(f"unknown tool {name!r}; tools: {known}", "unknown_tool")
        if isinstance(arguments, str):
            if len(arguments) > MAX_ARGUMENT_CHARS:
                return self._error(
                    f"arguments of {name} are {len(arguments):,} characters long "
                    f"(at most {MAX_ARGUMENT_CHARS:,})",
                    "malformed_arguments",
                )
            try:
                args = loads_bounded(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return self._error(
                    f"arguments of {name} are not valid JSON ({str(exc)[:80]})",
                    "malformed_arguments",
                )
        elif arguments is None:
            args = {}
        elif isinstance(arguments, Mapping):
            if not json_depth_ok(dict(arguments)):
                return self._error(
                    f"arguments of {name} are nested too deep", "malformed_arguments"
                )
            args = dict(arguments)
        else:
            return self._error(
                f"arguments of {name} must be a JSON object, not {type(arguments).__name__}",
                "malformed_arguments",
            )
        if not isinstance(args, dict):
            return self._error(f"arguments of {name} must be an object", "malformed_arguments")
        if (bad := self._check_names(name, args)) is not None:
            return bad
        return handler(args)

    def _check_names(self, name: str, args: dict[str, Any]) -> ToolReply | None:
        """Name the argument that is unknown or missing (before any check of the values, so an
        extra field is not reported as a bad value of a valid one)."""
        schema = next(t.parameters for t in self.tools if t.name == name)
        known = list(schema.get("properties", {}))
        unknown = [k for k in args if k not in known]
        if unknown:
            takes = f"it takes {', '.join(known)}" if known else "it takes no arguments"
            return self._error(
                f"{name}: unknown argument {str(unknown[0])[:80]!r}; {takes}", "malformed_arguments"
            )
        missing = [k for k in schema.get("required", []) if k not in args]
        if missing:
            return self._error(f"{name}: missing argument {missing[0]!r}", "malformed_arguments")
        return None

    def text_only_turn(self) -> None:
        """Count a model turn that called no tool; after ``config.max_text_turns`` of them in a
        row the trial ends (``text_only``) instead of burning the turn limit."""
        self.transcript.text_turns += 1
        self._text_run += 1
        if self._text_run >= self.config.max_text_turns:
            self.flag(f"text_only: {self._text_run} replies in a row called no tool")
            self.done = True

    # -- tools ------------------------------------------------------------------------------

    def _read(self, sid: str) -> tuple[Observation, str]:
        obs = self._reveal(sid)
        label = self._known[sid].label or sid
        if obs.failed:
            text = f"inspection of {sid} failed: the source returned nothing"
        else:
            # Scenario text: it may carry a chat template's control tokens (hygiene).
            text = neutralise(render_observation(label, self._renders.get(sid), obs))
        # A link is structure, not a result: the read reveals what it links to, failed or not.
        opened = tuple(
            SourceView.model_validate_json(h.model_dump_json())
            for h in self._links.get(sid, ())
            if h.id not in self._known
        )
        if opened:
            obs = replace(obs, revealed=opened)
            for h in opened:
                self._known[h.id] = h
                self._revealed.append(h.id)
            self.tools = self._tool_specs()
            text += "\n" + describe_revealed(opened)
        return obs, text

    def _check_id(self, sid: Any, tool: str) -> ToolReply | None:
        # A hidden source not yet revealed is refused exactly like an id that does not exist.
        if not isinstance(sid, str) or sid not in self._known:
            return self._error(
                f"{tool}: unknown source id {sid!r}", "unknown_source", Violation.UNKNOWN_SOURCE
            )
        if any(o.source_id == sid for o in self.transcript.history):
            return self._error(
                f"{tool}: {sid} was already inspected", "repeated_source", Violation.REPEATED_SOURCE
            )
        return None

    def _inspect(self, args: dict[str, Any]) -> ToolReply:
        if set(args) != {"source_id"}:
            return self._error("inspect_source takes exactly {source_id}", "malformed_arguments")
        sid = args["source_id"]
        if (bad := self._check_id(sid, "inspect_source")) is not None:
            return bad
        if len(self.transcript.history) >= self.view.budget:
            return self._error(
                f"inspection budget of {self.view.budget} is used up",
                "over_budget",
                Violation.OVER_BUDGET,
            )
        obs, text = self._read(sid)
        self.transcript.history.append(obs)
        return ToolReply(text, error=obs.failed)

    def _plan(self, args: dict[str, Any]) -> ToolReply:
        ids = args.get("source_ids")
        if set(args) != {"source_ids"} or not isinstance(ids, list):
            return self._error("plan_inspections takes {source_ids: [...]}", "malformed_arguments")
        if self._planned:
            open_ids = [r for r in self._revealed if r not in self._read_ids()]
            if not open_ids:
                return self._error("plan_inspections may be called once", "repeated_plan")
            if not all(isinstance(i, str) and i in open_ids for i in ids):
                return self._error(
                    "plan_inspections may be called again only for the sources the plan "
                    f"revealed ({', '.join(open_ids)})",
                    "repeated_plan",
                )
        if len(ids) + len(self.transcript.history) > self.view.budget:
            asked = f"{len(ids)} more" if self._planned else f"{len(ids)}"
            return self._error(
                f"{asked} sources asked, the budget is {self.view.budget}",
                "over_budget",
                Violation.OVER_BUDGET,
            )
        if len(set(map(str, ids))) != len(ids):
            return self._error(
                "a source is listed twice", "repeated_source", Violation.REPEATED_SOURCE
            )
        for sid in ids:
            if (bad := self._check_id(sid, "plan_inspections")) is not None:
                return bad
        self._planned = True
        lines = []
        for sid in ids:
            obs, text = self._read(sid)
            self.transcript.history.append(obs)
            lines.append(f"[{sid}] {text}")
        return ToolReply("\n".join(lines) if lines else "no source inspected")

    def _read_ids(self) -> set[str]:
        return {o.source_id for o in self.transcript.history}

    def _advice(self, args: dict[str, Any]) -> ToolReply:
        assert self.advisor is not None
        if args:
            return self._error("attention_next takes no arguments", "malformed_arguments")
        self._advised_at = len(self.transcript.history)
        return ToolReply(self.advisor.advise(self.transcript.history, adaptive=self.adaptive))

    def _decide(self, args: dict[str, Any]) -> ToolReply:
        action, beliefs = args.get("action"), args.get("beliefs", {})
        if not isinstance(action, str) or action not in self.view.actions:
            return self._error(
                f"decide: action must be one of {', '.join(self.view.actions)}, got {action!r}",
                "malformed_arguments",
            )
        if not isinstance(beliefs, dict):
            return self._error("decide: beliefs must be an object", "malformed_arguments")
        stated: dict[str, str] = {}
        for var, value in beliefs.items():
            domain = self.view.variables.get(var)
            if domain is None or str(value) not in domain.domain:
                return self._error(
                    f"decide: belief {var}={value!r} is not a variable and a value of its domain",
                    "malformed_arguments",
                )
            stated[str(var)] = str(value)
        if self.mode == "production" and (refusal := self._validate()) is not None:
            return refusal
        self.transcript.action = str(action)
        self.transcript.beliefs = stated
        self.done = True
        return ToolReply(f"decision recorded: {action}")

    # -- production validator (document 000 §19) --------------------------------------------

    def _state_variables(self) -> list[str]:
        """Believed, non-immutable decision variables: the claims the decision rests on (the
        same definition as the unprompted metrics, docs/metrics.md)."""
        believed = {b.variable for b in self.view.beliefs}
        return [
            v
            for v in self._decision_vars
            if v in believed and self.view.variables[v].volatility is not Volatility.IMMUTABLE
        ]

    def _validate(self) -> ToolReply | None:
        """Refuse ``decide`` when a state-sensitive belief lacks fresh authoritative evidence;
        the validator then reads the best authoritative source itself (a *forced* read)."""
        policy = ClaimPolicy(
            requires=(Requirement.FRESH_AUTHORITATIVE,),
            max_age_s=self.config.validator_max_age_s,
            min_authority=self.config.validator_min_authority,
        )
        validator = ClaimValidator({_CLAIM_TYPE: policy}, mode=ValidatorMode.PRODUCTION)
        sources = {
            s.id: SourceInfo(
                s.id, reports=s.reports, default_authority=s.authority, age_s=s.age_s, kind=s.kind
            )
            for s in self._known.values()
        }
        read = self.transcript.history + self.transcript.forced
        evidence = [
            EvidenceRecord(
                id=f"inspection-{i}",
                claim_id=var,
                source_id=o.source_id,
                observed_at=_NOW - timedelta(seconds=self._known[o.source_id].age_s),
                value=(o.values or {}).get(var),
                succeeded=not o.failed,
                forced=o in self.transcript.forced,
            )
            for i, o in enumerate(read)
            for var in self._known[o.source_id].reports
        ]
        done = {o.source_id for o in read}
        missing: list[str] = []
        forced_text: list[str] = []
        for var in self._state_variables():
            verdict = validator.check(var, _CLAIM_TYPE, evidence, sources, _NOW)
            if not verdict.blocked:
                continue
            # Only a source young enough to meet the rule's own age limit can satisfy it: a
            # forced read of an authoritative but stale source would feed the agent stale state.
            fresh = [
                sid
                for sid in verdict.required_sources
                if self._known[sid].age_s <= self.config.validator_max_age_s
            ]
            todo = [sid for sid in fresh if sid not in done]
            if not fresh and var not in self._unsatisfiable:
                self._unsatisfiable.add(var)
                missing.append(
                    f"{var} (no source can satisfy the rule: none with authority ≥ "
                    f"{self.config.validator_min_authority:g} is at most "
                    f"{self.config.validator_max_age_s:g} s old, so nothing was read)"
                )
                continue
            if not todo:
                continue  # every fresh authoritative source was read: it can do no more
            sid = todo[0]
            obs, text = self._read(sid)
            self.transcript.forced.append(obs)
            done.add(sid)
            missing.append(f"{var} (needs a fresh read of {', '.join(verdict.required_sources)})")
            forced_text.append(f"[{sid}] {text}")
        if not missing:
            return None
        self.transcript.validator_blocked = True
        self.transcript.tool_errors += 1
        told = ". The validator read it for you:\n" + "\n".join(forced_text) if forced_text else "."
        return ToolReply(
            "error: decide refused by the claim validator: no fresh authoritative evidence for "
            + "; ".join(missing)
            + told
            + "\nCall decide again.",
            error=True,
        )


def tool_schema_hash() -> str:
    """SHA-256 of the tool schemas on a canonical two-source view, in every condition and with
    the advice tool (the freeze protocol, document 000 §22.2: a schema change changes it)."""
    from heedful.bench.manifest import canonical_hash
    from heedful.model.scenario import ActionView, SourceView, UtilityRule, VariableView

    view = TaskView(
        budget=1,
        sources=(SourceView(id="a", reports=("x",)), SourceView(id="b")),
        variables={"x": VariableView(domain=("a", "b"))},
        actions={
            "act": ActionView(
                utility=(UtilityRule(when={"x": "a"}, value=1.0), UtilityRule(value=0.0))
            ),
            "wait": ActionView(utility=(UtilityRule(value=0.5),)),
        },
    )

    class _NoAdvice:
        def advise(self, history: Sequence[Observation], *, adaptive: bool) -> str:
            return ""

    specs = []
    for adaptive in (True, False):
        env = TrialEnv(
            view,
            lambda sid: Observation(sid),
            {},
            adaptive=adaptive,
            advisor=_NoAdvice(),  # type: ignore[arg-type]
        )
        specs += [t.as_openai() for t in env.tools]
    return canonical_hash(specs)
