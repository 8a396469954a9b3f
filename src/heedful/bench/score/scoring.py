"""Scoring: one cached oracle per scenario, the trial's world, and :func:`score_trial`.

Every value here comes from :mod:`heedful.decision` — the bench computes no value of its own
(SPEC §1: nothing is implemented twice). :func:`score_trial` turns what a policy or an agent did
in one trial (:class:`TrialOutcome`) into its :class:`~heedful.bench.results.TrialRecord`: the
attention score and regret (static, or adaptive against ``V*_adaptive``), the decision's utility,
and the failure split of :mod:`heedful.bench.score.taxonomy`. Definitions: ``docs/metrics.md``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from heedful import decision
from heedful.bench.config import BenchConfig
from heedful.bench.policy import Observation, Policy
from heedful.bench.results import (
    AgentUsage,
    FailureCode,
    ScenarioSummary,
    TrialRecord,
    Violation,
)
from heedful.bench.score.initiation import family_label, initiation_metrics
from heedful.bench.score.taxonomy import TrialFacts, closest_optimal_set, judge
from heedful.model import Scenario, SourceView, TaskView


@dataclass
class ScenarioOracle:
    """The compiled problem and oracle results of one scenario, computed once per run.

    Attributes:
        scenario_id: Id of the scenario.
        family: Its family.
        budget: Its budget.
        problem: The exact decision problem (PRIVATE: built from the truth).
        static: The static oracle result.
        adaptive: The adaptive oracle result (only in the adaptive condition).
        fixed_world: The scenario's fixed world index, if it has one.
        reveals: PRIVATE: per source id, the hidden sources its read reveals (issue 23).
    """

    scenario_id: str
    family: str
    budget: int
    problem: decision.DecisionProblem
    static: decision.StaticOracleResult
    adaptive: decision.AdaptiveOracleResult | None
    fixed_world: int | None
    reveals: dict[str, tuple[SourceView, ...]] = field(default_factory=dict)
    _values: dict[frozenset[str], float] = field(default_factory=dict)
    _policy_values: dict[str, float] = field(default_factory=dict)
    # Posterior beliefs and Bayes actions by observation path: policies that read the same
    # sources in a trial (and the same outcomes in another) share them.
    _beliefs: dict[tuple[tuple[str, int], ...], np.ndarray] = field(default_factory=dict)
    _acts: dict[tuple[tuple[str, int], ...], int] = field(default_factory=dict)

    @classmethod
    def prepare(cls, scenario: Scenario, *, adaptive: bool) -> ScenarioOracle:
        """Compile the scenario and run the oracles."""
        problem = decision.compile_problem(scenario.view, scenario.truth)
        budget = scenario.view.budget
        world = scenario.truth.world
        return cls(
            scenario_id=scenario.id,
            family=scenario.view.family,
            budget=budget,
            problem=problem,
            static=decision.static_oracle(problem, budget),
            adaptive=decision.adaptive_oracle(problem, budget) if adaptive else None,
            fixed_world=problem.world_index(world) if world is not None else None,
            reveals=scenario.reveals(),
        )

    def summary(self, config: BenchConfig) -> ScenarioSummary:
        """The oracle's numbers for the results file."""
        st = self.static
        return ScenarioSummary(
            id=self.scenario_id,
            family=self.family,
            n_sources=self.problem.n_sources,
            budget=self.budget,
            v_star=st.v_star,
            u_random=st.u_random,
            v_empty=st.v_empty,
            critical=list(st.critical),
            n_optimal_sets=len(st.optimal_sets),
            uninformative=st.v_star - st.u_random < config.uninformative_gap,
            adaptive_v_star=self.adaptive.v_adaptive if self.adaptive is not None else None,
        )

    def set_value(self, subset: Sequence[str]) -> float:
        """``V(S)`` of a set of inspections (cached)."""
        key = frozenset(subset)
        if key not in self._values:
            self._values[key] = decision.value(self.problem, sorted(key))
        return self._values[key]

    def act(self, observed: Sequence[tuple[str, int]]) -> int:
        """Index of the Bayes-optimal action after these (source, outcome index) observations."""
        key = tuple(observed)
        if key not in self._acts:
            action_id, _ = decision.best_action(self.problem, self._belief(key))
            self._acts[key] = self.problem.action_ids.index(action_id)
        return self._acts[key]

    def _belief(self, observed: Sequence[tuple[str, int]]) -> np.ndarray:
        """``posterior(problem, observed)``, remembered per path (never written to)."""
        key = tuple(observed)
        if key not in self._beliefs:
            belief = decision.posterior(self.problem, key)
            belief.flags.writeable = False
            self._beliefs[key] = belief
        return self._beliefs[key]

    def utility(self, action: int, world: int) -> float:
        """``u(action, world)``."""
        return float(self.problem.utility[action, world])

    def best_utility(self, world: int) -> float:
        """``max_a u(a, world)``: what full knowledge of the world would earn."""
        return float(self.problem.utility[:, world].max())

    def weighted_cost(self, inspected: Sequence[str]) -> float:
        """``cost_weight × Σ c(s)`` over the inspections made (failed ones included)."""
        idx = [self.problem.source_index(s) for s in inspected]
        return self.problem.cost_weight * float(self.problem.costs[idx].sum()) if idx else 0.0

    def policy_value(
        self, name: str, policy: Policy, view: TaskView, given: TaskView | None = None
    ) -> float:
        """The exact adaptive value of a deterministic policy (cached per policy name).

        The policy is reset on ``given`` (its own copy of the view, default ``view``); the
        budget and the source ids come from ``view``.
        """
        if name not in self._policy_values:
            self._policy_values[name] = self._exact_policy_value(policy, view, given or view)
        return self._policy_values[name]

    def path_optimal(self, observed: Sequence[tuple[str, int]], stopped: bool) -> bool:
        """Adaptive condition: every step of this path is an optimal choice from where it was.

        Args:
            observed: The (source, outcome index) path, in order.
            stopped: The policy stopped by itself after the path (rather than hitting the
                budget or breaking the protocol); stopping is then judged too.
        """
        assert self.adaptive is not None
        tol = 1e-9
        for i, (sid, _) in enumerate(observed):
            q = self.adaptive.q_values(tuple(observed[:i]))
            if sid not in q or q[sid] < max(q.values()) - tol:
                return False
        if stopped:
            q = self.adaptive.q_values(tuple(observed))
            return q[None] >= max(q.values()) - tol
        return True

    def posterior_value(self, observed: Sequence[tuple[str, int]]) -> float:
        """``max_a E[u(a) | observations]`` — the trial's expected utility of acting Bayes-optimally
        on what was observed (before the inspection cost)."""
        belief = self._belief(observed)
        return float((self.problem.utility @ belief).max())

    def expected_utility(self, action: int, observed: Sequence[tuple[str, int]]) -> float:
        """``E[u(action) | observations]``."""
        belief = self._belief(observed)
        return float(self.problem.utility[action] @ belief)

    def _exact_policy_value(self, policy: Policy, view: TaskView, given: TaskView) -> float:
        problem = self.problem
        valid = set(view.source_ids)
        budget = view.budget
        fixed_rng_seed = 0

        def policy_fn(observed: decision.History) -> str | None:
            # Replay the branch on a fresh reset; deterministic policies ignore the rng.
            policy.reset(given, np.random.default_rng(fixed_rng_seed))
            history = [
                observation_of(problem, sid, k, self.reveals.get(sid, ())) for sid, k in observed
            ]
            choice = policy.next(tuple(history))
            seen = {sid for sid, _ in observed}
            opened = valid | {s.id for o in history for s in o.revealed}
            if choice is None or len(observed) >= budget or choice not in opened or choice in seen:
                return None  # the runner would stop it here too
            return choice

        return float(decision.policy_value(problem, policy_fn, budget))


