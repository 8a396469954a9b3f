"""Train the ranker: generate training scenarios, collect labelled states, fit (§20.1).

Two rounds by default: round 1 collects states under the model-based and random behaviours and
fits; round 2 adds the states the fitted ranker itself visits (DAgger-style) and refits on all.
Then one fit per penalty of ``RankerConfig.ridge_grid`` (each with its own stop offset,
:func:`stop_offset`), the regret-search model fitted on the training scenarios
(:mod:`heedful.learn.search`) and the *no correction* model (the model-based estimate as it is)
are compared by the static regret of the policy each drives on validation scenarios (the training
stream's next scenarios, never an evaluation one); a fit is kept only if it beats no correction
by a margin (:func:`select_model`).
"""

from __future__ import annotations

import math
import platform
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from heedful.bench.run.backend import Backend, SerialBackend
from heedful.bench.seeds import name_key
from heedful.bench.worlds.families import get_family
from heedful.errors import InvalidArgumentError
from heedful.learn.config import DEFAULT_LEARN_CONFIG, TRAIN_STREAM, LearnConfig
from heedful.learn.dataset import Dataset, collect_scenario, training_scenarios
from heedful.learn.features import FEATURE_NAMES, FeatureExtractor, features_hash
from heedful.learn.ranker import RidgeRanker
from heedful.learn.search import regret_search
from heedful.learn.validate import state_caches, validation_regrets
from heedful.model import Scenario

__all__ = ["LABEL", "CollectTask", "build_dataset", "rollout_rng", "select_model", "train_model"]

LABEL = (
    "oracle plan label: V*(S) - V(S) if s is on an optimal plan from S, else Q(S, s) - V*(S) "
    "(static, exact; see heedful.learn.dataset)"
)


def _heedful_version() -> str:
    try:
        return version("heedful")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown"


def rollout_rng(seed: int, family: str, index: int) -> np.random.Generator:
    """The behaviours' randomness of training scenario ``index`` of ``family``.

    A child of the scenario's own seed sequence (:func:`training_scenarios` uses the first
    three to make it), so each scenario's rows depend on that scenario alone and can be
    collected in any order, on any backend.
    """
    ss = np.random.SeedSequence([seed, TRAIN_STREAM, name_key(family), index])
    return np.random.default_rng(ss.spawn(4)[3])


@dataclass(frozen=True)
class CollectTask:
    """One training scenario's labelled rows: the picklable job a :class:`Backend` runs.

    Called with ``(scenario, family code, index in the family, group)``.
    """

    seed: int
    random_rollouts: int
    model: RidgeRanker | None

    def __call__(self, item: tuple[Scenario, str, int, int]) -> Dataset:
        scenario, family, index, group = item
        return collect_scenario(
            scenario,
            group,
            rollout_rng(self.seed, family, index),
            random_rollouts=self.random_rollouts,
            model=self.model,
            extractor=FeatureExtractor(),
        )


