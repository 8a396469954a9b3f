"""The stdio transport: the SDK's stdio client spawns a real server subprocess."""

from __future__ import annotations

import os
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


def _child_env() -> dict[str, str]:
    """Extra environment for the server: the caller's PYTHONPATH, so it imports this heedful."""
    return {"PYTHONPATH": os.environ["PYTHONPATH"]} if "PYTHONPATH" in os.environ else {}


def _text(result: Any) -> str:
    return "".join(block.text for block in result.content)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_stdio_subprocess_serves_tools_and_survives_a_bad_call(
    bounded: Any, tmp_path: Path, mode: str
) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-c", FAKE_SERVER], cwd=HERE, env=_child_env()
    )

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


def _serve_args(db: Path, *extra: str) -> list[str]:
    return ["-m", "heedful.cli", "mcp", "serve", "--db", str(db), *extra]


def test_heedful_mcp_serve_lists_and_calls_every_tool(
    bounded: Any, tmp_path: Path, seeded_db: Path, deploy_setup: Any
) -> None:
    config = tmp_path / "engine.yaml"
    config.write_text("governance:\n  max_level: advise\n", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=_serve_args(seeded_db, "--config", str(config)),
        env=_child_env(),
    )

    async def go() -> tuple[Any, dict[str, Any]]:
        results: dict[str, Any] = {}
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                listed = await client.list_tools()
                for name, args in deploy_setup:
                    results[name] = await client.call_tool(name, args)
                results["attention_check_claim"] = await client.call_tool(
                    "attention_check_claim", {"claim_id": "dep_version"}
                )
                rank = await client.call_tool(
                    "attention_rank", {"budget": 2, "about_to_claim": ["dep_version"]}
                )
                results["attention_rank"] = rank
                chosen = rank.structured_content["next"]["candidate"]["id"]
                results["attention_resolve"] = await client.call_tool(
                    "attention_resolve",
                    {"candidate_id": chosen, "observations": {"dep_version": "4.2"}},
                )
                results["attention_health"] = await client.call_tool(
                    "attention_health", {"window_turns": 10}
                )
                results["attention_sources"] = await client.call_tool(
                    "attention_sources", {"source_ids": ["registry"]}
                )
                results["attention_set_goal"] = await client.call_tool(
                    "attention_set_goal",
                    {"goal_id": "goal-verify", "title": "verify the dependency version"},
                )
                results["attention_survey"] = await client.call_tool(
                    "attention_survey", {"include_idle": True}
                )
                results["attention_run_cycle"] = await client.call_tool(
                    "attention_run_cycle", {"autonomy_override": "advise"}
                )
                results["attention_engine_status"] = await client.call_tool(
                    "attention_engine_status", {"recent": 3}
                )
                pending = results["attention_engine_status"].structured_content["pending_proposals"]
                results["attention_review_proposal"] = await client.call_tool(
                    "attention_review_proposal",
                    {"proposal_id": pending[0]["id"], "decision": "reject", "reason": "test"},
                )
                results["refused_approval"] = await client.call_tool(
                    "attention_review_proposal",
                    {"proposal_id": pending[-1]["id"], "decision": "approve"},
                )
                results["salience"] = await client.call_tool(
                    "salience",
                    {"text": "about Docker", "history": [{"role": "user", "content": "Docker"}]},
                )
                results["refused"] = await client.call_tool(
                    "attention_run_cycle", {"autonomy_override": "act"}
                )
                return listed, results

    listed, results = bounded(go)
    names = {tool.name for tool in listed.tools}
    assert names == set(results) - {"refused", "refused_approval"}
    assert all(not results[name].is_error for name in names), {
        name: _text(results[name]) for name in names if results[name].is_error
    }
    surveyed = {
        i["goal_id"] for i in results["attention_survey"].structured_content["attention_items"]
    }
    assert surveyed == {"goal-deploy", "goal-verify"}
    assert results["attention_resolve"].structured_content["resolution"]["belief_changed"]
    (registry,) = results["attention_sources"].structured_content["sources"]
    assert registry["trusted"] is True and registry["default_authority"] == 0.99
    assert results["refused"].is_error
    assert _text(results["refused"]).startswith("GovernanceError: ")
    engine = results["attention_engine_status"].structured_content
    assert engine["active"] is True and engine["heartbeat_running"] is True  # on by default
    assert engine["governance_max_level"] == "advise"
    review = results["attention_review_proposal"].structured_content
    assert review["proposal"]["status"] == "rejected" and review["proposal"]["decided_by"]
    # Approving runs the dispatch at act, beyond this operator's advise ceiling.
    assert results["refused_approval"].is_error
    assert "ceiling 'advise'" in _text(results["refused_approval"])
    health = results["attention_health"].structured_content
    assert health["funnel"][-1]["trigger"] == "all" and health["funnel"][-1]["selected"] >= 1


def test_heedful_mcp_serve_survives_bad_calls(bounded: Any, tmp_path: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=_serve_args(tmp_path / "h.db"), env=_child_env()
    )

    async def go() -> list[Any]:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with Client(stdio_client(params, errlog=errlog)) as client:
                return [
                    await client.call_tool("attention_rank", {"budget": -1}),
                    await client.call_tool("attention_resolve", {}),
                    await client.call_tool("attention_nap", {}),
                    await client.call_tool("attention_rank", {"budget": 1}),
                ]

    *bad, good = bounded(go)
    assert [result.is_error for result in bad] == [True, True, True]
    assert "budget" in _text(bad[0])
    assert "candidate_id" in _text(bad[1])
    assert not good.is_error
    assert good.structured_content["next"] == {
        "action": "stop",
        "reason": "no_candidates",
        "best_voc": None,
    }


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
