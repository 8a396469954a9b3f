"""Gymnasium environment ``heedful/BudgetedInspection-v1`` (the ``gym`` extra).

Importing this package registers the environment ids with Gymnasium::

    import gymnasium as gym
    import heedful.integrations.gym  # registers heedful/BudgetedInspection-v1 (and -v0)

    env = gym.make("heedful/BudgetedInspection-v1", family="G", count=50)

``-v0`` is the same environment without the per-slot ``links`` feature (``links=False``).

See :class:`~heedful.integrations.gym.env.BudgetedInspectionEnv` and ``docs/learn.md``.
"""

from __future__ import annotations

import gymnasium

from heedful.integrations.gym.env import ENV_ID, ENV_ID_V0, BudgetedInspectionEnv

__all__ = ["ENV_ID", "ENV_ID_V0", "BudgetedInspectionEnv"]

_ENTRY = "heedful.integrations.gym.env:BudgetedInspectionEnv"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point=_ENTRY)
if ENV_ID_V0 not in gymnasium.registry:
    gymnasium.register(id=ENV_ID_V0, entry_point=_ENTRY, kwargs={"links": False})
