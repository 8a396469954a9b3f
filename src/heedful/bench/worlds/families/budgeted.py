"""Family G — budgeted inspection (document 000 §14.1, §16 G).

One decision with three actions over one latent state (three values), two auxiliary variables that
decide whether a committing action pays off, and one irrelevant variable (24 worlds). Twelve to
twenty-four sources: four high-value instruments (two on the state, one on each auxiliary), a
handful of partially useful ones (weaker or older views of the same variables) and many loud
distractors that report nothing relevant. Budget 3–5, costs low: the budget binds.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "G-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): faster change with a long
#: tail, overclaiming authorities and confidence.
WORLD = WorldSpec(
    hazard_log_mean=0.5, shape_log_mean=-0.2, calibration_log_mean=0.35, confidence_log_mean=0.3
)
N_HIGH = 4


@register_family(
    "G",
    "budgeted",
    version=VERSION,
    world=WORLD,
    description="budgeted inspection: many candidates, hard budget",
)
def generate_budgeted(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-G scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    n_sources = int(rng.integers(12, 25))
    budget = int(rng.integers(3, 6))
    n_partial = int(rng.integers(3, 7))
    n_distract = n_sources - N_HIGH - n_partial

    b = Builder.start(rng, wording, scenario_id, family="G", world=world)
    aspects = signals.pick(wording, words.ASPECTS, 2)
    state = b.variable(
        f"{b.system}_state",
        b.values(words.STATE_TRIPLES),
        b.volatility(Volatility.MEDIUM, Volatility.HIGH),
        believe=True,
        confidence=(0.55, 0.95),
        age_s=(600.0, 43_200.0),
    )
    # Like b.condition, but sometimes believed: the belief coin is drawn after the volatility.
    aux1 = b.variable(
        f"{b.system}_{aspects[0]}",
        b.values(words.BINARY_VALUES),
        b.volatility(Volatility.LOW, Volatility.MEDIUM),
        believe=bool(rng.random() < 0.5),
        confidence=(0.6, 0.95),
        age_s=(3_600.0, 172_800.0),
    )
    aux2 = b.condition(aspects[1])
    noise = b.irrelevant(b.volatility(*(v for v in Volatility if v is not Volatility.IMMUTABLE)))

    s0, s1, s2 = b.domain(state)
    ok1, ok2 = b.domain(aux1)[0], b.domain(aux2)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain0, gain1 = rng.uniform(0.6, 1.2, size=2)
    loss0, loss1 = rng.uniform(0.4, 1.5, size=2)
    penalty1, penalty2 = rng.uniform(0.5, 1.5, size=2)
    # Each committing action pays off only in its state *and* when its auxiliary condition holds.
    b.action(
        verbs[0], [({state: s0, aux1: ok1}, gain0), ({state: s0}, gain0 - penalty1), ({}, -loss0)]
    )
    b.action(
        verbs[1], [({state: s1, aux2: ok2}, gain1), ({state: s1}, gain1 - penalty2), ({}, -loss1)]
    )
    b.action(verbs[2], [({state: s2}, rng.uniform(0.3, 0.8)), ({}, rng.uniform(-0.3, 0.1))])

    # High value: two good instruments on the state, one on each auxiliary condition.
    for reports in ([state], [state], [aux1], [aux2]):
        b.source(
            reports,
            authority=rng.uniform(0.75, 0.95),
            age_s=rng.uniform(0.0, 600.0),
            cues=signals.quiet_cues(rng) if rng.random() < 0.7 else signals.mixed_cues(rng),
        )
    # Partially useful: weaker or older views of the same variables.
    for _ in range(n_partial):
        shape = rng.integers(3)
        if shape == 0:
            reports = [aux1 if rng.random() < 0.5 else aux2]
            authority, age = rng.uniform(0.55, 0.8), rng.uniform(0.0, 7_200.0)
        elif shape == 1:
            reports = [state]
            authority, age = rng.uniform(0.45, 0.75), rng.uniform(1_800.0, 86_400.0)
        else:
            reports = [state, aux1 if rng.random() < 0.5 else aux2]
            authority, age = rng.uniform(0.5, 0.75), rng.uniform(0.0, 7_200.0)
        b.source(reports, authority=authority, age_s=age, cues=signals.mixed_cues(rng))
    b.distractors(n_distract, noise)

    raw: dict[str, Any] = b.build(
        budget=budget,
        cost_weight=float(rng.uniform(0.002, 0.012)),
        actions_text=verbs,
    )
    return b.validate(raw)
