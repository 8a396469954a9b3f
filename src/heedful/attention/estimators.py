"""Estimators of a candidate's net value of computation; all share one shape.

Each estimator takes its parameters in the constructor and exposes
``estimate(candidate, context) -> Estimate`` (scikit-learn style, ARCHITECTURE.md). Estimates
read trusted metadata only: candidate ``content`` is never looked at (document 000 §24).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from heedful.attention.config import EstimatorConfig
from heedful.attention.context import (
    AttentionContext,
    ClaimState,
    DecisionModel,
    SourceInfo,
    belief_marginal,
    claim_p_stale,
    current_marginal,
    p_stale,
)
from heedful.attention.world import observation_accuracy, report_likelihood
from heedful.model.candidate import Candidate, CandidateKind, Trigger

__all__ = [
    "Estimate",
    "Estimator",
    "HeuristicEstimator",
    "SingleSignalEstimator",
    "action_values",
    "similarity_class",
]


@dataclass(frozen=True)
class Estimate:
    """A candidate's estimated value (document 000 §3.3, §8).

    Attributes:
        candidate_id: The candidate.
        p_stale: Probability the evidence behind its claims is stale.
        p_wrong: Probability a claim it checks is wrong.
        p_change: Probability it changes the decision.
        expected_loss: E|ΔU| given a change.
        gross: Expected improvement before costs.
        cost_term: λ_cost · scalar cost.
        switch_term: μ · switch cost.
        net: Predicted VOC = gross − cost_term − switch_term.
        method: Which estimator produced it.
        vpi: Value of perfect information, when the estimator knows it (BMPS upper bound).
        switch_cost: Switch cost used (declared, or estimated from the focus), utility units.
    """

    candidate_id: str
    p_stale: float
    p_wrong: float
    p_change: float
    expected_loss: float
    gross: float
    cost_term: float
    switch_term: float
    net: float
    method: str
    vpi: float | None = None
    switch_cost: float = 0.0


def similarity_class(source_kind: str, claim_type: str) -> str:
    """The class "similar inspections" share for historical usefulness (§3.3)."""
    return f"{source_kind}/{claim_type}"


class Estimator(Protocol):
    """The estimator shape: parameters in the constructor, then ``estimate``."""

    name: str

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """Estimate one candidate's net value."""
        ...


@dataclass(frozen=True)
class _Impact:
    pivotality: float
    loss: float


_IMPACTS: dict[tuple[object, ...], _Impact] = {}
_MAX_MEMO = 16_384


