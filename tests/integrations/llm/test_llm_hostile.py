"""A hostile endpoint (stdlib ``http.server`` on loopback, in a thread) against the harness.

One ``bench run`` plays one scenario per hostile case; the endpoint picks its case from the
scenario's task text. Every case must end *its own* trial with a protocol code while the run
goes on and writes a complete results.json (the programmatic policy's records too) and
report.html. No assertion here is about time: the slow cases only need their deadlines to fire.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.results import load_results
from heedful.cli import main

MAX_TOKENS = 64


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


#: case → the code its trial's protocol_error must start with.
CASES: dict[str, str] = {
    "drip": "endpoint_timeout",
    "usage-infinity": "bad_usage",
    "usage-huge": "bad_usage",
    "usage-negative": "bad_usage",
    "usage-string": "bad_usage",
    "over-max-tokens": "bad_usage",
    "args-number": "malformed_arguments",
    "args-list": "malformed_arguments",
    "args-deep-text": "malformed_arguments",
    "args-infinity": "malformed_arguments",
    "body-deep": "endpoint_error",
    "unknown-tool": "unknown_tool",
    "unknown-id": "unknown_source",
    "id-wrong-type": "unknown_source",
    "endless-calls": "too_many_tool_calls",
    "huge-reply": "reply_too_large",
    "huge-declared": "reply_too_large",
    "long-text": "reply_truncated",
    "tool-calls-number": "bad_response",
    "choices-string": "bad_response",
    "message-list": "bad_response",
    "function-name-number": "bad_response",
    "action-list": "malformed_arguments",
    "text-only": "text_only",
    "not-json": "endpoint_error",
    "context-400": "context_overflow",
}


def _completion(message: dict[str, Any], usage: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
    }
    body["usage"] = usage if usage is not None else {"prompt_tokens": 5, "completion_tokens": 5}
    return body


def _call(name: str, arguments: Any, i: int = 0) -> dict[str, Any]:
    return {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": arguments}}


def _reply(case: str, tools: list[str]) -> tuple[int, bytes]:
    """(status, body) of the hostile endpoint for one request of ``case``."""
    tool = tools[0]  # inspect_source or plan_inspections
    ids_arg = "source_ids" if tool == "plan_inspections" else "source_id"

    def one(arguments: Any, name: str = tool) -> bytes:
        return json.dumps(
            _completion({"role": "assistant", "tool_calls": [_call(name, arguments)]})
        )

    if case == "usage-infinity":
        return 200, json.dumps(_completion({"role": "assistant", "content": "hi"})).replace(
            '"prompt_tokens": 5', '"prompt_tokens": Infinity'
        ).encode()
    usage = {
        "usage-huge": {"prompt_tokens": 1e30, "completion_tokens": 1},
        "usage-negative": {"prompt_tokens": 10, "completion_tokens": -5},
        "usage-string": {"prompt_tokens": "10", "completion_tokens": 1},
        "over-max-tokens": {"prompt_tokens": 10, "completion_tokens": MAX_TOKENS + 1},
    }
    if case in usage:
        return 200, json.dumps(
            _completion({"role": "assistant", "content": "x"}, usage[case])
        ).encode()
    sid: Any = ["probe"] if tool == "plan_inspections" else "probe"
    text = {
        "args-number": one(42),
        "args-list": one("[1, 2, 3]"),
        "args-deep-text": one("[" * 100_000 + "]" * 100_000),
        "args-infinity": one('{"' + ids_arg + '": Infinity}'),
        "unknown-tool": one("{}", name="delete_everything"),
        "unknown-id": one(
            json.dumps({ids_arg: ["nope"] if tool == "plan_inspections" else "nope"})
        ),
        "id-wrong-type": one(
            json.dumps({ids_arg: [{"a": 1}] if tool == "plan_inspections" else 7})
        ),
        "action-list": one(json.dumps({"action": ["ship"], "beliefs": {}}), name="decide"),
        "long-text": json.dumps(
            _completion(
                {
                    "role": "assistant",
                    "content": "z" * (MAX_TOKENS * 8 + 100),
                    "tool_calls": [_call(tool, json.dumps({ids_arg: sid}))],
                }
            )
        ),
        "text-only": json.dumps(_completion({"role": "assistant", "content": "I think so."})),
        "tool-calls-number": json.dumps(_completion({"role": "assistant", "tool_calls": 5})),
        "choices-string": json.dumps({"choices": "none", "usage": {}}),
        "message-list": json.dumps({"choices": [{"message": ["a"]}]}),
        "function-name-number": json.dumps(
            _completion({"role": "assistant", "tool_calls": [_call(7, "{}")]})  # type: ignore[arg-type]
        ),
        "not-json": "<html>oops</html>",
    }.get(case)
    if text is not None:
        return 200, text.encode() if isinstance(text, str) else text
    if case == "body-deep":
        return 200, (
            b'{"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "c", '
            b'"function": {"name": "decide", "arguments": '
            + b"[" * 100_000
            + b"]" * 100_000
            + b"}}]}}]}"
        )
    if case == "endless-calls":
        calls = [_call(tool, "{}", i) for i in range(1_000)]
        return 200, json.dumps(_completion({"role": "assistant", "tool_calls": calls})).encode()
    if case == "huge-reply":
        return 200, json.dumps(
            _completion({"role": "assistant", "content": "y" * 10_000_000})
        ).encode()
    if case == "context-400":
        return 400, b'{"error": {"message": "the request exceeds the available context size"}}'
    raise AssertionError(f"unhandled case {case}")


class _Hostile(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        task = body["messages"][1]["content"]
        match = re.search(r"\[case:([a-z0-9-]+)\]", task)
        case = match.group(1) if match else "text-only"
        tools = [t["function"]["name"] for t in body.get("tools", [])]
        try:
            if case == "drip":  # headers, then one byte at a time, never a whole body
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                for _ in range(2000):
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.05)
                return
            if case == "huge-declared":
                self.send_response(200)
                self.send_header("Content-Length", str(50_000_000))
                self.end_headers()
                self.wfile.write(b"{" * 1000)
                return
            status, data = _reply(case, tools)
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            return  # the client gave up on us: that is the point


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # every trial connects at once (the default backlog of 5 resets)


@pytest.fixture
def hostile() -> Iterator[str]:
    server = _Server(("127.0.0.1", 0), _Hostile)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_every_hostile_reply_ends_its_own_trial_with_a_code_and_the_run_writes_results(
    hostile: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    llm_scenario_raw: Callable[..., dict[str, Any]],
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    for case in CASES:
        raw = llm_scenario_raw(
            id=f"h-{case}", task=f"Ship the release if the service is up, else hold. [case:{case}]"
        )
        (folder / f"h-{case}.json").write_text(json.dumps(raw))
    code, _, err = _cli(
        ["bench", "run", "--scenarios", str(folder), "--policies", "llm,voc", "--trials", "1",
         "--model", "hostile", "--base-url", hostile, "--timeout", "4", "--retries", "0",
         "--max-tokens", str(MAX_TOKENS),
         "--max-reply-bytes", "1000000", "--no-cache", "--concurrency", str(len(CASES)),
         "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    assert "Traceback" not in err, err[-3000:]
    run = tmp_path / "run"
    assert (run / "report.html").exists()
    results = load_results(run / "results.json")
    by_scenario = {r.scenario_id: r for r in results.trials if r.policy == "llm"}
    got = {sid.removeprefix("h-"): (r.protocol_error or "") for sid, r in by_scenario.items()}
    assert set(got) == set(CASES)
    wrong = {
        case: got[case][:120] for case, code in CASES.items() if not got[case].startswith(code)
    }
    assert not wrong, wrong
    # The programmatic policy of the same run kept every one of its records.
    assert {r.scenario_id for r in results.trials if r.policy == "voc"} == set(by_scenario)
    # A refused usage figure never reaches the totals.
    for r in by_scenario.values():
        assert r.usage is not None and 0 <= r.usage.prompt_tokens < 10_000_000


def test_the_trial_deadline_bounds_a_request_whose_own_deadline_is_longer(
    hostile: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    llm_scenario_raw: Callable[..., dict[str, Any]],
) -> None:
    scenario = tmp_path / "drip.json"
    scenario.write_text(json.dumps(llm_scenario_raw(id="h-drip", task="Ship? [case:drip]")))
    code, _, err = _cli(
        ["bench", "run", "--scenarios", str(scenario), "--policies", "llm", "--trials", "1",
         "--model", "hostile", "--base-url", hostile, "--timeout", "600", "--retries", "3",
         "--trial-timeout", "1", "--no-cache", "--out", str(tmp_path / "run")],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    (record,) = load_results(tmp_path / "run" / "results.json").trials
    assert (record.protocol_error or "").startswith("trial_timeout"), record.protocol_error
