"""An LLM agent sees a hidden source only once revealed (issue 23), in both protocols.

A stand-in client answers the real ``llm`` agent's turns from a fixed script and records every
request, so the tests see what the model was offered each turn: before the revealer is read no
tool schema, turn schema or grammar names the hidden source; after, the tool result names it and
the next request admits its id.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml

from heedful.bench.agents.contract import AgentSettings, CallStats, get_agent
from heedful.bench.agents.env import TrialEnv
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.views import policy_view
from heedful.integrations.llm.client import ChatResult
from heedful.integrations.llm.turns import schema_grammar
from heedful.model import Scenario, scenario_from_dict

HIDDEN = "live-probe"


HIDDEN_LIVE = Path(__file__).resolve().parents[2] / "data" / "hidden_live.yaml"


def _scenario() -> Scenario:
    """The shared hidden-source world (tests/data/hidden_live.yaml), as this file uses it."""
    raw = yaml.safe_load(HIDDEN_LIVE.read_text(encoding="utf-8"))
    for key in ("label", "age_s"):
        del raw["sources"][2][key]
    return scenario_from_dict(raw, file="hidden.yaml")


class _Script:
    """A chat client that plays fixed turns and records each request."""

    def __init__(self, turns: list[tuple[str, dict[str, Any]]], *, native: bool) -> None:
        self.turns, self.native = list(turns), native
        self.requests: list[dict[str, Any]] = []

    async def chat(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        draw: str = "",
        extra: dict[str, Any] | None = None,
    ) -> ChatResult:
        self.requests.append(
            {"messages": json.loads(json.dumps(messages)), "tools": tools, "extra": extra}
        )
        name, args = self.turns.pop(0)
        if self.native:
            call = {"id": "c1", "function": {"name": name, "arguments": json.dumps(args)}}
            message: dict[str, Any] = {"role": "assistant", "content": "", "tool_calls": [call]}
        else:
            turn = json.dumps({"tool": name, "arguments": args})
            message = {"role": "assistant", "content": turn}
        return ChatResult({"choices": [{"message": message}]}, CallStats(calls=1))

    async def aclose(self) -> None:
        return


TURNS: list[tuple[str, dict[str, Any]]] = [
    ("inspect_source", {"source_id": HIDDEN}),  # not revealed yet: refused, reads nothing
    ("inspect_source", {"source_id": "catalogue"}),
    ("inspect_source", {"source_id": HIDDEN}),
    ("decide", {"action": "hold", "beliefs": {"state": "down"}}),
]


def _play(protocol: Literal["tools", "json"]) -> tuple[TrialEnv, _Script]:
    sc = _scenario()
    world = TrialWorld.draw(ScenarioOracle.prepare(sc, adaptive=True), np.random.default_rng(0))
    env = TrialEnv(
        policy_view(sc),
        world.observation,
        {sid: t.render for sid, t in sc.truth.sources.items()},
        adaptive=True,
        reveals=sc.reveals(),
    )
    settings = AgentSettings(model="m", base_url="http://127.0.0.1:9/v1", protocol=protocol)
    agent = get_agent("llm", settings=settings)
    script = _Script(TURNS, native=protocol == "tools")
    agent.client = script  # type: ignore[attr-defined]
    asyncio.run(agent.play(env))
    return env, script


def test_native_tools_offer_the_hidden_id_only_after_its_revealer_was_read() -> None:
    env, script = _play("tools")
    offered = [json.dumps(r["tools"]) for r in script.requests]
    assert [HIDDEN in t for t in offered] == [False, False, True, True]
    assert HIDDEN not in json.dumps(script.requests[0]["messages"])  # nor in the prompt
    results = [m["content"] for m in script.requests[2]["messages"] if m["role"] == "tool"]
    assert results[0].startswith("error: inspect_source: unknown source id")
    assert f'now on): [{{"id": "{HIDDEN}"' in results[1]
    assert env.transcript.protocol_error == "unknown_source"
    assert [o.source_id for o in env.transcript.history] == ["catalogue", HIDDEN]
    assert env.transcript.action == "hold"


def test_json_turn_schema_and_grammar_admit_the_hidden_id_only_after_its_reveal() -> None:
    env, script = _play("json")
    schemas = [r["extra"]["response_format"]["json_schema"]["schema"] for r in script.requests]
    assert [HIDDEN in json.dumps(s) for s in schemas] == [False, False, True, True]
    grammars = [schema_grammar(s) for s in schemas]
    assert HIDDEN not in grammars[1] and HIDDEN in grammars[2]
    assert HIDDEN not in json.dumps(script.requests[0]["messages"])
    last = script.requests[2]["messages"][-1]["content"]
    assert last.startswith("Result of inspect_source:") and f'now on): [{{"id": "{HIDDEN}"' in last
    assert [o.source_id for o in env.transcript.history] == ["catalogue", HIDDEN]
    assert env.transcript.action == "hold"


def test_the_agent_runner_hands_the_env_the_reveals_and_scores_the_hidden_read() -> None:
    from heedful.bench.agents.runner import run_agents_sync

    settings = AgentSettings(model="m", base_url="http://127.0.0.1:9/v1", protocol="tools")
    agent = get_agent("llm", settings=settings)
    agent.client = _Script(TURNS, native=True)  # type: ignore[attr-defined]
    (record,) = run_agents_sync([_scenario()], [agent], trials=1, seed=0, adaptive=True)
    assert record.inspected == ["catalogue", HIDDEN]
    assert record.protocol_error == "unknown_source" and record.action == "hold"


def test_the_prompt_counts_a_revealers_links_and_a_plain_source_has_none() -> None:
    from heedful.integrations.llm.prompt import HEADINGS, view_payload

    sources = view_payload(policy_view(_scenario()))[HEADINGS[0]]
    assert {s["id"]: s.get("links") for s in sources} == {"catalogue": 1, "noise": None}