class HeuristicEstimator:
    """The heuristic VOC estimator of SPEC §4.1 (document 000 §3.3, §9, §10, §11.1).

    Args:
        config: Weights and hazards.
        use_staleness: Ablation switch: with False, ``p_stale`` is taken as 0 (doc 000 §21).
        use_authority: Ablation switch: with False, every source counts as authority 1.
        use_switch_cost: Ablation switch: with False, switch costs are ignored.
    """

    name = "heuristic"

    def __init__(
        self,
        config: EstimatorConfig | None = None,
        *,
        use_staleness: bool = True,
        use_authority: bool = True,
        use_switch_cost: bool = True,
    ) -> None:
        self.config = config or EstimatorConfig()
        self.use_staleness = use_staleness
        self.use_authority = use_authority
        self.use_switch_cost = use_switch_cost
        self._committed_cache: (
            tuple[weakref.ReferenceType[AttentionContext], dict[str, ClaimState]] | None
        ) = None
        self._impact_cache: (
            tuple[weakref.ReferenceType[AttentionContext], dict[str, _Impact]] | None
        ) = None

    # -- pieces ---------------------------------------------------------------------------------

    def claims(self, context: AttentionContext) -> Mapping[str, ClaimState]:
        """Claims as they will be once the committed (withheld) inspections are revealed.

        A claim covered by committed sources gets the *expected* confidence after their reports
        (the expected maximum posterior) and fresh evidence; its value stays the current best
        guess. With nothing committed these are the context's claims unchanged.
        """
        if not context.committed:
            return context.claims
        cached = self._committed_cache
        if cached is not None and cached[0]() is context:
            return cached[1]
        out = dict(context.claims)
        for claim_id, claim in context.claims.items():
            covering = [
                context.sources[s]
                for s in context.committed
                if s in context.sources and claim_id in context.sources[s].reports
            ]
            domain = claim.domain or (
                context.decision.variables.get(claim_id) if context.decision else None
            )
            if covering and domain:
                out[claim_id] = _expected_after(claim, tuple(domain), covering, context)
        self._committed_cache = (weakref.ref(context), out)
        return out

    def claim_p_stale(self, claim: ClaimState) -> float:
        """p_stale of a claim's evidence (1.0 extra when truth maintenance marked it dirty)."""
        if not self.use_staleness:
            return 0.0
        if claim.dirty:
            return 1.0
        return claim_p_stale(claim, self.config.hazards_per_hour)

    def claim_p_wrong(self, claim: ClaimState | None, p_stale_value: float) -> float:
        """``p_wrong = 1 − confidence·(1 − p_stale)``; no belief means a uniform guess."""
        if claim is None or claim.value is None:
            n = len(claim.domain) if claim is not None and claim.domain else 2
            return 1.0 - 1.0 / n
        return 1.0 - claim.confidence * (1.0 - p_stale_value)

    def source_authority(
        self, candidate: Candidate, claim: ClaimState, context: AttentionContext
    ) -> float:
        """Claim-specific authority of the inspected source, discounted by its data's age."""
        if not self.use_authority:
            return 1.0
        source = context.sources.get(candidate.target)
        if source is None:
            return candidate.authority
        authority = source.authority_for(claim.claim_type)
        if self.use_staleness:
            # A source holding old data about volatile state reports a possibly-stale value.
            authority *= 1.0 - p_stale(source.age_s, claim.volatility, self.config.hazards_per_hour)
        return authority

    def impact(self, claim_id: str, candidate: Candidate, context: AttentionContext) -> _Impact:
        """Pivotality and E|ΔU| of a claim, from the decision when known, else from goals."""
        decision = context.decision
        if decision is not None and claim_id in decision.variables:
            return self._decision_impact(claim_id, decision, context)
        weights = context.dependents(claim_id)
        if weights:
            pivot, loss = max(weights, key=lambda wl: wl[0] * wl[1])
        else:
            pivot = self.config.default_pivotality
            loss = candidate.loss_if_wrong or self.config.default_loss
        return _Impact(pivot, max(loss, candidate.loss_if_wrong))

    def _decision_impact(
        self, claim_id: str, decision: DecisionModel, context: AttentionContext
    ) -> _Impact:
        # A claim's impact is the same for every candidate checking it: computed once per context.
        cached = self._impact_cache
        if cached is None or cached[0]() is not context:
            cached = (weakref.ref(context), {})
            self._impact_cache = cached
        impact = cached[1].get(claim_id)
        if impact is None:
            # A pure function of the decision, the relevant claims and the estimator's settings:
            # remembered across contexts (the same states recur across a benchmark's trials).
            claims = self.claims(context)
            key = (
                decision.fingerprint(),
                claim_id,
                tuple(claims.get(v) for v in decision.relevant_variables),
                self.use_staleness,
                tuple(sorted(self.config.hazards_per_hour.items())),
                self.config.max_enumeration,
            )
            try:
                impact = _IMPACTS.get(key)
                hashable = True
            except TypeError:  # an unhashable domain (a list): no memo
                impact, hashable = None, False
            if impact is None:
                impact = self._compute_decision_impact(claim_id, decision, context)
                if hashable:
                    if len(_IMPACTS) >= _MAX_MEMO:
                        _IMPACTS.clear()
                    _IMPACTS[key] = impact
            cached[1][claim_id] = impact
        return impact

    def _compute_decision_impact(
        self, claim_id: str, decision: DecisionModel, context: AttentionContext
    ) -> _Impact:
        relevant = decision.relevant_variables
        if claim_id not in relevant:
            return _Impact(0.0, 0.0)
        domains = [decision.variables[v] for v in relevant]
        size = int(np.prod([len(d) for d in domains]))
        if size > self.config.max_enumeration:
            return _Impact(self.config.default_pivotality, self.config.default_loss)
        marginals = self.marginals(decision, context)
        utils = decision.utility_tensor()  # [A, *shape]
        axis = relevant.index(claim_id)
        others = np.ones(utils.shape[1:])
        for i, m in enumerate(marginals):
            if i != axis:
                shape = [1] * len(marginals)
                shape[i] = len(m)
                others = others * m.reshape(shape)
        # EU of each action conditional on each value x of the claim: [A, |D|].
        weighted = utils * others[None, ...]
        sum_axes = tuple(i + 1 for i in range(len(marginals)) if i != axis)
        cond = weighted.sum(axis=sum_axes) if sum_axes else weighted
        claim = self.claims(context).get(claim_id)
        dom = domains[axis]
        believed = claim.value if claim is not None and claim.value in dom else None
        # The agent acts on its belief (SPEC §4.1: "the loss of acting on a wrong value"); with
        # no belief it acts on its marginal.
        if believed is not None:
            current = int(np.argmax(cond[:, dom.index(believed)]))
        else:
            current = int(np.argmax(cond @ marginals[axis]))
        losses = cond.max(axis=0) - cond[current]
        alternatives = [i for i, v in enumerate(dom) if v != believed]
        changing = [losses[i] for i in alternatives if losses[i] > 1e-12]
        if not alternatives or not changing:
            return _Impact(0.0, 0.0)
        return _Impact(len(changing) / len(alternatives), float(np.mean(changing)))

    def marginals(self, decision: DecisionModel, context: AttentionContext) -> list[np.ndarray]:
        """The agent's marginal over each decision-relevant variable (belief + staleness)."""
        out = []
        for var in decision.relevant_variables:
            claim = self.claims(context).get(var)
            stale = self.claim_p_stale(claim) if claim is not None else 0.0
            out.append(
                belief_marginal(claim, decision.variables[var], self.claim_p_wrong(claim, stale))
            )
        return out

    # -- the estimate ---------------------------------------------------------------------------

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """Estimate a candidate's net VOC from its metadata and the context."""
        cost_weight = (
            context.cost_weight if context.cost_weight is not None else self.config.cost_weight
        )
        cost_term = cost_weight * candidate.cost.scalar()
        switch_cost = self.switch_cost(candidate, context)
        switch_term = self.config.switch_weight * switch_cost if self.use_switch_cost else 0.0
        boost = self._deadline_boost(candidate)
        if candidate.kind is not CandidateKind.INSPECT_SOURCE or not candidate.claim_ids:
            # Non-inspection computations carry their declared, trusted consequence.
            p_change = (
                self.config.default_pivotality if candidate.p_change is None else candidate.p_change
            )
            loss = candidate.loss_if_wrong * boost
            gross = p_change * loss
            return Estimate(
                candidate.id,
                0.0,
                1.0,
                p_change,
                loss,
                gross,
                cost_term,
                switch_term,
                gross - cost_term - switch_term,
                self.name,
                switch_cost=switch_cost,
            )
        if candidate.trigger is Trigger.CONTRADICTION:
            boost *= 1.0 + self.config.contradiction_boost
        boost *= self._reversibility(context)
        gross = 0.0
        stale_max = wrong_max = change_max = loss_max = 0.0
        src = context.sources.get(candidate.target)
        for claim_id in candidate.claim_ids:
            claim = self.claims(context).get(claim_id)
            if claim is None:
                continue
            if src is not None and src.links > 0 and claim_id not in src.reports:
                # A linking source proposed for what it may reveal (a catalogue): the heuristic
                # has no model of the sources it names, so it credits no report it does not make.
                continue
            stale = self.claim_p_stale(claim)
            wrong = self.claim_p_wrong(claim, stale)
            authority = self.source_authority(candidate, claim, context)
            impact = self.impact(claim_id, candidate, context)
            change = wrong * authority * impact.pivotality
            loss = impact.loss * boost
            source_of_belief = claim.evidence_source
            counter = source_of_belief is not None and source_of_belief != candidate.target
            bonus = 1.0 + self.config.counter_evidence_bonus if counter else 1.0
            gross += change * loss * bonus * self._usefulness(candidate, claim, context)
            stale_max, wrong_max = max(stale_max, stale), max(wrong_max, wrong)
            if change * loss >= change_max * loss_max:
                change_max, loss_max = change, loss
        if src is not None and src.failure_rate > 0.0:
            gross = gross * (1.0 - src.failure_rate)  # a read that returns nothing is worth 0
        net = gross - cost_term - switch_term
        return Estimate(
            candidate.id,
            stale_max,
            wrong_max,
            min(change_max, 1.0),
            loss_max,
            gross,
            cost_term,
            switch_term,
            net,
            self.name,
            switch_cost=switch_cost,
        )

    def switch_cost(self, candidate: Candidate, context: AttentionContext) -> float:
        """Declared switch cost, or for an interruption that declares none while a focus is held,
        ``base + share · VOC(focus)`` (§11.4; Phase 5 "switching-cost estimates")."""
        if candidate.switch_cost > 0 or context.focus is None:
            return candidate.switch_cost
        if candidate.kind is not CandidateKind.HANDLE_INTERRUPTION:
            return candidate.switch_cost
        if context.focus.candidate_id == candidate.id:
            return 0.0
        return self.config.switch_cost_base + self.config.switch_cost_focus_share * max(
            context.focus.voc, 0.0
        )

    def _reversibility(self, context: AttentionContext) -> float:
        """Loss multiplier when the pending action is declared irreversible (§3.3, §8.2)."""
        d = context.decision
        if d is not None and context.pending_action in d.irreversible:
            return 1.0 + self.config.irreversible_weight
        return 1.0

    def _usefulness(
        self, candidate: Candidate, claim: ClaimState, context: AttentionContext
    ) -> float:
        """History factor: this class's usefulness rate over the pooled rate, bounded (§3.3).

        Both rates carry a uniform prior; the factor is 1 until the class has
        ``usefulness_min_samples`` resolved inspections.
        """
        source = context.sources.get(candidate.target)
        if source is None or not context.usefulness:
            return 1.0
        useful, n = context.usefulness.get(similarity_class(source.kind, claim.claim_type), (0, 0))
        if n < self.config.usefulness_min_samples:
            return 1.0
        pooled_u = sum(u for u, _ in context.usefulness.values())
        pooled_n = sum(m for _, m in context.usefulness.values())
        ratio = ((useful + 1) / (n + 2)) / ((pooled_u + 1) / (pooled_n + 2))
        lo, hi = self.config.usefulness_range
        return min(max(ratio, lo), hi)

    def _deadline_boost(self, candidate: Candidate) -> float:
        if candidate.deadline_s is None:
            return 1.0
        horizon = self.config.deadline_horizon_s
        closeness = max(0.0, 1.0 - max(candidate.deadline_s, 0.0) / horizon)
        return 1.0 + self.config.deadline_boost * closeness


