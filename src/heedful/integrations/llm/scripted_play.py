"""Scripted agents: what the scripted endpoint answers, from the request alone.

Each behaviour reads only what a real model would: the messages (the prompt's JSON sections,
the tool replies so far) and the tool schemas of the request. The conversation is replayed on
every request, so the endpoint keeps no per-trial state and answers the same request the same
way (which is what lets the response cache replay a run).

Behaviours (see docs/llm.md for the failure each one is built to show):

``careful``            asks ``attention_next`` when offered and follows it; otherwise reads the
                       most authoritative, freshest source on each decision variable; states
                       what it read and takes the best action for it.
``summary-trusting``   acts on its notes unless the task announces inspection (then as careful);
                       it uses a read it is handed (the production validator's forced read).
``evidence-ignoring``  reads like careful, then states its old notes and acts on them.
``misreasoning``       reads like careful, states what it read, takes the worst action for it.
``over-inspecting``    reads every source in listed order up to the budget, then as careful.
``salience-chasing``   reads the loudest sources (urgent words, repeats, verbosity) first.
``summary-reading``    re-reads the summary its notes came from instead of the live source.
``flaky``              a 429, a 500, a timeout, malformed arguments, an unknown id and a
                       text-only answer on its first turns, then careful.
``broken``             answers a body that is not a chat completion.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

from heedful.integrations.llm.prompt import HEADINGS

__all__ = ["BEHAVIOURS", "Directive", "Play", "play"]

BEHAVIOURS = (
    "careful",
    "summary-trusting",
    "evidence-ignoring",
    "misreasoning",
    "over-inspecting",
    "salience-chasing",
    "summary-reading",
    "flaky",
    "broken",
)
_BLOCK = re.compile(r"([^\n]+):\n```json\n(.*?)\n```", re.DOTALL)
_ANNOUNCED = re.compile(r"you may inspect up to (\d+)", re.IGNORECASE)
_NOTHING = re.compile(r"no inspection is available", re.IGNORECASE)
_LINE = re.compile(r"^\[([^\]]+)\] (.*)$", re.MULTILINE)


@dataclass(frozen=True)
class Directive:
    """What the endpoint does with one request: answer a message, fail, hang or send garbage."""

    calls: tuple[tuple[str, Any], ...] = ()
    text: str | None = None
    status: int = 200
    hang: bool = False
    garbage: bool = False


@dataclass
class Play:
    """The state of a conversation, rebuilt from one request."""

    sources: list[dict[str, Any]]
    notes: dict[str, str]
    note_ages: dict[str, float]
    variables: dict[str, list[str]]
    actions: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    announced_budget: int | None
    turn: int
    read: dict[str, str] = field(default_factory=dict)
    planned: bool = False
    advice: str | None = None
    advice_fresh: bool = False
    over_budget: bool = False

    @classmethod
    def from_request(cls, request: dict[str, Any]) -> Play:
        """Rebuild the conversation state from a chat request."""
        messages = request.get("messages") or []
        user = next((m.get("content") or "" for m in messages if m.get("role") == "user"), "")
        blocks = {h.strip(): json.loads(body) for h, body in _BLOCK.findall(user)}
        tools = {
            t["function"]["name"]: t["function"].get("parameters", {})
            for t in request.get("tools") or []
        }
        notes = blocks.get(HEADINGS[1], [])
        announced = _ANNOUNCED.search(user)
        state = cls(
            sources=blocks.get(HEADINGS[0], []),
            notes={n["variable"]: n["value"] for n in notes},
            note_ages={n["variable"]: float(n["age_s"]) for n in notes},
            variables={k: v["values"] for k, v in blocks.get(HEADINGS[2], {}).items()},
            actions=blocks.get(HEADINGS[3], {}),
            tools=tools,
            announced_budget=(
                int(announced.group(1)) if announced else 0 if _NOTHING.search(user) else None
            ),
            turn=sum(1 for m in messages if m.get("role") == "assistant"),
        )
        state._replay(messages)
        return state

    def _replay(self, messages: list[dict[str, Any]]) -> None:
        calls: dict[str, tuple[str, Any]] = {}
        for m in messages:
            if m.get("role") == "assistant":
                for c in m.get("tool_calls") or []:
                    fn = c.get("function", {})
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                    except json.JSONDecodeError:
                        args = None
                    calls[c.get("id", "")] = (fn.get("name", ""), args)
            elif m.get("role") == "tool":
                name, args = calls.get(m.get("tool_call_id", ""), ("", None))
                self._absorb(name, args, m.get("content") or "")

    def _absorb(self, name: str, args: Any, reply: str) -> None:
        self.advice_fresh = False
        if name == "attention_next":
            self.advice, self.advice_fresh = reply, True
        elif name == "inspect_source" and isinstance(args, dict):
            if reply.startswith("error:"):
                self.over_budget |= "budget" in reply
            else:
                self.read[str(args.get("source_id"))] = reply
        elif name == "plan_inspections" and not reply.startswith("error:"):
            self.planned = True
            self.read.update(dict(_LINE.findall(reply)))
        elif name == "decide" and "validator" in reply:
            self.read.update(dict(_LINE.findall(reply)))  # the validator's forced reads

    # -- knowledge ----------------------------------------------------------------------------

    @property
    def budget(self) -> int:
        """The reads the agent allows itself: the announced budget, the plan's cap, or one per
        decision variable when nothing is stated."""
        plan = self.tools.get("plan_inspections", {}).get("properties", {}).get("source_ids", {})
        if "maxItems" in plan:
            return int(plan["maxItems"])
        if self.announced_budget is not None:
            return self.announced_budget
        return len(self.decision_vars) if not self.over_budget else len(self.read)

    @property
    def adaptive(self) -> bool:
        """Whether inspections are one at a time."""
        return "inspect_source" in self.tools

    @property
    def decision_vars(self) -> list[str]:
        """Variables named in some payoff rule."""
        out: dict[str, None] = {}
        for a in self.actions.values():
            for rule in a["payoff"]:
                out.update(dict.fromkeys(rule["when"]))
        return list(out)

    def observed(self) -> dict[str, str]:
        """Values read so far: for each source read, each variable it reports found in the text."""
        out: dict[str, str] = {}
        by_id = {s["id"]: s for s in self.sources}
        for sid, text in self.read.items():
            for var in by_id.get(sid, {}).get("reports", []):
                domain = sorted(self.variables.get(var, []), key=len, reverse=True)
                exact = re.search(rf"\b{re.escape(var)} = (\S+)", text)
                if exact and exact.group(1).rstrip(";") in domain:
                    out[var] = exact.group(1).rstrip(";")
                    continue
                hits = [v for v in domain if re.search(rf"(?<![\w.]){re.escape(v)}(?![\w.])", text)]
                if len(hits) == 1:
                    out[var] = hits[0]
        return out

    def utility(self, action: str, world: dict[str, str]) -> float:
        """Expected payoff of ``action`` with unknown variables uniform over their domains."""
        unknown = [v for v in self.decision_vars if v not in world]
        combos = list(itertools.product(*(self.variables[v] for v in unknown))) or [()]
        total = 0.0
        for combo in combos:
            w = {**world, **dict(zip(unknown, combo, strict=True))}
            for rule in self.actions[action]["payoff"]:
                if all(w.get(k) == v for k, v in rule["when"].items()):
                    total += float(rule["value"])
                    break
        return total / len(combos)

    def best_action(self, world: dict[str, str], worst: bool = False) -> str:
        """The action of highest (or lowest) expected payoff; ties go to the first listed."""
        ranked = sorted(self.actions, key=lambda a: self.utility(a, world), reverse=not worst)
        return ranked[0]

    def authoritative_order(self) -> list[str]:
        """Sources on decision variables, most authoritative and freshest first."""
        relevant = set(self.decision_vars)
        useful = [s for s in self.sources if set(s["reports"]) & relevant]
        useful.sort(key=lambda s: (-s["authority"], s["age_s"], s["id"]))
        picked: list[str] = []
        covered: set[str] = set()
        for s in useful:  # one per variable first, then the rest
            if not set(s["reports"]) <= covered:
                picked.append(s["id"])
                covered |= set(s["reports"])
        return picked + [s["id"] for s in useful if s["id"] not in picked]


def _decide(p: Play, beliefs: dict[str, str], worst: bool = False) -> Directive:
    stated = {k: v for k, v in beliefs.items() if k in p.decision_vars}
    args = {"action": p.best_action(stated, worst=worst), "beliefs": stated}
    return Directive(calls=(("decide", args),))


def _read_next(p: Play, order: list[str]) -> Directive | None:
    """Read the next source of ``order`` within the budget, or ``None`` when done."""
    if not p.adaptive:
        if p.planned:
            return None
        return Directive(calls=(("plan_inspections", {"source_ids": order[: p.budget]}),))
    todo = [sid for sid in order if sid not in p.read]
    if p.over_budget or len(p.read) >= p.budget or not todo:
        return None
    return Directive(calls=(("inspect_source", {"source_id": todo[0]}),))


def _careful(p: Play) -> Directive:
    if "attention_next" in p.tools:
        if not p.advice_fresh:
            return Directive(calls=(("attention_next", {}),))
        advice = p.advice or ""
        if (m := re.match(r"Inspect (\S+) next", advice)) and m.group(1) not in p.read:
            return Directive(calls=(("inspect_source", {"source_id": m.group(1)}),))
        if advice.startswith("Inspect:") and not p.planned:
            ids = re.findall(r"([^\s,:]+) \(net value", advice)
            return Directive(calls=(("plan_inspections", {"source_ids": ids}),))
        return _decide(p, {**p.notes, **p.observed()})
    step = _read_next(p, p.authoritative_order())
    return step or _decide(p, {**p.notes, **p.observed()})


def _with_order(p: Play, order: list[str], **decide: Any) -> Directive:
    step = _read_next(p, order)
    return step or _decide(p, {**p.notes, **p.observed()}, **decide)


def _summaries(p: Play) -> list[str]:
    """Sources whose data are as old as a note: where the notes came from."""
    return [
        s["id"]
        for s in p.sources
        if any(abs(s["age_s"] - p.note_ages.get(v, -1e9)) < 0.5 for v in s["reports"])
    ]


def play(behaviour: str, request: dict[str, Any], attempt: int) -> Directive:
    """What ``behaviour`` answers to ``request`` (``attempt``: how often it was seen before)."""
    if behaviour == "broken":
        return Directive(garbage=True)
    p = Play.from_request(request)
    if behaviour == "careful":
        return _careful(p)
    if behaviour == "summary-trusting":
        if p.announced_budget is None:
            return _decide(p, {**p.notes, **p.observed()})  # observed: only what it was handed
        return _with_order(p, p.authoritative_order())
    if behaviour == "evidence-ignoring":
        step = _read_next(p, p.authoritative_order())
        return step or _decide(p, {**p.observed(), **p.notes})
    if behaviour == "misreasoning":
        return _with_order(p, p.authoritative_order(), worst=True)
    if behaviour == "over-inspecting":
        return _with_order(p, [s["id"] for s in p.sources])
    if behaviour == "salience-chasing":
        loud = sorted(
            p.sources,
            key=lambda s: (
                -s["cues"]["urgent_words"],
                -s["cues"]["repeats"],
                -s["cues"]["verbosity"],
            ),
        )
        return _with_order(p, [s["id"] for s in loud])
    if behaviour == "summary-reading":
        return _with_order(p, _summaries(p) or p.authoritative_order())
    if behaviour == "flaky":
        return _flaky(p, request, attempt)
    raise ValueError(f"unknown behaviour {behaviour!r}; known: {', '.join(BEHAVIOURS)}")


def _flaky(p: Play, request: dict[str, Any], attempt: int) -> Directive:
    first_source = p.sources[0]["id"] if p.sources else "x"
    tool = "inspect_source" if p.adaptive else "plan_inspections"
    if p.turn == 0:
        if attempt < 2:
            return Directive(status=429 if attempt == 0 else 500)
        return Directive(calls=((tool, "{not json"),))
    if p.turn == 1:
        if attempt == 0:
            return Directive(hang=True)
        bad = {"source_id": "no-such-source"} if p.adaptive else {"source_ids": ["no-such-source"]}
        return Directive(calls=((tool, bad),))
    if p.turn == 2:
        return Directive(text=f"I would rather think about {first_source} first.")
    return _careful(p)
