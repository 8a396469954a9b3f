"""The heuristic VOC formula and the utility tensor of a stated decision (SPEC §2, §4.1).

Pure numpy, no I/O: the attention controller's estimators and the engine's triage both value
computations through these, so there is one formula and one reading of utility rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from heedful.model.scenario import UtilityRule

__all__ = ["heuristic_voc", "utility_tensor"]


def heuristic_voc(
    confidence: np.ndarray,
    age_s: np.ndarray,
    hazard_per_s: np.ndarray,
    authority: np.ndarray,
    pivotality: np.ndarray,
    loss: np.ndarray,
    cost: np.ndarray,
    switch_cost: np.ndarray,
    cost_weight: float,
    switch_weight: float,
) -> np.ndarray:
    """Vectorised SPEC §4.1 formula over many candidates at once.

    ``p_stale = 1 − exp(−λ·age)``, ``p_wrong = 1 − confidence·(1 − p_stale)``,
    ``p_change = p_wrong·authority·pivotality``,
    ``VOC = p_change·E|ΔU| − λ_cost·cost − μ·switch_cost``.
    """
    stale = -np.expm1(-hazard_per_s * age_s)
    wrong = 1.0 - confidence * (1.0 - stale)
    change = wrong * authority * pivotality
    return change * loss - cost_weight * cost - switch_weight * switch_cost


def utility_tensor(
    actions: Mapping[str, Sequence[UtilityRule]],
    variables: Sequence[str],
    domains: Sequence[Sequence[str]],
) -> np.ndarray:
    """u(a, w) over the joint of ``variables``: shape ``[A, |D1|, …, |Dk|]``, actions in order.

    Each action's utility is its first rule whose ``when`` matches the world (SPEC §2), 0 when
    none does; a rule conditioning on a variable outside ``variables`` or on a value outside its
    domain never matches.
    """
    shape = tuple(len(d) for d in domains)
    position = {v: i for i, v in enumerate(variables)}
    out = np.zeros((len(actions), *shape))
    for a_i, rules in enumerate(actions.values()):
        # Last rule first, so an earlier matching rule overwrites a later one: first match wins.
        for rule in reversed(tuple(rules)):
            mask = np.ones(shape, dtype=bool)
            for var, val in rule.when.items():
                i = position.get(var)
                if i is None or val not in domains[i]:
                    mask[...] = False
                    break
                axis = [1] * len(shape)
                axis[i] = shape[i]
                mask &= (np.asarray(domains[i]) == val).reshape(axis)
            sub = out[a_i, ...]  # a view, also when there are no variables
            sub[mask] = rule.value
    return out
