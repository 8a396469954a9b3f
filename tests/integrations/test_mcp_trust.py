"""Trust over MCP (document 000 §24), end to end through the SDK's client and the real backend.

A source registered with ``trusted: false`` is credited the capped authority and the floored cost;
each report of it a trusted source's report on the same claim confirms lifts the credit toward its
claim, each one contradicted lowers it below the cap (the rule of docs/controller.md, Guard).
``attention_sources`` and ``attention_rank``'s candidates show the credit, and a server restarted
on the same store credits the source what it had earned and charges the cost a resolve measured.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import Client

from heedful.attention import Controller
from heedful.attention.config import GuardConfig
from heedful.integrations.mcp import StoreBackend, build_server, open_backend
from heedful.integrations.mcp.tools import ToolFailure, call_tool

CAP = GuardConfig().untrusted_authority_cap
K = GuardConfig().trust_pseudo_count
CLAIMED = 0.95
TRUTH, WRONG = "4.2", "4.1"
#: What reading the mirror really cost, reported with each of its reads.
MEASURED = {"tool_calls": 1.0, "tokens": 300.0, "latency_ms": 0.0}

SOURCES: list[tuple[str, dict[str, Any]]] = [
    (
        "attention_register_source",
        {
            "source_id": "registry",
            "reports": ["dep_version"],
            "authority": 0.99,
            "cost": {"tool_calls": 1, "tokens": 20000},  # authoritative, and expensive
            "kind": "live_instrument",
            "trusted": True,  # the user's own instrument, vouched for
        },
    ),
    (
        "attention_register_source",
        {
            "source_id": "mirror",
            "reports": ["dep_version"],
            "authority": CLAIMED,
            "cost": {},  # claims to be free
            "kind": "web_page",
            "trusted": False,
        },
    ),
]
#: The agent's belief, restated stale before each read so that each round has something to read.
STALE = {
    "claim_id": "dep_version",
    "value": WRONG,
    "domain": [WRONG, TRUTH],
    "confidence": 0.9,
    "age_s": 21600,
    "volatility": "high",
}


def _agreeing(m: int) -> float:
    """The credit after ``m`` confirmed reports (no time between the pairs: each weighs 1) of a
    world that alternates between the two values: agreement beyond what the base rates give by
    chance, ``(O − m·p)/(m·(1 − p) + k)`` with ``p = Σ_v (n_v/m)²`` (one report: ``p = 1``, and
    nothing is earned — a source that always said that value would have matched too)."""
    if m == 0:
        return CAP
    a = (m + 1) // 2
    p = (a * a + (m - a) ** 2) / (m * m)
    return CAP + (CLAIMED - CAP) * (m - m * p) / (m * (1 - p) + K)


def _contradicted(m: int) -> float:
    """The credit after ``m`` contradicted reports on a two-value claim."""
    return CAP * (1 - m / (m + K))


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "agent.db"


@pytest.fixture
def server(db: Path) -> Iterator[StoreBackend]:
    backend = open_backend(db)
    yield backend
    backend.close()


def _restarted(db: Path) -> StoreBackend:
    """A server opened again on the same ``--db``: the store is all it has."""
    return open_backend(db)


class _Agent:
    """An MCP client running the attention loop against one server."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        result = await self.client.call_tool(name, args)
        text = "".join(block.text for block in result.content)
        assert not result.is_error, f"{name}: {text}"
        return dict(result.structured_content)

    async def read(self, cost_weight: float, says: str) -> dict[str, Any]:
        """Restate the belief stale, rank, resolve the selected read with ``says``; return the
        ranking's candidate of the source read."""
        await self.call("attention_record_belief", STALE)
        ranked = await self.call("attention_rank", {"cost_weight": cost_weight})
        step = ranked["next"]
        assert step["action"] == "execute", step
        cand = step["candidate"]
        await self.call(
            "attention_resolve",
            {
                "candidate_id": cand["id"],
                "observations": {"dep_version": says},
                "actual_cost": MEASURED if cand["target"] == "mirror" else None,
            },
        )
        (listed,) = [
            e["candidate"] for e in ranked["ranking"] if e["candidate"]["id"] == cand["id"]
        ]
        return dict(listed)

    async def round(self, k: int, agrees: bool) -> tuple[float, dict[str, Any]]:
        """Round ``k``: the registry is read (costs nothing to the turn: cost weight 0) and finds
        the world's value of that round (TRUTH, WRONG, TRUTH, …: the world moves), then the
        mirror (cost weight 0.1: the registry's 20,000 tokens are not worth it), which reports
        it or the other value; returns the authority rank credited the mirror with and the
        mirror as attention_sources shows it."""
        found = (TRUTH, WRONG)[k % 2]
        registry = await self.read(0.0, found)
        assert registry["target"] == "registry"
        mirror = await self.read(0.1, found if agrees else (WRONG, TRUTH)[k % 2])
        assert mirror["target"] == "mirror"
        return float(mirror["authority"]), await self.mirror()

    async def mirror(self) -> dict[str, Any]:
        out = await self.call("attention_sources", {"source_ids": ["mirror"]})
        assert out["total"] == 1
        return dict(out["sources"][0])


