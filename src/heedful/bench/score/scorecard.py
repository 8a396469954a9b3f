"""Document 000 §29's v1 scorecard: baseline | new | Δ for eight metrics, from two results files.

Each metric is computed from the per-trial records of one policy in each file (its inspection
trials, every family pooled, or the families named); the two runs are **paired** on the trials
they share — same scenario (its id, family and oracle summary equal in both files), trial
number and mode, in the same condition — and Δ = new − baseline gets a paired percentile
bootstrap interval with scenarios resampled whole (:mod:`heedful.bench.stats`). A metric that
neither run measures is ``n/a`` with the reason, never a number that cannot fail:

===============================  =================================================  ==========
metric                           per trial (the mean over the trials that have it)  better
===============================  =================================================  ==========
attention regret                 ``regret`` (adaptive runs: the exact adaptive one)  lower
spontaneous authoritative insp.  ``initiation.authoritative_inspected`` on          higher
                                 unprompted scenarios (§15.2)
critical-signal recall           ``critical_recall``                                higher
candidate recall                 ``candidate_recall`` (controller policies, §18)     higher
evidence utilisation             agent trials with stated beliefs and a read: not   higher
                                 ``EVIDENCE_IGNORED``
time to critical inspection      ``first_critical_at`` (trials that read one)       lower
decision utility / compute       ``Σ utility / Σ inspection_compute`` (a ratio)     higher
validator rescue rate            per (scenario, trial) run in both modes:           —
                                 production right and attention wrong (§17.3)
===============================  =================================================  ==========

A sealed run (aggregates only, document 000 §22) has no trial records: its cells come from its
``all`` aggregate row where that row has the metric, and Δ has no interval.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from heedful.bench.results import Results, TrialRecord
from heedful.bench.stats import paired_difference
from heedful.errors import InvalidArgumentError

#: A trial's key within one policy's trials of a run.
Key = tuple[str, str, int, str]
#: What a metric reads of one trial (``None``: the trial does not count for it).
Reader = Callable[[TrialRecord], float | None]


@dataclass(frozen=True)
class Metric:
    """One row of the scorecard.

    Attributes:
        name: As document 000 §29 names it.
        better: ``higher``, ``lower`` or ``—`` (no direction: the rescue rate measures how much
            enforcement, not attention, does).
        absent: Why a run may lack it (printed with ``n/a``).
    """

    name: str
    better: str
    absent: str


@dataclass(frozen=True)
class Cell:
    """A run's value of a metric: ``value`` over ``n`` trials, or ``None`` (n/a)."""

    value: float | None
    n: int


@dataclass(frozen=True)
class ScoreLine:
    """One metric of the scorecard.

    Attributes:
        metric: Which.
        base: The baseline run's value.
        new: The new run's value.
        delta: ``new − base`` (paired mean over shared trials when there are pairs, else the
            difference of the two values; ``None`` when either is n/a).
        lo: Lower end of the paired 95% interval of ``delta`` (``None``: unpaired).
        hi: Upper end.
        pairs: Paired trials behind ``delta`` (0: unpaired).
        note: Why a value is n/a, or how ``delta`` was formed.
    """

    metric: Metric
    base: Cell
    new: Cell
    delta: float | None
    lo: float | None
    hi: float | None
    pairs: int
    note: str = ""


@dataclass(frozen=True)
class Scorecard:
    """The eight lines, and what was compared.

    Attributes:
        base_policy: The baseline's policy.
        new_policy: The new run's policy.
        families: The families pooled (``None``: every inspection family).
        shared: Scenarios the two runs share (0 when either is sealed or conditions differ).
        lines: One per metric of :data:`METRICS`, in its order.
    """

    base_policy: str
    new_policy: str
    families: tuple[str, ...] | None
    shared: int
    lines: tuple[ScoreLine, ...]


