"""Model-based VOC estimator: exact VOI on an *estimated* decision problem (SPEC §4.1).

When the agent states its decision (variables, actions, utilities) the controller can do better
than the heuristic: it estimates the prior from beliefs and staleness (the change model of
document 000 §9), each source's accuracy from its claim-specific authority and the age of its data
(document 000 §10), builds a :class:`heedful.decision.DecisionProblem` from those arrays and asks
:mod:`heedful.decision` for exact values — the same code the benchmark's oracle uses.

* Myopic VOI of source ``s`` given the committed set ``S`` (empty in the adaptive condition):
  ``V(S ∪ {s}) − V(S)``, costs included.
* VPI: value of perfect information, the BMPS upper bound (Callaway et al. 2018).
* Jointly decisive sources (document 000 §31 question 3): when no single source is worth its
  cost but VPI exceeds the cheapest cost and the budget allows two more reads, the best *set* of
  2 … 5 reads is searched exactly, pruned by the BMPS bound ``VPI_sub`` (perfect information on
  the set's variables), and its members are credited with an equal share of its net value.
* Sources a read reveals (issue 35): a read whose reply names sources not registered yet
  (``SourceInfo.links``) is worth its own VOI plus the option of reading what it names, that
  source stood in for optimistically — as authoritative as the best registered source, its data
  fresh (:meth:`ModelEstimator._credit_links`).
  Without it a cache that only repeats a belief, or a catalogue that reports nothing, is worth
  nothing myopically, so the instrument behind it is never found.
"""

from __future__ import annotations

import itertools
import math
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from heedful.attention.config import EstimatorConfig
from heedful.attention.context import (
    AttentionContext,
    ClaimState,
    DecisionModel,
    claim_p_stale,
    current_marginal,
)
from heedful.attention.estimators import Estimate, Estimator, HeuristicEstimator
from heedful.attention.voc_calibration import VocCalibration, default_calibration
from heedful.attention.world import observation_accuracy, report_likelihood
from heedful.decision import DecisionProblem, value
from heedful.decision import vpi as decision_vpi
from heedful.model.candidate import Candidate, CandidateKind
from heedful.model.scenario import Volatility

__all__ = ["ModelEstimator", "default_estimator", "estimated_problem"]


def estimated_problem(
    decision: DecisionModel,
    context: AttentionContext,
    config: EstimatorConfig,
    *,
    use_staleness: bool = True,
    use_authority: bool = True,
) -> DecisionProblem:
    """The decision problem the agent believes it faces, over decision-relevant variables.

    The problem is a pure function of the decision, the decision-relevant claims, the sources'
    metadata and the settings, and the same one recurs (every step of a benchmark trial in the
    static condition, policies sharing an estimator setting): it is remembered by that key and
    the same (read-only) problem returned.

    Raises:
        heedful.errors.InvalidArgumentError: if the estimate is inconsistent (a bug upstream).
    """
    key = _estimate_key(decision, context, config, use_staleness, use_authority)
    if key is not None:
        hit = _PROBLEMS.get(key)
        if hit is not None:
            return hit
    problem = _estimated_problem(
        decision, context, config, use_staleness=use_staleness, use_authority=use_authority
    )
    if key is not None:
        if len(_PROBLEMS) >= _MAX_MEMO:
            _PROBLEMS.clear()
        _PROBLEMS[key] = problem
    return problem


_PROBLEMS: dict[tuple[object, ...], DecisionProblem] = {}


def _estimate_key(
    decision: DecisionModel,
    context: AttentionContext,
    config: EstimatorConfig,
    use_staleness: bool,
    use_authority: bool,
) -> tuple[object, ...] | None:
    """Everything :func:`estimated_problem` reads, as a hashable value (None: unhashable)."""
    key = (
        decision.fingerprint(),
        tuple(decision.actions),
        tuple(context.claims.get(v) for v in decision.relevant_variables),
        tuple(sorted(context.hazards_per_hour.items())),
        use_staleness,
        use_authority,
        config.max_accuracy,
        context.cost_weight if context.cost_weight is not None else config.cost_weight,
        tuple(
            (
                src.id,
                src.reports,
                tuple(src.authority.items()),
                src.default_authority,
                src.age_s,
                src.cost.scalar(),
                src.failure_rate,
            )
            for src in context.sources.values()
        ),
    )
    try:
        hash(key)
    except TypeError:  # an unhashable domain (a list): no memo
        return None
    return key


