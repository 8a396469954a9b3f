"""Training data for the ranker: visited states, their candidates' features, oracle labels.

**States.** A scenario's visible view is handed to the real controller (the bench's
:class:`~heedful.bench.policies.voc.ControllerPolicy`) in the static condition; at every step the
controller estimates its live inspection candidates, and a recording estimator keeps each one's
feature vector together with the committed set it was estimated in. Which candidate is then
chosen is the *behaviour*: the model-based order, a uniformly random order (states the
model-based order never reaches), or a fitted ranker's own order (DAgger-style, so the model is
trained on the states it will visit). The behaviour always continues to the budget, so every
prefix length is seen.

**Label** (document 000 §20.1, "candidate features → oracle marginal decision value"), from the
exact enumeration the static oracle uses on the scenario's true (PRIVATE) problem. With
``Q(S, s) = max { V(T) : T ⊇ S ∪ {s}, |T| ≤ budget }`` (the best plan that reads ``s``) and
``V*(S) = max(V(S), max_s Q(S, s))`` (the best plan from ``S``, stopping included):

* if ``s`` is on an optimal plan (``Q(S, s) ≥ V*(S) − 1e-9``): ``V*(S) − V(S)`` ≥ 0, what
  continuing is worth;
* otherwise: ``Q(S, s) − V*(S)`` < 0, what reading ``s`` loses against the best plan.

Greedy reading on the exact label *is* the static oracle: a positive value exactly when reading
on is optimal, only optimal-plan members positive, and every label ≤ 0 exactly when stopping is
optimal — which is the controller's rule (stop when the best net value ≤ 0). Rejected
alternatives: the one-step marginal ``V(S ∪ {s}) − V(S)`` stops too early whenever sources are
only jointly informative (document 000 §31 question 3); the raw continuation value ``Q(S, s) −
V(S)`` credits a useless read with the value of the good reads that could follow it (a model
fitted to it over-inspects); membership of an optimal set (0/1) carries no utility scale, and
the stopping rule needs one with its zero at "not worth it".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from heedful import decision
from heedful.attention import AttentionContext, Estimate, Estimator
from heedful.bench.policies.voc import ControllerPolicy
from heedful.bench.run.runner import collect_choices
from heedful.bench.seeds import name_key
from heedful.bench.worlds.families import get_family
from heedful.bench.worlds.families._worlds import DEFAULT_SHIFT
from heedful.decision import OPTIMAL_TOLERANCE
from heedful.decision.static import feasible_rows
from heedful.errors import ProblemTooLargeError
from heedful.learn.config import TRAIN_STREAM
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.ranker import RidgeRanker
from heedful.model import Scenario
from heedful.model.candidate import Candidate, CandidateKind

__all__ = [
    "Dataset",
    "EstimatorPolicy",
    "OracleLabeler",
    "collect_scenario",
    "training_scenarios",
]

_MAX_SOURCES = 62  # bitmask labels (int64)
_NEVER_STOP = 10.0  # behaviour values are offset by this so the rollout runs to the budget


def training_scenarios(
    family: str, count: int, seed: int, shift: float = DEFAULT_SHIFT
) -> list[Scenario]:
    """``count`` scenarios of a family from the training seed stream (:data:`TRAIN_STREAM`).

    The seed sequence is ``[seed, TRAIN_STREAM, family, i]``: disjoint from every bench stream
    (development, hold-out) of every root seed. Each scenario's hidden model is drawn from the
    family's own distribution at ``shift`` (the bench's default), from a third child stream.
    """
    fam = get_family(family)
    out = []
    for i in range(count):
        ss = np.random.SeedSequence([seed, TRAIN_STREAM, name_key(fam.code), i])
        structure, wording, hidden = ss.spawn(3)
        out.append(
            fam.make(
                np.random.default_rng(structure),
                np.random.default_rng(wording),
                f"{fam.code}-t{seed}-{i:04d}",
                fam.draw_world(shift, np.random.default_rng(hidden)),
            )
        )
    return out


@dataclass
class Dataset:
    """Feature rows, labels, the scenario each row came from and its state (committed set).

    ``state`` numbers the distinct (scenario, committed set) pairs: the rows of one state are
    the candidates the controller chose among there.
    """

    x: np.ndarray
    y: np.ndarray
    group: np.ndarray
    state: np.ndarray

    @classmethod
    def empty(cls) -> Dataset:
        """A dataset with no rows."""
        none = np.zeros(0, dtype=np.int64)
        return cls(np.zeros((0, len(FEATURE_NAMES))), np.zeros(0), none, none.copy())

    def extend(self, other: Dataset) -> Dataset:
        """Rows of both (``other``'s states renumbered after this one's)."""
        offset = int(self.state.max()) + 1 if self.state.size else 0
        return Dataset(
            np.vstack([self.x, other.x]),
            np.concatenate([self.y, other.y]),
            np.concatenate([self.group, other.group]),
            np.concatenate([self.state, other.state + offset]),
        )


class OracleLabeler:
    """Exact oracle continuation values of one scenario's true problem (see module doc)."""

    def __init__(self, scenario: Scenario) -> None:
        self.problem = decision.compile_problem(scenario.view, scenario.truth)
        self.budget = scenario.view.budget
        if self.problem.n_sources > _MAX_SOURCES:
            raise ValueError("too many sources to label")  # caught by collect_scenario
        subsets, values = decision.all_subset_values(self.problem, self.budget)
        masks = [(np.left_shift(np.int64(1), s.astype(np.int64))).sum(axis=1) for s in subsets]
        self.masks = np.concatenate(masks).astype(np.int64)
        #: Exact mean ``V(S)`` over subsets of budget size: the bench's ``U_random``.
        self.u_random = float(values[-1].mean())
        if self.problem.hidden:
            # Hidden sources (issue 23): as the static oracle, only sets holding each hidden
            # member's revealer count, and U_random averages the listed sources' sets.
            listed = np.zeros(self.problem.n_sources, dtype=bool)
            listed[list(self.problem.listed())] = True
            k = min(self.budget, int(listed.sum()))
            self.u_random = float(values[k][listed[subsets[k]].all(axis=1)].mean())
            values = [
                np.where(feasible_rows(self.problem, s), v, -np.inf)
                for s, v in zip(subsets, values, strict=True)
            ]
        self.values = np.concatenate(values)
        self._value_of = dict(zip(self.masks.tolist(), self.values.tolist(), strict=True))
        self._index = {sid: i for i, sid in enumerate(self.problem.source_ids)}
        self._cache: dict[int, float] = {}

    def mask(self, source_ids: Sequence[str]) -> int:
        """Bitmask of a set of sources."""
        m = 0
        for sid in source_ids:
            m |= 1 << self._index[sid]
        return m

    def set_value(self, source_ids: Sequence[str]) -> float:
        """``V(S)`` (static, exact)."""
        return float(self._value_of[self.mask(source_ids)])

    def best_from(self, mask: int) -> float | None:
        """``max V(T)`` over enumerated ``T ⊇ mask`` (None when ``mask`` exceeds the budget)."""
        if mask not in self._cache:
            hit = (self.masks & mask) == mask
            if not hit.any() or not np.isfinite(self.values[hit].max()):
                return None
            self._cache[mask] = float(self.values[hit].max())
        return self._cache[mask]

    def label(self, committed: Sequence[str], source_id: str) -> float | None:
        """The training label of reading ``source_id`` after ``committed`` (see module doc).

        None when ``S ∪ {s}`` exceeds the budget.
        """
        s_mask = self.mask(committed)
        q = self.best_from(s_mask | (1 << self._index[source_id]))
        best = self.best_from(s_mask)
        if q is None or best is None:
            return None
        if q >= best - OPTIMAL_TOLERANCE:
            return best - self._value_of[s_mask]
        return q - best

    def marginal(self, committed: Sequence[str], source_id: str) -> float | None:
        """One-step marginal ``V(S ∪ {s}) − V(S)`` (the realised gain of a read, §20.3)."""
        q = self.mask([*committed, source_id])
        if q not in self._value_of:
            return None
        return float(self._value_of[q] - self._value_of[self.mask(committed)])


