"""Cost of the span hook on the controller's hot path (issue 13 item 6: zero cost when off).

Run: ``.venv/bin/python benchmarks/otel_overhead.py`` (``--quick``: 20 live candidates, best of 5,
20,000 hook calls). An agent step is ``Controller.next()`` then ``resolve()`` of the chosen
inspection. The same steps, from identically built controllers, run these ways in one process,
interleaved and rotated, best of several repeats:

- **absent** — the undecorated functions (``Controller.next.__wrapped__``): a build without the
  hook, the baseline; **absent again** is the same code timed a second time, so its ratio is the
  noise floor of this run;
- **off** — the shipped methods with no tracer installed (the default; the ``otel`` extra need
  not even be installed);
- **on** — :func:`heedful.integrations.otel.instrument` with the real SDK (a ``TracerProvider``
  exporting to memory through a ``SimpleSpanProcessor``), when the extra is installed.

Times are CPU time of this process (the machine is shared), ratios against *absent*. A second
table times the hook alone — a traced no-op function against the bare one, off (ns per call) and
on with the SDK (µs per span) — and the share of a step each accounts for (two hooked calls per
step): finer than the first table can resolve when its noise floor is a few percent.
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from datetime import UTC, datetime

from _timing import best_time
from heedful import tracing
from heedful.attention import Controller, Stop
from heedful.model.goal import ClaimDependency, Goal, GoalStatus

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
SIZES = (20, 200)  # live candidates
STEPS = 6  # next + resolve pairs per timed run
REPEATS = 25

Step = Callable[[Controller], None]
Hook = Callable[[], None]


def _controller(n: int) -> Controller:
    ctl = Controller(clock=lambda: EPOCH, seed=0)
    for i in range(n):
        ctl.register_source(
            f"s{i}", reports=[f"c{i}"], authority=0.5 + (i % 50) / 100, cost={"tool_calls": 1}
        )
        ctl.record_belief(
            f"c{i}",
            "a",
            domain=["a", "b"],
            confidence=0.6,
            age_s=3600.0 * (1 + i % 7),
            volatility="high",
        )
    deps = [ClaimDependency(claim_id=f"c{i}") for i in range(n)]
    ctl.add_goal(Goal(id="g", title="t", status=GoalStatus.ACTIVE, depends_on=deps))
    ctl.begin_turn(budget=None)
    ctl.next()  # warm: first generation (not timed)
    return ctl


def _steps(next_fn: Callable[[Controller], object], resolve_fn: Callable[..., object]) -> Step:
    def run(ctl: Controller) -> None:
        for _ in range(STEPS):
            chosen = next_fn(ctl)
            if isinstance(chosen, Stop):
                raise RuntimeError("the workload stopped early; the variants would differ")
            obs = {c: "b" for c in chosen.claim_ids}  # type: ignore[attr-defined]
            resolve_fn(ctl, chosen.id, observations=obs)  # type: ignore[attr-defined]

    return run


ABSENT = _steps(
    Controller.next.__wrapped__,  # type: ignore[attr-defined]
    Controller.resolve.__wrapped__,  # type: ignore[attr-defined]
)
SHIPPED = _steps(Controller.next, Controller.resolve)


def _nothing() -> None:
    return None


def _enabled() -> tuple[Hook, Hook] | None:
    """(turn tracing on, turn it off) with the real SDK, or None without the extra."""
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        from heedful.integrations.otel import instrument, uninstrument
    except ImportError:
        return None
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    def on() -> None:
        exporter.clear()
        instrument(provider)

    return on, uninstrument


def _time_run(n: int, step: Step, before: Hook, after: Hook) -> float:
    """CPU seconds of one timed run."""
    ctl = _controller(n)  # built outside the timed part; identical for every variant
    gc.collect()
    gc.disable()  # no collection of another variant's garbage inside this one's time
    before()
    try:
        start = time.process_time()
        step(ctl)
        return time.process_time() - start
    finally:
        after()
        gc.enable()


def controller_table(sizes: tuple[int, ...] = SIZES, repeats: int = REPEATS) -> dict[int, float]:
    """Steps of next+resolve under each variant; returns the best 'absent' step time by size."""
    variants: dict[str, tuple[Step, Hook, Hook]] = {
        "absent": (ABSENT, _nothing, _nothing),
        "absent again": (ABSENT, _nothing, _nothing),
        "off": (SHIPPED, _nothing, _nothing),
    }
    enabled = _enabled()
    if enabled is not None:
        variants["on"] = (SHIPPED, *enabled)
    print(f"{STEPS} agent steps (next + resolve), CPU time, best of {repeats}")
    print(f"{'live':>5} {'variant':>13} {'ms':>8} {'vs absent':>10}")
    step_s: dict[int, float] = {}
    for n in sizes:
        best = dict.fromkeys(variants, float("inf"))
        names = list(variants)
        for r in range(repeats):  # interleaved and rotated: drift hits every variant alike
            for name in names[r % len(names) :] + names[: r % len(names)]:
                step, before, after = variants[name]
                best[name] = min(best[name], _time_run(n, step, before, after))
        for name, t in best.items():
            print(f"{n:>5} {name:>13} {t * 1e3:>8.2f} {t / best['absent']:>9.3f}x")
        if enabled is None:
            print(f"{n:>5} {'on':>13} {'-':>8}  (the otel extra is not installed)")
        step_s[n] = best["absent"] / STEPS
    return step_s


def _noop(x: int) -> int:
    return x


_traced_noop = tracing.traced("bench.noop")(_noop)


def hook_table(step_s: dict[int, float], calls: int = 200_000) -> None:
    """The hook alone, per call (off, and on with the SDK), and its share of one agent step."""
    assert not tracing.enabled()

    def bare() -> None:
        f = _noop
        for i in range(calls):
            f(i)

    def hooked(n: int = calls) -> None:
        f = _traced_noop
        for i in range(n):
            f(i)

    t_bare, t_off = best_time(bare, 5), best_time(hooked, 5)
    t_on = None
    enabled = _enabled()
    if enabled is not None:  # fewer calls: every span is kept in memory until the next run
        on, off = enabled
        on_calls = calls // 20
        t_on = float("inf")
        for _ in range(5):
            on()  # clears the exporter
            try:
                t_on = min(t_on, best_time(lambda: hooked(on_calls), 1) / on_calls * calls)
            finally:
                off()
    off_added = (t_off - t_bare) / calls
    print(f"\nthe hook alone: {calls:,} calls of a no-op function, wall time, best of 5")
    print(f"{'bare ns':>8} {'off ns':>8} {'off/bare':>9} {'off adds ns':>12} {'on (SDK) us':>12}")
    on_text = f"{t_on / calls * 1e6:>12.2f}" if t_on is not None else f"{'-':>12}"
    print(
        f"{t_bare / calls * 1e9:>8.1f} {t_off / calls * 1e9:>8.1f} {t_off / t_bare:>8.2f}x "
        f"{off_added * 1e9:>12.1f} {on_text}"
    )
    for n, step in step_s.items():
        line = f"  {n} live candidates: a step (two hooked calls) off = "
        line += f"{(step + 2 * off_added) / step:.5f}x absent"
        if t_on is not None:
            on_added = (t_on - t_bare) / calls
            line += f", on = {(step + 2 * on_added) / step:.4f}x absent"
        print(line)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--quick", action="store_true", help="20 live candidates, best of 5, 20,000 hook calls"
    )
    if ap.parse_args().quick:
        hook_table(controller_table(SIZES[:1], 5), calls=20_000)
    else:
        hook_table(controller_table())