def _expected_after(
    claim: ClaimState,
    domain: tuple[str, ...],
    sources: list[SourceInfo],
    context: AttentionContext,
) -> ClaimState:
    """The claim after the reports of ``sources`` arrive, in expectation over their outcomes."""
    n = len(domain)
    m = current_marginal(claim, domain, context.hazards_per_hour)
    joint = m[None, :]  # rows: outcome combinations, columns: true value
    for src in sources:
        acc = observation_accuracy(
            src.authority_for(claim.claim_type),
            src.age_s,
            claim.volatility,
            context.hazards_per_hour,
            n,
        )
        lik = np.stack([report_likelihood(acc, n, k) for k in range(n)])  # [report, value]
        joint = (joint[:, None, :] * lik[None, :, :]).reshape(-1, n)
    confidence = float(joint.max(axis=1).sum())
    best = domain[int(np.argmax(m))]
    return replace(
        claim,
        value=best,
        confidence=min(confidence, 1.0),
        age_s=0.0,
        dirty=False,
        distribution=None,
    )


def action_values(
    decision: DecisionModel, context: AttentionContext, estimator: HeuristicEstimator | None = None
) -> dict[str, float]:
    """Expected utility of each action under the agent's current marginals."""
    est = estimator or HeuristicEstimator()
    relevant = decision.relevant_variables
    domains = [decision.variables[v] for v in relevant]
    if int(np.prod([len(d) for d in domains])) > est.config.max_enumeration:
        return {}
    utils = decision.utility_tensor()
    joint = np.ones(utils.shape[1:])
    for i, m in enumerate(est.marginals(decision, context)):
        shape = [1] * len(domains)
        shape[i] = len(m)
        joint = joint * m.reshape(shape)
    flat = utils.reshape(len(decision.actions), -1) @ joint.reshape(-1)
    return {a: float(v) for a, v in zip(decision.actions, flat, strict=True)}


