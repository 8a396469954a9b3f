"""The bench's side of exact valuation: one cached oracle per scenario, and the trial's world.

Every number here comes from :mod:`heedful.decision` — the bench computes no value of its own
(SPEC §1: nothing is implemented twice). This module only caches and adapts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from heedful import decision
from heedful.bench.config import BenchConfig
from heedful.bench.policy import Observation, Policy
from heedful.bench.results import ScenarioSummary, TrialRecord
from heedful.model import Scenario, ScenarioView


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
    """

    scenario_id: str
    family: str
    budget: int
    problem: decision.DecisionProblem
    static: decision.StaticOracleResult
    adaptive: decision.AdaptiveOracleResult | None
    fixed_world: int | None
    _values: dict[frozenset[str], float] = field(default_factory=dict)
    _policy_values: dict[str, float] = field(default_factory=dict)

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
        belief = decision.posterior(self.problem, observed)
        action_id, _ = decision.best_action(self.problem, belief)
        return self.problem.action_ids.index(action_id)

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

    def with_adaptive_value(
        self, record: TrialRecord, policy: Policy, view: ScenarioView
    ) -> TrialRecord:
        """Add the exact adaptive value of a deterministic policy (cached per policy)."""
        if self.adaptive is None:
            return record
        if record.policy not in self._policy_values:
            self._policy_values[record.policy] = self._exact_policy_value(policy, view)
        v = self._policy_values[record.policy]
        return record.model_copy(
            update={"adaptive_value": v, "adaptive_regret": self.adaptive.v_adaptive - v}
        )

    def _exact_policy_value(self, policy: Policy, view: ScenarioView) -> float:
        problem = self.problem
        valid = set(view.source_ids)
        fixed_rng_seed = 0

        def policy_fn(observed: decision.History) -> str | None:
            # Replay the branch on a fresh reset; deterministic policies ignore the rng.
            policy.reset(view, np.random.default_rng(fixed_rng_seed))
            history = [observation_of(problem, sid, k) for sid, k in observed]
            choice = policy.next(tuple(history))
            seen = {sid for sid, _ in observed}
            if (
                choice is None
                or len(observed) >= view.budget
                or choice not in valid
                or choice in seen
            ):
                return None  # the runner would stop it here too
            return choice

        return float(decision.policy_value(problem, policy_fn, view.budget))


def observation_of(problem: decision.DecisionProblem, source_id: str, outcome: int) -> Observation:
    """The policy-facing observation of outcome ``outcome`` of a source."""
    values = decision.outcome_values(problem, source_id, outcome)
    return Observation(source_id, values=values, failed=values is None)


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