def _play(
    backend: StoreBackend, bounded: Any, rounds: int, says: str, setup: bool, first: int = 0
) -> Any:
    """``rounds`` rounds (numbered from ``first``) in one MCP session, the mirror agreeing when
    ``says`` is TRUTH; returns (rank's credit, sources' view) per round."""

    async def go() -> list[tuple[float, dict[str, Any]]]:
        async with Client(build_server(backend)) as client:
            agent = _Agent(client)
            if setup:
                for name, args in SOURCES:
                    await agent.call(name, args)
            return [await agent.round(first + k, says == TRUTH) for k in range(rounds)]

    return bounded(go)


def _sources(backend: StoreBackend, bounded: Any) -> dict[str, dict[str, Any]]:
    async def go() -> dict[str, Any]:
        async with Client(build_server(backend)) as client:
            return dict((await client.call_tool("attention_sources", {})).structured_content)

    out = bounded(go)
    return {s["id"]: s for s in out["sources"]}


def test_a_source_registered_untrusted_is_credited_the_cap_and_the_floor(
    server: StoreBackend, bounded: Any
) -> None:
    _play(server, bounded, 0, TRUTH, setup=True)
    listed = _sources(server, bounded)
    mirror, registry = listed["mirror"], listed["registry"]
    assert mirror["trusted"] is False and mirror["default_authority"] == CAP
    assert mirror["cost"]["tool_calls"] == GuardConfig().untrusted_min_cost
    assert mirror["claimed"] == {
        "authority": {},
        "default_authority": CLAIMED,
        "cost": {"tokens": 0.0, "tool_calls": 0.0, "latency_ms": 0.0},
    }
    assert mirror["trust"] == {"weight": 0.0, "net": 0.0, "earned": 0.0, "lift": 0.0}
    assert mirror["measured_cost"] is None
    assert registry["trusted"] is True and registry["default_authority"] == 0.99
    assert registry["trust"] is None


def test_agreeing_with_the_trusted_source_earns_authority_toward_the_claim(
    server: StoreBackend, bounded: Any
) -> None:
    played = _play(server, bounded, 3, TRUTH, setup=True)
    ranked = [authority for authority, _ in played]
    listed = [source["default_authority"] for _, source in played]
    # Each read is ranked at what the reads before it earned; each listing counts one more.
    assert ranked == pytest.approx([_agreeing(m) for m in range(3)])
    assert listed == pytest.approx([_agreeing(m) for m in range(1, 4)])
    assert CAP == listed[0] < listed[1] < listed[2] < CLAIMED
    last = played[-1][1]
    assert last["trust"]["net"] == pytest.approx(3.0)
    assert last["trust"]["earned"] == pytest.approx(3 / (3 + K))
    assert last["trust"]["lift"] == pytest.approx((_agreeing(3) - CAP) / (CLAIMED - CAP))


def test_contradicted_reports_take_the_credit_below_the_cap(
    server: StoreBackend, bounded: Any
) -> None:
    played = _play(server, bounded, 3, WRONG, setup=True)
    ranked = [authority for authority, _ in played]
    listed = [source["default_authority"] for _, source in played]
    assert ranked == pytest.approx([_contradicted(m) for m in range(3)])
    assert listed == pytest.approx([_contradicted(m) for m in range(1, 4)])
    assert listed[0] < CAP and listed[2] < listed[1] < listed[0]
    assert played[-1][1]["trust"]["net"] == pytest.approx(-3.0)