class SingleSignalEstimator:
    """A one-signal baseline (document 000 §21: goal relevance only, risk only, staleness only).

    The score is the signal itself; there is no cost term, so these baselines inspect until the
    budget runs out. They exist to be beaten.

    Args:
        signal: ``staleness`` (p_stale of the checked claims), ``goal`` (goal relevance) or
            ``risk`` (loss if wrong).
        config: Hazards and default losses.
    """

    def __init__(self, signal: str, config: EstimatorConfig | None = None) -> None:
        if signal not in ("staleness", "goal", "risk"):
            from heedful.errors import InvalidArgumentError

            raise InvalidArgumentError(f"unknown signal {signal!r}; use staleness, goal or risk")
        self.signal = signal
        self.name = f"{signal}-only"
        self._heuristic = HeuristicEstimator(config)

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """Score a candidate by the single signal."""
        h = self._heuristic
        value = 0.0
        for claim_id in candidate.claim_ids:
            claim = context.claims.get(claim_id)
            if claim is None:
                continue
            if self.signal == "staleness":
                value = max(value, h.claim_p_wrong(claim, h.claim_p_stale(claim)))
            elif self.signal == "goal":
                value = max(value, h.impact(claim_id, candidate, context).pivotality)
            else:
                value = max(value, h.impact(claim_id, candidate, context).loss)
        if not candidate.claim_ids:
            value = candidate.loss_if_wrong if self.signal == "risk" else candidate.goal_relevance
        # A tiny positive floor keeps the baseline inspecting until its budget is spent.
        net = value + 1e-6
        return Estimate(candidate.id, 0.0, 0.0, 0.0, 0.0, value, 0.0, 0.0, net, self.name)
