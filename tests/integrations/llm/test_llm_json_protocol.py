"""``--protocol json``: one JSON object per turn, its schema built from the trial's real tools.

A stdlib loopback endpoint answers each request with a fixed text chosen by the scenario's task
and records the request, so the tests see both what the harness asks (no native tools, a
``response_format`` schema admitting only real names and ids) and what it does with each
answer: a valid turn runs, anything else is a recorded protocol error and never an inspection.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from heedful.bench.results import load_results
from heedful.cli import main

ANSWERS = {
    "decide": '{"tool": "decide", "arguments": {"action": "hold", "beliefs": {"up": "no"}}}',
    "prose": "I would first look at the live probe, then decide.",
    "ghost": '```json\n{"tool": "inspect_source", "arguments": {"source_id": "ghost"}}\n```',
    "deep": '{"tool": "decide", "arguments": ' + "[" * 50_000 + "]" * 50_000 + "}",
}
REQUESTS: list[dict[str, Any]] = []


class _Turns(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))))
        REQUESTS.append(body)
        case = re.search(r"\[case:(\w+)\]", body["messages"][1]["content"])
        text = ANSWERS[case.group(1) if case else "prose"]
        data = json.dumps(
            {
                "choices": [{"message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 10},
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def turns_url() -> Iterator[str]:
    REQUESTS.clear()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Turns)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_json_turns_run_real_tools_and_anything_else_is_a_code_never_an_inspection(
    turns_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    llm_scenario_raw: Callable[..., dict[str, Any]],
) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    for case in ANSWERS:
        raw = llm_scenario_raw(id=f"j-{case}", task=f"Ship if up, else hold. [case:{case}]")
        (folder / f"{case}.json").write_text(json.dumps(raw))
    old, sys.argv = sys.argv, [
        "heedful", "bench", "run", "--scenarios", str(folder), "--policies", "llm",
        "--trials", "1", "--adaptive", "--model", "m", "--base-url", turns_url,
        "--protocol", "json", "--no-cache", "--out", str(tmp_path / "run"),
    ]  # fmt: skip
    try:
        with pytest.raises(SystemExit) as exit_:
            main()
            raise SystemExit(0)
    finally:
        sys.argv = old
    assert exit_.value.code in (0, None), capsys.readouterr().err
    trials = {r.scenario_id: r for r in load_results(tmp_path / "run" / "results.json").trials}
    assert trials["j-decide"].protocol_error is None and trials["j-decide"].action == "hold"
    assert (trials["j-prose"].protocol_error or "").startswith("malformed_output")
    assert (trials["j-ghost"].protocol_error or "").startswith("unknown_source")
    assert (trials["j-deep"].protocol_error or "").startswith("malformed_output")
    for case in ("prose", "ghost", "deep"):
        assert trials[f"j-{case}"].inspected == [], case  # a refused turn is never a read
    # What was asked: no native tools, a schema that admits only the real names and ids.
    body = REQUESTS[0]
    assert "tools" not in body
    schema = json.dumps(body["response_format"]["json_schema"]["schema"])
    assert '"enum": ["probe"' in schema or '"probe"' in schema
    assert "ghost" not in schema
    names = {o["properties"]["tool"]["enum"][0] for o in json.loads(schema)["anyOf"]}
    assert names == {"inspect_source", "decide"}
