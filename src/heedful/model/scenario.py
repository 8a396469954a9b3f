"""Scenarios of format ``heedful.scenario/v1`` (SPEC §2), split into a view and a truth.

A policy only ever receives a :class:`ScenarioView`: the visible interface. Every PRIVATE field
(priors, source accuracies, failure rates, echo values, renders, the fixed world) lives in a
separate :class:`ScenarioTruth` that the view holds no reference to.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import Field

from heedful.model.base import FrozenModel

FORMAT_V1 = "heedful.scenario/v1"


class Volatility(StrEnum):
    """Visible volatility class of a variable (hazards per class: SPEC §4.1)."""

    IMMUTABLE = "immutable"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    VERY_HIGH = "very_high"


class Condition(StrEnum):
    """Whether the budget and the instruction to inspect are stated (SPEC §4.2)."""

    ANNOUNCED = "announced"
    UNPROMPTED = "unprompted"


class ScenarioKind(StrEnum):
    """Kind of scenario."""

    INSPECTION = "inspection"
    SWITCHING = "switching"
    SCHEDULE = "schedule"


class Cost(FrozenModel):
    """Cost of one computation. Scalar cost = tool_calls + tokens/1000 + latency_ms/1000."""

    tokens: float = Field(default=0.0, ge=0.0)
    tool_calls: float = Field(default=0.0, ge=0.0)
    latency_ms: float = Field(default=0.0, ge=0.0)

    def scalar(self) -> float:
        """Return the scalar cost of SPEC §2."""
        return self.tool_calls + self.tokens / 1000.0 + self.latency_ms / 1000.0


class SalienceCues(FrozenModel):
    """Visible surface cues of a source (what a salience-driven policy reacts to)."""

    urgent_words: int = Field(default=0, ge=0)
    verbosity: int = Field(default=0, ge=0)
    recency_s: float | None = Field(default=None, ge=0.0)
    repeats: int = Field(default=0, ge=0)


class VariableView(FrozenModel):
    """A latent variable as the agent sees it: its domain and volatility class."""

    domain: tuple[str, ...]
    volatility: Volatility = Volatility.MEDIUM


class UtilityRule(FrozenModel):
    """One rule of an action's utility: the first rule whose ``when`` matches the world wins."""

    when: dict[str, str] = Field(default_factory=dict)
    value: float


class ActionView(FrozenModel):
    """An action the agent can finally take, with its (visible) utility rules."""

    description: str = ""
    utility: tuple[UtilityRule, ...]

    def utility_of(self, world: dict[str, str]) -> float:
        """Return u(action, world) by the first matching rule."""
        for rule in self.utility:
            if all(world.get(k) == v for k, v in rule.when.items()):
                return rule.value
        raise AssertionError("validated scenarios always end with a matching rule")


class Belief(FrozenModel):
    """What the agent currently holds about a variable."""

    variable: str
    value: str
    origin: str = "memory"
    age_s: float = Field(default=0.0, ge=0.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)


class SourceView(FrozenModel):
    """A source as the agent sees it (no accuracy, no failure rate, no echo, no render)."""

    id: str
    label: str = ""
    kind: str = "document"
    reports: tuple[str, ...] = ()
    authority: float = Field(default=0.5, ge=0.0, le=1.0)
    age_s: float = Field(default=0.0, ge=0.0)
    cost: Cost = Field(default_factory=Cost)
    salience: SalienceCues = Field(default_factory=SalienceCues)
    content: str = ""
    trusted: bool = True
    """Whether its metadata (authority, age, cost, reports) come from a trusted registry
    (document 000 §24). An untrusted source's ``authority`` is only what it *claims*: whether it
    is honest is hidden (its truth's PRIVATE ``honesty``), so a policy should credit the claim
    only as far as trusted reports corroborate it. Visible, and true unless the file says so."""
    links: int = Field(default=0, ge=0)
    """How many further sources its reply names (issue 23): each is hidden from the view until
    this source is read, then revealed with its metadata. Derived by the loader from the hidden
    sources' PRIVATE ``revealed_by``; a count only, never which sources or what they report."""


