"""From an agent's transcript to a scored trial record (the bench's shared failure taxonomy).

The agent runner hands the scorer exactly what the policy runner does — the history of accepted
spontaneous inspections — plus what only an agent has: its own action and stated beliefs, the
reads the production validator forced, the protocol error that flagged the trial, whether the
validator blocked ``decide``, and the usage of the model calls.
"""

from __future__ import annotations

from heedful.bench.agents.contract import CallStats
from heedful.bench.agents.env import Mode, Transcript
from heedful.bench.config import BenchConfig
from heedful.bench.results import AgentUsage, TrialRecord
from heedful.bench.score.scoring import ScenarioOracle, TrialOutcome, TrialWorld, score_trial
from heedful.model import Scenario

__all__ = ["score_agent_trial", "usage_of"]


def usage_of(stats: CallStats) -> AgentUsage:
    """The trial record's usage block: a copy of what the agent counted."""
    return stats.model_copy()


def score_agent_trial(
    scenario: Scenario,
    oracle: ScenarioOracle,
    world: TrialWorld,
    *,
    agent: str,
    trial: int,
    adaptive: bool,
    transcript: Transcript,
    stats: CallStats,
    config: BenchConfig,
    initiation: bool,
    mode: Mode,
) -> TrialRecord:
    """Score one agent trial with every stage of document 000 §13."""
    outcome = TrialOutcome(
        history=tuple(transcript.history),
        # An agent's rejected call is not executed and does not stop it (unlike a programmatic
        # policy's violation): the trial is flagged through ``protocol_error`` instead.
        violation=None,
        action=transcript.action,
        decided_by_agent=True,
        # An agent that decided stopped by itself; one cut off (turn limit, endpoint) did not.
        stopped=transcript.action is not None,
        beliefs=transcript.beliefs,
        forced=tuple(transcript.forced),
        protocol_error=transcript.protocol_error,
        validator_blocked=transcript.validator_blocked,
        usage=usage_of(stats),
    )
    return score_trial(
        scenario,
        oracle,
        world,
        policy=agent,
        trial=trial,
        adaptive=adaptive,
        outcome=outcome,
        config=config,
        initiation=initiation,
        mode=mode,
    )
