"""Core Benchmark 2 metrics: unprompted authoritative inspection (document 000 §15.2–§15.3).

Everything here is evaluator-side. Which sources are *authoritative* is read from the scenario's
PRIVATE truth — the most accurate sources reporting a state-sensitive variable — and only ever
written into trial records; no policy receives it (the runner hands policies ``scenario.view``).

* **state-sensitive variables**: decision variables (named in some utility rule's ``when``) the
  agent holds a belief about and whose volatility is not ``immutable``;
* **authoritative sources**: for each such variable, the noisy-report sources (not echoes)
  reporting it with the highest hidden ``accuracy`` (ties within 1e-9 all count);
* **claimed value**: the mode of the runner's posterior marginal on the variable after the
  policy's observations — what the acted-on claim says about the state;
* **summary substitution**: the authoritative source was not inspected, the claim equals the
  summary belief, and the authoritative source's outcome in this trial (common random numbers:
  the outcome it would have given) reports another value.

See ``docs/metrics.md`` for the aggregates and the initiation gap.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from heedful import decision
from heedful.bench.config import BenchConfig
from heedful.bench.policy import Observation, policy_class
from heedful.bench.results import (
    Aggregates,
    InitiationGapRow,
    InitiationMetrics,
    InitiationRow,
    TrialRecord,
)
from heedful.bench.score.aggregate import cluster_diff, cluster_mean, informative_score
from heedful.bench.seeds import Stream, generator
from heedful.bench.stats import clustered_proportion
from heedful.bench.worlds.families.unprompted import announced_id
from heedful.errors import HeedfulError
from heedful.model import Condition, Scenario, ScenarioView, Volatility


class ScenarioOracle(Protocol):
    """What the §15.2 metrics read of a scenario's oracle (:class:`~.scoring.ScenarioOracle`;
    a protocol, so this module does not import the scoring module that calls it)."""

    @property
    def problem(self) -> decision.DecisionProblem: ...


class TrialWorld(Protocol):
    """What the §15.2 metrics read of a trial's drawn world (:class:`~.scoring.TrialWorld`)."""

    @property
    def values(self) -> dict[str, str]: ...

    def outcome(self, source_id: str) -> int: ...

    def observation(self, source_id: str) -> Observation: ...


#: Suffix of the family label of unprompted trials (``B`` → ``B/unprompted``).
UNPROMPTED_LABEL = "/unprompted"
_TIE = 1e-9


def family_label(view: ScenarioView) -> str:
    """The label a trial is aggregated under: the family, plus ``/unprompted`` if unprompted."""
    unprompted = view.condition is Condition.UNPROMPTED
    return view.family + (UNPROMPTED_LABEL if unprompted else "")


def state_variables(view: ScenarioView) -> list[str]:
    """Believed, non-immutable decision variables (visible structure), in declaration order."""
    used = {v for a in view.actions.values() for rule in a.utility for v in rule.when}
    believed = {b.variable for b in view.beliefs}
    return [
        name
        for name, var in view.variables.items()
        if name in used and name in believed and var.volatility is not Volatility.IMMUTABLE
    ]


def authoritative_sources(scenario: Scenario) -> list[str]:
    """PRIVATE: the most accurate noisy sources reporting each state-sensitive variable."""
    out: list[str] = []
    for var in state_variables(scenario.view):
        accs = {
            s.id: acc
            for s in scenario.sources
            if var in s.reports and (acc := scenario.truth.sources[s.id].accuracy) is not None
        }
        if accs:
            best = max(accs.values())
            out += [sid for sid, a in accs.items() if a >= best - _TIE and sid not in out]
    return out


def _claimed(
    oracle: ScenarioOracle,
    world: TrialWorld,
    inspected: Sequence[str],
    believed: dict[str, str],
) -> list[str]:
    """Posterior-mode value of each variable (in ``problem.variables`` order); a tie goes to the
    believed value (nothing observed overturned it)."""
    problem = oracle.problem
    post = decision.posterior(problem, [(sid, world.outcome(sid)) for sid in inspected])
    assert problem.variables is not None
    out: list[str] = []
    worlds = [problem.world(i) for i in range(problem.n_worlds)]
    for name, domain in problem.variables:
        mass = {v: 0.0 for v in domain}
        for p, w in zip(post, worlds, strict=True):
            mass[w[name]] += float(p)
        held = believed.get(name)
        out.append(max(domain, key=lambda v: (round(mass[v], 12), v == held)))
    return out


def initiation_metrics(
    scenario: Scenario, oracle: ScenarioOracle, world: TrialWorld, inspected: Sequence[str]
) -> InitiationMetrics | None:
    """The §15.2 metrics of one trial (``None`` when the scenario has no state-sensitive claim)."""
    view = scenario.view
    svars = state_variables(view)
    if not svars:
        return None
    auth = authoritative_sources(scenario)
    first = next((i for i, sid in enumerate(inspected) if sid in auth), None)
    assert oracle.problem.variables is not None
    names = [n for n, _ in oracle.problem.variables]
    belief = {b.variable: b for b in view.beliefs}
    held = {v: str(b.value) for v, b in belief.items()}
    modes = dict(zip(names, _claimed(oracle, world, inspected, held), strict=True))
    claimed = {v: modes[v] for v in svars}
    contradicted = False
    for sid in auth:
        values = world.observation(sid).values or {}
        if any(v in values and values[v] != belief[v].value for v in svars):
            contradicted = True
    trusted_summary = all(claimed[v] == belief[v].value for v in svars)
    ages: list[float] = []
    for v in svars:
        fresh = [
            scenario.source(sid).age_s
            for sid in inspected
            if v in (world.observation(sid).values or {})
        ]
        ages.append(min(fresh) if fresh else belief[v].age_s)
    return InitiationMetrics(
        scenario_condition="unprompted" if view.condition is Condition.UNPROMPTED else "announced",
        state_variables=svars,
        authoritative=auth,
        authoritative_inspected=first is not None,
        inspections_before_authoritative=first,
        cost_before_authoritative=(
            None
            if first is None
            else sum(scenario.source(sid).cost.scalar() for sid in inspected[:first])
        ),
        claimed=claimed,
        claim_correct=all(claimed[v] == world.values[v] for v in svars),
        summary_contradicted=contradicted,
        summary_substituted=contradicted and first is None and trusted_summary,
        evidence_age_s=max(ages),
    )


