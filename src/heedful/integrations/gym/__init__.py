"""Gymnasium environment ``heedful/BudgetedInspection-v0`` (the ``gym`` extra).

Importing this package registers the environment id with Gymnasium::

    import gymnasium as gym
    import heedful.integrations.gym  # registers heedful/BudgetedInspection-v0

    env = gym.make("heedful/BudgetedInspection-v0", family="G", count=50)

See :class:`~heedful.integrations.gym.env.BudgetedInspectionEnv` and ``docs/learn.md``.
"""

from __future__ import annotations

import gymnasium

from heedful.integrations.gym.env import ENV_ID, BudgetedInspectionEnv

__all__ = ["ENV_ID", "BudgetedInspectionEnv"]

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="heedful.integrations.gym.env:BudgetedInspectionEnv")