REGRET = Metric("Attention regret", "lower", "no informative trials")
SPONTANEOUS = Metric(
    "Spontaneous authoritative inspection",
    "higher",
    "no unprompted trials (run with --condition unprompted or both)",
)
RECALL = Metric("Critical-signal recall", "higher", "no trial with a critical source")
CANDIDATES = Metric(
    "Candidate recall", "higher", "the policy has no candidate generator (controller policies do)"
)
EVIDENCE = Metric(
    "Evidence-utilization rate",
    "higher",
    "no agent trial with stated beliefs and a read (the runner uses evidence by construction)",
)
TIME = Metric("Time to critical inspection", "lower", "no trial read a critical source")
UTILITY = Metric("Decision utility / compute", "higher", "nothing was spent on inspections")
RESCUE = Metric(
    "Validator rescue rate", "—", "no trial run in both modes (agents with --mode both)"
)
#: The eight metrics of document 000 §29, in its order.
METRICS: tuple[Metric, ...] = (REGRET, SPONTANEOUS, RECALL, CANDIDATES, EVIDENCE, TIME, UTILITY)
METRICS = (*METRICS, RESCUE)


def _spontaneous(t: TrialRecord) -> float | None:
    ini = t.initiation
    if ini is None or ini.scenario_condition != "unprompted":
        return None
    return float(ini.authoritative_inspected)


def _evidence(t: TrialRecord) -> float | None:
    if t.decided_by != "agent" or not t.beliefs or not t.inspected:
        return None
    return 0.0 if "EVIDENCE_IGNORED" in t.codes else 1.0


def _optional(value: float | int | None) -> float | None:
    return None if value is None else float(value)


#: The per-trial reader of each mean metric.
READERS: dict[str, Reader] = {
    REGRET.name: lambda t: float(t.regret),
    SPONTANEOUS.name: _spontaneous,
    RECALL.name: lambda t: _optional(t.critical_recall),
    CANDIDATES.name: lambda t: _optional(t.candidate_recall),
    EVIDENCE.name: _evidence,
    TIME.name: lambda t: _optional(t.first_critical_at),
}


def _key(t: TrialRecord) -> Key:
    return (t.scenario_id, t.family, t.trial, t.mode)


def _trials(results: Results, policy: str, families: Sequence[str] | None) -> list[TrialRecord]:
    keep = None if families is None else {f.upper() for f in families}
    return [
        t
        for t in results.trials
        if t.policy == policy and (keep is None or t.family.split("/")[0].upper() in keep)
    ]


def _fingerprint(results: Results) -> dict[str, tuple[object, ...]]:
    """Per scenario id, what must agree for two runs to share it (its oracle summary)."""
    return {
        s.id: (
            s.family,
            s.n_sources,
            s.budget,
            round(s.v_star, 9),
            round(s.u_random, 9),
            round(s.v_empty, 9),
            tuple(s.critical),
        )
        for s in results.scenarios
    }


def shared_scenarios(base: Results, new: Results) -> set[str]:
    """Scenario ids both runs played with the same oracle summary, in the same condition."""
    if base.manifest.condition != new.manifest.condition:
        return set()
    a, b = _fingerprint(base), _fingerprint(new)
    return {sid for sid, fp in a.items() if b.get(sid) == fp}


def _mean(values: Sequence[float]) -> Cell:
    return Cell(float(np.mean(values)) if values else None, len(values))


def _ratio(trials: Sequence[TrialRecord]) -> Cell:
    spent = [t for t in trials if t.inspection_compute is not None]
    total = math.fsum(float(t.inspection_compute or 0.0) for t in spent)
    if not spent or total <= 0:
        return Cell(None, len(spent))
    return Cell(math.fsum(t.utility for t in spent) / total, len(spent))


def _rescue_values(trials: Sequence[TrialRecord]) -> dict[tuple[str, str, int], float]:
    by_mode: dict[str, dict[tuple[str, str, int], TrialRecord]] = {}
    for t in trials:
        by_mode.setdefault(t.mode, {})[(t.scenario_id, t.family, t.trial)] = t
    att, prod = by_mode.get("attention", {}), by_mode.get("production", {})
    return {
        k: float(prod[k].action_correct and not att[k].action_correct)
        for k in att.keys() & prod.keys()
    }


