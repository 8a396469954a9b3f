"""Throughput of agent trials against a model endpoint, and the harness's own cost per call.

Runs the real stack (openai SDK → HTTP on loopback → the scripted endpoint, in its own process
via ``heedful agent serve-scripted`` → tool calls → environment → scoring) with the ``careful``
scripted agent on family B scenarios, adaptive condition.

1. **Throughput**: with 200 ms latency injected per call and concurrency 32, calls per second
   against the ideal ``concurrency / latency`` (goal: ratio ≥ 0.80).
2. **Harness overhead per call**: with no injected latency and one trial at a time, wall time per
   call of the harness minus that of the baseline — the same request bodies (read back from the
   run's response cache) POSTed one after another to the same endpoint by a bare HTTP client —
   i.e. what the client, agent loop, environment and scoring add (goal: ≤ 2 ms). Also printed:
   the harness process's own CPU time per call, which a loaded machine does not inflate.

Run: ``.venv/bin/python benchmarks/llm_throughput.py [--scenarios N] [--trials N]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2

from heedful.bench.agents.contract import AgentSettings, get_agent
from heedful.bench.agents.runner import run_agents
from heedful.bench.config import BenchConfig
from heedful.bench.score.scoring import ScenarioOracle
from heedful.bench.worlds.families import generate_suite

CONCURRENCY = 32
LATENCY_S = 0.200
GOAL_RATIO = 0.80
GOAL_OVERHEAD_MS = 2.0


@contextlib.contextmanager
def endpoint(latency_s: float) -> Iterator[str]:
    """Start ``heedful agent serve-scripted`` in its own process; yield its /v1 URL."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "heedful.cli", "agent", "serve-scripted", "--port", "0",
         "--latency-ms", str(latency_s * 1000)],
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        if " on " not in line:
            raise RuntimeError(f"the scripted endpoint did not start: {line!r}")
        yield line.split(" on ", 1)[1].strip()
    finally:
        proc.terminate()
        proc.wait(10)
        if proc.stderr is not None:
            proc.stderr.close()


def harness(
    url: str, concurrency: int, trials: int, scenarios: list, oracles: list, cache: str | None
) -> tuple[float, float, int]:
    """Run the agent trials; return (wall seconds, CPU seconds of this process, model calls).

    The endpoint runs in another process, so this process's CPU time is the harness's own work
    (client, agent loop, environment, scoring) — a measure the machine's load does not inflate.
    """
    agent = get_agent("llm", AgentSettings(model="scripted", base_url=url, retries=0, cache=cache))

    async def go() -> int:
        try:
            records = await run_agents(
                scenarios,
                [agent],
                trials=trials,
                seed=0,
                adaptive=True,
                concurrency=concurrency,
                config=BenchConfig(bootstrap_resamples=100),
                oracles=oracles,
            )
        finally:
            await agent.aclose()
        return sum(r.usage.calls for r in records if r.usage is not None)

    start, cpu = time.perf_counter(), time.process_time()
    calls = asyncio.run(go())
    return time.perf_counter() - start, time.process_time() - cpu, calls


def baseline(url: str, bodies: list[dict]) -> float:
    """Wall seconds to POST ``bodies`` one after another with a bare HTTP client."""

    async def go() -> None:
        async with httpx2.AsyncClient(base_url=url) as client:
            for body in bodies:
                (await client.post("/chat/completions", json=body)).json()

    start = time.perf_counter()
    asyncio.run(go())
    return time.perf_counter() - start


def main() -> None:
    """Print the throughput ratio and the harness overhead per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=40, help="family B scenarios")
    parser.add_argument("--trials", type=int, default=4, help="trials per scenario")
    args = parser.parse_args()
    scenarios = generate_suite(["B"], args.scenarios, 0)
    oracles = [ScenarioOracle.prepare(s, adaptive=True) for s in scenarios]

    with endpoint(LATENCY_S) as url:
        harness(url, CONCURRENCY, 1, scenarios[:2], oracles[:2], None)  # warm-up
        wall, cpu, calls = harness(url, CONCURRENCY, args.trials, scenarios, oracles, None)
    ideal = CONCURRENCY / LATENCY_S
    rate = calls / wall
    print(
        f"throughput at concurrency {CONCURRENCY}, {LATENCY_S * 1000:.0f} ms per call: "
        f"{rate:.1f} calls/s over {calls} calls ({wall:.2f} s); ideal {ideal:.0f} calls/s; "
        f"ratio {rate / ideal:.2f} (goal ≥ {GOAL_RATIO:.2f}); harness CPU "
        f"{cpu / calls * 1000:.2f} ms per call, so one core sustains {calls / cpu:.0f} calls/s"
    )

    with tempfile.TemporaryDirectory() as tmp, endpoint(0.0) as url:
        cache = str(Path(tmp) / "cache.sqlite")
        harness(url, 1, 1, scenarios[:2], oracles[:2], None)  # warm-up
        wall0, cpu0, calls0 = harness(url, 1, 1, scenarios, oracles, cache)
        with contextlib.closing(sqlite3.connect(cache)) as db:
            requests = [json.loads(r[0]) for r in db.execute("SELECT request FROM responses")]
        bodies = [{k: v for k, v in r.items() if k not in ("endpoint", "draw")} for r in requests]
        base = baseline(url, bodies)
    per_call = wall0 / calls0
    per_base = base / len(bodies)
    print(
        f"harness overhead per call (concurrency 1, no latency): "
        f"{(per_call - per_base) * 1000:.2f} ms = {per_call * 1000:.2f} ms per call through the "
        f"harness − {per_base * 1000:.2f} ms per bare POST of the same {len(bodies)} bodies "
        f"(ratio {per_call / per_base:.2f}; goal ≤ {GOAL_OVERHEAD_MS:.1f} ms); "
        f"harness CPU {cpu0 / calls0 * 1000:.2f} ms per call"
    )


if __name__ == "__main__":
    main()