def observation_of(
    problem: decision.DecisionProblem,
    source_id: str,
    outcome: int,
    revealed: Sequence[SourceView] = (),
) -> Observation:
    """The policy-facing observation of outcome ``outcome`` of a source (and the hidden sources
    its read reveals, as copies)."""
    values = decision.outcome_values(problem, source_id, outcome)
    opened = tuple(SourceView.model_validate_json(s.model_dump_json()) for s in revealed)
    return Observation(source_id, values=values, failed=values is None, revealed=opened)


@dataclass
class TrialWorld:
    """The world of one (scenario, trial) and the outcome each source would give in it.

    Outcomes are drawn lazily but each source has its own random stream, so a source gives the
    same outcome to every policy that inspects it in this trial (paired comparisons).
    """

    oracle: ScenarioOracle
    index: int
    values: dict[str, str]
    base_seed: int
    _outcomes: dict[str, int] = field(default_factory=dict)

    @classmethod
    def draw(cls, oracle: ScenarioOracle, rng: np.random.Generator) -> TrialWorld:
        """Draw the world from the prior (or take the scenario's fixed world)."""
        problem = oracle.problem
        if oracle.fixed_world is not None:
            index = oracle.fixed_world
        else:
            index = int(rng.choice(problem.n_worlds, p=problem.prior))
        return cls(oracle, index, problem.world(index), int(rng.integers(2**62)))

    def outcome(self, source_id: str) -> int:
        """The outcome index ``source_id`` gives in this world (sampled once)."""
        if source_id not in self._outcomes:
            k = self.oracle.problem.source_index(source_id)
            rng = np.random.default_rng([self.base_seed, k])
            self._outcomes[source_id] = int(
                decision.sample_outcome(self.oracle.problem, source_id, self.index, rng)
            )
        return self._outcomes[source_id]

    def observation(self, source_id: str) -> Observation:
        """The real observation of ``source_id`` (adaptive condition, and for scoring)."""
        return observation_of(self.oracle.problem, source_id, self.outcome(source_id))