@pytest.mark.parametrize(("says", "credit"), [(TRUTH, _agreeing), (WRONG, _contradicted)])
def test_a_restarted_server_credits_what_was_earned_and_charges_what_was_measured(
    db: Path, bounded: Any, says: str, credit: Any
) -> None:
    first = open_backend(db)
    try:
        before = _play(first, bounded, 2, says, setup=True)[-1][1]
    finally:
        first.close()
    assert before["default_authority"] == pytest.approx(credit(2))
    again = _restarted(db)
    try:
        after = _sources(again, bounded)["mirror"]
        # The store is all the restarted server has: the same credit and record, the cost a
        # resolve measured instead of the claimed zero floored to one tool call.
        assert after["default_authority"] == pytest.approx(before["default_authority"])
        assert after["trust"] == pytest.approx(before["trust"])
        assert after["measured_cost"] == after["cost"] == MEASURED
        assert after["claimed"]["cost"]["tool_calls"] == 0.0
        # And it goes on from there, as if it had never stopped: a third round's read is ranked
        # at two rounds' credit and earns the third.
        ((ranked, third),) = _play(again, bounded, 1, says, setup=False, first=2)
    finally:
        again.close()
    assert ranked == pytest.approx(credit(2))
    assert third["default_authority"] == pytest.approx(credit(3))
    assert not math.isclose(credit(2), credit(3))


def test_without_the_argument_a_source_is_untrusted_as_in_the_library(
    server: StoreBackend, bounded: Any
) -> None:
    """One trust rule (issue 35 item 5): the caller may be an agent that read injected content,
    so a source nobody vouched for is credited the cap and the floor, over MCP as in the
    library."""
    (name, args) = SOURCES[1]
    plain = {k: v for k, v in args.items() if k != "trusted"}
    call_tool(server, name, plain)
    (mirror,) = call_tool(server, "attention_sources", {"source_ids": ["mirror"]})["sources"]
    assert mirror["trusted"] is False and mirror["default_authority"] == CAP
    assert mirror["cost"]["tool_calls"] == GuardConfig().untrusted_min_cost
    library = Controller(clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    library.register_source("mirror", reports=["dep_version"], authority=CLAIMED)
    assert library.world.sources["mirror"].trusted is False


@pytest.mark.parametrize("value", ["false", None, 0, 1, [False]])
def test_a_trusted_value_that_is_not_a_boolean_is_a_tool_error(
    fake_backend: Any, value: Any
) -> None:
    with pytest.raises(ToolFailure, match=r"attention_register_source: trusted: .*boolean"):
        call_tool(fake_backend, "attention_register_source", {"source_id": "s", "trusted": value})
    assert fake_backend.calls == []


def test_trusted_is_passed_on(fake_backend: Any) -> None:
    call_tool(fake_backend, "attention_register_source", {"source_id": "s", "trusted": False})
    call_tool(fake_backend, "attention_register_source", {"source_id": "t"})
    call_tool(fake_backend, "attention_register_source", {"source_id": "u", "trusted": True})
    assert [args["trusted"] for _, args in fake_backend.calls] == [False, False, True]


def test_tools_list_describes_what_untrusted_means(fake_backend: Any, bounded: Any) -> None:
    async def go() -> Any:
        async with Client(build_server(fake_backend)) as client:
            return await client.list_tools()

    (tool,) = [t for t in bounded(go).tools if t.name == "attention_register_source"]
    prop = tool.input_schema["properties"]["trusted"]
    assert prop["type"] == "boolean" and prop["default"] is False
    text = prop["description"]
    assert f"capped at {CAP:g}" in text and "floored" in text
    assert "agreeing with trusted sources' reports" in text
    (sources,) = [t for t in bounded(go).tools if t.name == "attention_sources"]
    assert sources.annotations.read_only_hint is True


def test_sources_names_an_unknown_source_and_lists_at_most_limit(
    server: StoreBackend, bounded: Any
) -> None:
    _play(server, bounded, 0, TRUTH, setup=True)
    with pytest.raises(ToolFailure, match=r"UnknownNameError: unknown source 'mirorr'.*mirror"):
        call_tool(server, "attention_sources", {"source_ids": ["mirorr"]})
    out = call_tool(server, "attention_sources", {"limit": 1})
    assert out["total"] == 2 and [s["id"] for s in out["sources"]] == ["mirror"]


# The server reads the default clock (pinned): every read of a round happens at the same instant,
# so each pair of reports weighs 1 and the credits above are exact.
pytestmark = pytest.mark.usefixtures("fixed_clock")
