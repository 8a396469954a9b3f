"""Trust under test (document 000 §24): the give-away checks of family K.

A family with untrusted sources measures the controller's trust rule only if neither extreme
rule does well: a policy that **believes every claimed authority** (every source registered
trusted, ``voc-trust-all``) and one that **never reads an untrusted source**
(``voc-trust-none``) must each score well below the controller that registers each source as the
view marks it and applies its trust rule (``voc-model``). :func:`measure_trust` plays the three
on the same scenarios in the static condition and scores each set by the exact oracle;
:func:`check_trust` raises unless both gaps' means reach :data:`TRUST_MARGIN`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful import decision
from heedful.bench.kinds.inspection import collect_choices
from heedful.bench.policy import get_policy
from heedful.bench.stats import MeanCI, PairedDiff, bootstrap_mean, paired_difference
from heedful.bench.validity.checks import CheckError
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import DEFAULT_SHIFT, generate_family, get_family
from heedful.model import Scenario

#: The controller that applies the trust rule.
REFERENCE = "voc-model"
#: Each extreme rule, by what it does, and the policy that plays it.
TRUST_RULES: dict[str, str] = {
    "trust-everything": "voc-trust-all",
    "trust-nothing": "voc-trust-none",
}
#: Points (oracle 100, random 0) by which each extreme rule must trail :data:`REFERENCE`.
TRUST_MARGIN = 25.0


@dataclass(frozen=True)
class TrustGap:
    """One extreme rule against the reference.

    Attributes:
        rule: ``trust-everything`` or ``trust-nothing``.
        policy: The policy that plays it.
        score: Its mean static score with a bootstrap interval.
        gap: ``reference − rule`` per scenario, paired, with a bootstrap interval.
    """

    rule: str
    policy: str
    score: MeanCI
    gap: PairedDiff


@dataclass(frozen=True)
class TrustReport:
    """What :func:`measure_trust` measured on one family.

    Attributes:
        family: The family's code.
        informative: Informative scenarios scored (the others have ``V* = U_random``).
        reference: :data:`REFERENCE`'s mean static score.
        gaps: One :class:`TrustGap` per rule of :data:`TRUST_RULES`.
    """

    family: str
    informative: int
    reference: MeanCI
    gaps: tuple[TrustGap, ...]


def static_scores(policy_name: str, scenarios: Sequence[Scenario]) -> list[float | None]:
    """The static score of a policy's chosen set on each scenario (``None``: uninformative).

    The policy is built fresh by name, reset on each scenario's task view with a fixed rng and
    asked for its static set (every history entry withheld); the set is valued exactly.
    """
    policy = get_policy(policy_name)
    out: list[float | None] = []
    for s in scenarios:
        problem = decision.compile_problem(s.view, s.truth)
        oracle = decision.static_oracle(problem, s.view.budget)
        if not oracle.informative:
            out.append(None)
            continue
        view = policy_view(s)
        policy.reset(view, np.random.default_rng(0))
        history, violation = collect_choices(policy, view, None, s.reveals())
        if violation is not None:
            raise CheckError(f"{policy_name}: {violation.value} on {s.id}")
        value = decision.value(problem, [o.source_id for o in history])
        out.append(100.0 * (value - oracle.u_random) / (oracle.v_star - oracle.u_random))
    return out


def measure_trust(
    family: str = "K", *, count: int = 60, seed: int = 0, shift: float = DEFAULT_SHIFT
) -> TrustReport:
    """Score :data:`REFERENCE` and each rule of :data:`TRUST_RULES` on ``count`` scenarios.

    Raises:
        CheckError: the family has no untrusted source (nothing to measure).
    """
    fam = get_family(family)
    scenarios = generate_family(fam.code, count, seed, shift=shift)
    if not any(not src.trusted for s in scenarios for src in s.sources):
        raise CheckError(f"family {fam.code} ({fam.name}) has no untrusted source")
    ref = static_scores(REFERENCE, scenarios)
    keep = [i for i, v in enumerate(ref) if v is not None]
    ref_values = [float(ref[i] or 0.0) for i in keep]
    rng = np.random.default_rng(seed)
    gaps = []
    for rule, name in TRUST_RULES.items():
        got = static_scores(name, scenarios)
        values = [float(got[i] or 0.0) for i in keep]
        score = bootstrap_mean(values, rng)
        gap = paired_difference(ref_values, values, rng)
        assert score is not None and gap is not None
        gaps.append(TrustGap(rule, name, score, gap))
    reference = bootstrap_mean(ref_values, rng)
    if reference is None:
        raise CheckError(f"family {fam.code}: no informative scenario among {count}")
    return TrustReport(fam.code, len(keep), reference, tuple(gaps))


def check_trust(
    family: str = "K",
    *,
    count: int = 60,
    seed: int = 0,
    shift: float = DEFAULT_SHIFT,
    margin: float = TRUST_MARGIN,
) -> TrustReport:
    """:func:`measure_trust`, raising unless each rule trails the reference by ``margin``.

    Raises:
        CheckError: naming each rule that comes too close, with its numbers.
    """
    report = measure_trust(family, count=count, seed=seed, shift=shift)
    short = [g for g in report.gaps if g.gap.mean < margin]
    if short:
        detail = "; ".join(
            f"{g.rule} ({g.policy}) scores {g.score.mean:.1f}, only {g.gap.mean:.1f} "
            f"[{g.gap.lo:.1f}, {g.gap.hi:.1f}] below {REFERENCE} ({report.reference.mean:.1f})"
            for g in short
        )
        raise CheckError(
            f"family {report.family}: trust is a give-away — {detail}; each rule must trail "
            f"by at least {margin:g} points"
        )
    return report
