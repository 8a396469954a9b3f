"""Span attributes of a benchmark run and of each scenario it plays.

:func:`heedful.bench.run.runner.play_inspection` (the inspection part of
:func:`heedful.bench.run.benchmark.run_benchmark`) and the per-scenario loop are marked with
:func:`heedful.tracing.traced`; these functions say what a finished call records when a tracer is
installed (they never run otherwise). A sealed hold-out run records counts only — no scenario id
and no family — as its progress bar does.

Scenarios played in worker processes (``--workers`` above 1, a Ray backend) record their spans
there as plain data, replayed under the run span as results arrive
(:func:`heedful.bench.run.backend.map_traced`); the run span also carries the worker count.
"""

from __future__ import annotations

from typing import Any

from heedful.tracing import Attributes, AttributeValue

__all__ = ["RUN_SPAN", "SCENARIO_SPAN", "describe_run", "describe_scenario"]

#: Span names.
RUN_SPAN = "heedful.bench.run"
SCENARIO_SPAN = "heedful.bench.scenario"


def _policy_name(spec: Any) -> str:
    return spec if isinstance(spec, str) else str(spec.name)


def describe_run(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Attributes:
    """Attributes of one ``play_inspection``: families, policies, scenario and trial counts."""
    scenarios, policies = args[0], args[1]
    run = args[2] if len(args) > 2 else kwargs["run"]
    attrs: dict[str, AttributeValue] = {
        "heedful.bench.scenarios": len(scenarios),
        "heedful.bench.policies": sorted(_policy_name(p) for p in policies),
        "heedful.bench.trials": int(run.trials),
        "heedful.bench.condition": "adaptive" if run.adaptive else "static",
        "heedful.bench.sealed": bool(run.sealed),
        "heedful.bench.trial_records": len(result.trials),
    }
    if run.workers is not None:
        attrs["heedful.bench.workers"] = int(run.workers)
    if not run.sealed:
        attrs["heedful.bench.families"] = sorted({s.view.family for s in scenarios})
    return attrs


def describe_scenario(args: tuple[Any, ...], kwargs: dict[str, Any], result: Any) -> Attributes:
    """Attributes of one scenario's play: its sources, policies, trials and records scored."""
    scenario, key, built, job = args[0], args[1], args[2], args[3]
    attrs: dict[str, AttributeValue] = {
        "heedful.bench.world_key": int(key),
        "heedful.bench.sources": len(scenario.view.sources),
        "heedful.bench.policies": len(built),
        "heedful.bench.trials": job.trials,
        "heedful.bench.trial_records": len(result[1]),
    }
    if not job.sealed:
        attrs["heedful.bench.scenario_id"] = scenario.id
        attrs["heedful.bench.family"] = scenario.view.family
    return attrs
