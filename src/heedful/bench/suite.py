"""End-to-end runs: choose scenarios (files or generators), run, write the run folder.

This is what ``heedful bench run`` and ``heedful run`` call; the CLI only parses and prints.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from heedful.bench.agents.contract import agent_class, is_agent
from heedful.bench.agents.suite import AgentRun, run_suite
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.kinds import kind_of
from heedful.bench.parallel import few_collections, resolve_workers
from heedful.bench.policy import parse_kind_policies, policy_names
from heedful.bench.report.page import write_report
from heedful.bench.report.timeline import write_timeline
from heedful.bench.results import PolicySpec, Results, write_results
from heedful.bench.results.plays import Plays
from heedful.bench.run import split as kinds
from heedful.bench.run.backend import Backend
from heedful.bench.run.calibration import calibrate
from heedful.bench.run.checkpoint import Checkpoint
from heedful.bench.run.options import BenchRun, Trials
from heedful.bench.run.spec import RunSpec, run_spec
from heedful.bench.worlds.families import (
    DEFAULT_SHIFT,
    FAMILIES,
    check_shift,
    generate_suite,
    generator_versions,
    parse_family_list,
)
from heedful.bench.worlds.families.unprompted import twin_world_keys
from heedful.bench.worlds.holdout import (
    holdout_versions,
    load_holdout,
    refuse_cache_in_project,
    refuse_sealed_files,
)
from heedful.errors import InvalidArgumentError
from heedful.model import Condition, Scenario
from heedful.model.kinds_io import AnyScenario, load_any_scenario_set

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


def _narrow(
    scenarios: list[Scenario], families: str | None, condition: str, what: str, where: str
) -> list[Scenario]:
    """Keep the scenarios of ``families`` (all when ``None``) under ``condition``."""
    if families:
        wanted = _family_labels(families)
        scenarios = [s for s in scenarios if s.view.family.lower() in wanted]
        if not scenarios:
            tail = f" {where}" if where else ""
            raise InvalidArgumentError(f"no {what} of family {families!r}{tail}")
    if condition != "announced":
        scenarios = _keep_condition(scenarios, condition)
    return scenarios


def _load_files(paths: Sequence[Path]) -> list[AnyScenario]:
    """Scenario files of any kind, refusing a sealed hold-out set (it runs with ``--holdout``)."""
    refuse_sealed_files(paths)
    loaded = load_any_scenario_set(list(paths))
    refuse_sealed_files(paths, [s.id for s in loaded])
    return loaded


def select_scenarios(
    paths: Sequence[Path] | None,
    families: str | None,
    count: int,
    seed: int,
    condition: str = "announced",
    shift: float = DEFAULT_SHIFT,
) -> tuple[list[Scenario], str, dict[str, str]]:
    """Load scenario files, or generate ``count`` per family; keep only the named families.

    ``condition``: ``announced`` (default) or ``unprompted`` generates that condition (from
    files: keeps only scenarios of that condition, except that the default keeps every file
    scenario); ``both`` generates each scenario and its unprompted twin. ``shift``: how far the
    generated worlds' hidden models are from the controller's defaults (recorded in the versions).

    Returns:
        The scenarios, a description of their source, and the generator versions.
    """
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    _check_condition(condition)
    shift = check_shift(shift)
    if paths:
        scenarios, _ = kinds.split_scenarios(_load_files(paths))
        scenarios = _narrow(scenarios, families, condition, "scenario", "in the files")
        versions = {f: "file" for f in sorted({s.view.family for s in scenarios})}
        return scenarios, "files: " + ", ".join(str(p) for p in paths), versions
    codes = [f.code for f in parse_family_list(families or ",".join(DEFAULT_CONFIG.suite_families))]
    scenarios = []
    if condition in ("announced", "both"):
        scenarios += generate_suite(codes, count, seed, shift=shift)
    if condition in ("unprompted", "both"):
        scenarios += generate_suite(codes, count, seed, condition=Condition.UNPROMPTED, shift=shift)
    source = (
        f"generated: families {','.join(codes)}, {count} each, dev stream, seed {seed}, "
        f"shift {shift:g}"
    )
    if condition != "announced":
        source += f", condition {condition}"
    return (
        scenarios,
        source,
        generator_versions(codes, unprompted_twins=condition != "announced", shift=shift),
    )


@few_collections()
def run_to_folder(
    spec: RunSpec | None = None,
    *,
    agent_run: AgentRun | None = None,
    backend: Backend | None = None,
    progress: bool | None = None,
    resume: Path | None = None,
    run_args: Mapping[str, Any] | None = None,
    on_folder: Callable[[Path], None] | None = None,
    **fields: Any,
) -> RunOutput:
    """Run the benchmark described by ``spec`` and write ``results.json``, its trial records and
    ``report.html``.

    Args:
        spec: What to run (:class:`~heedful.bench.run.spec.RunSpec`); without it, ``fields`` are
            its fields (``run_to_folder(families="G", trials=2)``), never both.
        agent_run: How agents named in the spec's policies (``llm``, ``llm-advised``) reach their
            model, the validator mode and the concurrency (docs/llm.md).
        backend: Where scenarios and agent trials run instead (e.g. a Ray cluster, see
            :mod:`heedful.bench.run.backend`); ``workers`` then only parallelise the aggregation.
            The results are the same.
        progress: Progress bar (default: when stderr is a terminal).
        resume: A killed run's folder, to finish (the spec is that run's): its finished
            scenarios are read, not played again (:mod:`heedful.bench.run.checkpoint`); the
            results are those of one uninterrupted run (D/J scenarios too). Agent trials are
            played again.
        run_args: The command's arguments, kept in the folder for a later ``--resume``.
        on_folder: Called with the run folder once it is made, before any scenario is played
            (the CLI names it when a run is interrupted).

    With ``condition`` ``unprompted``/``both`` every trial records the document 000 §15.2
    metrics, ``all`` policies include the opt-in ``summary-trusting`` and ``voc-guarded``, and
    ``both`` runs each scenario and its unprompted twin on the same worlds (initiation gap).
    ``shift`` is ignored for files and hold-outs, which carry their truth; the results are the
    same for any ``workers`` count.

    Raises:
        InvalidArgumentError: a bad field, or a spec and fields both given.
    """
    if spec is None:
        spec = run_spec(**fields)
    elif fields:
        raise InvalidArgumentError(
            f"give a RunSpec or its fields, not both (got {', '.join(sorted(fields))})"
        )
    scenario_paths = list(spec.scenario_paths) or None
    families, count, policies = spec.families, spec.count, spec.policies
    trials, seed, adaptive, holdout = spec.trials, spec.seed, spec.adaptive, spec.holdout
    out, runs_root, config, condition = spec.out, spec.runs_root, spec.config, spec.condition
    policy_params, shift, workers = spec.policy_params, spec.shift, spec.workers
    Trials(trials=trials, seed=seed)  # a bad trial count or seed fails before any work
    resolve_workers(workers)
    _check_condition(condition)
    requested = [n.strip() for n in policies.split(",") if n.strip()]
    agents = [n for n in requested if is_agent(n)]
    if len(set(agents)) != len(agents):
        raise InvalidArgumentError(f"an agent is listed twice in {policies!r}")
    if agents and agent_run is None:
        raise InvalidArgumentError(
            f"agent {agents[0]!r} needs a model endpoint: give --model and --base-url"
        )
    for name in agents:
        agent_class(name)  # a missing extra fails here, before any work
    if holdout is not None and agents and agent_run is not None:
        refuse_cache_in_project(agent_run.settings.cache)
    rest = ",".join(n for n in requested if not is_agent(n))
    inspection_families, kind_codes = kinds.split_families(families)
    kind_scenarios: list[Any] = []
    run_inspection = True
    if holdout is None and scenario_paths:
        found, kind_scenarios = kinds.split_scenarios(_load_files(scenario_paths))
        if families:
            wanted = _family_labels(families)
            kind_scenarios = [s for s in kind_scenarios if s.view.family.lower() in wanted]
            found = [s for s in found if s.view.family.lower() in wanted]
        run_inspection = bool(found) or not kind_scenarios
    elif holdout is None and kind_codes:
        kind_scenarios = kinds.generate_kinds(kind_codes, count, seed)
        run_inspection = inspection_families is not None
    elif kind_codes:
        raise InvalidArgumentError("families D and J are not part of sealed hold-outs yet")
    if kind_scenarios and agents:
        raise InvalidArgumentError("agents under test run on inspection scenarios only, not D/J")
    names = kinds.inspection_policies(rest, need=run_inspection) if rest or not agents else []
    if condition != "announced" and rest.strip() == "all":
        names = policy_names()
    params = policy_params or {}
    for pname in params:
        if pname not in names:
            raise InvalidArgumentError(f"parameters are given for {pname!r}, which is not run")
    specs = [PolicySpec(name=n, params=params.get(n, {})) for n in names]
    # Each kind's own list: ``all`` means a different suite on each kind.
    by_kind: dict[str, list[PolicySpec | str]] = {"inspection": [*specs]}
    for kind in dict.fromkeys(kind_of(s) for s in kind_scenarios):
        by_kind[kind] = [*parse_kind_policies(policies, kind)]
    if not run_inspection:
        scenarios: list[Scenario] = []
        source = (
            "files: " + ", ".join(str(p) for p in scenario_paths) if scenario_paths else "generated"
        )
        versions: dict[str, str] = {}
    elif holdout is not None:
        if scenario_paths:
            raise InvalidArgumentError("give either --scenarios or --holdout, not both")
        scenarios = _narrow(load_holdout(holdout), families, condition, "hold-out scenario", "")
        source = "sealed hold-out"
        versions = holdout_versions(holdout, sorted({s.view.family for s in scenarios}))
    else:
        scenarios, source, versions = select_scenarios(
            scenario_paths,
            inspection_families if families else None,
            count,
            seed,
            condition,
            shift,
        )
    # Make the output folder before the run, so a bad --out fails at once, not after the work.
    try:
        if resume is not None:
            if not resume.is_dir():
                raise InvalidArgumentError(f"--resume: {resume} is not a run folder")
            if (resume / "results.json").exists():
                raise InvalidArgumentError(
                    f"--resume: {resume} holds a finished run (results.json)"
                )
            folder = resume
        elif out is None:
            folder = new_run_folder(runs_root, seed, "holdout" if holdout is not None else "")
        else:
            folder = out
            if (folder / "results.json").exists():
                raise InvalidArgumentError(
                    f"{out} already holds a run (results.json); choose another --out or remove it"
                )
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        where = out if out is not None else runs_root
        raise InvalidArgumentError(
            f"cannot use {where} as the output folder: {exc.strerror}"
        ) from None
    if on_folder is not None:
        on_folder(folder)
    # A sealed hold-out keeps no checkpoint: its trial records never reach the disk.
    checkpoint = Checkpoint(folder) if holdout is None else None
    if checkpoint is not None and resume is None:
        checkpoint.clear()  # a killed earlier run in this --out is not this run's
        if run_args is not None:
            checkpoint.save_args(run_args)
    # The controller policies' plays, kept for the calibration and health tables (no replays):
    # static runs only, where each scenario is played once per policy (an adaptive run plays
    # every trial, and the health table replays at most 400 of them per policy).
    plays: Plays = {}
    if kind_scenarios:
        versions = {**versions, **kinds.kind_versions(kind_codes)}
    bench_run = BenchRun(
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
        backend=backend,
        plays=plays if holdout is None and not adaptive else None,
        checkpoint=checkpoint,
    )
    # One call plays every kind: the D/J rows join ``aggregates.rows``, their trials ``kinds``.
    results = run_suite([*scenarios, *kind_scenarios], by_kind, agents, agent_run, bench_run)
    if run_inspection and holdout is None and names:
        # Calibration replays static plays with default parameters: only those are reused.
        static = {k: p for k, p in plays.items() if k[0] not in params}
        results = results.model_copy(
            update={"calibration": calibrate(scenarios, names, plays=static)}
        )
    results.manifest.run_spec = spec.manifest_record()
    results_path = write_results(results, folder / "results.json")
    if scenarios:
        write_timeline(
            folder, results, scenarios, world_keys=twin_world_keys(scenarios), plays=plays
        )
    report_path = write_report(results, folder / "report.html")
    if checkpoint is not None:
        checkpoint.clear()
    return RunOutput(results, folder, results_path, report_path)
