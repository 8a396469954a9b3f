"""Speed of ranking and selection among many candidates (document 000 §31 question 2).

Run: ``.venv/bin/python benchmarks/controller_speed.py`` (``--quick``: N up to 100,000, the
facade at 1,000 only, the MCP ranking over 300 sources). For N candidates held as columns
(confidence, age, hazard, authority, pivotality, loss, cost, switch cost, floor, aging, goal
starvation) it times one *selection*: the vectorised heuristic VOC of SPEC §4.1 followed by
:func:`heedful.attention.choose` (floors → starvation service → best net VOC + bounded aging →
stopping rule). Goals: ≤ 20 ms and ≤ 200 MB at N = 100,000; linear growth up to 1,000,000.

Every time is printed with a ratio against a baseline measured in the same run: a pure-Python
``sorted`` of the same N net values (what a naive priority queue rebuild costs).

A second table times the whole facade, ``Controller.next()``, at 1,000 and 10,000 live
candidates in an agent loop (resolve the last read, the clock moves, ask again): the per-step
cost an agent pays, as a ratio against ``np.sort`` of the same number of values in the same run.
Goal: ≤ 5 ms at 10,000 live candidates (incremental columns, ``heedful.attention.columns``), also
for a repeated ``next()`` without a resolve in between; the first ``next()`` ≤ 200 ms. Wall and
CPU time are both printed: on a shared machine the wall time of a short call is mostly waiting.

A third table times the MCP tool ``attention_rank`` over a memory store with 1,200 sources (goal
≤ 1 s), against the path it had before issue 24 in the same run: a ``refresh()`` then a
``next()`` (two recomputations) with one store transaction per trace event.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import tracemalloc
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta

import numpy as np

from _timing import best_time
from heedful.attention import AttentionConfig, Controller, GuardConfig, choose, heuristic_voc
from heedful.model.candidate import Candidate
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

SIZES = (10_000, 100_000, 1_000_000)


def _columns(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    hazards = np.array([0.0, 0.001, 0.05, 0.5, 5.0]) / 3600.0
    floor = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    return {
        "confidence": rng.uniform(0.3, 1.0, n),
        "age": rng.uniform(0.0, 86_400.0, n),
        "hazard": hazards[rng.integers(0, 5, n)],
        "authority": rng.uniform(0.1, 1.0, n),
        "pivotality": rng.uniform(0.0, 1.0, n),
        "loss": rng.uniform(0.0, 2.0, n),
        "cost": rng.uniform(0.5, 3.0, n),
        "switch": rng.uniform(0.0, 0.1, n),
        "floor": floor,
        "bonus": np.minimum(0.01 * rng.integers(0, 20, n), 0.05),
        "starving": rng.random(n) < 0.001,
        "explore": rng.random(n) < 0.01,
    }


def _select(c: dict[str, np.ndarray]) -> int | None:
    net = heuristic_voc(
        c["confidence"],
        c["age"],
        c["hazard"],
        c["authority"],
        c["pivotality"],
        c["loss"],
        c["cost"],
        c["switch"],
        0.01,
        1.0,
    )
    return choose(net, c["floor"], c["bonus"], c["starving"], c["explore"]).index


def main(sizes: tuple[int, ...] = SIZES) -> None:
    """Measure and print."""
    rng = np.random.default_rng(0)
    base_per_item = None
    print(f"{'N':>10} {'select ms':>10} {'sort ms':>9} {'select/sort':>12} {'ns/cand':>8} growth")
    for n in sizes:
        cols = _columns(n, rng)
        values = cols["loss"].tolist()
        repeats = 5 if n <= 100_000 else 2
        t_sel = best_time(lambda cols=cols: _select(cols), repeats)  # type: ignore[misc]
        t_sort = best_time(lambda values=values: sorted(values), repeats)  # type: ignore[misc]
        per = t_sel / n
        base_per_item = base_per_item or per
        print(
            f"{n:>10,} {t_sel * 1e3:>10.2f} {t_sort * 1e3:>9.2f} {t_sel / t_sort:>11.2f}x "
            f"{per * 1e9:>8.1f} {per / base_per_item:.2f}x per candidate vs N={sizes[0]:,}"
        )
    cols = _columns(100_000, rng)
    tracemalloc.start()
    _select(cols)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    col_bytes = sum(a.nbytes for a in cols.values())
    print(
        f"N=100,000: candidate columns {col_bytes / 1e6:.1f} MB, selection peak {peak / 1e6:.1f} MB"
    )


class _Clock:
    """A clock the agent loop advances by one second per step."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _facade(n: int) -> tuple[Controller, _Clock]:
    """N sources, each reporting one claim a goal depends on: N live candidates."""
    clock = _Clock()
    # Room for N candidates of one generator (the default bounds stop at 2,000 per generator).
    config = AttentionConfig(guard=GuardConfig(table_size=2 * n + 100, trusted_quota=2 * n + 100))
    ctl = Controller(config=config, clock=clock)
    for i in range(n):
        ctl.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.5 + (i % 50) / 100, cost={"tool_calls": 1}
        )
        ctl.record_belief(
            f"c{i}",
            "a",
            domain=["a", "b"],
            confidence=0.9,
            age_s=3600.0 * (i % 7),
            volatility="medium",
        )
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(n)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    ctl.begin_turn(budget=None)
    return ctl, clock