Behaviour = Callable[[np.ndarray], float]


class _Recorder:
    """Estimator that records features and acts by a behaviour that never stops early."""

    name = "recorder"

    def __init__(self, extractor: FeatureExtractor, behaviour: Behaviour) -> None:
        self.extractor = extractor
        self.behaviour = behaviour
        self.rows: list[tuple[np.ndarray, str, tuple[str, ...]]] = []

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        heur = self.extractor.heuristic_estimate(candidate, context)
        if candidate.kind is not CandidateKind.INSPECT_SOURCE:
            return heur
        x = self.extractor.features(candidate, context, heur)
        self.rows.append((x, candidate.target, tuple(context.committed)))
        return Estimate(
            candidate.id, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
            _NEVER_STOP + self.behaviour(x), self.name,
        )  # fmt: skip


class EstimatorPolicy(ControllerPolicy):
    """The bench's controller policy driven by a given estimator object (not registered).

    Args:
        estimator: Any estimator (learned, bandit, recording).
    """

    def __init__(self, estimator: Estimator) -> None:
        super().__init__()
        self._given = estimator

    def get_params(self) -> dict[str, object]:
        """No constructor parameters worth recording."""
        return {}

    def _make_estimator(self) -> Estimator:
        return self._given


def behaviours(
    rng: np.random.Generator, random_rollouts: int, model: RidgeRanker | None
) -> list[Behaviour]:
    """The rollouts of one scenario: model-based order, random orders, the ranker's order."""
    out: list[Behaviour] = [lambda x: float(x[0])]
    out += [lambda x: float(rng.random()) for _ in range(random_rollouts)]
    if model is not None:
        out.append(model.predict_one)
    return out


