"""Does a family measure value of information, or only a metadata ranking? (issue 36, item 4)

A family can be won without computing any value of information: rank the sources that report a
decision variable by what the view says of them — **authority, age and how many variables each
reports** — and read the top ``budget``. :func:`metadata_ranking` fits that ranking (an
L2-regularised logistic regression of criticality on the three features, each ``log1p`` and
centred within its scenario, fitted on a training set of seed ``seed + 1000``) and scores it in
the static condition beside ``voc-model`` on the same test scenarios, paired. A family
*separates* value of information from the ranking when ``voc-model`` beats it by at least
:data:`SEPARATION` points; a family that does not must say what it measures instead (the
``measures`` line of its registration, printed by ``heedful list families``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from heedful import decision
from heedful.bench.stats import MeanCI, PairedDiff, bootstrap_mean, paired_difference
from heedful.bench.validity.checks import CheckError
from heedful.bench.validity.giveaways import decision_relevant, fit_logistic
from heedful.bench.validity.trust import static_scores
from heedful.bench.worlds.families import DEFAULT_SHIFT, generate_family, get_family
from heedful.model import Scenario

#: Points by which ``voc-model`` must beat the fitted ranking for a family to separate them.
SEPARATION = 15.0
#: The policy the ranking is compared with.
REFERENCE = "voc-model"


@dataclass(frozen=True)
class RankingReport:
    """What :func:`metadata_ranking` measured on one family (static condition).

    Attributes:
        family: The family's code.
        informative: Informative test scenarios scored.
        weights: The fitted weights of (authority, age, reports), on standardised features.
        ranking: The fitted ranking's mean score with a bootstrap interval.
        reference: ``voc-model``'s mean score on the same scenarios.
        gap: ``voc-model − ranking`` per scenario, paired.
    """

    family: str
    informative: int
    weights: tuple[float, float, float]
    ranking: MeanCI
    reference: MeanCI
    gap: PairedDiff

    @property
    def separates(self) -> bool:
        """``voc-model`` beats the ranking by at least :data:`SEPARATION` points."""
        return self.gap.mean >= SEPARATION


def _features(s: Scenario, relevant: Sequence[int]) -> np.ndarray:
    rows = [
        (
            s.view.sources[i].authority,
            s.view.sources[i].age_s,
            float(len(s.view.sources[i].reports)),
        )
        for i in relevant
    ]
    x = np.log1p(np.asarray(rows, dtype=float))
    return x - x.mean(axis=0) if len(x) else x


def _fit(train: Sequence[Scenario]) -> np.ndarray:
    xs: list[np.ndarray] = []
    ys: list[float] = []
    for s in train:
        problem = decision.compile_problem(s.view, s.truth)
        static = decision.static_oracle(problem, s.view.budget)
        relevant = decision_relevant(s.view)
        if not static.informative or not relevant:
            continue
        critical = set(static.critical)
        xs.append(_features(s, relevant))
        ys.extend(float(s.view.sources[i].id in critical) for i in relevant)
    if not xs:
        raise CheckError("no informative training scenario to fit the ranking on")
    return fit_logistic(np.vstack(xs), np.asarray(ys))


def ranking_scores(weights: np.ndarray, scenarios: Sequence[Scenario]) -> list[float | None]:
    """The static score of reading the top-``budget`` relevant sources by the fitted ranking
    (``None``: uninformative); ties are broken by position, the same for every run."""
    out: list[float | None] = []
    for s in scenarios:
        problem = decision.compile_problem(s.view, s.truth)
        static = decision.static_oracle(problem, s.view.budget)
        if not static.informative:
            out.append(None)
            continue
        relevant = decision_relevant(s.view)
        key = _features(s, relevant) @ weights[1:] if relevant else np.zeros(0)
        order = sorted(range(len(relevant)), key=lambda j: (-float(key[j]), j))
        chosen = [s.view.sources[relevant[j]].id for j in order[: min(s.view.budget, len(order))]]
        value = decision.value(problem, chosen)
        out.append(100.0 * (value - static.u_random) / (static.v_star - static.u_random))
    return out


def metadata_ranking(
    family: str, *, count: int = 60, seed: int = 0, shift: float = DEFAULT_SHIFT
) -> RankingReport:
    """Fit the authority/age/reports ranking on one set and score it beside ``voc-model``.

    Raises:
        CheckError: nothing informative to fit or score.
    """
    fam = get_family(family)
    weights = _fit(generate_family(fam.code, count, seed + 1_000, shift=shift))
    test = generate_family(fam.code, count, seed, shift=shift)
    ranked = ranking_scores(weights, test)
    ref = static_scores(REFERENCE, test)
    keep = [i for i, v in enumerate(ref) if v is not None and ranked[i] is not None]
    if not keep:
        raise CheckError(f"family {fam.code}: no informative scenario among {count}")
    a = [float(ref[i] or 0.0) for i in keep]
    b = [float(ranked[i] or 0.0) for i in keep]
    rng = np.random.default_rng(seed)
    ranking, reference = bootstrap_mean(b, rng), bootstrap_mean(a, rng)
    gap = paired_difference(a, b, rng)
    assert ranking is not None and reference is not None and gap is not None
    sd = np.std(np.vstack([_features(s, decision_relevant(s.view)) for s in test]), axis=0)
    raw = weights[1:] * np.where(sd > 1e-12, sd, 1.0)
    w = tuple(float(x) if math.isfinite(x) else 0.0 for x in raw)
    return RankingReport(fam.code, len(keep), (w[0], w[1], w[2]), ranking, reference, gap)


#: How a family's ``measures`` line claims to measure value of information.
VALUE_OF_INFORMATION = "value of information"


def check_measures(
    family: str, *, count: int = 40, seed: int = 0, shift: float = DEFAULT_SHIFT
) -> RankingReport:
    """Check that a family says what it measures, and claims value of information only if it
    separates it from the fitted ranking (:func:`metadata_ranking`).

    Raises:
        CheckError: no ``measures`` line, or a claim of value of information that the measured
            gap does not bear out.
    """
    fam = get_family(family)
    if not fam.measures:
        raise CheckError(f"family {fam.code} ({fam.name}) does not say what it measures")
    report = metadata_ranking(fam.code, count=count, seed=seed, shift=shift)
    if fam.measures.startswith(VALUE_OF_INFORMATION) and not report.separates:
        g = report.gap
        raise CheckError(
            f"family {fam.code} ({fam.name}) says it measures value of information, but "
            f"{REFERENCE} beats the fitted authority/age/reports ranking "
            f"({report.ranking.mean:.1f}) by only {g.mean:.1f} [{g.lo:.1f}, {g.hi:.1f}] points "
            f"(it must by {SEPARATION:g}); say what it measures instead"
        )
    return report
