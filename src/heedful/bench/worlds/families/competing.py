"""Family F — competing uncertainty (document 000 §16 F).

Two uncertainties compete. A four-valued variable is *extremely* uncertain — very volatile, its
belief hours old, so its prior is close to uniform — and is watched by several fresh,
authoritative, cheap instruments; but it appears in no utility rule, or only in a small bonus of
the hedge action. A two-valued state is only *moderately* uncertain (a medium-volatility belief
under two hours old) but decides between large gains and large losses; one good instrument and
one or two weaker ones watch it, plus one on an auxiliary condition. Loud distractors report an
irrelevant variable or nothing. Budget 1–2: attention should follow consequence, not entropy.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "F-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): slower change,
#: overclaiming authorities, underclaiming confidence.
WORLD = WorldSpec(hazard_log_mean=-0.4, calibration_log_mean=0.3, confidence_log_mean=-0.3)
#: Chance that the very uncertain variable earns the hedge a small bonus (else it is irrelevant).
LOW_STAKE_RATE = 0.5


@register_family(
    "F",
    "competing",
    version=VERSION,
    world=WORLD,
    description="competing uncertainty: very uncertain but irrelevant vs consequential",
)
def generate_competing(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-F scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(1, 3))
    b = Builder.start(rng, wording, scenario_id, family="F", world=world)
    aspects = signals.pick(wording, words.ASPECTS, 2)
    vague = b.variable(
        f"{b.system}_{aspects[0]}",
        b.values(words.QUAD_VALUES),
        Volatility.VERY_HIGH,
        believe=True,
        confidence=(0.5, 0.9),
        age_s=(7_200.0, 86_400.0),
    )
    state = b.variable(
        f"{b.system}_status",
        b.values(words.STATE_PAIRS),
        Volatility.MEDIUM,
        believe=True,
        confidence=(0.6, 0.85),
        age_s=(600.0, 7_200.0),
    )
    cond = b.condition(aspects[1])
    noise = b.irrelevant(b.volatility(Volatility.HIGH, Volatility.VERY_HIGH))

    r0, r1 = b.domain(state)
    ok = b.domain(cond)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain0, gain1 = rng.uniform(1.5, 3.0, size=2)
    b.action(
        verbs[0],
        [
            ({state: r0, cond: ok}, gain0),
            ({state: r0}, gain0 - rng.uniform(1.0, 2.5)),
            ({}, -rng.uniform(1.5, 3.0)),
        ],
    )
    b.action(verbs[1], [({state: r1}, gain1), ({}, -rng.uniform(1.5, 3.0))])
    hedge = float(rng.uniform(-0.2, 0.3))
    if rng.random() < LOW_STAKE_RATE:
        u0 = b.domain(vague)[int(rng.integers(4))]
        b.action(verbs[2], [({vague: u0}, hedge + rng.uniform(0.02, 0.1)), ({}, hedge)])
    else:
        b.action(verbs[2], [({}, hedge)])

    # The very uncertain variable: watched by several fresh, authoritative, cheap instruments.
    for _ in range(int(rng.integers(2, 5))):
        b.source(
            [vague],
            authority=rng.uniform(0.85, 0.97),
            age_s=rng.uniform(0.0, 300.0),
            cues=signals.mixed_cues(rng),
            cost=signals.draw_cost(rng, tokens=(40, 300), latency_ms=(30, 800)),
        )
    # The consequential state: one good instrument, one or two weaker views; the condition.
    b.source(
        [state],
        authority=rng.uniform(0.78, 0.93),
        age_s=rng.uniform(0.0, 900.0),
        cues=signals.quiet_cues(rng),
    )
    for _ in range(int(rng.integers(1, 3))):
        b.source(
            [state],
            authority=rng.uniform(0.5, 0.75),
            age_s=rng.uniform(600.0, 7_200.0),
            cues=signals.mixed_cues(rng),
        )
    b.source(
        [cond],
        authority=rng.uniform(0.7, 0.9),
        age_s=rng.uniform(0.0, 3_600.0),
        cues=signals.mixed_cues(rng),
    )
    b.distractors(int(rng.integers(2, 6)), noise)
    raw = b.build(budget=budget, cost_weight=float(rng.uniform(0.003, 0.015)), actions_text=verbs)
    return b.validate(raw)
