"""Train a linear policy on heedful/BudgetedInspection-v2, then score it with the bench.

Run: ``.venv/bin/python examples/gym/linear_policy.py`` (needs the ``gym`` extra).

The policy scores each unread source with a linear function of its observation slot (the
environment's visible per-source features) and reads the best one while its score is positive
and budget is left. The weights are found by the cross-entropy method on episodes of the
environment (training-stream scenarios of family G); the trained policy is then registered as a
bench policy and scored against the exact oracle on development scenarios with
:func:`heedful.bench.run.benchmark.run_benchmark` — the same code ``heedful bench run`` uses.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from heedful.bench.policy import Policy, register_policy
from heedful.bench.run.benchmark import run_benchmark
from heedful.bench.run.runner import decision_variables
from heedful.bench.worlds.families import generate_family
from heedful.extras import extra_hint

try:
    import gymnasium as gym

    import heedful.integrations.gym  # noqa: F401  (registers the environment id)
    from heedful.integrations.gym import ENV_ID
    from heedful.integrations.gym.env import PER_SOURCE
except ImportError as exc:  # without the extra: one line naming what to install, exit 2
    if exc.name != "gymnasium":
        raise
    print(f"error: this example needs the `gym` extra: {extra_hint('gym')}", file=sys.stderr)
    sys.exit(2)

N_W = PER_SOURCE + 1  # per-source weights + a bias (the stop threshold)


def act(weights: np.ndarray, obs: np.ndarray, max_sources: int, budget_left: int) -> int:
    """Best unread source by the linear score, or stop (``max_sources``)."""
    slots = obs[: max_sources * PER_SOURCE].reshape(max_sources, PER_SOURCE)
    scores = slots @ weights[:PER_SOURCE] + weights[PER_SOURCE]
    scores[(slots[:, 0] == 0) | (slots[:, 5] == 1)] = -np.inf  # empty or already read
    best = int(np.argmax(scores))
    return best if budget_left > 0 and scores[best] > 0 else max_sources


def episode_return(env: gym.Env, weights: np.ndarray, seed: int) -> float:
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    n = env.unwrapped.max_sources
    while not done:
        obs, reward, done, _, info = env.step(act(weights, obs, n, info["budget_left"]))
        total += reward
    return total


def train(episodes: int = 12, iterations: int = 6, population: int = 12) -> np.ndarray:
    """Cross-entropy method over the linear weights."""
    env = gym.make(ENV_ID, family="G", count=30)
    rng = np.random.default_rng(0)
    mean, std = np.zeros(N_W), np.ones(N_W)
    for it in range(iterations):
        cands = mean + std * rng.normal(size=(population, N_W))
        seeds = rng.integers(2**31, size=episodes)
        scores = [np.mean([episode_return(env, w, int(s)) for s in seeds]) for w in cands]
        elite = cands[np.argsort(scores)[-population // 4 :]]
        mean, std = elite.mean(axis=0), elite.std(axis=0) + 0.05
        print(f"iteration {it + 1}: mean return of the elite {np.sort(scores)[-4:].mean():.3f}")
    return mean


def main() -> None:
    weights = train()

    @register_policy("gym-linear")
    class GymLinear(Policy):
        """The trained linear policy, acting on the same features the environment shows."""

        def reset(self, view, rng):  # type: ignore[no-untyped-def]
            rel = decision_variables(view)
            rows = np.zeros((len(view.sources), PER_SOURCE))
            for i, s in enumerate(view.sources):
                rows[i, :5] = [
                    1.0, s.authority, math.log1p(s.age_s / 3600.0),
                    view.cost_weight * s.cost.scalar(), sum(v in rel for v in s.reports),
                ]  # fmt: skip
                rows[i, 7] = 0.5
                rows[i, 8] = s.links
            scores = rows @ weights[:PER_SOURCE] + weights[PER_SOURCE]
            order = [i for i in np.argsort(-scores) if scores[i] > 0]
            self._ids = [view.sources[i].id for i in order][: view.budget]

        def next(self, history):  # type: ignore[no-untyped-def]
            return self._ids[len(history)] if len(history) < len(self._ids) else None

    scenarios = generate_family("G", 20, 0)
    res = run_benchmark(scenarios, ["random", "voc", "gym-linear"], trials=3, seed=0)
    for name in ("random", "voc", "gym-linear"):
        score = res.aggregates.row(name).score
        print(f"{name:12s} attention score {score.mean if score else float('nan'):6.1f}")


if __name__ == "__main__":
    main()