def _paired_ratio(
    base: Sequence[TrialRecord], new: Sequence[TrialRecord], rng: np.random.Generator
) -> tuple[float, float, float, int] | None:
    """Δ of Σ utility / Σ compute on paired trials, with a scenario-cluster bootstrap."""
    a = {_key(t): t for t in base if t.inspection_compute is not None}
    b = {_key(t): t for t in new if t.inspection_compute is not None}
    keys = sorted(a.keys() & b.keys())
    if not keys:
        return None
    clusters = sorted({k[0] for k in keys})
    index = {c: i for i, c in enumerate(clusters)}
    sums = np.zeros((len(clusters), 4))  # utility and compute, base then new
    for k in keys:
        row = index[k[0]]
        sums[row] += (
            a[k].utility,
            float(a[k].inspection_compute or 0.0),
            b[k].utility,
            float(b[k].inspection_compute or 0.0),
        )
    total = sums.sum(axis=0)
    if total[1] <= 0 or total[3] <= 0:
        return None
    delta = total[2] / total[3] - total[0] / total[1]
    draws = rng.integers(len(clusters), size=(2000, len(clusters)))
    boot = sums[draws].sum(axis=1)
    ok = (boot[:, 1] > 0) & (boot[:, 3] > 0)
    diffs = boot[ok, 2] / boot[ok, 3] - boot[ok, 0] / boot[ok, 1]
    lo, hi = np.quantile(diffs, [0.025, 0.975]) if diffs.size else (delta, delta)
    return float(delta), float(lo), float(hi), len(keys)


def _line(
    metric: Metric,
    base: Cell,
    new: Cell,
    paired: tuple[float, float, float, int] | None,
    note: str = "",
) -> ScoreLine:
    if base.value is None or new.value is None:
        which = [name for name, c in (("baseline", base), ("new", new)) if c.value is None]
        return ScoreLine(
            metric, base, new, None, None, None, 0, f"n/a in {' and '.join(which)}: {metric.absent}"
        )
    if paired is None:
        return ScoreLine(
            metric,
            base,
            new,
            new.value - base.value,
            None,
            None,
            0,
            note or "unpaired (no shared trial has it in both runs)",
        )
    delta, lo, hi, n = paired
    return ScoreLine(metric, base, new, delta, lo, hi, n, note)


def _aggregate_cell(results: Results, metric: Metric, policy: str) -> Cell:
    """A sealed run's value of a metric, from its ``all`` inspection row (n/a if not there)."""
    row = next(
        (
            r
            for r in results.aggregates.inspection_rows()
            if r.family == "all" and r.policy == policy
        ),
        None,
    )
    if row is None:
        return Cell(None, 0)
    n = row.n_trials
    value: float | None = None
    if metric is REGRET:
        value = row.regret.mean
    elif metric is RECALL and row.critical_recall is not None:
        value = row.critical_recall.mean
    elif metric is CANDIDATES and row.candidate_recall is not None:
        value = row.candidate_recall.mean
    elif metric is EVIDENCE and row.evidence_utilisation is not None:
        value = row.evidence_utilisation.p
    elif metric is TIME and row.first_critical_at is not None:
        value = row.first_critical_at.mean
    elif metric is UTILITY:
        value = row.utility_per_compute
    return Cell(value, n if value is not None else 0)


def _cells(results: Results, trials: Sequence[TrialRecord], policy: str) -> dict[str, Cell]:
    if not results.trials:  # sealed: aggregates only
        return {m.name: _aggregate_cell(results, m, policy) for m in METRICS}
    out = {
        name: _mean([v for t in trials if (v := read(t)) is not None])
        for name, read in READERS.items()
    }
    out[UTILITY.name] = _ratio(trials)
    out[RESCUE.name] = _mean(list(_rescue_values(trials).values()))
    return out


