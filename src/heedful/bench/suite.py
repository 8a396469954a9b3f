"""End-to-end runs: choose scenarios (files or generators), run, write the run folder.

This is what ``heedful bench run`` and ``heedful run`` call; the CLI only parses and prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.families import FAMILIES, generate_suite, generator_versions, parse_family_list
from heedful.bench.families.unprompted import twin_world_keys
from heedful.bench.holdout import load_holdout
from heedful.bench.parallel import resolve_workers
from heedful.bench.policy import parse_policy_list, policy_names
from heedful.bench.report import write_report
from heedful.bench.results import Results, write_results
from heedful.bench.runner import run_benchmark
from heedful.errors import InvalidArgumentError
from heedful.model import Condition, Scenario, load_scenario_set

#: ``--condition`` values: the scenarios' condition, or both side by side (initiation gap).
CONDITIONS = ("announced", "unprompted", "both")


@dataclass(frozen=True)
class RunOutput:
    """A finished run and where it was written."""

    results: Results
    folder: Path
    results_path: Path
    report_path: Path


def new_run_folder(root: Path, seed: int, tag: str = "") -> Path:
    """Create ``root/<UTC timestamp>-<seed>[-tag]/`` (with a suffix if that exists already)."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    base = f"{stamp}-{seed}" + (f"-{tag}" if tag else "")
    folder = root / base
    n = 2
    while folder.exists():
        folder = root / f"{base}-{n}"
        n += 1
    folder.mkdir(parents=True)
    return folder


def _family_labels(text: str) -> set[str]:
    """Lower-cased labels that select a family in files: the names given, plus code/long name."""
    out: set[str] = set()
    for name in (n.strip().lower() for n in text.split(",") if n.strip()):
        out.add(name)
        fam = next((f for f in FAMILIES.values() if name in (f.code.lower(), f.name)), None)
        if fam is not None:
            out |= {fam.code.lower(), fam.name}
    return out


def _check_condition(condition: str) -> None:
    if condition not in CONDITIONS:
        raise InvalidArgumentError(
            f"condition must be one of {', '.join(CONDITIONS)}, not {condition!r}"
        )


def _keep_condition(scenarios: list[Scenario], condition: str) -> list[Scenario]:
    if condition == "both":
        return scenarios
    kept = [s for s in scenarios if s.view.condition.value == condition]
    if not kept:
        raise InvalidArgumentError(f"no scenario with condition {condition!r}")
    return kept


def select_scenarios(
    paths: Sequence[Path] | None,
    families: str | None,
    count: int,
    seed: int,
    condition: str = "announced",
) -> tuple[list[Scenario], str, dict[str, str]]:
    """Load scenario files, or generate ``count`` per family; keep only the named families.

    ``condition``: ``announced`` (default) or ``unprompted`` generates that condition (from
    files: keeps only scenarios of that condition, except that the default keeps every file
    scenario); ``both`` generates each scenario and its unprompted twin.

    Returns:
        The scenarios, a description of their source, and the generator versions.
    """
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    _check_condition(condition)
    if paths:
        scenarios = load_scenario_set(list(paths))
        if families:
            wanted = _family_labels(families)
            scenarios = [s for s in scenarios if s.view.family.lower() in wanted]
            if not scenarios:
                raise InvalidArgumentError(f"no scenario of family {families!r} in the files")
        if condition != "announced":
            scenarios = _keep_condition(scenarios, condition)
        versions = {f: "file" for f in sorted({s.view.family for s in scenarios})}
        return scenarios, "files: " + ", ".join(str(p) for p in paths), versions
    codes = [f.code for f in parse_family_list(families or ",".join(DEFAULT_CONFIG.suite_families))]
    scenarios = []
    if condition in ("announced", "both"):
        scenarios += generate_suite(codes, count, seed)
    if condition in ("unprompted", "both"):
        scenarios += generate_suite(codes, count, seed, condition=Condition.UNPROMPTED)
    source = f"generated: families {','.join(codes)}, {count} each, dev stream, seed {seed}"
    if condition != "announced":
        source += f", condition {condition}"
    return scenarios, source, generator_versions(codes, unprompted_twins=condition != "announced")