@dataclass(frozen=True)
class TrialOutcome:
    """What one policy or agent did in one trial — the input of :func:`score_trial`.

    Attributes:
        history: The accepted spontaneous inspections, in order (withheld ones in the static
            condition).
        violation: The protocol violation that stopped a programmatic policy, if any.
        action: The agent's own final action; ``None`` with ``decided_by_agent=False`` means the
            runner acts Bayes-optimally on the posterior (programmatic policies).
        decided_by_agent: The agent chooses the action (an agent that never decided has
            ``action=None`` and fails the reasoning stage).
        beliefs: The beliefs the agent stated with its decision (variable → value).
        forced: Reads the production validator forced (never spontaneous attention).
        validator_blocked: Production mode refused at least one decision.
        protocol_error: Why an agent's trial broke the protocol (over budget, unknown id,
            malformed call, no decision within the turn limit, endpoint failure).
        candidates: Controller policies: every source that became an inspection candidate.
        stopped: The policy stopped by itself (adaptive path optimality judges the stop too).
        observation_blind: The policy's choices never depend on its observations, so in the
            adaptive condition ``V(S)`` of its realized set is its exact value given the choices.
        usage: Model usage of an agent trial.
    """

    history: tuple[Observation, ...]
    violation: Violation | None = None
    action: str | None = None
    decided_by_agent: bool = False
    beliefs: Mapping[str, str] | None = None
    forced: tuple[Observation, ...] = ()
    validator_blocked: bool = False
    protocol_error: str | None = None
    candidates: frozenset[str] | None = None
    stopped: bool = True
    observation_blind: bool = False
    usage: AgentUsage | None = None


