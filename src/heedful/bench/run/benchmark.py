"""``run_benchmark``: policies on scenarios of every kind, in one call, into one results table.

A scenario's kind is found by :func:`heedful.bench.kinds.kind_of`. Inspection scenarios are
played by the inspection runner (:func:`heedful.bench.run.runner.play_inspection`), the other
kinds' (switching D, schedule J, …) by :func:`heedful.bench.run.kinds.play_kinds` with the same
trials, seed, backend, checkpoint and progress display. Their rows join ``aggregates.rows``
and ``aggregates.paired`` (each row says its ``kind``), their trials ``results.kinds``, and the
manifest counts them in ``n_scenarios`` and names their families in ``generator_versions``.
``heedful bench run`` makes this one call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from heedful.bench.config import DEFAULT_CONFIG, BenchConfig
from heedful.bench.kinds import kind_of
from heedful.bench.parallel import resolve_workers
from heedful.bench.policy import (
    kind_policy,
    kind_policy_names,
    other_kinds,
    policy_class,
    policy_names,
)
from heedful.bench.results import PolicySpec, Results
from heedful.bench.results.plays import Plays
from heedful.bench.run.backend import Backend, local_backend
from heedful.bench.run.checkpoint import Checkpoint
from heedful.bench.run.kinds import play_kinds
from heedful.bench.run.options import BenchRun, ProgressFn
from heedful.bench.run.runner import check_ids, play_inspection, progress_ticks
from heedful.bench.run.split import empty_results
from heedful.errors import InvalidArgumentError

__all__ = ["Policies", "PolicyList", "play_benchmark", "policies_of_kind", "run_benchmark"]

#: Policy names, or specs with parameters (parameters are the inspection policies' own).
PolicyList = Sequence[PolicySpec | str]
#: One list for every kind, or each kind's own list (by kind name; a
#: :class:`~heedful.model.scenario.ScenarioKind` is its name).
Policies = PolicyList | Mapping[str, PolicyList]


def _name(policy: PolicySpec | str) -> str:
    return policy if isinstance(policy, str) else policy.name


def policies_of_kind(policies: Policies, kind: str) -> list[PolicySpec | str]:
    """The policies that play the scenarios of ``kind``.

    A mapping gives each kind its list (a run refuses scenarios of a kind it leaves out). From
    one list, a kind plays the names that exist for it, in the list's order (``voc,always-queue``
    plays ``voc`` on inspection scenarios and both on switching ones), as ``heedful bench run``
    does.

    Raises:
        UnknownNameError: a name of the one list that no kind knows.
    """
    if isinstance(policies, Mapping):
        return list(policies.get(kind, []))
    inspection = set(policy_names())
    elsewhere = {n for k in other_kinds() for n in kind_policy_names(k)}
    for p in policies:
        if _name(p) not in inspection and _name(p) not in elsewhere:
            policy_class(_name(p))  # raises, naming the known policies
    known = inspection if kind == "inspection" else set(kind_policy_names(kind))
    return [p for p in policies if _name(p) in known]


def _kind_names(policies: Policies, kinds: Sequence[str]) -> dict[str, list[str]]:
    """Each other kind's policy names, each checked to exist for its kind."""
    out: dict[str, list[str]] = {}
    for kind in kinds:
        names = [_name(p) for p in policies_of_kind(policies, kind)]
        if len(set(names)) != len(names):
            raise InvalidArgumentError(f"a policy is listed twice for {kind}: {names}")
        for name in names:
            kind_policy(kind, name)  # an unknown name fails here, before any work
        out[kind] = names
    return out