class TaskView(FrozenModel):
    """What a policy or an agent under test receives: the task and its visible interface.

    It has no scenario id, family or condition: an id could identify the scenario (and, with a
    public generator, its private truth), and the condition says whether inspection was announced,
    which the task text alone must convey (document 000 §15, §22). The runner builds it with
    :meth:`ScenarioView.task_view`.
    """

    kind: ScenarioKind = ScenarioKind.INSPECTION
    task: str = ""
    budget: int = Field(ge=0)
    cost_weight: float = Field(default=0.0, ge=0.0)
    variables: dict[str, VariableView]
    actions: dict[str, ActionView]
    beliefs: tuple[Belief, ...] = ()
    sources: tuple[SourceView, ...] = ()

    def source(self, source_id: str) -> SourceView:
        """Return the source with this id (KeyError if absent)."""
        for s in self.sources:
            if s.id == source_id:
                return s
        raise KeyError(source_id)

    @property
    def source_ids(self) -> tuple[str, ...]:
        """Ids of the sources, in file order."""
        return tuple(s.id for s in self.sources)


#: Fields of a :class:`ScenarioView` that a :class:`TaskView` leaves out.
_SCENARIO_ONLY = frozenset({"format", "id", "family", "condition"})


class ScenarioView(TaskView):
    """The visible half of a scenario file: the task view plus the scenario's id, family and
    condition, which the evaluator uses and a policy never receives (see :class:`TaskView`)."""

    format: Literal["heedful.scenario/v1"] = "heedful.scenario/v1"
    id: str
    family: str = "custom"
    condition: Condition = Condition.ANNOUNCED

    def task_view(self) -> TaskView:
        """The :class:`TaskView` of this scenario: what a policy or an agent is handed."""
        fields = {k: getattr(self, k) for k in TaskView.model_fields if k not in _SCENARIO_ONLY}
        # Fresh dicts: a policy that mutates its view cannot disturb the next policy's.
        fields["variables"] = dict(self.variables)
        fields["actions"] = dict(self.actions)
        return TaskView.model_construct(**fields)


#: How a dishonest source reports (PRIVATE ``liar``): ``random`` — uniformly over the domain,
#: independently of the truth; ``against`` — uniformly over the values other than the true one.
LiarMode = Literal["random", "against"]


class SourceTruth(FrozenModel):
    """PRIVATE behaviour of a source: noisy reports (``accuracy``) or fixed ones (``echo``).

    ``honesty`` (untrusted sources only, document 000 §24) is the prior probability that the
    source is honest — a latent variable of the world: honest, it reports with ``accuracy``;
    dishonest, as ``liar`` says (:data:`LiarMode`), the same way for every variable it reports.
    """

    accuracy: float | None = Field(default=None, ge=0.0, le=1.0)
    echo: dict[str, str] | None = None
    fails: float = Field(default=0.0, ge=0.0, le=1.0)
    render: str | None = None
    honesty: float | None = Field(default=None, ge=0.0, le=1.0)
    liar: LiarMode | None = None


class HiddenSource(FrozenModel):
    """PRIVATE: a source not listed in the view until ``revealed_by`` has been read (issue 23).

    Its visible half (``source``) reaches a policy only in the observation of the revealing
    read; before that no view, candidate list or prompt holds it.
    """

    source: SourceView
    revealed_by: str


class ScenarioTruth(FrozenModel):
    """PRIVATE half of a scenario: evaluator-only.

    ``hidden`` holds the sources a read reveals (their truth is in ``sources`` like any other's).
    """

    priors: dict[str, tuple[float, ...]]
    sources: dict[str, SourceTruth]
    world: dict[str, str] | None = None
    hidden: tuple[HiddenSource, ...] = ()


class Scenario(FrozenModel):
    """A loaded scenario: the visible ``view`` and the private ``truth``, kept apart.

    Hand a policy ``scenario.view`` only. ``origin`` names the file it came from.
    """

    view: ScenarioView
    truth: ScenarioTruth
    origin: str = "<memory>"

    @property
    def id(self) -> str:
        """The scenario id."""
        return self.view.id

    @property
    def sources(self) -> tuple[SourceView, ...]:
        """Every source, evaluator side: the listed ones in file order, then the hidden ones."""
        return self.view.sources + tuple(h.source for h in self.truth.hidden)

    def source(self, source_id: str) -> SourceView:
        """The source with this id, listed or hidden (KeyError if absent)."""
        for s in self.sources:
            if s.id == source_id:
                return s
        raise KeyError(source_id)

    def reveals(self) -> dict[str, tuple[SourceView, ...]]:
        """PRIVATE: per revealing source id, the hidden sources its read reveals (file order)."""
        out: dict[str, tuple[SourceView, ...]] = {}
        for h in self.truth.hidden:
            out[h.revealed_by] = (*out.get(h.revealed_by, ()), h.source)
        return out
