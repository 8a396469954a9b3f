"""Contextual bandit over candidate features: LinUCB with partial feedback (§20.2, §20.4).

Live attention sees outcomes only for the computations it makes: the bandit updates from the
reward of a read actually made and never from a candidate it passed over. Its model is a ridge
regression of the *correction* ``reward − prior`` on standardised candidate features, where the
prior is the supervised ranker's prediction (or the model-based estimate without one): it starts
as ``voc-learned`` and drifts only as evidence arrives — in a world that differs from the one the
ranker was trained on, toward that world. The upper confidence bound ``α·sqrt(zᵀA⁻¹z)`` is its
exploration bonus (``α`` in utility units).

Exploration is bounded (§20.4: "reserve a small bounded fraction of budget for uncertain
candidates"): per turn at most ``ceil(exploration_share × budget)`` reads may be chosen for
their bonus (a read whose mean value alone would not have been chosen); once spent, the bandit
estimates with its mean only. It never touches governance floors: forced reads (the claim
validator's) are selected by the controller before any estimated candidate, whatever an
estimator says (``Controller.next``: forced candidates form the pool when present).

State (``A``, ``b``, counts, the feature scaling) persists as plain JSON in the memory store,
as a procedural node ``heedful.learn.bandit/<name>``, so it survives restarts and is shared by
every controller that opens the store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from heedful.attention import AttentionContext, Estimate
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.learn.config import BanditConfig
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor
from heedful.learn.ranker import RidgeRanker
from heedful.memory import Store
from heedful.model.candidate import Candidate, CandidateKind
from heedful.model.graph import Node, NodeType

__all__ = ["BANDIT_FORMAT", "BanditEstimator", "LinUCB"]

BANDIT_FORMAT = "heedful.bandit/v1"
_BASE = FEATURE_NAMES.index("model_net")


@dataclass
class LinUCB:
    """Shared-parameter LinUCB on standardised features, predicting a correction to a prior.

    Args:
        mean: Feature means used to standardise (e.g. the default ranker's).
        scale: Feature scales used to standardise.
        config: ``alpha`` and ``ridge``.
    """

    mean: np.ndarray
    scale: np.ndarray
    config: BanditConfig = field(default_factory=BanditConfig)
    a_inv: np.ndarray = field(init=False)
    b: np.ndarray = field(init=False)
    updates: int = 0

    def __post_init__(self) -> None:
        d = len(FEATURE_NAMES) + 1  # + intercept
        if self.mean.shape != (d - 1,) or self.scale.shape != (d - 1,):
            raise InvalidArgumentError(f"bandit scaling needs {d - 1} means and scales")
        self.a_inv = np.eye(d) / self.config.ridge
        self.b = np.zeros(d)

    def _z(self, x: np.ndarray) -> np.ndarray:
        return np.append((x - self.mean) / self.scale, 1.0)

    def correction(self, x: np.ndarray) -> float:
        """The learned correction to the prior for a read with features ``x``."""
        return float(self.a_inv @ self.b @ self._z(x))

    def bonus(self, x: np.ndarray) -> float:
        """Exploration bonus ``α·sqrt(zᵀA⁻¹z)``."""
        z = self._z(x)
        return self.config.alpha * math.sqrt(max(float(z @ self.a_inv @ z), 0.0))

    def update(self, x: np.ndarray, residual: float) -> None:
        """Learn from ``reward − prior`` of one read actually made (Sherman–Morrison)."""
        if not math.isfinite(residual):
            raise InvalidArgumentError(f"bandit reward must be finite, got {residual}")
        z = self._z(x)
        az = self.a_inv @ z
        self.a_inv -= np.outer(az, az) / (1.0 + float(z @ az))
        self.b += residual * z
        self.updates += 1

    # -- persistence ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain-data state."""
        return {
            "format": BANDIT_FORMAT,
            "feature_names": list(FEATURE_NAMES),
            "mean": self.mean.tolist(),
            "scale": self.scale.tolist(),
            "a_inv": self.a_inv.tolist(),
            "b": self.b.tolist(),
            "updates": self.updates,
            "alpha": self.config.alpha,
            "ridge": self.config.ridge,
            "exploration_share": self.config.exploration_share,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "<bandit>") -> LinUCB:
        """Rebuild from :meth:`to_dict` data.

        Raises:
            InvalidArgumentError: naming ``where`` and what is wrong.
        """
        if not isinstance(data, dict) or data.get("format") != BANDIT_FORMAT:
            raise InvalidArgumentError(f"{where}: not a {BANDIT_FORMAT} state")
        if data.get("feature_names") != list(FEATURE_NAMES):
            raise InvalidArgumentError(f"{where}: the bandit was trained on other features")
        try:
            cfg = BanditConfig(
                alpha=float(data["alpha"]),
                ridge=float(data["ridge"]),
                exploration_share=float(data["exploration_share"]),
            )
            bandit = cls(np.array(data["mean"], float), np.array(data["scale"], float), cfg)
            a_inv = np.array(data["a_inv"], float)
            b = np.array(data["b"], float)
            updates = int(data["updates"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"{where}: malformed bandit state ({exc})") from None
        if a_inv.shape != bandit.a_inv.shape or b.shape != bandit.b.shape:
            raise InvalidArgumentError(f"{where}: bandit state has the wrong shape")
        if not (np.isfinite(a_inv).all() and np.isfinite(b).all()):
            raise InvalidArgumentError(f"{where}: bandit state is not finite")
        bandit.a_inv, bandit.b, bandit.updates = a_inv, b, updates
        return bandit

    def save(self, store: Store, name: str = "default") -> None:
        """Write the state into the memory store (one procedural node, replaced)."""
        node_id = f"heedful.learn.bandit/{name}"
        meta: dict[str, object] = self.to_dict()
        content = f"LinUCB attention bandit {name!r}: {self.updates} updates"
        with store.transaction():
            try:
                store.get_node(node_id)
            except UnknownNameError:
                store.add_node(
                    Node(id=node_id, node_type=NodeType.PROCEDURAL, content=content, metadata=meta)
                )
            else:
                store.update_node(node_id, content=content, metadata=meta)

    @classmethod
    def load(cls, store: Store, name: str = "default") -> LinUCB | None:
        """The state saved under ``name``, or None if there is none yet."""
        try:
            node = store.get_node(f"heedful.learn.bandit/{name}")
        except UnknownNameError:
            return None
        return cls.from_dict(node.metadata, f"bandit {name!r} in {store.path}")


class BanditEstimator:
    """The controller's estimator backed by a :class:`LinUCB` (bounded exploration).

    Call :meth:`begin_turn` with the turn's budget, and :meth:`reward` after each read the
    controller made with its realised reward; nothing else updates the bandit.

    Args:
        bandit: The bandit state.
        prior: The ranker whose prediction the bandit corrects (None: the model-based estimate).
        extractor: Feature extractor.
        explore: Use the exploration bonus at all (False: mean only, e.g. in the benchmark).
    """

    name = "bandit"

    def __init__(
        self,
        bandit: LinUCB,
        prior: RidgeRanker | None = None,
        extractor: FeatureExtractor | None = None,
        *,
        explore: bool = True,
    ) -> None:
        self.bandit = bandit
        self.prior = prior
        self.extractor = extractor or FeatureExtractor()
        self.explore = explore
        self.explorations_left = 0
        self._features: dict[str, tuple[np.ndarray, float]] = {}
        self._means: dict[str, float] = {}
        self._with_bonus: dict[str, float] = {}
        self._context: AttentionContext | None = None

    def begin_turn(self, budget: int | None) -> None:
        """Reset the exploration allowance: ``ceil(share × budget)`` reads (0 if unlimited)."""
        share = self.bandit.config.exploration_share
        self.explorations_left = math.ceil(share * budget) if budget else 0
        self._features.clear()
        self._means.clear()
        self._with_bonus.clear()

    def estimate(self, candidate: Candidate, context: AttentionContext) -> Estimate:
        """Mean + bonus while exploration is allowed this turn, else the mean."""
        heur = self.extractor.heuristic_estimate(candidate, context)
        if candidate.kind is not CandidateKind.INSPECT_SOURCE:
            return heur
        if context is not self._context:  # a new refresh: forget the previous one's values
            self._context = context
            self._means.clear()
            self._with_bonus.clear()
        x = self.extractor.features(candidate, context, heur)
        base = self.prior.predict_one(x) if self.prior is not None else float(x[_BASE])
        mean = base + self.bandit.correction(x)
        net = mean
        if self.explore and self.explorations_left > 0:
            net = mean + self.bandit.bonus(x)
        self._features[candidate.target] = (x, base)
        self._means[candidate.target] = mean
        self._with_bonus[candidate.target] = net
        return replace(
            heur, net=net, gross=net + heur.cost_term + heur.switch_term, method=self.name
        )

    def chosen(self, source_id: str) -> bool:
        """Tell the estimator the controller chose ``source_id``; True if it was exploration.

        A read is exploratory when its mean alone would not have been chosen (another
        candidate's mean was higher, or its own mean was ≤ 0); each one spends the allowance.
        """
        if source_id not in self._means:
            return False
        mean = self._means[source_id]
        explored = mean <= 0.0 or mean < max(self._means.values())
        if explored:
            self.explorations_left = max(self.explorations_left - 1, 0)
        return explored

    def reward(self, source_id: str, reward: float) -> None:
        """Update from the realised reward of a read that was made (partial feedback)."""
        seen = self._features.get(source_id)
        if seen is None:
            raise InvalidArgumentError(f"no read of {source_id!r} was estimated this turn")
        x, base = seen
        self.bandit.update(x, reward - base)