def collect_scenario(
    scenario: Scenario,
    group: int,
    rng: np.random.Generator,
    *,
    random_rollouts: int = 2,
    model: RidgeRanker | None = None,
    extractor: FeatureExtractor | None = None,
    target: str = "plan",
) -> Dataset:
    """Rows of one scenario (empty if it is too large to label exactly).

    ``target="plan"`` labels rows with the training label (module doc); ``"marginal"`` with the
    realised value gain of the read, ``V(S ∪ {s}) − V(S)`` (for calibration, §20.3).
    """
    try:
        labeler = OracleLabeler(scenario)
    except (ValueError, ProblemTooLargeError):
        return Dataset.empty()
    ext = extractor or FeatureExtractor()
    xs: list[np.ndarray] = []
    ys: list[float] = []
    states: list[int] = []
    state_ids: dict[tuple[str, ...], int] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for behaviour in behaviours(rng, random_rollouts, model):
        rec = _Recorder(ext, behaviour)
        policy = EstimatorPolicy(rec)
        task = scenario.view.task_view()
        policy.reset(task, rng)
        collect_choices(policy, task, None)
        for x, sid, committed in rec.rows:
            key = (sid, tuple(sorted(committed)))
            if key in seen:
                continue
            label = (
                labeler.label(committed, sid)
                if target == "plan"
                else labeler.marginal(committed, sid)
            )
            if label is None:
                continue
            seen.add(key)
            xs.append(x)
            ys.append(label)
            states.append(state_ids.setdefault(key[1], len(state_ids)))
    if not xs:
        return Dataset.empty()
    return Dataset(
        np.array(xs),
        np.array(ys),
        np.full(len(ys), group, dtype=np.int64),
        np.array(states, dtype=np.int64),
    )
