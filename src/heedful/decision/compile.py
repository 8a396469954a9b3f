"""Compile a scenario into a :class:`DecisionProblem` (SPEC §2–§3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import numpy.typing as npt

from heedful.decision.config import DEFAULT_LIMITS, DecisionLimits
from heedful.decision.problem import DecisionProblem, FloatArray, OutcomeLabel
from heedful.errors import InvalidArgumentError, ProblemTooLargeError
from heedful.model import ScenarioTruth, ScenarioView, SourceTruth


def compile_problem(
    view: ScenarioView, truth: ScenarioTruth, *, limits: DecisionLimits = DEFAULT_LIMITS
) -> DecisionProblem:
    """Build the exact decision problem of an inspection scenario.

    Worlds are the product of the variables' domains in the view's variable order (last variable
    fastest); the prior is the product of the independent per-variable priors; ``u(a, w)`` comes
    from the first matching utility rule. A source reporting variables ``R`` has one outcome per
    combination of their values (first reported variable slowest) plus a final "failed" outcome:
    each reported variable is reported correctly with probability ``accuracy``, otherwise as one
    of the other values uniformly, independently per variable, and the whole inspection fails
    with probability ``fails``. An ``echo`` source always reports its fixed values (zero
    information). A source reporting nothing has a single outcome. Hidden sources (the truth's
    ``hidden``) follow the listed ones, with ``revealed_by`` naming their revealer.

    An untrusted source with a PRIVATE ``honesty`` ``h`` (document 000 §24) adds a latent variable
    :func:`honesty_variable` with domain :data:`HONESTY_DOMAIN` and prior ``(h, 1 − h)`` after the
    view's variables: in its honest worlds the source reports as above, in its liar worlds as its
    ``liar`` mode says (:func:`_liar_channel`). So the exact oracles value a cross-check — a
    trusted read that tells the liar from the honest — like any other read.

    Raises:
        ProblemTooLargeError: if the world space exceeds ``limits.max_worlds``.
        InvalidArgumentError: if view and truth do not belong together.
    """
    names = list(view.variables)
    domains: list[tuple[str, ...]] = [view.variables[n].domain for n in names]
    # Each untrusted source with a PRIVATE ``honesty`` adds a latent variable (document 000 §24):
    # whether it is honest is part of the world, after the view's variables.
    sources = view.sources + tuple(h.source for h in truth.hidden)
    latent: dict[str, str] = {}  # source id -> its honesty variable
    for source in sources:
        st = truth.sources.get(source.id)
        if st is not None and st.honesty is not None:
            name = honesty_variable(source.id)
            if name in view.variables:
                raise InvalidArgumentError(
                    f"scenario {view.id!r}: variable {name!r} clashes with the honesty of "
                    f"source {source.id!r}"
                )
            latent[source.id] = name
            names.append(name)
            domains.append(HONESTY_DOMAIN)
    sizes = [len(d) for d in domains]
    n_worlds = math.prod(sizes)
    if n_worlds > limits.max_worlds:
        raise ProblemTooLargeError(
            f"scenario {view.id!r} has {n_worlds:,} joint worlds "
            f"(domain sizes {sizes}); the limit is {limits.max_worlds:,}"
        )
    # value index of each variable in each world, shape (n_vars, n_worlds)
    coords = np.indices(sizes).reshape(len(sizes), n_worlds)
    prior = np.ones(n_worlds)
    priors = dict(truth.priors)
    for sid, name in latent.items():
        h = float(truth.sources[sid].honesty or 0.0)
        priors[name] = (h, 1.0 - h)
    for v, name in enumerate(names):
        if name not in priors:
            raise InvalidArgumentError(f"the truth of {view.id!r} has no prior for {name!r}")
        prior = prior * np.asarray(priors[name], dtype=np.float64)[coords[v]]
    prior = prior / prior.sum()

    worlds = [dict(zip(names, values, strict=True)) for values in itertools.product(*domains)]
    utility = np.array(
        [[action.utility_of(w) for w in worlds] for action in view.actions.values()],
        dtype=np.float64,
    )

    position = {n: i for i, n in enumerate(names)}
    likelihoods: list[FloatArray] = []
    labels: list[tuple[OutcomeLabel, ...]] = []
    # Listed sources first, then the hidden ones (issue 23), each knowing its revealer.
    ids = [s.id for s in sources]
    revealer = {h.source.id: h.revealed_by for h in truth.hidden}
    for source in sources:
        st = truth.sources.get(source.id)
        if st is None:
            raise InvalidArgumentError(f"the truth of {view.id!r} lacks source {source.id!r}")
        reports = list(source.reports)
        if not reports:
            likelihoods.append(np.ones((1, n_worlds)))
            labels.append(({},))
            continue
        at = [(position[var], var) for var in reports]
        lik = _reports(st, at, domains, coords)
        if source.id in latent:
            liar = _reports(st, at, domains, coords, lying=True)
            honest = coords[position[latent[source.id]]] == 0
            lik = np.where(honest[None, :], lik, liar)
        lik = np.vstack([lik * (1.0 - st.fails), np.full((1, n_worlds), st.fails)])
        likelihoods.append(lik)
        report_domains = [domains[position[var]] for var in reports]
        labels.append(
            (
                *(
                    dict(zip(reports, values, strict=True))
                    for values in itertools.product(*report_domains)
                ),
                None,
            )
        )
    return DecisionProblem(
        prior=prior,
        utility=utility,
        likelihoods=tuple(likelihoods),
        costs=np.array([s.cost.scalar() for s in sources], dtype=np.float64),
        cost_weight=view.cost_weight,
        source_ids=tuple(ids),
        action_ids=tuple(view.actions),
        variables=tuple((n, tuple(d)) for n, d in zip(names, domains, strict=True)),
        outcome_labels=tuple(labels),
        revealed_by=(
            tuple(ids.index(revealer[i]) if i in revealer else -1 for i in ids)
            if revealer
            else None
        ),
    )


#: The domain of a source's latent honesty variable (:func:`honesty_variable`).
HONESTY_DOMAIN = ("honest", "liar")


def honesty_variable(source_id: str) -> str:
    """The name of the latent variable "is ``source_id`` honest" in a compiled problem."""
    return f"honest:{source_id}"


def _reports(
    st: SourceTruth,
    reports: list[tuple[int, str]],
    domains: list[tuple[str, ...]],
    coords: npt.NDArray[np.intp],
    *,
    lying: bool = False,
) -> FloatArray:
    """``P(reports | world)`` of a source that did not fail, one row per joint report (first
    reported variable slowest; ``reports`` are (position, name) pairs): honest (echo or noisy
    channel) or, with ``lying``, as its ``liar`` mode says."""
    n_worlds = coords.shape[1]
    lik = np.ones((1, n_worlds))
    for v, var in reports:
        size = len(domains[v])
        if lying:
            factor = _liar_channel(size, st.liar or "random")
        elif st.echo is not None:
            factor = np.zeros((size, size))
            factor[domains[v].index(st.echo[var]), :] = 1.0
        else:
            factor = _noisy_channel(size, float(st.accuracy or 0.0))
        # factor[r, x]: P(report r | true value x); index by each world's value of the variable
        lik = (lik[:, None, :] * factor[:, coords[v]][None, :, :]).reshape(-1, n_worlds)
    return lik


def _liar_channel(size: int, mode: str) -> FloatArray:
    """``P(report r | true x)`` of a dishonest source: uniform (``random``) or uniform over the
    other values (``against``; a one-value domain leaves it nothing else to say)."""
    if mode == "random" or size == 1:
        return np.full((size, size), 1.0 / size)
    return (np.ones((size, size)) - np.eye(size)) / (size - 1)


def _noisy_channel(size: int, accuracy: float) -> FloatArray:
    """``P(report r | true x)``: ``accuracy`` on the diagonal, the rest uniform over the others."""
    if size == 1:
        return np.ones((1, 1))
    off = (1.0 - accuracy) / (size - 1)
    return np.full((size, size), off) + np.eye(size) * (accuracy - off)
