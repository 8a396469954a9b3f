"""Family E — hidden state change, "dirty state" (document 000 §16 E; §8 dirty beliefs).

The agent holds three confident beliefs the decision depends on: a state and two conditions.
Each has an upstream instrument. For a *clean* belief the instrument's data are older than the
belief (the belief was derived after the last upstream update) and the variable changes slowly.
For a *dirty* belief — at least one, often the state — the upstream instrument's data are newer
than the belief (the source changed after the belief was formed) and the variable is volatile,
so the honest prior has moved away from the believed value. Each dirty belief also has a cheap,
recently surfaced cache derived from the old upstream data: it only echoes the believed value.
Loud distractors report an irrelevant variable or nothing. Budget 1–3.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "E-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): changes come in bursts,
#: faster than assumed; a derived cache is sometimes refreshed and reports.
WORLD = WorldSpec(
    hazard_log_mean=0.5,
    shape_log_mean=0.3,
    calibration_log_mean=0.2,
    confidence_log_mean=0.4,
    echo_delta=-0.1,
)
#: Chance that each belief is dirty (state, first condition, second condition).
DIRTY_RATE = (0.7, 0.35, 0.35)


def _dirty_flags(rng: np.random.Generator) -> list[bool]:
    flags = [bool(rng.random() < p) for p in DIRTY_RATE]
    if not any(flags):
        flags[int(rng.integers(3))] = True
    return flags


@register_family(
    "E",
    "dirty",
    version=VERSION,
    world=WORLD,
    description="hidden state change: a confident belief whose upstream source changed",
)
def generate_dirty(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-E scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(1, 4))
    b = Builder.start(rng, wording, scenario_id, family="E", world=world)
    aspects = signals.pick(wording, words.ASPECTS, 2)
    dirty = _dirty_flags(rng)
    names = [f"{b.system}_state", *(f"{b.system}_{a}" for a in aspects)]
    tables = [words.STATE_TRIPLES, words.BINARY_VALUES, words.BINARY_VALUES]
    believed = []
    for name, table, is_dirty in zip(names, tables, dirty, strict=True):
        vol = (
            b.volatility(Volatility.HIGH, Volatility.VERY_HIGH)
            if is_dirty
            else b.volatility(Volatility.LOW, Volatility.MEDIUM)
        )
        believed.append(
            b.variable(
                name,
                b.values(table),
                vol,
                believe=True,
                confidence=(0.85, 0.97),
                age_s=(1_800.0, 21_600.0),
            )
        )
    state, aux1, aux2 = believed
    noise = b.irrelevant(b.volatility(Volatility.MEDIUM, Volatility.HIGH))

    s0, s1, s2 = b.domain(state)
    ok1, ok2 = b.domain(aux1)[0], b.domain(aux2)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain0, gain1 = rng.uniform(0.6, 1.2, size=2)
    b.action(
        verbs[0],
        [({state: s0, aux1: ok1}, gain0), ({state: s0}, gain0 - rng.uniform(0.5, 1.5)), ({}, -1.0)],
    )
    b.action(
        verbs[1],
        [({state: s1, aux2: ok2}, gain1), ({state: s1}, gain1 - rng.uniform(0.5, 1.5)), ({}, -1.0)],
    )
    b.action(verbs[2], [({state: s2}, rng.uniform(0.3, 0.8)), ({}, rng.uniform(-0.3, 0.1))])

    for var, is_dirty in zip(believed, dirty, strict=True):
        belief = b.belief_of(var)
        assert belief is not None  # believe=True above
        age = float(belief["age_s"])
        # Upstream instrument: newer than the belief when dirty, older when clean.
        upstream_age = rng.uniform(0.0, age / 4) if is_dirty else age + rng.uniform(600, 7_200)
        b.source(
            [var],
            authority=rng.uniform(0.8, 0.97),
            age_s=upstream_age,
            cues=signals.quiet_cues(rng),
            cost=signals.draw_cost(rng, tokens=(150, 600), latency_ms=(300, 2_500)),
        )
        if is_dirty:
            # The derived cache: built from the old upstream data, it repeats the belief.
            b.source(
                [var],
                authority=rng.uniform(0.35, 0.6),
                age_s=age,
                cues=signals.cues(
                    rng, urgent_words=0, verbosity=(60, 300), recency_s=(0, 600), repeats=(0, 3)
                ),
                cost=signals.draw_cost(rng, tokens=(30, 150), latency_ms=(10, 150)),
                echo={var: str(belief["value"])} if b.echoes(1.0) else None,
                fails=0.0,
            )
    b.distractors(int(rng.integers(3, 7)), noise)
    raw = b.build(budget=budget, cost_weight=float(rng.uniform(0.003, 0.015)), actions_text=verbs)
    return b.validate(raw)