def initiation_rows(
    trials: Sequence[TrialRecord], policies: Sequence[str], config: BenchConfig, seed: int
) -> list[InitiationRow]:
    """Aggregate the §15.2 metrics per (family label, policy) over trials that carry them."""
    measured = [t for t in trials if t.initiation is not None]
    level = config.ci_level
    rows: list[InitiationRow] = []
    for fam in sorted({t.family for t in measured}):
        for pol in policies:
            mine = [t for t in measured if t.family == fam and t.policy == pol]
            if not mine:
                continue
            ms = [t.initiation for t in mine if t.initiation is not None]
            clusters = [t.scenario_id for t in mine]
            contradicted = [
                (t.scenario_id, m) for t, m in zip(mine, ms, strict=True) if m.summary_contradicted
            ]
            rng = generator(seed, Stream.STATS)
            rows.append(
                InitiationRow(
                    family=fam,
                    policy=pol,
                    n_trials=len(ms),
                    authoritative_rate=clustered_proportion(
                        [m.authoritative_inspected for m in ms], clusters, level
                    ),
                    inspections_before_authoritative=cluster_mean(
                        mine, _before_authoritative, rng, config
                    ),
                    claim_accuracy=clustered_proportion(
                        [m.claim_correct for m in ms], clusters, level
                    ),
                    summary_substitution=clustered_proportion(
                        [m.summary_substituted for _, m in contradicted],
                        [c for c, _ in contradicted],
                        level,
                    ),
                    evidence_age_s=cluster_mean(mine, _evidence_age, rng, config),
                )
            )
    return rows


def _before_authoritative(t: TrialRecord) -> float | None:
    m = t.initiation
    return (
        None
        if m is None or m.inspections_before_authoritative is None
        else float(m.inspections_before_authoritative)
    )


def _evidence_age(t: TrialRecord) -> float | None:
    return None if t.initiation is None else t.initiation.evidence_age_s


def _claim(t: TrialRecord) -> float | None:
    return None if t.initiation is None else float(t.initiation.claim_correct)


def _net(t: TrialRecord) -> float | None:
    return t.net_utility


def reads_task(policy: str) -> bool:
    """Whether a policy's choices can depend on the task text (agents under test and unknown
    names: assumed so; a registered policy says it with ``Policy.reads_task``)."""
    try:
        return bool(policy_class(policy).reads_task)
    except HeedfulError:
        return True


def initiation_gaps(
    trials: Sequence[TrialRecord], policies: Sequence[str], config: BenchConfig, seed: int
) -> list[InitiationGapRow]:
    """Initiation gap per (family, policy): announced − unprompted on matched (scenario, trial).

    An unprompted trial is matched with the trial of the same policy and trial index on its
    announced twin (the scenario whose id lacks the ``-u`` suffix) in the family without the
    ``/unprompted`` label. Paired differences of the attention score (informative pairs only), of
    net utility and of claim accuracy, with cluster-bootstrap CIs over twin scenarios.
    """
    by_key = {(t.policy, t.scenario_id, t.trial): t for t in trials}
    unprompted = [t for t in trials if t.family.endswith(UNPROMPTED_LABEL)]
    rows: list[InitiationGapRow] = []
    for fam in sorted({t.family[: -len(UNPROMPTED_LABEL)] for t in unprompted}):
        for pol in policies:
            pairs: list[tuple[TrialRecord, TrialRecord]] = []
            for u in unprompted:
                base = announced_id(u.scenario_id)
                if u.policy != pol or u.family != fam + UNPROMPTED_LABEL or base is None:
                    continue
                a = by_key.get((pol, base, u.trial))
                if a is not None and a.family == fam:
                    pairs.append((a, u))
            if not pairs:
                continue
            # A policy that reads no task text has a gap of 0 by construction: left out (None).
            reads = reads_task(pol)
            rng = generator(seed, Stream.STATS)
            score, net, claim = (
                cluster_diff(pairs, metric, rng, config) if reads else None
                for metric in (informative_score, _net, _claim)
            )
            rows.append(
                InitiationGapRow(
                    family=fam,
                    policy=pol,
                    n_pairs=len(pairs),
                    score=score,
                    net_utility=net,
                    claim_accuracy=claim,
                    reads_task=reads,
                )
            )
    return rows


def with_initiation(
    aggregates: Aggregates,
    trials: Sequence[TrialRecord],
    policies: Sequence[str],
    config: BenchConfig,
    seed: int,
) -> Aggregates:
    """Add the initiation rows and gaps to a run's aggregates (unchanged if nothing measured)."""
    if not any(t.initiation is not None for t in trials):
        return aggregates
    return aggregates.model_copy(
        update={
            "initiation": initiation_rows(trials, policies, config, seed),
            "initiation_gap": initiation_gaps(trials, policies, config, seed),
        }
    )
