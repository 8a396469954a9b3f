"""Checks every registered family and policy passes, the way Gymnasium runs ``check_env``.

:func:`check_family` checks a scenario family: determinism, reseeding byte-identical, validity
through the ordinary loader, that the shift moves only the hidden truth, and **no give-aways** —
probes that rank the decision-relevant sources by a source's ``kind``, id suffix, position or
label words, or by a logistic model fitted on its text lengths, capitals and urgent words,
``salience`` fields or cost, score near random among those sources
(:mod:`heedful.bench.validity.giveaways`; the probes that read the cost are judged on the gross
decision value, since reading cheap sources first is part of the objective).
:func:`check_policy` checks a policy: the protocol (``reset``/``next``, ids it was shown, no
repeats), the budget, the honesty of its ``deterministic`` flag (and of ``deterministic_for``
on the tasks it plays), isolation between trials, and
``get_params`` (scikit-learn's clone).

Both raise :class:`CheckError` listing every problem found; the tests run them over every
registered family and policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from heedful.bench.kinds.inspection import collect_choices
from heedful.bench.policies.oracle import OraclePolicy
from heedful.bench.policy import Observation, Policy, policy_class
from heedful.bench.score.scoring import ScenarioOracle
from heedful.bench.validity.giveaways import COST_PROBES, PROBES, ProbeScore, score_probe, solve
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import DEFAULT_SHIFT, generate_family, get_family
from heedful.errors import HeedfulError
from heedful.model import Condition, Scenario, scenario_from_dict, scenario_to_dict

#: A give-away probe is *near random* when the 95% interval of its paired excess over random
#: among the relevant sources reaches below this many points (random = 0, oracle = 100): the data
#: cannot rule out that it is within 10 points of that baseline. (With the tests' small counts the
#: interval is about ±15; the check catches give-aways as strong as issue 9's ``kind`` or issue
#: 23's "shortest relevant teaser", 30–50 points above the baseline.)
NEAR_RANDOM = 10.0


class CheckError(HeedfulError):
    """A family or a policy failed a check; the message lists every failure."""


@dataclass(frozen=True)
class FamilyReport:
    """What :func:`check_family` measured.

    Attributes:
        code: The family's code.
        informative: Informative scenarios among the test set.
        probes: Each give-away probe's score on the net value (the trial's objective).
        gross: The probes that read the cost (:data:`~heedful.bench.validity.giveaways.COST_PROBES`)
            fitted and scored on the gross decision value (``cost_weight`` 0).
    """

    code: str
    informative: int
    probes: tuple[ProbeScore, ...]
    gross: tuple[ProbeScore, ...] = ()

    @property
    def judged(self) -> tuple[ProbeScore, ...]:
        """The score each probe is judged on: the gross one for a probe that reads the cost
        (cheap-first reading is part of the objective, not a label of the answer), else the
        net one."""
        by_name = {g.probe: g for g in self.gross}
        return tuple(by_name.get(p.probe, p) for p in self.probes)


def near_random(score: ProbeScore, margin: float = NEAR_RANDOM) -> bool:
    """Whether a probe's score is near random among the relevant sources (see
    :data:`NEAR_RANDOM`)."""
    return score.excess_low <= margin


def _dicts(scenarios: Sequence[Scenario]) -> list[dict[str, object]]:
    return [scenario_to_dict(s) for s in scenarios]


def check_family(
    family: str, *, count: int = 24, seed: int = 0, shift: float = DEFAULT_SHIFT
) -> FamilyReport:
    """Check a registered family; return its measurements.

    Args:
        family: Code or name.
        count: Scenarios per set (the give-away probes train on one set, seed ``seed + 1000``,
            and test on another, seed ``seed``).
        seed: Root seed of the sets.
        shift: The worlds' shift to check at.

    Raises:
        CheckError: listing every failed check.
    """
    fam = get_family(family)
    problems: list[str] = []
    first = generate_family(fam.code, count, seed, shift=shift)
    if _dicts(first) != _dicts(generate_family(fam.code, count, seed, shift=shift)):
        problems.append("the same seed does not reproduce byte-identical scenarios")
    generate_family(fam.code, 2, seed + 1, shift=shift)  # a different seed in between
    again = generate_family(fam.code, max(1, count // 2), seed, shift=shift)
    if _dicts(again) != _dicts(first[: len(again)]):
        problems.append("reseeding (or generating fewer) does not reproduce the same scenarios")
    for s in first:
        if scenario_to_dict(scenario_from_dict(scenario_to_dict(s))) != scenario_to_dict(s):
            problems.append(f"{s.id} does not round-trip through the loader")
        if s.view.family != fam.code:
            problems.append(f"{s.id} says family {s.view.family!r}, not {fam.code!r}")
    if shift > 0:
        base = generate_family(fam.code, count, seed, shift=0.0)
        if [s.view for s in base] != [s.view for s in first]:
            problems.append("the shift changes the visible scenarios (it must move only the truth)")
        if [s.truth for s in base] == [s.truth for s in first]:
            problems.append("the shift does not change the hidden truth")
    unprompted = generate_family(fam.code, 2, seed, shift=shift, condition=Condition.UNPROMPTED)
    if [s.truth for s in unprompted] != [s.truth for s in first[:2]]:
        problems.append("the unprompted twins do not share the announced scenarios' truth")

    train_set = generate_family(fam.code, count, seed + 1_000, shift=shift)
    train = solve(train_set)
    test = solve(first)
    if len(test) < count // 2:
        problems.append(f"only {len(test)} of {count} scenarios are informative")
    rng = np.random.default_rng(seed)
    scores = tuple(score_probe(name, train, test, rng) for name in PROBES)
    gross_train = solve(train_set, gross=True)
    gross_test = solve(first, gross=True)
    gross = tuple(score_probe(name, gross_train, gross_test, rng) for name in COST_PROBES)
    report = FamilyReport(fam.code, len(test), scores, gross)
    for sc in report.judged:
        if not near_random(sc):
            value = "gross decision value, cost_weight 0; " if sc.gross else ""
            problems.append(
                f"give-away: a policy reading only the {sc.probe} of the relevant sources scores "
                f"{sc.mean:.1f}, {sc.excess:+.1f} [{sc.excess_low:+.1f}, {sc.excess_high:+.1f}] "
                f"over random among them ({value}{sc.baseline:.1f}; near random: the interval "
                f"reaches below +{NEAR_RANDOM:g})"
            )
    if problems:
        raise CheckError(f"family {fam.code} ({fam.name}): " + "; ".join(problems))
    return report


def _reveal(scenario: Scenario) -> Callable[[str], Observation]:
    # A deterministic stand-in for the world: each report gets a fixed value of its domain.
    view = scenario.view

    def reveal(sid: str) -> Observation:
        src = scenario.source(sid)
        values = {
            v: view.variables[v].domain[len(sid) % len(view.variables[v].domain)]
            for v in src.reports
        }
        return Observation(sid, values)

    return reveal


def _play(policy: Policy, scenario: Scenario, *, adaptive: bool, rng_seed: int) -> list[str]:
    view = policy_view(scenario)
    if isinstance(policy, OraclePolicy):
        policy.bind(ScenarioOracle.prepare(scenario, adaptive=adaptive))
    policy.reset(view, np.random.default_rng(rng_seed))
    history, violation = collect_choices(
        policy, view, _reveal(scenario) if adaptive else None, scenario.reveals()
    )
    if violation is not None:
        raise CheckError(f"{violation.value} on a task of budget {view.budget}")
    return [o.source_id for o in history]


def check_policy(policy: Policy, scenarios: Sequence[Scenario] | None = None) -> None:
    """Check a policy instance against the protocol.

    Args:
        policy: A built policy.
        scenarios: Scenarios to play (default: two of families G and B at the default shift).

    Raises:
        CheckError: listing every failed check.
    """
    problems: list[str] = []
    name = policy.name
    try:
        if not name or policy_class(name) is not type(policy):
            problems.append(f"{type(policy).__name__} is not registered under its name {name!r}")
    except HeedfulError:
        problems.append(f"{type(policy).__name__} is not registered (name {name!r})")
    params = policy.get_params()
    clone = type(policy)(**params)
    if clone.get_params() != params:
        problems.append("rebuilding from get_params() gives other parameters")
    scenarios = list(scenarios or [*generate_family("G", 2, 0), *generate_family("B", 2, 0)])
    try:
        for adaptive in (False, True):
            first = [_play(policy, s, adaptive=adaptive, rng_seed=1) for s in scenarios]
            claimed = [
                (s, c)
                for s, c in zip(scenarios, first, strict=True)
                if not policy.deterministic and policy.deterministic_for(policy_view(s))
            ]
            for seed in (2, 3):
                if any(_play(policy, s, adaptive=adaptive, rng_seed=seed) != c for s, c in claimed):
                    problems.append(
                        "deterministic_for is True on a task where the choices depend on the "
                        f"rng ({'adaptive' if adaptive else 'static'} condition)"
                    )
                    break
            if policy.deterministic:
                other = [_play(policy, s, adaptive=adaptive, rng_seed=2) for s in scenarios]
                if other != first:
                    problems.append(
                        "deterministic is True but the choices depend on the rng "
                        f"({'adaptive' if adaptive else 'static'} condition)"
                    )
                replay = [_play(policy, s, adaptive=adaptive, rng_seed=1) for s in scenarios[::-1]]
                if replay[::-1] != first:
                    problems.append("a trial depends on the trials played before it")
    except CheckError as exc:
        problems.append(str(exc))
    if problems:
        raise CheckError(f"policy {name!r}: " + "; ".join(problems))