def score_trial(
    scenario: Scenario,
    oracle: ScenarioOracle,
    world: TrialWorld,
    *,
    policy: str,
    trial: int,
    adaptive: bool,
    outcome: TrialOutcome,
    config: BenchConfig,
    initiation: bool = False,
    mode: Literal["attention", "production"] = "attention",
    exact_value: float | None = None,
) -> TrialRecord:
    """Score one trial (every field: docs/metrics.md).

    Args:
        scenario: The scenario (view and PRIVATE truth: this is the evaluator side).
        oracle: Its prepared oracle.
        world: The trial's world and source outcomes.
        policy: The policy's registered name.
        trial: Trial index.
        adaptive: Adaptive condition (score against ``V*_adaptive``).
        outcome: What the policy or agent did.
        config: Thresholds.
        initiation: Record the unprompted-condition metrics (document 000 §15.2).
        mode: ``production`` when the claim validator could force reads.
        exact_value: Adaptive condition, deterministic policy: its exact adaptive value
            (:meth:`ScenarioOracle.policy_value`); otherwise the trial's value is estimated.
    """
    spontaneous = [o.source_id for o in outcome.history]
    forced = [o.source_id for o in outcome.forced if o.source_id not in spontaneous]
    reads = spontaneous + forced
    observed_s = [(sid, world.outcome(sid)) for sid in spontaneous]
    observed = observed_s + [(sid, world.outcome(sid)) for sid in forced]
    problem = oracle.problem
    st = oracle.static
    tol = config.optimal_tolerance

    # Attention value of the spontaneous selection: static V(S), or the adaptive policy value.
    static_value = oracle.set_value(spontaneous)
    cost_s = oracle.weighted_cost(spontaneous)
    value_kind: Literal["exact", "set", "estimate"] = "exact"
    if adaptive and oracle.adaptive is not None:
        v_star = oracle.adaptive.v_adaptive
        if exact_value is not None:
            value = exact_value
        elif outcome.observation_blind:
            value, value_kind = static_value, "set"
        else:
            value, value_kind = oracle.posterior_value(observed_s) - cost_s, "estimate"
        optimal = outcome.violation is None and oracle.path_optimal(
            observed_s, outcome.stopped and len(spontaneous) < scenario.view.budget
        )
    else:
        v_star, value = st.v_star, static_value
        optimal = static_value >= st.v_star - tol
    gap = v_star - st.u_random
    uninformative = gap < config.uninformative_gap

    # The decision: the agent's own, or the runner's Bayes-best on everything read.
    if outcome.decided_by_agent:
        act = (
            problem.action_ids.index(outcome.action)
            if outcome.action in problem.action_ids
            else None
        )
    else:
        act = oracle.act(observed)
    utilities = problem.utility[:, world.index]
    utility = float(utilities.min()) if act is None else oracle.utility(act, world.index)
    best_expected = oracle.posterior_value(observed)
    rational = act is not None and oracle.expected_utility(act, observed) >= best_expected - tol
    correct = act is not None and utility >= oracle.best_utility(world.index) - tol
    cost = cost_s if not forced else oracle.weighted_cost(reads)

    seen = {sid: world.observation(sid) for sid in reads}
    failed = [sid for sid in reads if seen[sid].failed]
    reported: dict[str, set[str]] = {}
    for sid in reads:
        for var, val in (seen[sid].values or {}).items():
            reported.setdefault(var, set()).add(val)
    closest = closest_optimal_set(spontaneous, st.optimal_sets)
    critical = set(st.critical)
    chosen = set(spontaneous)
    cands = outcome.candidates
    useful_generated = [s for s in closest if cands is not None and s in cands]
    facts = TrialFacts(
        spontaneous=tuple(spontaneous),
        all_reads=tuple(reads),
        failed=frozenset(failed),
        reported={k: frozenset(v) for k, v in reported.items()},
        optimal=optimal,
        need=st.v_empty < st.v_star - tol,
        optimal_sets=tuple(tuple(o) for o in st.optimal_sets),
        closest=closest,
        candidates=cands,
        decided_by_agent=outcome.decided_by_agent,
        beliefs=outcome.beliefs,
        action_rational=rational,
        has_action=act is not None,
        validator_blocked=outcome.validator_blocked,
        action_correct=correct,
    )
    verdict = judge(scenario, facts, world.values)
    sources = {s.id: s for s in scenario.sources if s.id in chosen or s.id in forced}
    decisive = decision_variables(scenario.view) if spontaneous else set()
    return TrialRecord(
        scenario_id=scenario.id,
        family=family_label(scenario.view),
        policy=policy,
        trial=trial,
        condition="adaptive" if adaptive else "static",
        mode=mode,
        world=world.values,
        inspected=spontaneous,
        failed_inspections=failed,
        violation=outcome.violation,
        value=value,
        v_star=v_star,
        u_random=st.u_random,
        regret=v_star - value,
        score=None if uninformative else 100.0 * (value - st.u_random) / gap,
        uninformative=uninformative,
        optimal=optimal,
        value_kind=value_kind,
        static_value=static_value if adaptive else None,
        static_regret=st.v_star - static_value if adaptive else None,
        static_score=(
            100.0 * (static_value - st.u_random) / (st.v_star - st.u_random)
            if adaptive and st.v_star - st.u_random >= config.uninformative_gap
            else None
        ),
        decided_by="agent" if outcome.decided_by_agent else "runner",
        action=None if act is None else problem.action_ids[act],
        utility=utility,
        inspection_cost=cost,
        inspection_compute=sum(sources[s].cost.scalar() for s in reads),
        net_utility=utility - cost,
        action_correct=correct,
        action_rational=rational,
        beliefs=dict(outcome.beliefs) if outcome.beliefs is not None else None,
        forced_inspections=forced,
        production_score=(
            100.0 * (oracle.set_value(reads) - st.u_random) / (st.v_star - st.u_random)
            if mode == "production" and st.v_star - st.u_random >= config.uninformative_gap
            else None
        ),
        protocol_error=outcome.protocol_error,
        critical_recall=len(chosen & set(closest)) / len(closest) if closest else None,
        closest_optimal_set=list(closest),
        missing_critical=[s for s in closest if s not in chosen],
        precision=len(critical & chosen) / len(spontaneous) if spontaneous else None,
        first_critical_at=next(
            (i for i, sid in enumerate(spontaneous, start=1) if sid in critical), None
        ),
        distractor_inspections=sum(
            1
            for sid in spontaneous
            if not set(sources[sid].reports) & decisive and not sources[sid].links
        ),
        candidates=sorted(cands) if cands is not None else None,
        candidate_recall=(
            len(useful_generated) / len(closest) if cands is not None and closest else None
        ),
        selected_given_generated=(
            sum(1 for s in useful_generated if s in chosen) / len(useful_generated)
            if useful_generated
            else None
        ),
        stage=verdict.stage,
        failure=verdict.failure,
        codes=list(verdict.codes),
        rescued=FailureCode.VALIDATOR_RESCUED in verdict.codes,
        adaptive_value=exact_value if adaptive else None,
        adaptive_regret=(
            oracle.adaptive.v_adaptive - exact_value
            if adaptive and exact_value is not None and oracle.adaptive is not None
            else None
        ),
        initiation=(
            initiation_metrics(scenario, oracle, world, spontaneous) if initiation else None
        ),
        usage=outcome.usage,
    )


def decision_variables(view: TaskView) -> set[str]:
    """Variables some action's utility depends on (named in a utility rule's ``when``)."""
    return {v for a in view.actions.values() for rule in a.utility for v in rule.when}


def is_distractor(scenario: Scenario, source_id: str) -> bool:
    """A source that reports no variable any action's utility depends on and reveals no other
    source (visible structure)."""
    src = scenario.source(source_id)
    return not set(src.reports) & decision_variables(scenario.view) and not src.links
