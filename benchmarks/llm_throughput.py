"""Throughput of agent trials against a model endpoint, and the harness's own cost per call.

Runs the real stack (HTTP client → loopback → the scripted endpoint, in its own process via
``heedful agent serve-scripted`` → tool calls → environment → scoring) with the ``careful``
scripted agent on family B scenarios, adaptive condition. The baseline of both measurements,
in the same run, is a bare HTTP client (the harness's own, ``httpx2``) POSTing the very request
bodies the harness sent (read back from a response cache) to the same endpoint — what any
client must spend, with no agent loop, environment, bounds, cache or scoring.

1. **Throughput**: with 200 ms latency injected per call and concurrency 32, calls per second
   against the ideal ``concurrency / latency`` (goal: ratio ≥ 0.80); the bare client's rate at
   the same concurrency is printed beside it (on a loaded machine neither reaches the ideal:
   their ratio says how much of the gap is the harness).
2. **Harness overhead per call**: with no injected latency and one trial at a time, time per
   call through the harness minus that of the bare client (goal: ≤ 2 ms), as wall time and as
   this process's CPU time (the endpoint runs in another process), which a loaded machine does
   not inflate the way it inflates wall time.

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
from heedful.bench.agents.runner import AgentTrials, run_agents
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
            run = AgentTrials(
                trials=trials,
                seed=0,
                adaptive=True,
                concurrency=concurrency,
                config=BenchConfig(bootstrap_resamples=100),
            )
            records = await run_agents(scenarios, [agent], run, oracles=oracles)
        finally:
            await agent.aclose()
        return sum(r.usage.calls for r in records if r.usage is not None)

    start, cpu = time.perf_counter(), time.process_time()
    calls = asyncio.run(go())
    return time.perf_counter() - start, time.process_time() - cpu, calls


def baseline(url: str, bodies: list[dict], concurrency: int = 1) -> tuple[float, float]:
    """POST ``bodies`` with a bare HTTP client, ``concurrency`` at a time (each worker one
    after another); return (wall seconds, CPU seconds of this process)."""

    async def go() -> None:
        queue = list(reversed(bodies))
        limits = httpx2.Limits(max_connections=None, max_keepalive_connections=64)
        async with httpx2.AsyncClient(base_url=url, limits=limits) as client:

            async def worker() -> None:
                while queue:
                    body = queue.pop()
                    (await client.post("/chat/completions", json=body)).json()

            await asyncio.gather(*(worker() for _ in range(concurrency)))

    start, cpu = time.perf_counter(), time.process_time()
    asyncio.run(go())
    return time.perf_counter() - start, time.process_time() - cpu


def recorded_bodies(cache: str) -> list[dict]:
    """The request bodies of a run, from its response cache (without the cache-only keys)."""
    with contextlib.closing(sqlite3.connect(cache)) as db:
        requests = [json.loads(r[0]) for r in db.execute("SELECT request FROM responses")]
    return [{k: v for k, v in r.items() if k not in ("endpoint", "draw")} for r in requests]


def main() -> None:
    """Print the throughput ratio and the harness overhead per call."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=40, help="family B scenarios")
    parser.add_argument("--trials", type=int, default=4, help="trials per scenario")
    args = parser.parse_args()
    scenarios = generate_suite(["B"], args.scenarios, 0)
    oracles = [ScenarioOracle.prepare(s, adaptive=True) for s in scenarios]

    with tempfile.TemporaryDirectory() as tmp:
        cache = str(Path(tmp) / "cache.sqlite")
        with endpoint(LATENCY_S) as url:
            harness(url, CONCURRENCY, 1, scenarios[:2], oracles[:2], None)  # warm-up
            wall, cpu, calls = harness(url, CONCURRENCY, args.trials, scenarios, oracles, None)
            harness(url, 1, 1, scenarios, oracles, cache)  # one trial each: the bodies
            bodies = recorded_bodies(cache)
            bodies = (bodies * (calls // len(bodies) + 1))[:calls]
            bare_wall, _ = baseline(url, bodies, CONCURRENCY)
    ideal = CONCURRENCY / LATENCY_S
    rate, bare_rate = calls / wall, calls / bare_wall
    print(
        f"throughput at concurrency {CONCURRENCY}, {LATENCY_S * 1000:.0f} ms per call: "
        f"{rate:.1f} calls/s over {calls} calls ({wall:.2f} s); ideal {ideal:.0f} calls/s; "
        f"ratio {rate / ideal:.2f} (goal ≥ {GOAL_RATIO:.2f}); the bare client, same bodies and "
        f"concurrency: {bare_rate:.1f} calls/s, ratio {bare_rate / ideal:.2f}; harness/bare "
        f"{rate / bare_rate:.2f}; harness CPU {cpu / calls * 1000:.2f} ms per call"
    )

    with tempfile.TemporaryDirectory() as tmp, endpoint(0.0) as url:
        cache = str(Path(tmp) / "cache.sqlite")
        harness(url, 1, 1, scenarios[:2], oracles[:2], None)  # warm-up
        harness(url, 1, 1, scenarios, oracles, cache)  # the bodies (cache writes not timed)
        bodies = recorded_bodies(cache)
        baseline(url, bodies[:20])  # warm-up
        wall0, cpu0, calls0 = harness(url, 1, 1, scenarios, oracles, None)
        base, base_cpu = baseline(url, bodies)
    per_call, per_base = wall0 / calls0, base / len(bodies)
    cpu_call, cpu_base = cpu0 / calls0, base_cpu / len(bodies)
    print(
        f"harness overhead per call (concurrency 1, no latency): wall "
        f"{(per_call - per_base) * 1000:.2f} ms = {per_call * 1000:.2f} ms per call through the "
        f"harness − {per_base * 1000:.2f} ms per bare POST of the same {len(bodies)} bodies "
        f"(ratio {per_call / per_base:.2f}); CPU {(cpu_call - cpu_base) * 1000:.2f} ms = "
        f"{cpu_call * 1000:.2f} − {cpu_base * 1000:.2f} ms (goal ≤ {GOAL_OVERHEAD_MS:.1f} ms)"
    )


if __name__ == "__main__":
    main()
