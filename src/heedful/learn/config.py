"""The numbers of :mod:`heedful.learn`, in one typed config object (document 000 §20).

Every number a learner uses lives here with the section it comes from, not as a literal in code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Seed stream of training scenarios. The bench's streams (``heedful.bench.seeds.Stream``) are
#: 0–4 (development, hold-out, trials, policy, statistics); training draws from its own stream
#: number, so no training scenario is ever an evaluation scenario, whatever root seed either uses.
TRAIN_STREAM = 101

#: Families the shipped default model is trained on (the rest are its transfer test, §31.8).
DEFAULT_TRAIN_FAMILIES: tuple[str, ...] = ("G", "B", "C", "E")


@dataclass(frozen=True)
class RankerConfig:
    """The supervised ranker (document 000 §20.1).

    Attributes:
        ridge: L2 penalty of the ridge regression on standardised features (it shrinks the
            learned correction toward the model-based estimate; chosen among 30–3000 by
            ``benchmarks/learn_transfer.py`` on development scenarios, never on evaluation ones).
        label_clip: Labels are clipped to ±this many utility units before fitting, so one
            extreme scenario cannot dominate the squared loss.
        random_rollouts: Behaviour rollouts per scenario that pick uniformly at random (to visit
            states the model-based order never reaches) besides the one model-ordered rollout.
        ridge_grid: Penalties tried after the last round; the one whose policy regrets least on
            the validation scenarios is kept (a large one means "trust the model-based
            estimate": the penalty shrinks the correction toward it).
        validation_count: Validation scenarios per family: the training stream's scenarios
            after the training ones (never an evaluation scenario either).
        selection_z: A fitted correction replaces the model-based estimate only if its mean
            validation gain exceeds this many standard errors of the paired per-scenario
            difference (otherwise "no correction" is kept: validation noise must not pick a
            model that is worse than the estimate it corrects).
        search: Also fit the regret-search model (:mod:`heedful.learn.search`) on the training
            scenarios and offer it to the selection.
        search_grid: Steps tried per coordinate of the regret search, in units of the standard
            deviation of ``model_net`` per standard deviation of the feature.
        search_terms: Largest number of non-zero weights of the regret-search model.
        search_min_gain: A search step is taken only if it lowers the mean training regret by at
            least this much (utility units; the mean regret of ``voc-model`` on the training
            families is about 0.01).
        search_max_steps: Largest number of search steps.
        search_objective: What the search minimises on the training scenarios and the selection
            compares on validation ones: ``"regret"`` (mean static regret, utility units) or
            ``"score"`` (mean ``100 − attention score``, the regret of each scenario divided by
            its ``V* − U_random`` as in the bench's score) or ``"both"`` (``regret / 0.01 +
            (100 − score) / 10``). ``benchmarks/learn_search.py`` compares them.
    """

    ridge: float = 1000.0
    ridge_grid: tuple[float, ...] = (100.0, 1000.0, 10000.0, 1e6)
    validation_count: int = 150
    selection_z: float = 1.0
    label_clip: float = 5.0
    random_rollouts: int = 2
    search: bool = True
    search_grid: tuple[float, ...] = (-0.5, -0.2, -0.1, -0.05, -0.02, 0.02, 0.05, 0.1, 0.2, 0.5)
    search_terms: int = 4
    search_min_gain: float = 1e-4
    search_max_steps: int = 12
    search_objective: str = "regret"


@dataclass(frozen=True)
class CalibrationConfig:
    """Calibration of predicted net VOC (document 000 §20.3).

    Attributes:
        bins: Equal-mass bins of the expected calibration error.
    """

    bins: int = 10


@dataclass(frozen=True)
class BanditConfig:
    """The contextual bandit (document 000 §20.2, §20.4).

    Attributes:
        alpha: LinUCB exploration width, in utility units per unit of ``sqrt(zᵀA⁻¹z)`` (the
            values it is added to are of the order of 0.01–0.5).
        ridge: Prior precision of the per-model ridge (the identity scale of ``A``).
        exploration_share: Largest share of a turn's budget that may go to a read chosen for
            its uncertainty bonus rather than its mean (§20.4: "a small bounded fraction").
    """

    alpha: float = 0.02
    ridge: float = 1.0
    exploration_share: float = 0.2


@dataclass(frozen=True)
class LearnConfig:
    """All of :mod:`heedful.learn`'s settings."""

    ranker: RankerConfig = field(default_factory=RankerConfig)
    calibration: CalibrationConfig = field(default_factory=CalibrationConfig)
    bandit: BanditConfig = field(default_factory=BanditConfig)


DEFAULT_LEARN_CONFIG = LearnConfig()
