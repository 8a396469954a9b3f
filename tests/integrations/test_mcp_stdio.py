"""The stdio transport: the SDK's stdio client spawns a real server subprocess."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).parent

# Serves the recording fake backend of conftest.py, to test the transport on its own.
FAKE_SERVER = (
    "from conftest import FakeBackend\n"
    "from heedful.integrations.mcp import serve_stdio\n"
    "serve_stdio(FakeBackend())\n"
)


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_subprocess_serves_tools_and_survives_a_bad_call(
    bounded: Any, tmp_path: Path, mode: str
) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-c", FAKE_SERVER], cwd=HERE)

    async def go() -> tuple[Any, Any, Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
                listed = await client.list_tools()
                bad = await client.call_tool("attention_run_cycle", {"autonomy_override": 3})
                good = await client.call_tool("attention_run_cycle", {})
                return listed, bad, good

    listed, bad, good = bounded(go)
    assert {tool.name for tool in listed.tools} >= {"attention_survey", "attention_run_cycle"}
    assert bad.is_error
    assert "autonomy_override" in _text(bad)
    assert good.structured_content == {
        "status": "ok",
        "autonomy_level": "observe",
        "dispatched": [],
    }
