"""The evaluator side of an inspect_ai run: the trials, the agent loop and the scorer.

inspect_ai writes into its log everything a sample, a solver's or scorer's arguments, the store
and the transcript hold. So the private half of each scenario (priors, accuracies, echoes, render
templates, the drawn world) never goes there: it stays in a :class:`Trials` table held in this
process, reached through an opaque token — the only thing the solver and scorer are given. A
sample carries the visible prompt (:func:`heedful.integrations.llm.prompt.render_messages`) and
its scenario id; the score carries heedful's numbers and the failure stage, never the world.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from inspect_ai.dataset import Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    get_model,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolCallError, ToolInfo, ToolParams

from heedful.bench.agents.advice import Advisor
from heedful.bench.agents.contract import AgentConfig, CallStats
from heedful.bench.agents.env import Mode, TrialEnv
from heedful.bench.agents.outcome import score_agent_trial
from heedful.bench.config import DEFAULT_CONFIG
from heedful.bench.results import TrialRecord
from heedful.bench.score.scoring import ScenarioOracle, TrialWorld
from heedful.bench.seeds import Stream, generator, name_key
from heedful.bench.stats import bootstrap_mean
from heedful.bench.views import policy_view
from heedful.errors import InvalidArgumentError
from heedful.integrations.llm.prompt import render_messages
from heedful.model import Condition, Scenario

__all__ = ["SCORE_KEYS", "Trials", "heedful_agent", "heedful_scorer", "samples", "trials"]

#: The numbers of a heedful score (each a metric of the eval; docs/metrics.md defines them).
#: ``decided`` (1: the trial ended in an accepted decide) and ``protocol_error`` (1: flagged)
#: stand beside the score, so a model that never acts cannot hide behind a high one.
SCORE_KEYS = (
    "attention_score",
    "regret",
    "net_utility",
    "optimal",
    "action_correct",
    "decided",
    "protocol_error",
)
NUDGE = "Use the tools: call decide(action, beliefs) when you are ready."


@dataclass
class Trials:
    """The private table of one task: scenarios, oracles and each (sample, epoch)'s trial.

    Args:
        scenarios: The task's scenarios (view and PRIVATE truth), in sample order.
        seed: Root seed of the hidden worlds: epoch ``e`` of sample ``i`` plays the world the
            bench draws for trial ``e - 1`` of scenario ``i`` (same streams, so the numbers pair
            with ``heedful bench run --seed`` on the same scenarios).
        adaptive: One inspection at a time (else one plan of every inspection).
        mode: ``attention`` or ``production`` (the claim validator checks ``decide``).
        advised: Offer the controller's advice (tool ``attention_next``), as ``llm-advised``.
        config: Turn and tool-call limits.
    """

    scenarios: Sequence[Scenario]
    seed: int
    adaptive: bool
    mode: Mode
    advised: bool
    config: AgentConfig
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    _index: dict[str, int] = field(default_factory=dict)
    _oracles: dict[int, ScenarioOracle] = field(default_factory=dict)
    _live: dict[tuple[str, int], tuple[TrialEnv, TrialWorld, CallStats]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        self._index = {s.id: i for i, s in enumerate(self.scenarios)}
        if len(self._index) != len(self.scenarios):
            raise InvalidArgumentError("scenario ids must be unique within a task")

    @property
    def name(self) -> str:
        """The agent name the records carry."""
        return "inspect-advised" if self.advised else "inspect"

    def oracle(self, index: int) -> ScenarioOracle:
        """The prepared oracle of scenario ``index`` (prepared once)."""
        if index not in self._oracles:
            self._oracles[index] = ScenarioOracle.prepare(
                self.scenarios[index], adaptive=self.adaptive
            )
        return self._oracles[index]

    def start(self, sample_id: str, epoch: int) -> TrialEnv:
        """Draw the world of (sample, epoch) and open its tool environment."""
        index = self._index[sample_id]
        scenario, trial = self.scenarios[index], epoch - 1
        world = TrialWorld.draw(
            self.oracle(index), generator(self.seed, Stream.TRIALS, index, trial)
        )
        view = policy_view(scenario)
        advisor = None
        if self.advised:
            rng = generator(self.seed, Stream.POLICY, index, trial, name_key(self.name))
            advisor = Advisor(view, rng)
        env = TrialEnv(
            view,
            world.observation,
            {sid: t.render for sid, t in scenario.truth.sources.items()},
            adaptive=self.adaptive,
            mode=self.mode,
            advisor=advisor,
            config=self.config,
            draw=f"{scenario.id}#{trial}",
            reveals=scenario.reveals(),
        )
        self._live[(sample_id, epoch)] = (env, world, CallStats())
        return env

    def stats(self, sample_id: str, epoch: int) -> CallStats:
        """The usage record of a running trial."""
        return self._live[(sample_id, epoch)][2]

    def finish(self, sample_id: str, epoch: int) -> TrialRecord:
        """Score (sample, epoch) with the bench's scorer and forget its trial."""
        key = (sample_id, epoch)
        if key not in self._live:
            raise InvalidArgumentError(
                f"sample {sample_id!r} epoch {epoch} was not played by heedful_agent "
                "(heedful_scorer scores only the trials of heedful's own solver)"
            )
        env, world, stats = self._live.pop(key)
        index = self._index[sample_id]
        scenario = self.scenarios[index]
        return score_agent_trial(
            scenario,
            self.oracle(index),
            world,
            agent=self.name,
            trial=epoch - 1,
            adaptive=self.adaptive,
            transcript=env.transcript,
            stats=stats,
            config=DEFAULT_CONFIG,
            initiation=scenario.view.condition is Condition.UNPROMPTED,
            mode=self.mode,
        )


