"""The benchmark: scenario families, policies, the runner, scoring, statistics and reports.

Public surface::

    from heedful.bench import Policy, Observation, register_policy, run_benchmark

See ``docs/benchmark.md`` (how to run, writing a policy) and ``docs/metrics.md`` (definitions).
"""

from __future__ import annotations

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.kinds import ScenarioKindSpec, get_kind, kind_of, scenario_kind
from heedful.bench.kinds.inspection import collect_choices
from heedful.bench.policy import (
    Observation,
    Policy,
    get_policy,
    policy_class,
    policy_names,
    register_policy,
)
from heedful.bench.report.page import print_tables, render_html, write_report
from heedful.bench.results import (
    RESULTS_FORMAT,
    FailureCode,
    PolicySpec,
    Results,
    TrialRecord,
    Violation,
    load_results,
    write_results,
)
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.run.spec import RunSpec, run_spec
from heedful.bench.seeds import Stream
from heedful.bench.suite import RunOutput, run_to_folder
from heedful.bench.worlds.families import (
    FAMILIES,
    GENERATOR_VERSION,
    Family,
    family_names,
    generate_family,
    generate_suite,
    get_family,
)

__all__ = [
    "DEFAULT_CONFIG",
    "FAMILIES",
    "GENERATOR_VERSION",
    "RESULTS_FORMAT",
    "BenchConfig",
    "FailureCode",
    "Family",
    "Observation",
    "Policy",
    "PolicySpec",
    "Results",
    "RunOutput",
    "RunSpec",
    "ScenarioKindSpec",
    "Stream",
    "TrialRecord",
    "Violation",
    "collect_choices",
    "family_names",
    "generate_family",
    "generate_suite",
    "get_family",
    "get_kind",
    "get_policy",
    "kind_of",
    "load_results",
    "policy_class",
    "policy_names",
    "print_tables",
    "register_policy",
    "render_html",
    "run_benchmark",
    "run_spec",
    "run_to_folder",
    "scenario_kind",
    "write_report",
    "write_results",
]