def _policies(results: Results) -> set[str]:
    return {t.policy for t in results.trials} | {
        r.policy for r in results.aggregates.inspection_rows()
    }


#: The policy a scorecard compares when none is named and both runs have it.
DEFAULT_POLICY = "voc-default"


def pick_policy(base: Results, new: Results) -> str:
    """The policy to compare when none is named: :data:`DEFAULT_POLICY` if both runs have it,
    else the one policy they share.

    Raises:
        InvalidArgumentError: they share none, or several and not the default (naming them).
    """
    common = _policies(base) & _policies(new)
    if DEFAULT_POLICY in common:
        return DEFAULT_POLICY
    if len(common) == 1:
        return next(iter(common))
    listed = ", ".join(sorted(common)) or "none"
    raise InvalidArgumentError(
        f"name the policy to compare (--policy, or --base-policy and --new-policy); "
        f"the runs share: {listed}"
    )


def scorecard(
    base: Results,
    new: Results,
    *,
    base_policy: str,
    new_policy: str | None = None,
    families: Sequence[str] | None = None,
    seed: int = 0,
) -> Scorecard:
    """The §29 scorecard of ``new_policy`` in ``new`` against ``base_policy`` in ``base``.

    Args:
        base: The baseline run.
        new: The new run (may be the same file, for two policies of one run).
        base_policy: The baseline's policy.
        new_policy: The new run's policy (default: ``base_policy``).
        families: Family codes to pool (default: every inspection family of the runs).
        seed: Seed of the bootstrap resampling.

    Raises:
        InvalidArgumentError: a policy is not in its run (naming the policies it has).
    """
    new_policy = new_policy or base_policy
    for label, res, pol in (("baseline", base, base_policy), ("new", new, new_policy)):
        have = _policies(res)
        if pol not in have:
            raise InvalidArgumentError(
                f"the {label} run has no inspection trials of policy {pol!r}; it has: "
                f"{', '.join(sorted(have)) or 'none'}"
            )
    shared = shared_scenarios(base, new) if base.trials and new.trials else set()
    a = _trials(base, base_policy, families)
    b = _trials(new, new_policy, families)
    cells_a, cells_b = _cells(base, a, base_policy), _cells(new, b, new_policy)
    pa = {_key(t): t for t in a if t.scenario_id in shared}
    pb = {_key(t): t for t in b if t.scenario_id in shared}
    keys = sorted(pa.keys() & pb.keys())
    rng = np.random.default_rng(seed)
    lines = []
    sealed_note = "" if base.trials and new.trials else "a sealed run: aggregates, unpaired"
    for metric in METRICS:
        paired = None
        if metric.name in READERS:
            read = READERS[metric.name]
            both = [
                (va, vb, k[0])
                for k in keys
                if (va := read(pa[k])) is not None and (vb := read(pb[k])) is not None
            ]
            if both:
                diff = paired_difference(
                    [x[1] for x in both],
                    [x[0] for x in both],
                    rng,
                    clusters=[x[2] for x in both],
                )
                assert diff is not None
                paired = (diff.mean, diff.lo, diff.hi, diff.n)
        elif metric is UTILITY:
            paired = _paired_ratio([pa[k] for k in keys], [pb[k] for k in keys], rng)
        else:
            ra, rb = _rescue_values(list(pa.values())), _rescue_values(list(pb.values()))
            common = sorted(ra.keys() & rb.keys())
            if common:
                diff = paired_difference(
                    [rb[k] for k in common],
                    [ra[k] for k in common],
                    rng,
                    clusters=[k[0] for k in common],
                )
                assert diff is not None
                paired = (diff.mean, diff.lo, diff.hi, diff.n)
        lines.append(_line(metric, cells_a[metric.name], cells_b[metric.name], paired, sealed_note))
    return Scorecard(
        base_policy,
        new_policy,
        tuple(families) if families is not None else None,
        len(shared),
        tuple(lines),
    )
