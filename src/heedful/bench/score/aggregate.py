"""Aggregates of trial records: per policy and family, and paired policy comparisons (§23).

The one aggregation of every scenario kind: :func:`aggregate` for the inspection kind's records,
:func:`aggregate_kind` for every other kind's (the shared row fields here, the kind's own columns
from its module of :mod:`heedful.bench.kinds`).
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any

import numpy as np

from heedful.bench.config import BenchConfig
from heedful.bench.parallel import map_in_processes
from heedful.bench.results import (
    ALL_FAMILIES,
    AggregateRow,
    Aggregates,
    AnyPairedRow,
    AnyRow,
    FailureCode,
    KindPairedRow,
    KindRow,
    PairedRow,
    Stage,
    TrialRecord,
)
from heedful.bench.seeds import Stream, generator
from heedful.bench.stats import (
    MeanCI,
    PairedDiff,
    Proportion,
    bootstrap_mean,
    bootstrap_ratio,
    clustered_proportion,
    paired_difference,
    transitions,
)

#: How a trial yields one measured value (``None``: the trial does not count for it).
Measure = Callable[[TrialRecord], float | None]


def cluster_mean(
    trials: Sequence[TrialRecord], value: Measure, rng: np.random.Generator, config: BenchConfig
) -> MeanCI | None:
    """Bootstrap mean of ``value`` over the trials that have one, clustered by scenario."""
    kept = [(t.scenario_id, v) for t in trials if (v := value(t)) is not None]
    return bootstrap_mean(
        [v for _, v in kept],
        rng,
        clusters=[c for c, _ in kept],
        n_resamples=config.bootstrap_resamples,
        level=config.ci_level,
    )


def cluster_diff(
    pairs: Sequence[tuple[TrialRecord, TrialRecord]],
    value: Measure,
    rng: np.random.Generator,
    config: BenchConfig,
    *,
    higher_is_better: bool = True,
) -> PairedDiff | None:
    """Bootstrap mean paired difference of ``value`` over pairs where both sides have one."""
    kept = [
        (x.scenario_id, a, b)
        for x, y in pairs
        if (a := value(x)) is not None and (b := value(y)) is not None
    ]
    return paired_difference(
        [a for _, a, _ in kept],
        [b for _, _, b in kept],
        rng,
        clusters=[c for c, _, _ in kept],
        n_resamples=config.bootstrap_resamples,
        level=config.ci_level,
        higher_is_better=higher_is_better,
    )


def informative_score(t: TrialRecord) -> float | None:
    return None if t.uninformative else t.score


def _row(
    family: str, policy: str, trials: Sequence[TrialRecord], config: BenchConfig, seed: int
) -> AggregateRow:
    rng = generator(seed, Stream.STATS)
    informative = [t for t in trials if not t.uninformative and t.score is not None]
    # The draw order (score, regret, net, recall, precision, adaptive) fixes the intervals.
    score = cluster_mean(trials, informative_score, rng, config)
    regret = cluster_mean(trials, attrgetter("regret"), rng, config)
    net = cluster_mean(trials, attrgetter("net_utility"), rng, config)
    recall = cluster_mean(trials, attrgetter("critical_recall"), rng, config)
    precision = cluster_mean(trials, attrgetter("precision"), rng, config)
    adaptive = cluster_mean(trials, attrgetter("adaptive_regret"), rng, config)
    clusters = [t.scenario_id for t in trials]
    n_inspections = sum(len(t.inspected) for t in trials)
    compute = sum(t.inspection_compute or 0.0 for t in trials)
    assert regret is not None and net is not None  # trials is never empty here
    extra = _diagnostics(trials, rng, config)
    return AggregateRow(
        family=family,
        policy=policy,
        n_trials=len(trials),
        n_informative=len(informative),
        n_uninformative=len(trials) - len(informative),
        n_violations=sum(1 for t in trials if t.violation is not None),
        score=score,
        regret=regret,
        optimal=clustered_proportion([t.optimal for t in trials], clusters, config.ci_level),
        action_correct=clustered_proportion(
            [t.action_correct for t in trials], clusters, config.ci_level
        ),
        critical_recall=recall,
        precision=precision,
        distractor_rate=(
            sum(t.distractor_inspections for t in trials) / n_inspections if n_inspections else None
        ),
        net_utility=net,
        utility_per_compute=(sum(t.utility for t in trials) / compute if compute > 0 else None),
        adaptive_regret=adaptive,
        failures=dict(sorted(Counter(t.failure.value for t in trials if t.failure).items())),
        stages=dict(Counter(t.stage.value for t in trials if t.stage)),
        codes=dict(sorted(Counter(c.value for t in trials for c in t.codes).items())),
        **extra,
    )


def _has(code: FailureCode) -> Callable[[TrialRecord], bool]:
    return lambda t: code in t.codes


def _diagnostics(
    trials: Sequence[TrialRecord], rng: np.random.Generator, config: BenchConfig
) -> dict[str, Any]:
    """The document 000 §17 metrics of a row, each with its interval (docs/metrics.md)."""
    clusters = [t.scenario_id for t in trials]
    level = config.ci_level

    def share(pred: Callable[[TrialRecord], bool], among: Sequence[TrialRecord]) -> Proportion:
        return clustered_proportion([pred(t) for t in among], [t.scenario_id for t in among], level)

    def ratio(num: Measure, den: Measure) -> MeanCI | None:
        return bootstrap_ratio(
            [num(t) or 0.0 for t in trials],
            [den(t) or 0.0 for t in trials],
            rng,
            clusters=clusters,
            n_resamples=config.bootstrap_resamples,
            level=level,
        )

    agent = [t for t in trials if t.decided_by == "agent"]
    # Evidence use is judged where inspections reported something the agent could state.
    with_evidence = [t for t in agent if t.beliefs is not None and t.inspected]
    # Reasoning given correct evidence: the attention and retrieval stages passed.
    given = [
        t for t in agent if t.stage not in (Stage.INITIATION, Stage.SELECTION, Stage.RETRIEVAL)
    ]
    kinds = {t.decided_by for t in trials}
    return {
        "static_score": cluster_mean(trials, attrgetter("static_score"), rng, config),
        "utility_per_compute_ci": ratio(attrgetter("utility"), attrgetter("inspection_compute")),
        "distractor_ci": ratio(
            attrgetter("distractor_inspections"), lambda t: float(len(t.inspected))
        ),
        "first_critical_at": cluster_mean(trials, attrgetter("first_critical_at"), rng, config),
        "overinspection": share(_has(FailureCode.OVERINSPECTION), trials),
        "underinspection": share(_has(FailureCode.UNDERINSPECTION), trials),
        "stale_belief_reuse": share(_has(FailureCode.STALE_STATE), trials),
        "candidate_recall": cluster_mean(trials, attrgetter("candidate_recall"), rng, config),
        "selected_given_generated": cluster_mean(
            trials, attrgetter("selected_given_generated"), rng, config
        ),
        "evidence_utilisation": (
            share(lambda t: FailureCode.EVIDENCE_IGNORED not in t.codes, with_evidence)
            if with_evidence
            else None
        ),
        "reasoning_given_evidence": (
            share(attrgetter("action_rational"), given) if given else None
        ),
        "decided_by": kinds.pop() if len(kinds) == 1 else "mixed",
        # The honest headline of an agent (issue 34): how often it decided at all.
        **(
            {
                "n_agent_trials": len(agent),
                "n_decided": sum(1 for t in agent if t.action is not None),
                "n_protocol_errors": sum(1 for t in agent if t.protocol_error is not None),
            }
            if agent
            else {}
        ),
    }


def _paired(
    family: str,
    a: str,
    b: str,
    cols: _PairColumns,
    config: BenchConfig,
    seed: int,
) -> PairedRow | None:
    both = cols.present[a] & cols.present[b]
    if not both.any():
        return None
    rng = generator(seed, Stream.STATS)
    score = cols.diff(a, b, "score", both, rng, config)
    regret = cols.diff(a, b, "regret", both, rng, config, higher_is_better=False)
    assert regret is not None
    return PairedRow(
        family=family,
        policy_a=a,
        policy_b=b,
        score=score,
        regret=regret,
        optimal=transitions(cols.optimal[a][both].tolist(), cols.optimal[b][both].tolist()),
    )


class _PairColumns:
    """One family's trials as columns over the matched (scenario, trial) keys, per policy.

    A comparison of two policies is then array selections instead of a pass over the records:
    the pairs, values and clusters come out in the same order (keys sorted by scenario and
    trial), so every bootstrap sees exactly the input it saw from the records.
    """

    def __init__(self, trials: Sequence[TrialRecord]) -> None:
        keys = sorted({(t.scenario_id, t.trial) for t in trials})
        row = {k: i for i, k in enumerate(keys)}
        scenario_code = {sid: i for i, sid in enumerate(dict.fromkeys(sid for sid, _ in keys))}
        self.cluster = np.array([scenario_code[sid] for sid, _ in keys], dtype=np.int64)
        n = len(keys)
        self.present: dict[str, np.ndarray] = {}
        self.optimal: dict[str, np.ndarray] = {}
        self.values: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}
        by_policy: dict[str, list[TrialRecord]] = {}
        for t in trials:
            by_policy.setdefault(t.policy, []).append(t)
        for pol, recs in by_policy.items():
            idx = np.array([row[(t.scenario_id, t.trial)] for t in recs], dtype=np.int64)
            present = np.zeros(n, dtype=bool)
            present[idx] = True
            optimal = np.zeros(n, dtype=bool)
            optimal[idx] = [t.optimal for t in recs]
            self.present[pol], self.optimal[pol] = present, optimal
            for name in ("score", "regret"):
                got = [getattr(t, name) for t in recs]
                has = np.zeros(n, dtype=bool)
                has[idx] = [v is not None for v in got]
                vals = np.zeros(n)
                vals[idx] = [0.0 if v is None else v for v in got]
                self.values[(pol, name)] = (has, vals)

    def diff(
        self,
        a: str,
        b: str,
        name: str,
        both: np.ndarray,
        rng: np.random.Generator,
        config: BenchConfig,
        *,
        higher_is_better: bool = True,
    ) -> PairedDiff | None:
        """:func:`cluster_diff` of ``name`` over the pairs ``both`` marks."""
        has_a, va = self.values[(a, name)]
        has_b, vb = self.values[(b, name)]
        keep = both & has_a & has_b
        return paired_difference(
            va[keep],
            vb[keep],
            rng,
            clusters=self.cluster[keep].tolist(),
            n_resamples=config.bootstrap_resamples,
            level=config.ci_level,
            higher_is_better=higher_is_better,
        )


#: One unit of aggregation: a (family, policy) row when the second policy is ``None``, else the
#: paired comparison of the two policies in that family.
_Job = tuple[str, str, str | None]


class _Aggregator:
    """Computes single rows and comparisons of one run; per-family selections are cached.

    Every row and every comparison draws from its own bootstrap stream (seeded from the run
    seed), so each one is the same whichever process computes it and in whatever order.
    """

    def __init__(self, trials: Sequence[TrialRecord], config: BenchConfig, seed: int) -> None:
        self.trials, self.config, self.seed = trials, config, seed
        self._fam: dict[str, dict[str, list[TrialRecord]]] = {}
        self._cols: dict[str, _PairColumns] = {}

    def in_family(self, fam: str) -> list[TrialRecord]:
        return [t for t in self.trials if fam == ALL_FAMILIES or t.family == fam]

    def run(self, job: _Job) -> AggregateRow | PairedRow | None:
        fam, a, b = job
        if b is None:
            if fam not in self._fam:
                by_policy: dict[str, list[TrialRecord]] = {}
                for t in self.in_family(fam):
                    by_policy.setdefault(t.policy, []).append(t)
                self._fam[fam] = by_policy
            mine = self._fam[fam].get(a, [])
            return _row(fam, a, mine, self.config, self.seed) if mine else None
        if fam not in self._cols:
            self._cols[fam] = _PairColumns(self.in_family(fam))
        cols = self._cols[fam]
        if a not in cols.present or b not in cols.present:
            return None
        return _paired(fam, a, b, cols, self.config, self.seed)


#: The aggregator of this worker process, set once by :func:`_worker_init`.
_WORKER: list[_Aggregator] = []


def _worker_init(trials: Sequence[TrialRecord], config: BenchConfig, seed: int) -> None:
    _WORKER[:] = [_Aggregator(trials, config, seed)]


def _worker_job(job: _Job) -> AggregateRow | PairedRow | None:
    return _WORKER[0].run(job)


def aggregate(
    trials: Sequence[TrialRecord],
    policies: Sequence[str],
    config: BenchConfig,
    seed: int,
    *,
    workers: int = 1,
) -> Aggregates:
    """Aggregate trial records per (family, policy), overall, and pairwise between policies.

    Args:
        trials: The records of a run.
        policies: Policy names in the order to report them.
        config: Statistics settings.
        seed: Root seed; the bootstrap draws from its own stream.
        workers: Processes computing rows and comparisons in parallel (the result is the same
            for any count; each worker receives the records once).
    """
    families = sorted({t.family for t in trials})
    groups = [*families, ALL_FAMILIES] if len(families) > 1 else families
    jobs: list[_Job] = []
    for fam in groups:
        jobs += [(fam, pol, None) for pol in policies]
        jobs += [(fam, a, b) for a, b in itertools.combinations(policies, 2)]
    if workers > 1:
        done = list(
            map_in_processes(_worker_job, jobs, workers, _worker_init, (trials, config, seed))
        )
    else:
        agg = _Aggregator(trials, config, seed)
        done = [agg.run(job) for job in jobs]
    rows = [r for r in done if isinstance(r, AggregateRow)]
    paired = [p for p in done if isinstance(p, PairedRow)]
    if len(families) == 1:
        # One family: its rows double as the "all" rows so reports can always ask for "all".
        rows += [r.model_copy(update={"family": ALL_FAMILIES}) for r in rows]
        paired += [p.model_copy(update={"family": ALL_FAMILIES}) for p in paired]
    every_row: list[AnyRow] = [*rows]
    every_pair: list[AnyPairedRow] = [*paired]
    return Aggregates(rows=every_row, paired=every_pair)


#: A kind's own row columns from its trials (``ScenarioKindSpec.columns`` of
#: :mod:`heedful.bench.kinds`): ``(trials, mean, clusters, config)`` → column values.
KindMean = Callable[[Callable[[Any], float | None]], MeanCI | None]
KindColumns = Callable[[Sequence[Any], KindMean, list[str], BenchConfig], dict[str, Any]]


def aggregate_kind(
    kind: str,
    trials: Sequence[Any],
    policies: Sequence[str],
    config: BenchConfig,
    seed: int,
    *,
    row: type[KindRow],
    columns: KindColumns,
) -> tuple[list[KindRow], list[KindPairedRow]]:
    """Aggregate the trials of a kind other than inspection per (family, policy), and pairwise.

    The same clustered bootstrap as :func:`aggregate` (each row and each comparison draws from
    a fresh stats stream of the seed); the rows share the fields of :class:`KindRow`, and the
    kind adds its own columns (``columns``) to its row model ``row``. ``policies`` are the
    kind's names in the order to report them; families come sorted.

    Returns the rows, then the paired rows (every pair of policies on matched trials).
    """
    rows: list[KindRow] = []
    paired: list[KindPairedRow] = []
    for family in sorted({t.family for t in trials}):
        fam = [t for t in trials if t.family == family]
        for name in policies:
            mine = [t for t in fam if t.policy == name]
            if mine:
                rows.append(_kind_row(kind, family, name, mine, config, seed, row, columns))
        by_key = {(t.policy, t.scenario_id, t.trial): t for t in fam}
        keys = sorted({(t.scenario_id, t.trial) for t in fam})
        for a, b in itertools.combinations(policies, 2):
            pairs = [
                (by_key[(a, *k)], by_key[(b, *k)])
                for k in keys
                if (a, *k) in by_key and (b, *k) in by_key
            ]
            if pairs:
                rng = generator(seed, Stream.STATS)
                paired.append(
                    KindPairedRow(
                        kind=kind,
                        family=family,
                        policy_a=a,
                        policy_b=b,
                        score=cluster_diff(pairs, attrgetter("score"), rng, config),
                        regret=cluster_diff(
                            pairs, attrgetter("regret"), rng, config, higher_is_better=False
                        ),
                    )
                )
    return rows, paired


def _kind_row(
    kind: str,
    family: str,
    policy: str,
    trials: Sequence[Any],
    config: BenchConfig,
    seed: int,
    model: type[KindRow],
    columns: KindColumns,
) -> KindRow:
    rng = generator(seed, Stream.STATS)

    def mean(get: Callable[[Any], float | None]) -> MeanCI | None:
        return cluster_mean(trials, get, rng, config)

    regret = mean(attrgetter("regret"))
    assert regret is not None
    clusters = [t.scenario_id for t in trials]
    return model(
        kind=kind,
        family=family,
        policy=policy,
        n_trials=len(trials),
        n_informative=sum(1 for t in trials if t.score is not None),
        score=mean(lambda t: t.score),
        regret=regret,
        optimal=clustered_proportion([t.optimal for t in trials], clusters, config.ci_level),
        violations=sum(t.violations for t in trials),
        failures=dict(sorted(Counter(t.failure for t in trials if t.failure).items())),
        **columns(trials, mean, clusters, config),
    )