_TRIALS: dict[str, Trials] = {}


def trials(table: Trials) -> str:
    """Keep ``table`` in this process and return the token its solver and scorer are given."""
    _TRIALS[table.token] = table
    return table.token


def _table(token: str) -> Trials:
    try:
        return _TRIALS[token]
    except KeyError:
        raise InvalidArgumentError(
            f"no heedful task with token {token!r} in this process"
        ) from None


def samples(table: Trials) -> list[Sample]:
    """One sample per scenario: the visible prompt and the scenario id, nothing else."""
    out = []
    for scenario in table.scenarios:
        messages: list[ChatMessage] = []
        for m in render_messages(policy_view(scenario), advised=table.advised):
            cls = ChatMessageSystem if m["role"] == "system" else ChatMessageUser
            messages.append(cls(content=m["content"]))
        out.append(Sample(id=scenario.id, input=messages))
    return out


def _tool_info(spec: Any) -> ToolInfo:
    return ToolInfo(
        name=spec.name,
        description=spec.description,
        parameters=ToolParams.model_validate(spec.parameters),
    )


@solver
def heedful_agent(token: str) -> Solver:
    """The agent loop of heedful's ``llm`` agent, on the eval's model.

    Each turn is one call of the model with the trial's tools (the bench agent environment's:
    ``inspect_source`` or ``plan_inspections``, ``decide``, and ``attention_next`` when advised);
    every tool call is executed by heedful's :class:`~heedful.bench.agents.env.TrialEnv`, so the
    protocol (budget, enums, repeats, the production validator) and its flags are the bench's.

    Args:
        token: The task's trial table (from :func:`trials`).
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        table = _table(token)
        env = table.start(str(state.sample_id), state.epoch)
        stats = table.stats(str(state.sample_id), state.epoch)
        model = get_model()
        for _ in range(table.config.max_turns):
            # Read every turn: a read that reveals a hidden source adds its id to the enums.
            tools = [_tool_info(t) for t in env.tools]
            output = await model.generate(state.messages, tools=tools)
            stats.calls += 1
            if output.usage is not None:
                stats.prompt_tokens += output.usage.input_tokens
                stats.completion_tokens += output.usage.output_tokens
            state.output = output
            message = output.message
            state.messages.append(message)
            calls = message.tool_calls or []
            if not calls:
                state.messages.append(ChatMessageUser(content=NUDGE))
                continue
            for i, call in enumerate(calls):
                if env.done:
                    text, error = "error: the trial is over", True
                elif i >= table.config.max_tool_calls_per_turn:
                    env.flag("too_many_tool_calls")
                    text, error = (
                        "error: too many tool calls in one turn; this one was not run",
                        True,
                    )
                else:
                    reply = env.call(call.function, call.arguments)
                    text, error = reply.text, reply.error
                state.messages.append(
                    ChatMessageTool(
                        content=text,
                        tool_call_id=call.id,
                        function=call.function,
                        error=ToolCallError("unknown", text) if error else None,
                    )
                )
            if env.done:
                return state
        env.flag(f"turn_limit: no accepted decide within {table.config.max_turns} turns")
        return state

    return solve


def _defined(values: Sequence[Any]) -> list[float]:
    return [float(v) for v in values if v is not None and not math.isnan(float(v))]


@metric(name="mean")
def defined_mean() -> Metric:
    """Mean over the samples whose value is defined (an uninformative scenario has no score)."""

    def compute(scores: list[SampleScore]) -> float:
        values = _defined([s.score.value for s in scores])
        return sum(values) / len(values) if values else float("nan")

    return compute


@metric(name="stderr")
def defined_stderr() -> Metric:
    """Standard error of that mean: the sample standard deviation (n − 1) over √n, across the
    samples whose value is defined (inspect_ai's own ``stderr`` convention, after it reduced
    each sample's epochs to their mean); NaN with fewer than two values."""

    def compute(scores: list[SampleScore]) -> float:
        values = _defined([s.score.value for s in scores])
        n = len(values)
        if n < 2:
            return float("nan")
        mean = sum(values) / n
        var = sum((v - mean) ** 2 for v in values) / (n - 1)
        return math.sqrt(var / n)

    return compute


def _bootstrap(scores: list[SampleScore]) -> tuple[float, float]:
    """heedful's percentile-bootstrap interval of the mean over the defined samples (the one
    ``heedful bench run`` prints: :data:`DEFAULT_CONFIG`'s resamples and level; one sample per
    scenario, so resampling samples is resampling scenarios, as the bench's clusters)."""
    values = _defined([s.score.value for s in scores])
    ci = bootstrap_mean(
        values,
        np.random.default_rng(0),
        n_resamples=DEFAULT_CONFIG.bootstrap_resamples,
        level=DEFAULT_CONFIG.ci_level,
    )
    return (ci.lo, ci.hi) if ci is not None else (float("nan"), float("nan"))


@metric(name="ci_lo")
def ci_low() -> Metric:
    """Lower end of heedful's bootstrap interval of the mean (95%, as ``heedful bench run``)."""

    def compute(scores: list[SampleScore]) -> float:
        return _bootstrap(scores)[0]

    return compute


@metric(name="ci_hi")
def ci_high() -> Metric:
    """Upper end of heedful's bootstrap interval of the mean (95%, as ``heedful bench run``)."""

    def compute(scores: list[SampleScore]) -> float:
        return _bootstrap(scores)[1]

    return compute


#: The means whose bootstrap interval the bench's table prints (its accuracy interval is a
#: Wilson interval on trial counts, which epoch means reduced per sample no longer are).
WITH_CI = frozenset({"attention_score", "net_utility"})


def _metrics(key: str) -> list[Metric]:
    extra = [ci_low(), ci_high()] if key in WITH_CI else []
    return [defined_mean(), defined_stderr(), *extra]


def _score(record: TrialRecord) -> Score:
    value: dict[str, float | None] = {
        "attention_score": record.score,
        "regret": record.regret,
        "net_utility": record.net_utility,
        "optimal": float(record.optimal),
        "action_correct": float(record.action_correct),
        "decided": float(record.action is not None),
        "protocol_error": float(record.protocol_error is not None),
    }
    # What the log may show: the agent's own choices and how they were judged — never the
    # world, the oracle's sets or the truth they come from.
    metadata = {
        "stage": record.stage.value if record.stage is not None else None,
        "failure": record.failure.value if record.failure is not None else None,
        "codes": [c.value for c in record.codes],
        "inspected": record.inspected,
        "forced_inspections": record.forced_inspections,
        "action": record.action,
        "protocol_error": record.protocol_error,
        "uninformative": record.uninformative,
    }
    stage = metadata["stage"] or "none"
    acted = "decided" if record.action is not None else "no decision"
    error = f", protocol error {record.protocol_error}" if record.protocol_error else ""
    return Score(
        value=value,
        answer=record.action,
        explanation=(
            f"score {record.score}, regret {record.regret:.4f}, failed stage: {stage}, "
            f"{acted}{error}"
        ),
        metadata=metadata,
    )


@scorer(metrics={key: _metrics(key) for key in SCORE_KEYS})
def heedful_scorer(token: str) -> Any:
    """heedful's oracle-based score of each trial (docs/metrics.md).

    The value holds the attention score (0–100 of the exact oracle's value; ``None`` on an
    uninformative scenario), the regret, the net utility, whether the selection was optimal and
    whether the action was, whether the trial ended in an accepted decide at all and whether it
    was flagged with a protocol error (their means: the share of trials decided and flagged);
    the metadata holds the four-stage failure split (``stage``: the
    first stage that failed — initiation, selection, retrieval, evidence or reasoning), the
    Appendix B codes and what the agent inspected and did. Each number's metrics: ``mean``
    and ``stderr`` over the samples whose value is defined, and for the attention score and the
    net utility heedful's 95% bootstrap interval (``ci_lo``, ``ci_hi``).

    Args:
        token: The task's trial table (from :func:`trials`).
    """

    async def score(state: TaskState, target: Target) -> Score:
        return _score(_table(token).finish(str(state.sample_id), state.epoch))

    return score