def _steady_next(ctl: Controller, clock: _Clock, steps: int) -> list[float]:
    """Time ``next()`` in an agent loop: resolve the last read, the clock moves, ask again."""
    step = ctl.next()
    times = []
    for _ in range(steps):
        assert isinstance(step, Candidate)
        ctl.resolve(step.id, observations={step.claim_ids[0]: "a"})
        clock.now += timedelta(seconds=1)
        start = time.perf_counter()
        step = ctl.next()
        times.append(time.perf_counter() - start)
    return times


def _timed(fn: object) -> tuple[float, float, object]:
    """Wall and CPU seconds of one call of ``fn``, and its result."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()  # type: ignore[operator]
    return time.perf_counter() - wall, time.process_time() - cpu, out


def facade(sizes: tuple[int, ...] = (1_000, 10_000)) -> None:
    """Time one ``Controller.next()`` with N live candidates, against a numpy sort of N values.

    Each step resolves the previous read (one belief changes), advances the clock one second
    (every piece of evidence ages) and asks for the next read — the per-step cost an agent pays.
    "repeat" asks again without resolving (the previous selection stays in flight). The
    baseline, measured in the same run, is ``np.sort`` of N float64 values (what ranking the
    candidates from scratch would cost at the least). Goals at 10,000 live candidates: ≤ 5 ms a
    step and a repeat, ≤ 200 ms the first call.
    """
    print(
        f"{'N':>10} {'live':>7} {'next() ms':>10} {'cpu ms':>7} {'repeat ms':>10} {'cpu ms':>7} "
        f"{'np.sort ms':>11} {'next/sort':>10} {'first ms':>9} {'cpu ms':>7} {'first/goal':>10}"
    )
    rng = np.random.default_rng(1)
    for n in sizes:
        ctl, clock = _facade(n)
        first, first_cpu, _ = _timed(ctl.next)  # first call: builds every candidate once
        times = _steady_next(ctl, clock, 30)
        cpus = _steady_next_cpu(ctl, clock, 30)
        repeat = [_timed(ctl.next)[:2] for _ in range(10)]
        t_next = float(np.median(times))
        t_rep = float(np.median([w for w, _ in repeat]))
        c_rep = float(np.median([c for _, c in repeat]))
        values = rng.random(n)
        t_sort = best_time(lambda values=values: np.sort(values), 5)  # type: ignore[misc]
        print(
            f"{n:>10,} {len(ctl.guard.table):>7,} {t_next * 1e3:>10.2f} "
            f"{float(np.median(cpus)) * 1e3:>7.2f} {t_rep * 1e3:>10.2f} {c_rep * 1e3:>7.2f} "
            f"{t_sort * 1e3:>11.3f} {t_next / t_sort:>9.0f}x {first * 1e3:>9.0f} "
            f"{first_cpu * 1e3:>7.0f} {first / 0.2:>9.2f}x"
        )


def _steady_next_cpu(ctl: Controller, clock: _Clock, steps: int) -> list[float]:
    """CPU seconds of ``next()`` in the agent loop of :func:`_steady_next`."""
    step = ctl.next()
    out = []
    for _ in range(steps):
        assert isinstance(step, Candidate)
        ctl.resolve(step.id, observations={step.claim_ids[0]: "a"})
        clock.now += timedelta(seconds=1)
        start = time.process_time()
        step = ctl.next()
        out.append(time.process_time() - start)
    return out


def _mcp_backend(n: int, folder: str):  # type: ignore[no-untyped-def]
    from heedful.integrations.mcp.backend import open_backend

    backend = open_backend(os.path.join(folder, f"agent-{n}.db"))
    for i in range(n):
        backend.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.5 + (i % 50) / 100, cost={"tool_calls": 1}
        )
        backend.record_belief(
            f"c{i}",
            "a",
            domain=["a", "b"],
            confidence=0.9,
            age_s=3600.0 * (i % 7),
            volatility="medium",
        )
    deps = [{"claim_id": f"c{i}"} for i in range(n)]
    backend.set_goal("g", title="t", status="active", depends_on=deps)
    return backend


def _rank_before(backend) -> None:  # type: ignore[no-untyped-def]
    """``attention_rank`` as it was before issue 24: refresh, then next; a transaction per event."""
    ctl = backend.controller
    ctl._trace_batch = nullcontext  # one store transaction per trace event, as before
    try:
        ctl.begin_turn(None)
        sorted(ctl.refresh(), key=lambda pair: pair[1].net, reverse=True)
        ctl.next()
    finally:
        del ctl._trace_batch


def mcp_rank(n: int = 1_200) -> None:
    """Time the MCP tool ``attention_rank`` over a store with ``n`` sources (goal ≤ 1 s)."""
    print(
        f"{'sources':>8} {'rank s':>7} {'cpu s':>6} {'before s':>9} {'cpu s':>6} "
        f"{'rank/before':>12} {'rank/goal':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        now_b = _mcp_backend(n, folder)
        old_b = _mcp_backend(n + 1, folder)
        try:
            wall, cpu, out = _timed(lambda: now_b.rank(None, [], None, 20))
            assert out["candidates"] >= n  # type: ignore[index]
            old_wall, old_cpu, _ = _timed(lambda: _rank_before(old_b))
        finally:
            now_b.close()
            old_b.close()
    print(
        f"{n:>8,} {wall:>7.2f} {cpu:>6.2f} {old_wall:>9.2f} {old_cpu:>6.2f} "
        f"{wall / old_wall:>11.2f}x {wall / 1.0:>9.2f}x"
    )


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="N up to 100,000; the facade at 1,000 only"
    )
    quick = ap.parse_args().quick
    main(SIZES[:2] if quick else SIZES)
    facade((1_000,) if quick else (1_000, 10_000))
    mcp_rank(300 if quick else 1_200)