def play_benchmark(scenarios: Sequence[Any], policies: Policies, run: BenchRun) -> Results:
    """:func:`run_benchmark` with its options as one :class:`BenchRun` object.

    Raises:
        InvalidArgumentError: empty inputs, duplicate ids, a world key list of the wrong length,
            or scenarios of a kind other than inspection in a sealed run.
        UnknownNameError: unknown policy.
    """
    check_ids(scenarios)
    of_kind = [kind_of(s) for s in scenarios]
    inspection = [s for s, k in zip(scenarios, of_kind, strict=True) if k == "inspection"]
    others = [s for s, k in zip(scenarios, of_kind, strict=True) if k != "inspection"]
    if others and run.sealed:
        raise InvalidArgumentError("families D and J are not part of sealed hold-outs yet")
    kinds = list(dict.fromkeys(k for k in of_kind if k != "inspection"))
    if isinstance(policies, Mapping):
        present = [*(["inspection"] if inspection else []), *kinds]
        for kind in present:
            if kind not in policies:
                raise InvalidArgumentError(f"no policies given for the {kind} scenarios")
    names = _kind_names(policies, kinds)
    if inspection:
        results = play_inspection(inspection, policies_of_kind(policies, "inspection"), run)
    else:
        results = empty_results(
            seed=run.seed, trials=run.trials, source=run.scenario_source, config=run.config
        )
    if not others:
        return results
    # The same driver, backend, checkpoint and progress display as the inspection scenarios:
    # one job each.
    with progress_ticks(run.progress) as tick:
        played = play_kinds(
            others,
            names,
            trials=run.trials,
            seed=run.seed,
            config=run.config,
            backend=run.backend or local_backend(resolve_workers(run.workers)),
            progress=tick,
            checkpoint=run.checkpoint,
        )
    aggregates = results.aggregates.model_copy(
        update={
            "rows": [*results.aggregates.rows, *played.rows],
            "paired": [*results.aggregates.paired, *played.paired],
        }
    )
    manifest = results.manifest
    versions = manifest.generator_versions  # the inspection part's, when there is one
    if run.generator_versions is None:
        versions = versions | {f: "file" for f in sorted({s.view.family for s in others})}
    elif not inspection:
        versions = dict(run.generator_versions)
    manifest = manifest.model_copy(
        update={
            "generator_versions": versions,
            "n_scenarios": manifest.n_scenarios + len(others),
        }
    )
    return results.model_copy(
        update={"kinds": played.trials, "aggregates": aggregates, "manifest": manifest}
    )


def run_benchmark(
    scenarios: Sequence[Any],
    policies: Policies,
    *,
    trials: int,
    seed: int,
    adaptive: bool = False,
    config: BenchConfig = DEFAULT_CONFIG,
    scenario_source: str = "<memory>",
    generator_versions: dict[str, str] | None = None,
    progress: bool | ProgressFn | None = None,
    sealed: bool = False,
    world_keys: Sequence[int] | None = None,
    initiation: bool = False,
    workers: int | None = 1,
    backend: Backend | None = None,
    plays: Plays | None = None,
    checkpoint: Checkpoint | None = None,
) -> Results:
    """Run every policy on every scenario ``trials`` times and score it, against the exact oracle.

    Args:
        scenarios: Scenarios of any kind, mixed (ids unique): inspection, switching (family D)
            and schedule (family J).
        policies: Registered policy names, or specs with parameters. Each kind plays the names
            that exist for it (:func:`policies_of_kind`); a mapping from
            :class:`~heedful.model.scenario.ScenarioKind` gives each kind its own list. Spec
            parameters reach inspection policies only.
        trials, seed, adaptive, config, world_keys, initiation: What every trial shares (see
            :class:`~heedful.bench.run.options.Trials`); ``world_keys`` has one key per
            inspection scenario, in order; ``adaptive`` and ``initiation`` concern inspection
            scenarios only.
        scenario_source, generator_versions, progress, sealed, workers, backend, plays,
            checkpoint: How the run is played (see :class:`~heedful.bench.run.options.BenchRun`).
            Without ``generator_versions`` every family is recorded as ``file``.

    Returns:
        One :class:`~heedful.bench.results.Results`: every kind's rows in ``aggregates.rows``
        and ``aggregates.paired``, the inspection trials in ``trials``, the switching and
        schedule trials in ``kinds``.

    Raises:
        InvalidArgumentError: bad trial count, seed, empty inputs or duplicate ids.
        UnknownNameError: unknown policy.
    """
    return play_benchmark(
        scenarios,
        policies,
        BenchRun(
            trials=trials,
            seed=seed,
            adaptive=adaptive,
            config=config,
            scenario_source=scenario_source,
            generator_versions=generator_versions,
            progress=progress,
            sealed=sealed,
            world_keys=world_keys,
            initiation=initiation,
            workers=workers,
            backend=backend,
            plays=plays,
            checkpoint=checkpoint,
        ),
    )