def _hazards(context: AttentionContext, use_staleness: bool) -> Mapping[Volatility, float]:
    """The change rates the estimate ages beliefs and reports by (none without staleness)."""
    if use_staleness:
        return context.hazards_per_hour
    return {k: 0.0 for k in context.hazards_per_hour}


def _report_channel(
    var: str,
    size: int,
    authority_for: Callable[[str], float],
    age_s: float,
    context: AttentionContext,
    hazards: Mapping[Volatility, float],
    config: EstimatorConfig,
    *,
    use_authority: bool,
) -> np.ndarray:
    """L(report | value) of one read's report on ``var``, ``[report, value]``: its accuracy from
    the reader's authority for the claim's type and the age of its data."""
    claim = context.claims.get(var)
    ctype = claim.claim_type if claim is not None else var
    vol = claim.volatility if claim is not None else Volatility.MEDIUM
    authority = authority_for(ctype) if use_authority else 1.0
    acc = observation_accuracy(authority, age_s, vol, hazards, size, config.max_accuracy)
    return np.stack([report_likelihood(acc, size, k) for k in range(size)])


def _joined(lik: np.ndarray, channel: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """Outcomes of a read that also reports through ``channel`` (its variable's ``coords``)."""
    return (lik[:, None, :] * channel[:, coords][None, :, :]).reshape(-1, lik.shape[1])


def _estimated_problem(
    decision: DecisionModel,
    context: AttentionContext,
    config: EstimatorConfig,
    *,
    use_staleness: bool,
    use_authority: bool,
) -> DecisionProblem:
    hazards = _hazards(context, use_staleness)
    names = decision.relevant_variables
    domains = [tuple(decision.variables[v]) for v in names]
    sizes = [len(d) for d in domains]
    n_worlds = math.prod(sizes)
    coords = np.indices(sizes).reshape(len(sizes), n_worlds)
    prior = np.ones(n_worlds)
    for i, var in enumerate(names):
        prior = prior * current_marginal(context.claims.get(var), domains[i], hazards)[coords[i]]
    prior = prior / prior.sum()
    utility = decision.utility_tensor().reshape(len(decision.actions), n_worlds)
    position = {v: i for i, v in enumerate(names)}
    likelihoods = []
    costs = []
    ids = []
    for src in context.sources.values():
        lik = np.ones((1, n_worlds))
        for var in src.reports:
            if var not in position:
                continue  # a report on an irrelevant variable carries no decision value
            v = position[var]
            claim = context.claims.get(var)
            channel = _report_channel(
                var,
                sizes[v],
                src.authority_for,
                src.age_s,
                context,
                hazards,
                config,
                use_authority=use_authority,
            )
            if claim is not None and claim.evidence_source == src.id and not claim.dirty:
                channel = _reread(channel, claim, domains[v], hazards)
            lik = _joined(lik, channel, coords[v])
        if src.failure_rate > 0.0:
            # A read that returns nothing is one more outcome, as likely in every world: the
            # exact value of a plan then counts what a failed read leaves undecided (a second
            # instrument read beside a flaky one is worth what the first one's failures lose).
            fail = np.full((1, n_worlds), src.failure_rate)
            lik = np.vstack([lik * (1.0 - src.failure_rate), fail])
        likelihoods.append(lik)
        costs.append(src.cost.scalar())
        ids.append(src.id)
    cost_weight = context.cost_weight if context.cost_weight is not None else config.cost_weight
    problem = DecisionProblem(
        prior=prior,
        utility=utility,
        likelihoods=tuple(likelihoods),
        costs=np.array(costs, dtype=np.float64),
        cost_weight=cost_weight,
        source_ids=tuple(ids),
        action_ids=tuple(decision.actions),
        variables=tuple(zip(names, domains, strict=True)),
    )
    for array in (problem.prior, problem.utility, problem.costs, *problem.likelihoods):
        array.flags.writeable = False
    return problem


def _reread(
    channel: np.ndarray,
    claim: ClaimState,
    domain: tuple[str, ...],
    hazards: Mapping[Volatility, float],
) -> np.ndarray:
    """The report channel of a source read again about a claim its last read set (issue 35;
    document 000 §25 overinspection).

    A source's error is its own, not drawn afresh at each read: asked again about a world that
    has not changed, it says what it said (``r₀``, the belief it left). Under the change model
    of document 000 §9 (with probability ``q = p_stale`` the claim was redrawn, uniformly, since
    that read), the chance it is unchanged *given* its value now is ``v`` is
    ``u(v) = (1 − q)·π₀(v) / ((1 − q)·π₀(v) + q/n)`` (``π₀``: the belief the read left), and the
    read again reports ``L'(o | v) = u(v)·[o = r₀] + (1 − u(v))·L(o | v)``. Right after the read
    ``q = 0``, ``u = 1``: it can only repeat itself, its exact VOI is 0 and it is not proposed
    again; as the claim ages it tells more, until (``q = 1``) it is a fresh read.
    """
    n = len(domain)
    if claim.value is None or claim.value not in domain or n < 2:
        return channel
    q = claim_p_stale(claim, hazards)
    if claim.distribution is not None and len(claim.distribution) == n:
        before = np.asarray(claim.distribution, dtype=float)
    else:
        before = np.full(n, (1.0 - claim.confidence) / n)
        before[domain.index(claim.value)] += claim.confidence
    kept = (1.0 - q) * before
    total = kept + q / n
    unchanged = np.divide(kept, total, out=np.zeros(n), where=total > 0)
    same = np.zeros_like(channel)
    same[domain.index(claim.value), :] = 1.0
    return unchanged[None, :] * same + (1.0 - unchanged)[None, :] * channel


@dataclass(frozen=True)
class _Valuation:
    net: dict[str, float]
    base: float
    vpi: float


_VALUATIONS: dict[tuple[object, ...], _Valuation] = {}
_MAX_MEMO = 4096
#: Sources searched for jointly decisive sets of 3, 4, 5 reads (C(12,3) = 220, C(9,4) = 126,
#: C(8,5) = 56 exact valuations at most, before the VPI bound prunes); pairs search
#: ``max_pair_sources`` (24: 276 pairs).
_POOL_BY_SIZE = {3: 12, 4: 9, 5: 8}


def _reported_variables(
    problem: DecisionProblem, context: AttentionContext
) -> dict[str, frozenset[str]]:
    """The decision variables each source of ``problem`` reports."""
    names = {n for n, _ in problem.variables or ()}
    return {
        sid: frozenset(v for v in context.sources[sid].reports if v in names)
        for sid in problem.source_ids
        if sid in context.sources
    }


class _VpiSub:
    """``VPI_sub(V)``: the value of perfect information about the variables ``V`` only
    (Callaway et al. 2018), ``Σ_v max_a E[u(a) ∧ V = v] − max_a E[u(a)]``, memoized per set."""

    def __init__(self, problem: DecisionProblem) -> None:
        variables = problem.variables or ()
        self.position = {name: i for i, (name, _) in enumerate(variables)}
        sizes = tuple(len(d) for _, d in variables)
        n_actions = problem.utility.shape[0]
        # q[a, w] = p(w) u(a, w) as a tensor over the variables' axes.
        self.q = (problem.utility * problem.prior[None, :]).reshape((n_actions, *sizes))
        self.now = float(self.q.reshape(n_actions, -1).sum(axis=1).max())
        self.memo: dict[frozenset[str], float] = {}

    def __call__(self, names: frozenset[str]) -> float:
        hit = self.memo.get(names)
        if hit is not None:
            return hit
        keep = {self.position[n] + 1 for n in names if n in self.position}
        drop = tuple(ax for ax in range(1, self.q.ndim) if ax not in keep)
        q = self.q.sum(axis=drop) if drop else self.q
        out = max(float(q.max(axis=0).sum()) - self.now, 0.0)
        self.memo[names] = out
        return out


def _revealers(problem: DecisionProblem, context: AttentionContext) -> tuple[str, ...]:
    """Sources of ``problem`` whose read names sources not registered yet (``links``), neither
    read nor chosen yet: a read of them is credited with what it may reveal."""
    return tuple(
        sid
        for sid in problem.source_ids
        if (src := context.sources.get(sid)) is not None
        and src.links > 0
        and not context.inspected.get(sid)
        and sid not in context.committed
    )


def _problem_key(problem: DecisionProblem) -> tuple[object, ...]:
    """Everything a problem holds, as a hashable value (exact bytes, no hash collisions)."""
    return (
        problem.prior.tobytes(),
        problem.utility.shape,
        problem.utility.tobytes(),
        tuple((lik.shape, lik.tobytes()) for lik in problem.likelihoods),
        problem.costs.tobytes(),
        problem.cost_weight,
        problem.source_ids,
        problem.action_ids,
        problem.variables,
    )


class ModelEstimator:
    """Exact myopic VOI / VPI on the estimated decision problem (BMPS-style).

    Falls back to ``fallback`` (the heuristic) for candidates that are not source inspections
    or when no decision is stated.

    Args:
        config: Hazards, cost weight, accuracy cap.
        pairs: Value jointly decisive sets when no single source pays (see :meth:`_credit_sets`).
        max_pair_sources: Sources searched for pairs (the best by single value first); larger
            sets search fewer (``_POOL_BY_SIZE``).
        lookahead: Credit the members of the best greedy plan within the remaining budget
            when the plan is worth more than any single read (see :meth:`_credit_plan`).
        max_lookahead: Longest plan considered.
        use_staleness: Ablation switch (ages ignored when False).
        use_authority: Ablation switch (every source counted fully authoritative when False).
        fallback: Estimator for everything else (default: the heuristic).
        calibration: Map of the net value of a read to its expected realised value
            (:mod:`heedful.attention.voc_calibration`; sign-preserving and strictly increasing,
            so it changes what the prediction says, not what is chosen). None: uncalibrated.
    """

    name = "model"

    def __init__(
        self,
        config: EstimatorConfig | None = None,
        *,
        pairs: bool = True,
        max_pair_sources: int = 24,
        lookahead: bool = True,
        max_lookahead: int = 5,
        use_staleness: bool = True,
        use_authority: bool = True,
        fallback: Estimator | None = None,
        calibration: VocCalibration | None = None,
    ) -> None:
        self.config = config or EstimatorConfig()
        self.calibration = calibration
        self.pairs = pairs
        self.max_pair_sources = max_pair_sources
        self.lookahead = lookahead
        self.max_lookahead = max_lookahead
        self.use_staleness = use_staleness
        self.use_authority = use_authority
        self.fallback: Estimator = fallback or HeuristicEstimator(
            self.config, use_staleness=use_staleness, use_authority=use_authority
        )
        self._cache: tuple[weakref.ReferenceType[AttentionContext], _Valuation] | None = None

    def valuation(self, context: AttentionContext) -> _Valuation | None:
        """Net VOI of every source given the committed set, and VPI (cached per context).

        None when no decision is stated or its joint state space exceeds
        ``config.max_enumeration`` (the heuristic fallback then estimates).
        """
        decision = context.decision
        if decision is None:
            return None
        if self._cache is not None and self._cache[0]() is context:
            return self._cache[1]
        sizes = [len(decision.variables[v]) for v in decision.relevant_variables]
        if math.prod(sizes) > self.config.max_enumeration:
            return None  # too large to value exactly: the heuristic takes over
        problem = estimated_problem(
            decision,
            context,
            self.config,
            use_staleness=self.use_staleness,
            use_authority=self.use_authority,
        )
        # The valuation is a pure function of the problem, the committed reads, the budget left
        # and the settings: remembered across contexts (benchmark trials repeat the same states).
        key = (
            _problem_key(problem),
            tuple(context.committed),
            _revealers(problem, context),
            context.budget_left,
            self.pairs,
            self.max_pair_sources,
            self.lookahead,
            self.max_lookahead,
        )
        val = _VALUATIONS.get(key)
        if val is None:
            val = self._value(problem, context)
            if len(_VALUATIONS) >= _MAX_MEMO:
                _VALUATIONS.clear()
            _VALUATIONS[key] = val
        self._cache = (weakref.ref(context), val)
        return val

    def _value(self, problem: DecisionProblem, context: AttentionContext) -> _Valuation:
        known = set(problem.source_ids)
        committed = [s for s in context.committed if s in known]
        base = value(problem, committed)
        singles = {
            sid: value(problem, [*committed, sid]) - base
            for sid in problem.source_ids
            if sid not in committed
        }
        vpi = decision_vpi(problem)
        net = dict(singles)
        if self.lookahead and singles:
            self._credit_plan(problem, committed, base, singles, context, net)
        if self.pairs and singles and max(singles.values()) <= 0.0:
            self._credit_sets(problem, committed, base, singles, vpi, context, net)
        self._credit_links(problem, committed, base, context, net)
        return _Valuation(net, base, vpi)

    def _credit_links(
        self,
        problem: DecisionProblem,
        committed: list[str],
        base: float,
        context: AttentionContext,
        net: dict[str, float],
    ) -> None:
        """Credit a read that reveals sources with its value including the read it opens.

        Nothing is known of a source a read will name, so it is stood in for optimistically
        (an upper estimate, as the BMPS bounds are): as authoritative as the best registered
        source, its data fresh, at the revealer's cost, reporting the revealer's decision
        variables when the revealer reports any (a cache names what it was built from), else
        each decision variable, equally likely. Once named, it is read only if that is worth
        its cost, so the read of revealer ``r`` is worth
        ``V(S ∪ {r}) − V(S) + mean_g max(0, V(S ∪ {r, g}) − V(S ∪ {r}))``, exact on the
        estimated problem — needing two reads of the budget. (A stand-in "like one of the
        registered sources", each equally likely, moved family E's recall only 0.87 → 0.90.)
        """
        revealers = _revealers(problem, context)
        if not revealers or (context.budget_left is not None and context.budget_left < 2):
            return
        variables = problem.variables or ()
        if not variables:
            return
        names = [n for n, _ in variables]
        hazards = _hazards(context, self.use_staleness)
        sizes = [len(d) for _, d in variables]
        coords = np.indices(sizes).reshape(len(sizes), -1)
        best = max(
            (
                a
                for s in context.sources.values()
                for a in (*s.authority.values(), s.default_authority)
            ),
            default=0.0,
        )

        def channel(group: tuple[str, ...]) -> np.ndarray:
            """The stand-in's reports on ``group``: the best authority, data read now."""
            lik = np.ones((1, coords.shape[1]))
            for var in group:
                i = names.index(var)
                report = _report_channel(
                    var,
                    sizes[i],
                    lambda _claim_type: best,
                    0.0,
                    context,
                    hazards,
                    self.config,
                    use_authority=self.use_authority,
                )
                lik = _joined(lik, report, coords[i])
            return lik

        for sid in revealers:
            src = context.sources[sid]
            own = tuple(v for v in src.reports if v in names)
            groups = [own] if own else [(v,) for v in names]
            with_r = value(problem, [*committed, sid])
            option = 0.0
            ghost = f"{sid}\x00revealed"
            for group in groups:
                extended = DecisionProblem(
                    prior=problem.prior,
                    utility=problem.utility,
                    likelihoods=(*problem.likelihoods, channel(group)),
                    costs=np.append(problem.costs, src.cost.scalar()),
                    cost_weight=problem.cost_weight,
                    source_ids=(*problem.source_ids, ghost),
                    action_ids=problem.action_ids,
                    variables=problem.variables,
                )
                option += max(0.0, value(extended, [*committed, sid, ghost]) - with_r)
            worth = with_r - base + option / len(groups)
            net[sid] = max(net[sid], worth)

    def _credit_plan(
        self,
        problem: DecisionProblem,
        committed: list[str],
        base: float,
        singles: dict[str, float],
        context: AttentionContext,
        net: dict[str, float],
    ) -> None:
        """Credit the members of the best greedy plan within the remaining budget.

        ``V(S ∪ P) − V(S)`` of any plan ``P`` that fits the budget is a lower bound on the value
        of continuing, so a plan worth more than any single read keeps attention going even
        when each read alone looks too small (myopic stopping stops too early).
        """
        horizon = self.max_lookahead
        if context.budget_left is not None:
            horizon = min(horizon, context.budget_left)
        if horizon < 2:
            return
        pool = [s for s in singles if problem.likelihoods[problem.source_index(s)].shape[0] > 1]
        plan: list[str] = []
        best_value, best_len = 0.0, 0
        for _ in range(min(horizon, len(pool))):
            gains = {
                s: value(problem, [*committed, *plan, s]) - base for s in pool if s not in plan
            }
            nxt = max(gains, key=lambda s: gains[s])
            plan.append(nxt)
            if gains[nxt] > best_value:
                best_value, best_len = gains[nxt], len(plan)
        if best_len < 2 or best_value <= max(singles.values()):
            return
        share = best_value / best_len
        for sid in plan[:best_len]:
            net[sid] = max(net[sid], share)

    def _credit_sets(
        self,
        problem: DecisionProblem,
        committed: list[str],
        base: float,
        singles: dict[str, float],
        vpi: float,
        context: AttentionContext,
        net: dict[str, float],
    ) -> None:
        """Jointly decisive reads (document 000 §31 question 3): when no single read pays, the
        best *set* of 2 … ``horizon`` reads is searched exactly, bounded BMPS-style.

        Callaway et al. (2018) bracket the value of continuing between the myopic VOI of one read
        (VOI₁, here ``singles``) and the value of perfect information (VPI). The search uses the
        bracket twice: nothing is searched when ``VPI`` of everything is below the cheapest read,
        and a set ``P`` is valued exactly only when ``V(∅) + VPI_sub(P) − cost(S ∪ P) − V(S)``,
        with ``VPI_sub(P)`` the value of perfect information about the decision variables ``S ∪
        P`` report, could beat the best set found so far. The best set's members are credited
        with an equal share of its exact net value ``V(S ∪ P) − V(S)`` — a value some set that
        fits the budget really achieves, so attention does not stop while it is positive.
        """
        horizon = self.max_lookahead
        if context.budget_left is not None:
            horizon = min(horizon, context.budget_left)
        if horizon < 2:
            return
        costs = problem.cost_weight * problem.costs
        cheapest = float(costs.min()) if problem.n_sources else 0.0
        if vpi <= cheapest:
            return
        informative = [
            s for s in singles if problem.likelihoods[problem.source_index(s)].shape[0] > 1
        ]
        # Best single value first; among equals the cheaper read.
        informative.sort(key=lambda s: (-singles[s], float(costs[problem.source_index(s)])))
        reports = _reported_variables(problem, context)
        bound = _VpiSub(problem)
        v_empty = value(problem, [])
        spent = float(sum(costs[problem.source_index(s)] for s in committed))
        seen = frozenset(v for s in committed for v in reports.get(s, ()))
        best = 0.0
        best_set: tuple[str, ...] = ()
        for k in range(2, min(horizon, len(informative)) + 1):
            size = (
                self.max_pair_sources
                if k == 2
                else _POOL_BY_SIZE.get(k, min(_POOL_BY_SIZE.values()))
            )
            pool = informative[:size]
            for group in itertools.combinations(pool, k):
                group_cost = float(sum(costs[problem.source_index(s)] for s in group))
                variables = seen.union(*(reports.get(s, ()) for s in group))
                if v_empty + bound(variables) - spent - group_cost - base <= best:
                    continue  # perfect information on these variables could not beat the best
                v = value(problem, [*committed, *group]) - base
                if v > best:
                    best, best_set = v, group
        if best_set:
            share = best / len(best_set)
            for sid in best_set:
                net[sid] = max(net[sid], share)

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """Exact net VOI of inspecting the candidate's source (costs included)."""
        val = self.valuation(context) if candidate.kind is CandidateKind.INSPECT_SOURCE else None
        if val is None or candidate.target not in val.net:
            return self.fallback.estimate(candidate, context)
        cost_weight = (
            context.cost_weight if context.cost_weight is not None else self.config.cost_weight
        )
        cost_term = cost_weight * candidate.cost.scalar()
        switch_term = self.config.switch_weight * candidate.switch_cost
        read = val.net[candidate.target]
        if self.calibration is not None:
            read = self.calibration.apply(read)
        net = read - switch_term
        gross = net + cost_term + switch_term
        p_change = min(gross / val.vpi, 1.0) if val.vpi > 0 else 0.0
        return Estimate(
            candidate.id,
            0.0,
            0.0,
            max(p_change, 0.0),
            val.vpi,
            gross,
            cost_term,
            switch_term,
            net,
            self.name,
            vpi=val.vpi,
        )


def default_estimator(config: EstimatorConfig | None = None) -> ModelEstimator:
    """The estimator ``Controller()`` uses: model-based, calibrated (issue 24).

    Exact VOI/VPI with pair and plan lookahead on the estimated problem when a decision is stated
    (the heuristic otherwise), its predictions mapped by the shipped calibration.
    """
    return ModelEstimator(config, calibration=default_calibration())
