"""The failure taxonomy: which stage of a trial failed, and the Appendix B codes that apply.

One home for document 000 §13 (the four-way split), §18 (generation vs selection) and Appendix B,
shared by programmatic policies and LLM agents. Stages are judged in order and the first failure
wins (:class:`~heedful.bench.results.Stage`); every code whose definition applies is listed too.
Everything here is evaluator-side: it may read the PRIVATE truth (accuracies, echoes) and never
reaches a policy. Exact definitions: ``docs/metrics.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from heedful.bench.results import FailureCode, Stage
from heedful.model import Scenario, Volatility

__all__ = ["Judgement", "TrialFacts", "closest_optimal_set", "judge", "state_variables"]


@dataclass(frozen=True)
class TrialFacts:
    """What the taxonomy needs to know about one trial (built by :func:`score_trial`).

    Attributes:
        spontaneous: Inspections the policy chose itself, in order.
        all_reads: Spontaneous plus validator-forced inspections.
        failed: Inspections (of ``all_reads``) that failed.
        reported: Per variable, the values that successful inspections reported.
        optimal: The spontaneous selection was optimal (static set, or adaptive path).
        need: Reading something is necessary: the empty selection is not optimal.
        optimal_sets: Every optimal static set.
        closest: The optimal set closest to the selection (:func:`closest_optimal_set`).
        candidates: Controller policies: sources that became candidates (``None``: unknown).
        decided_by_agent: The agent chose the action (else the runner's Bayes-best action).
        beliefs: The agent's stated beliefs (``None``: none stated).
        action_rational: The action is Bayes-best given the observations.
        has_action: The trial ended with an action (an agent may end without one).
        validator_blocked: Production mode refused a decision and forced reads.
        action_correct: The final action is optimal in the drawn world.
    """

    spontaneous: tuple[str, ...]
    all_reads: tuple[str, ...]
    failed: frozenset[str]
    reported: Mapping[str, frozenset[str]]
    optimal: bool
    need: bool
    optimal_sets: tuple[tuple[str, ...], ...]
    closest: tuple[str, ...]
    candidates: frozenset[str] | None
    decided_by_agent: bool
    beliefs: Mapping[str, str] | None
    action_rational: bool
    has_action: bool
    validator_blocked: bool
    action_correct: bool


@dataclass(frozen=True)
class Judgement:
    """The verdict on one trial: first failing stage, its primary code, and every code."""

    stage: Stage | None
    failure: FailureCode | None
    codes: tuple[FailureCode, ...]


def closest_optimal_set(
    selected: Sequence[str], optimal_sets: Sequence[Sequence[str]]
) -> tuple[str, ...]:
    """The optimal set sharing the largest fraction of its members with ``selected``.

    Ties go to the smaller set, then to the first in the oracle's order. ``()`` when acting at
    once is optimal (the empty set is among the optimal sets and nothing closer exists).
    """
    chosen = set(selected)
    best: tuple[str, ...] = ()
    best_key: tuple[float, int] | None = None
    for opt in optimal_sets:
        frac = len(chosen & set(opt)) / len(opt) if opt else 1.0
        key = (frac, -len(opt))
        if best_key is None or key > best_key:
            best, best_key = tuple(opt), key
    return best


def state_variables(scenario: Scenario) -> list[str]:
    """Believed, non-immutable decision variables (visible structure), in declaration order."""
    view = scenario.view
    used = {v for a in view.actions.values() for rule in a.utility for v in rule.when}
    believed = {b.variable for b in view.beliefs}
    return [
        n
        for n, var in view.variables.items()
        if n in used and n in believed and var.volatility is not Volatility.IMMUTABLE
    ]


def _selection_codes(
    scenario: Scenario, facts: TrialFacts, world: Mapping[str, str]
) -> list[FailureCode]:
    view, truth = scenario.view, scenario.truth
    chosen = set(facts.spontaneous)
    missed = [s for s in facts.closest if s not in chosen]
    critical = {s for opt in facts.optimal_sets for s in opt}
    codes: list[FailureCode] = []
    held = {b.variable: b.value for b in view.beliefs}
    reports = {s.id: s.reports for s in scenario.sources}
    for var in state_variables(scenario):
        missed_on_var = [s for s in missed if var in reports[s]]
        if not missed_on_var:
            continue
        echoes_read = [
            s
            for s in chosen
            if var in reports[s] and (truth.sources[s].echo or {}).get(var) is not None
        ]
        if echoes_read:
            codes.append(FailureCode.SUMMARY_SUBSTITUTION)
        elif not facts.reported.get(var) and held[var] != world[var]:
            codes.append(FailureCode.STALE_STATE)
    for s in missed:
        acc = truth.sources[s].accuracy
        weaker = [
            c
            for c in chosen
            if c not in critical
            and (a := truth.sources[c].accuracy) is not None
            and acc is not None
            and a < acc
            and set(reports[c]) & set(reports[s])
        ]
        if weaker:
            codes.append(FailureCode.SOURCE_AUTHORITY_NEGLECT)
            break
    if missed:
        loudest_missed = max(_loudness(scenario, s) for s in missed)
        if any(
            c not in critical and _loudness(scenario, c) > max(loudest_missed, 0) for c in chosen
        ):
            codes.append(FailureCode.SALIENCE_CAPTURE)
    sizes = [len(o) for o in facts.optimal_sets]
    if sizes and len(chosen) < min(sizes) and missed:
        codes.append(FailureCode.UNDERINSPECTION)
    if sizes and len(chosen) > max(sizes):
        codes.append(FailureCode.OVERINSPECTION)
    return [c for c in _SPECIFIC_ORDER if c in codes]


#: Priority of the specific selection codes (the first that applies is the trial's primary code):
#: what was read *instead* (a loud source, an echo, a weaker source) before the consequence
#: (acting on stale state) and the plain count (too few or too many reads).
_SPECIFIC_ORDER = (
    FailureCode.SALIENCE_CAPTURE,
    FailureCode.SUMMARY_SUBSTITUTION,
    FailureCode.SOURCE_AUTHORITY_NEGLECT,
    FailureCode.STALE_STATE,
    FailureCode.UNDERINSPECTION,
    FailureCode.OVERINSPECTION,
)


def _loudness(scenario: Scenario, source_id: str) -> int:
    cues = scenario.source(source_id).salience
    return cues.urgent_words + cues.repeats


def _decision_variables(scenario: Scenario) -> set[str]:
    """Variables some action's payoff depends on (the ones ``decide`` states beliefs about)."""
    return {
        var
        for action in scenario.view.actions.values()
        for rule in action.utility
        for var in rule.when
    }


def judge(scenario: Scenario, facts: TrialFacts, world: Mapping[str, str]) -> Judgement:
    """Judge one trial: stages in order (initiation → selection → retrieval → evidence →
    reasoning), the first failure wins; ``VALIDATOR_RESCUED`` is added when production mode's
    forced reads led to a correct action."""
    stage: Stage | None = None
    primary: FailureCode | None = None
    codes: list[FailureCode] = []

    def fail(at: Stage, first: FailureCode, *more: FailureCode) -> None:
        nonlocal stage, primary
        if stage is None:
            stage, primary = at, first
        codes.extend(c for c in (first, *more) if c not in codes)

    if not facts.optimal:
        missing = [s for s in facts.closest if s not in facts.spontaneous]
        specific = _selection_codes(scenario, facts, world)
        if facts.candidates is not None and any(s not in facts.candidates for s in missing):
            fail(Stage.INITIATION, FailureCode.CANDIDATE_MISSING, *specific)
        elif facts.candidates is None and not facts.spontaneous and facts.need:
            under = [c for c in specific if c is not FailureCode.UNDERINSPECTION]
            fail(Stage.INITIATION, FailureCode.UNDERINSPECTION, *under)
        else:
            fail(Stage.SELECTION, specific[0] if specific else FailureCode.SELECTION_WRONG)
            fail(Stage.SELECTION, FailureCode.SELECTION_WRONG, *specific)
    critical = {s for opt in facts.optimal_sets for s in opt}
    if any(s in critical for s in facts.failed):
        fail(Stage.RETRIEVAL, FailureCode.RETRIEVAL_FAILED)
    if facts.decided_by_agent:
        stated = facts.beliefs or {}
        decision = _decision_variables(scenario)
        contradicted = any(
            facts.reported.get(var) and value not in facts.reported[var]
            for var, value in stated.items()
        )
        # A decision variable its own reads reported on but the agent did not state: the
        # decision cannot be shown to rest on that evidence (silence is not evidence use).
        unstated = facts.has_action and any(
            facts.reported.get(var) and var not in stated for var in decision
        )
        if contradicted or unstated:
            fail(Stage.EVIDENCE, FailureCode.EVIDENCE_IGNORED)
        if not facts.has_action or not facts.action_rational:
            fail(Stage.REASONING, FailureCode.REASONING_FAILED)
    if facts.validator_blocked and facts.action_correct:
        codes.append(FailureCode.VALIDATOR_RESCUED)
    return Judgement(stage=stage, failure=primary, codes=tuple(codes))