def run_to_folder(
    *,
    scenario_paths: Sequence[Path] | None = None,
    families: str | None = None,
    count: int = DEFAULT_CONFIG.default_count,
    policies: str = "all",
    trials: int = DEFAULT_CONFIG.default_trials,
    seed: int = 0,
    adaptive: bool = False,
    holdout: Path | None = None,
    out: Path | None = None,
    runs_root: Path = Path("runs"),
    progress: bool | None = None,
    config: BenchConfig = DEFAULT_CONFIG,
    condition: str = "announced",
    workers: int | None = 1,
) -> RunOutput:
    """Run the benchmark and write ``results.json``, its trial records and ``report.html``.

    Args:
        scenario_paths: Scenario files or folders; generated scenarios when empty.
        families: Comma-separated families to generate (or to keep from files).
        count: Scenarios per family when generating.
        policies: Comma-separated policy names, or ``all``.
        trials: Trials per scenario and policy.
        seed: Root seed.
        adaptive: Adaptive condition instead of static.
        holdout: A sealed hold-out directory outside the project; the run then writes
            aggregates only (see :mod:`heedful.bench.holdout`).
        out: Output folder; default a new ``runs_root/<timestamp>-<seed>/``.
        runs_root: Where new run folders go.
        progress: Progress bar (default: when stderr is a terminal).
        config: Benchmark settings.
        condition: ``announced`` (default), ``unprompted`` or ``both`` (SPEC §4.2): with
            ``unprompted``/``both`` every trial records the document 000 §15.2 metrics, ``all``
            policies include the opt-in ``summary-trusting`` and ``voc-guarded``, and ``both``
            runs each scenario and its unprompted twin on the same worlds (initiation gap).
        workers: Processes playing scenarios in parallel (``None``: one per CPU core); the
            results are the same for any count.
    """
    if trials < 1:
        raise InvalidArgumentError(f"trials must be at least 1, got {trials}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed}")
    resolve_workers(workers)  # a bad count fails before any work
    _check_condition(condition)
    names = parse_policy_list(policies)
    if condition != "announced" and policies.strip() == "all":
        names = policy_names()
    if holdout is not None:
        if scenario_paths:
            raise InvalidArgumentError("give either --scenarios or --holdout, not both")
        scenarios = load_holdout(holdout)
        if families:
            wanted = _family_labels(families)
            scenarios = [s for s in scenarios if s.view.family.lower() in wanted]
            if not scenarios:
                raise InvalidArgumentError(f"no hold-out scenario of family {families!r}")
        if condition != "announced":
            scenarios = _keep_condition(scenarios, condition)
        source = "sealed hold-out"
        versions = {f: "holdout" for f in sorted({s.view.family for s in scenarios})}
    else:
        scenarios, source, versions = select_scenarios(
            scenario_paths, families, count, seed, condition
        )
    # Make the output folder before the run, so a bad --out fails at once, not after the work.
    try:
        if out is None:
            folder = new_run_folder(runs_root, seed, "holdout" if holdout is not None else "")
        else:
            folder = out
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = out if out is not None else runs_root
        raise InvalidArgumentError(
            f"cannot use {where} as the output folder: {exc.strerror}"
        ) from None
    results = run_benchmark(
        scenarios,
        names,
        trials=trials,
        seed=seed,
        adaptive=adaptive,
        config=config,
        scenario_source=source,
        generator_versions=versions,
        progress=progress,
        sealed=holdout is not None,
        world_keys=twin_world_keys(scenarios),
        initiation=condition != "announced",
        workers=workers,
    )
    results_path = write_results(results, folder / "results.json")
    report_path = write_report(results, folder / "report.html")
    return RunOutput(results, folder, results_path, report_path)