def build_dataset(
    families: Sequence[str],
    count: int,
    seed: int,
    *,
    config: LearnConfig = DEFAULT_LEARN_CONFIG,
    model: RidgeRanker | None = None,
    progress: bool = False,
    description: str = "collect",
    backend: Backend | None = None,
) -> Dataset:
    """Labelled rows from ``count`` training scenarios of each family.

    Each scenario is one job of ``backend`` (default: this process); the rows are the same on
    every backend (see :func:`rollout_rng`).

    Raises:
        InvalidArgumentError: ``count < 1`` or a negative seed.
        UnknownNameError: unknown family.
    """
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed}")
    codes = [get_family(f).code for f in families]
    items = [
        (scenario, code, i, fi * count + i)
        for fi, code in enumerate(codes)
        for i, scenario in enumerate(training_scenarios(code, count, seed))
    ]
    task = CollectTask(seed, config.ranker.random_rollouts, model)
    data = Dataset.empty()
    with Progress(
        TextColumn("[bold]learn[/bold] {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not progress,
        transient=True,
    ) as bar:
        bar_task = bar.add_task(description, total=len(items))
        for rows in (backend or SerialBackend()).map(task, items):
            data = data.extend(rows)
            bar.advance(bar_task)
    return data


def stop_offset(pred: np.ndarray, data: Dataset) -> float:
    """The threshold ``δ`` on the best prediction of a state that best separates read from stop.

    The controller reads on while the best net value is > 0. A regression fitted to the label
    is unbiased on average but not exactly at zero, where the stopping decision is made, so
    ``δ`` is chosen on the training states to minimise the label-weighted cost of wrong stopping
    decisions: reading on where stopping was optimal costs the label of the read taken (< 0),
    stopping where reading was optimal costs the best label (> 0, what continuing was worth).
    The fitted model's intercept is then lowered by ``δ``.
    """
    order = np.lexsort((-pred, data.state))
    first = np.ones(order.size, dtype=bool)
    first[1:] = data.state[order][1:] != data.state[order][:-1]
    top = order[first]  # the best-predicted candidate of each state
    best_pred = pred[top]
    taken = data.y[top]
    best_label = np.array([data.y[data.state == s].max() for s in data.state[top]])
    grid = np.unique(np.quantile(best_pred, np.linspace(0.0, 1.0, 201)))
    grid = np.append(grid, 0.0)
    costs = [
        float(
            np.where(best_pred > d, np.where(best_label > 0, best_label - taken, -taken), 0.0).sum()
            + np.where((best_pred <= d) & (best_label > 0), best_label, 0.0).sum()
        )
        for d in grid
    ]
    return float(grid[int(np.argmin(costs))])


def select_model(
    fitted: Mapping[float | str, RidgeRanker], validation: Sequence[Scenario], config: LearnConfig
) -> tuple[RidgeRanker, dict[str, Any]]:
    """Keep the fitted correction that validates best, or none at all.

    The candidates are the models of ``fitted`` (one per ridge penalty, and the regret-search
    model under ``"search"``) and the *no correction* model (:meth:`RidgeRanker.identity`, i.e.
    the model-based estimate as it is). The best fit by mean validation regret is kept only if
    it beats no correction by more than ``config.ranker.selection_z`` standard errors of the
    paired per-scenario difference; otherwise the model-based estimate stands. Returns the model
    and what was measured.
    """
    caches = state_caches(validation, FeatureExtractor())
    identity = RidgeRanker.identity()
    scorers = {"none": identity.predict} | {str(r): m.predict for r, m in fitted.items()}
    regrets = validation_regrets(caches, scorers)
    report: dict[str, Any] = {
        "scenarios": len(caches),
        "mean_regret": {k: float(v.mean()) if v.size else None for k, v in regrets.items()},
    }
    if not caches or not fitted:
        report["selected"] = "none"
        return identity, report
    best = min(fitted, key=lambda r: float(regrets[str(r)].mean()))
    gain = regrets["none"] - regrets[str(best)]
    se = float(gain.std(ddof=1) / np.sqrt(gain.size)) if gain.size > 1 else math.inf
    report["best_fit"] = {"fit": str(best), "mean_gain": float(gain.mean()), "se": se}
    if float(gain.mean()) - config.ranker.selection_z * se > 0.0:
        report["selected"] = str(best)
        return fitted[best], report
    report["selected"] = "none"
    return identity, report


def _fit(data: Dataset, config: LearnConfig, ridge: float | None = None) -> RidgeRanker:
    if data.y.size == 0:
        raise InvalidArgumentError("no training rows were collected (scenarios too large?)")
    clip = config.ranker.label_clip
    penalty = config.ranker.ridge if ridge is None else ridge
    model = RidgeRanker(ridge=penalty).fit(data.x, np.clip(data.y, -clip, clip))
    delta = stop_offset(model.predict(data.x), data)
    model.shift(-delta)
    model.manifest["stop_offset"] = delta
    return model


def train_model(
    families: Sequence[str],
    count: int,
    seed: int = 0,
    *,
    rounds: int = 2,
    config: LearnConfig = DEFAULT_LEARN_CONFIG,
    progress: bool = False,
    command: str | None = None,
    backend: Backend | None = None,
) -> RidgeRanker:
    """Train a ranker on ``count`` training scenarios per family; the manifest records how.

    ``backend`` collects the rows of each round (default: this process); the model is the
    same on every backend.

    Raises:
        InvalidArgumentError: bad count, seed or rounds, or no rows collected.
        UnknownNameError: unknown family.
    """
    if rounds < 1:
        raise InvalidArgumentError(f"rounds must be at least 1, got {rounds}")
    codes = [get_family(f).code for f in families]
    if not codes:
        raise InvalidArgumentError("no family given")
    started = time.perf_counter()
    data = build_dataset(
        codes, count, seed, config=config, progress=progress, description="round 1",
        backend=backend,
    )  # fmt: skip
    model = _fit(data, config)
    for r in range(2, rounds + 1):
        more = build_dataset(
            codes, count, seed, config=config, model=model, progress=progress,
            description=f"round {r}", backend=backend,
        )  # fmt: skip
        data = data.extend(more)
        model = _fit(data, config)
    validation = [
        s
        for c in codes
        for s in training_scenarios(c, count + config.ranker.validation_count, seed)[count:]
    ]
    fitted: dict[float | str, RidgeRanker] = {
        r: _fit(data, config, r) for r in config.ranker.ridge_grid
    }
    search_report: dict[str, Any] | None = None
    if config.ranker.search:
        train_caches = state_caches(
            [s for c in codes for s in training_scenarios(c, count, seed)], FeatureExtractor()
        )
        fitted["search"], search_report = regret_search(train_caches, config.ranker)
    model, report = select_model(fitted, validation, config)
    selected = report["selected"]
    model.manifest = {
        "fit": "none" if selected == "none" else "search" if selected == "search" else "ridge",
        "stop_offset": model.manifest.get("stop_offset", 0.0),
        "ridge": model.ridge if math.isfinite(model.ridge) else None,
        "search": search_report,
        "validation": {
            "scenarios_per_family": config.ranker.validation_count,
            "selection_z": config.ranker.selection_z,
            **report,
        },
        "families": codes,
        "family_versions": {c: get_family(c).version for c in codes},
        "count": count,
        "seed": seed,
        "seed_stream": TRAIN_STREAM,
        "rounds": rounds,
        "rows": int(data.y.size),
        "label": LABEL,
        "features_hash": features_hash(FEATURE_NAMES),
        "heedful_version": _heedful_version(),
        "numpy_version": np.__version__,
        "python": platform.python_version(),
        "trained_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "train_seconds": round(time.perf_counter() - started, 2),
        "config": {
            "ridge": config.ranker.ridge,
            "ridge_grid": list(config.ranker.ridge_grid),
            "validation_count": config.ranker.validation_count,
            "selection_z": config.ranker.selection_z,
            "label_clip": config.ranker.label_clip,
            "random_rollouts": config.ranker.random_rollouts,
            "search": config.ranker.search,
            "search_grid": list(config.ranker.search_grid),
            "search_terms": config.ranker.search_terms,
            "search_min_gain": config.ranker.search_min_gain,
            "search_max_steps": config.ranker.search_max_steps,
            "search_objective": config.ranker.search_objective,
        },
        "command": command,
    }
    return model
