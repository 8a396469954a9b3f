"""Benchmark policies that run the real attention controller (document 000 §21).

Every policy here builds a :class:`heedful.attention.Controller` from the visible view only —
sources with their metadata, beliefs, variables with their volatility, and the decision
(actions and utilities) — and asks it for the next inspection. Nothing is re-implemented: the
heuristic, the model-based estimator, the ablations and the single-signal baselines differ only
in the estimator they hand the same controller.

Registered names: ``voc-default`` (what ``Controller()`` gives a user: the calibrated model-based
estimator with exploration), ``voc`` (heuristic), ``voc-model`` (exact VOI on the estimated
problem, uncalibrated, no exploration),
``voc-no-staleness``, ``voc-no-authority``, ``voc-no-switch-cost`` (ablations) and
``staleness-only``, ``goal-only``, ``risk-only`` (single-signal baselines).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np

from heedful.attention import (
    AttentionConfig,
    Controller,
    DecisionModel,
    Estimator,
    GeneratorConfig,
    SelectorConfig,
    Stop,
)
from heedful.attention.estimators import HeuristicEstimator, SingleSignalEstimator
from heedful.attention.generators import (
    Generator,
    GoalDependencyGenerator,
    StaleBeliefGenerator,
)
from heedful.attention.model_estimator import ModelEstimator, default_estimator
from heedful.bench.policy import Observation, Policy, register_policy
from heedful.errors import InvalidArgumentError
from heedful.model import SourceView, TaskView
from heedful.model.candidate import CandidateKind, TraceEvent

__all__ = ["ControllerPolicy"]

_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
# No exploration draws in the benchmark: exploration serves live learning (document 000 §20.4),
# and without it the policies are deterministic functions of the view and the history, which the
# runner relies on when it branches a policy over outcomes for its exact adaptive value.
# A failed read is only a failed read there (nothing to diagnose), so no diagnostic candidates.
_BENCH_CONFIG = AttentionConfig(
    selector=SelectorConfig(exploration_rate=0.0),
    generator=GeneratorConfig(diagnose_failures=False),
)
# ``voc-default``: the controller as a user gets it, exploration included (its draws come from the
# trial's rng, so the policy is not deterministic); only failure diagnosis stays off.
_USER_CONFIG = AttentionConfig(generator=GeneratorConfig(diagnose_failures=False))
_ESTIMATORS = ("default", "heuristic", "model", "staleness", "goal", "risk")
_TRUST = ("view", "all", "none")


class ControllerPolicy(Policy):
    """Drive :class:`~heedful.attention.Controller` through a scenario view.

    Args:
        estimator: ``default`` (the controller's own), ``heuristic``, ``model``, or a single
            signal: ``staleness``, ``goal``, ``risk``.
        use_staleness: Ablation switch of the estimator.
        use_authority: Ablation switch of the estimator.
        use_switch_cost: Ablation switch of the estimator.
        exploration: Run the default selector (seeded exploration draws, document 000 §20.4)
            instead of the benchmark's exploration-free one.
        trust: How the view's ``trusted`` marks reach the controller (document 000 §24):
            ``view`` registers each source as the view marks it (the controller's trust rule
            then discounts what the untrusted claim); ``all`` registers every source trusted (a
            policy that believes every claimed authority); ``none`` never registers, so never
            reads, an untrusted source. The last two are family K's give-away rules.
    """

    def __init__(
        self,
        estimator: str = "heuristic",
        use_staleness: bool = True,
        use_authority: bool = True,
        use_switch_cost: bool = True,
        exploration: bool = False,
        trust: str = "view",
    ) -> None:
        if estimator not in _ESTIMATORS:
            raise InvalidArgumentError(
                f"estimator must be one of {', '.join(_ESTIMATORS)}, not {estimator!r}"
            )
        if trust not in _TRUST:
            raise InvalidArgumentError(f"trust must be one of {', '.join(_TRUST)}, not {trust!r}")
        self.estimator = estimator
        self.trust = trust
        self.use_staleness = use_staleness
        self.use_authority = use_authority
        self.use_switch_cost = use_switch_cost
        self.exploration = exploration
        self._ctl: Controller | None = None
        self._pending: dict[str, str] = {}
        self._seen = 0
        self._generated: set[str] = set()

    def _make_estimator(self) -> Estimator:
        if self.estimator == "default":
            return default_estimator()
        if self.estimator == "heuristic":
            return HeuristicEstimator(
                use_staleness=self.use_staleness,
                use_authority=self.use_authority,
                use_switch_cost=self.use_switch_cost,
            )
        if self.estimator == "model":
            return ModelEstimator(
                use_staleness=self.use_staleness, use_authority=self.use_authority
            )
        return SingleSignalEstimator(self.estimator)

    def _make_generators(self) -> list[Generator] | None:
        """The controller's generators (``None``: its default set)."""
        # Single-signal baselines get the plain goal/staleness generators: the state-sensitive
        # generator proposes the most *authoritative* source first, and a tie between equal
        # single-signal scores would otherwise be broken by authority they are not meant to use.
        if self.estimator in ("staleness", "goal", "risk"):
            return [GoalDependencyGenerator(), StaleBeliefGenerator()]
        return None

    def _declare(self, ctl: Controller, view: TaskView) -> None:
        """Hook for subclasses: tell the controller more before the turn starts."""

    def _validator_mode(self) -> str:
        """The controller's claim validator mode (``attention_only``: it only logs)."""
        return "attention_only"

    def _turn_budget(self, view: TaskView) -> int | None:
        """The controller's hard per-turn budget: the scenario's budget."""
        return view.budget

    @property
    def controller(self) -> Controller:
        """The controller of the current trial (after :meth:`reset`)."""
        if self._ctl is None:
            raise InvalidArgumentError("call reset(view, rng) before using the policy")
        return self._ctl

    def reset(self, view: TaskView, rng: np.random.Generator) -> None:
        """Build a fresh controller from the visible interface of the scenario."""
        ctl = Controller(
            config=_USER_CONFIG if self.exploration else _BENCH_CONFIG,
            estimator=self._make_estimator(),
            generators=self._make_generators(),
            rng=rng,
            clock=lambda: _EPOCH,
            repeat_inspections=False,
            validator_mode=self._validator_mode(),
        )
        for src in view.sources:
            self._register(ctl, src)
        beliefs = {b.variable: b for b in view.beliefs}
        for name, var in view.variables.items():
            b = beliefs.get(name)
            ctl.record_belief(
                name,
                b.value if b else None,
                domain=list(var.domain),
                confidence=b.confidence if b else 0.0,
                age_s=b.age_s if b else 0.0,
                volatility=var.volatility,
            )
        ctl.state_decision(_decision_of(view))
        self._declare(ctl, view)
        ctl.begin_turn(budget=self._turn_budget(view))
        self._ctl = ctl
        self._pending = {}
        self._seen = 0
        self._generated = set()

    def feed(self, observations: Sequence[Observation]) -> None:
        """Resolve the controller's candidates for these new observations of sources it asked
        for (withheld, failed, or with the reported values it holds beliefs about); an
        observation of a source it did not ask for is ignored, except that the sources any read
        revealed are registered with the controller."""
        ctl = self.controller
        for obs in observations:
            self._join_revealed(obs)
            cid = self._pending.pop(obs.source_id, None)
            if cid is None:
                continue
            if obs.withheld:
                ctl.resolve(cid, withheld=True)
            elif obs.failed or obs.values is None:
                ctl.resolve(cid, succeeded=False)
            else:
                known = {k: v for k, v in obs.values.items() if k in ctl.world.beliefs}
                ctl.resolve(cid, succeeded=True, observations=known)

    def _join_revealed(self, obs: Observation) -> None:
        """A source the read revealed (issue 23) joins the controller's sources: from the next
        call on its generators may propose it like any listed source."""
        ctl = self.controller
        for src in obs.revealed:
            if src.id not in ctl.world.sources:
                self._register(ctl, src)

    def candidate_sources(self) -> frozenset[str]:
        """Sources that were a live inspection candidate at some call of the controller."""
        return frozenset(self._generated)

    def trace(self) -> list[TraceEvent]:
        """The controller's trace of the current trial."""
        return list(self.controller.trace)

    def _note_candidates(self, ctl: Controller) -> None:
        self._generated.update(
            c.target for c in ctl.candidates if c.kind is CandidateKind.INSPECT_SOURCE
        )

    def next(self, history: Sequence[Observation]) -> str | None:
        """Feed the new observations to the controller; return its next inspection or stop."""
        ctl = self.controller
        self.feed(history[self._seen :])
        self._seen = len(history)
        while True:
            step = ctl.next()
            self._note_candidates(ctl)
            if isinstance(step, Stop):
                return None
            if step.kind is CandidateKind.INSPECT_SOURCE:
                self._generated.add(step.target)
                self._pending[step.target] = step.id
                return step.target
            ctl.resolve(step.id, succeeded=True)  # nothing else exists in an inspection trial

    def _register(self, ctl: Controller, src: SourceView) -> None:
        """Tell the controller about one visible source (its metadata only), trusted as the
        view marks it (or as ``trust`` overrides; ``none`` leaves an untrusted one out)."""
        if self.trust == "none" and not src.trusted:
            return
        ctl.register_source(
            src.id,
            reports=list(src.reports),
            authority=src.authority,
            cost=src.cost,
            age_s=src.age_s,
            kind=src.kind,
            trusted=src.trusted or self.trust == "all",
            links=src.links,
        )


#: The decision model of the last few decisions, by their content (every policy gets its own
#: copy of a scenario's view, so equal decisions are told apart by value, not by object; the
#: model caches its utility tensor, so building it once per scenario saves recomputing it).
_DECISIONS: dict[tuple[object, ...], DecisionModel] = {}
_DECISIONS_KEPT = 8


def _decision_of(view: TaskView) -> DecisionModel:
    """The (frozen) decision model a controller is told about for ``view``."""
    variables = {n: tuple(v.domain) for n, v in view.variables.items()}
    actions = {a: tuple(av.utility) for a, av in view.actions.items()}
    key = (
        tuple(variables.items()),
        tuple((a, tuple(r.model_dump_json() for r in rules)) for a, rules in actions.items()),
        view.cost_weight,
    )
    hit = _DECISIONS.get(key)
    if hit is not None:
        return hit
    model = DecisionModel(variables=variables, actions=actions, cost_weight=view.cost_weight)
    if len(_DECISIONS) >= _DECISIONS_KEPT:
        del _DECISIONS[next(iter(_DECISIONS))]
    _DECISIONS[key] = model
    return model


def first_exploring_selection(config: SelectorConfig) -> int | float:
    """The first selection of a controller's life that may explore (1-based; ``inf``: none).

    With ``explore_paced`` a selection may explore only while explorations stay within
    ``exploration_fraction`` of the selections made, itself included — first at selection
    ``ceil(1 / exploration_fraction)`` (the 10th at 10 %); unpaced, the first. No exploration
    rate or fraction: never.
    """
    if config.exploration_rate <= 0 or config.exploration_fraction <= 0:
        return math.inf
    if not config.explore_paced:
        return 1
    return math.ceil(1.0 / config.exploration_fraction - 1e-9)


def _fixed(name: str, **params: object) -> type[ControllerPolicy]:
    class Fixed(ControllerPolicy):
        def __init__(self) -> None:
            super().__init__(**params)  # type: ignore[arg-type]

    Fixed.__name__ = Fixed.__qualname__ = (
        "".join(p.capitalize() for p in name.split("-")) + "Policy"
    )
    Fixed.__doc__ = f"The controller with {params or 'its defaults'} (document 000 §21)."
    return register_policy(name)(Fixed)


VocPolicy = _fixed("voc", estimator="heuristic")


@register_policy("voc-default")
class VocDefaultPolicy(ControllerPolicy):
    """The controller a user gets from ``Controller()``: the calibrated model-based estimator
    and exploration as shipped (not deterministic: its draws come from the trial's rng)."""

    deterministic = False

    def __init__(self) -> None:
        super().__init__(estimator="default", exploration=True)

    def deterministic_for(self, view: TaskView) -> bool:
        """Deterministic on a task whose budget ends before the first selection that may
        explore (:func:`first_exploring_selection`): its draws can change nothing there."""
        return view.budget < first_exploring_selection(_USER_CONFIG.selector)


VocModelPolicy = _fixed("voc-model", estimator="model")


@register_policy("voc-trust-all")
class VocTrustAllPolicy(ControllerPolicy):
    """``voc-model`` that believes every claimed authority: each source registered trusted
    (family K's trust-everything rule, document 000 §24; not in the default suite)."""

    in_default_suite = False

    def __init__(self) -> None:
        super().__init__(estimator="model", trust="all")


@register_policy("voc-trust-none")
class VocTrustNonePolicy(ControllerPolicy):
    """``voc-model`` that never reads an untrusted source (family K's trust-nothing rule,
    document 000 §24; not in the default suite)."""

    in_default_suite = False

    def __init__(self) -> None:
        super().__init__(estimator="model", trust="none")


VocNoStalenessPolicy = _fixed("voc-no-staleness", use_staleness=False)
VocNoAuthorityPolicy = _fixed("voc-no-authority", use_authority=False)
VocNoSwitchCostPolicy = _fixed("voc-no-switch-cost", use_switch_cost=False)
StalenessOnlyPolicy = _fixed("staleness-only", estimator="staleness")
GoalOnlyPolicy = _fixed("goal-only", estimator="goal")
RiskOnlyPolicy = _fixed("risk-only", estimator="risk")
