"""Gymnasium environment ``heedful/BudgetedInspection-v2`` (the ``gym`` extra).

Gymnasium 1.x has no plugin discovery (0.x's ``gymnasium.envs`` entry points were removed in
1.0), so the ids exist once this package is imported. Either name the module in the id — the
form Gymnasium 1.x documents for third-party environments, with nothing imported first::

    import gymnasium as gym

    env = gym.make("heedful.integrations.gym:heedful/BudgetedInspection-v2", family="G")

or import it (``gym.register_envs`` keeps linters from calling the import unused)::

    import gymnasium as gym
    import heedful.integrations.gym

    gym.register_envs(heedful.integrations.gym)
    env = gym.make("heedful/BudgetedInspection-v2", family="G", count=50)

``-v1`` is the same environment without the invalid-action penalty, ``-v0`` v1 without the
per-slot ``links`` feature (``links=False``).

See :class:`~heedful.integrations.gym.env.BudgetedInspectionEnv` and ``docs/learn.md``.
"""

from __future__ import annotations

import gymnasium

from heedful.integrations.gym.env import (
    ENV_ID,
    ENV_ID_V0,
    ENV_ID_V1,
    INVALID_PENALTY,
    BudgetedInspectionEnv,
)

__all__ = ["ENV_ID", "ENV_ID_V0", "ENV_ID_V1", "INVALID_PENALTY", "BudgetedInspectionEnv"]

_ENTRY = "heedful.integrations.gym.env:BudgetedInspectionEnv"
_VERSIONS: dict[str, dict[str, object]] = {
    ENV_ID: {},
    ENV_ID_V1: {"invalid_penalty": 0.0},
    ENV_ID_V0: {"links": False, "invalid_penalty": 0.0},
}
for _id, _kwargs in _VERSIONS.items():
    if _id not in gymnasium.registry:
        gymnasium.register(id=_id, entry_point=_ENTRY, kwargs=_kwargs)
