"""Family C — goal relevance (document 000 §16 C).

Many facts are true and uncertain; few matter to the decision. Three or four *bystander*
variables of the same system (or a neighbouring one) are volatile, often believed with a stale
belief, and watched by fresh, authoritative instruments — but appear in no utility rule. The
decision hangs on one pivotal state and one pivotal condition, each watched by a good instrument
(the state sometimes by a second, weaker one). A few loud distractors fill the rest. Names say
nothing about relevance: a bystander is named like any condition; only the actions' utility rules
tell which variables matter. Budget 2–4.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "C-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): authorities and confidence
#: underclaim a little.
WORLD = WorldSpec(hazard_log_mean=0.3, calibration_log_mean=-0.2, confidence_log_mean=-0.2)


def _bystander(b: Builder, aspect: str) -> str:
    # Named like a real condition, of this system or a neighbouring one: the name is no label.
    system = b.system if b.wording.random() < 0.6 else str(b.wording.choice(words.SYSTEMS))
    name = f"{system}_{aspect}"
    if name in b.variables:
        name = f"{b.system}_{aspect}"
    return b.variable(
        name,
        b.values(words.BINARY_VALUES),
        b.volatility(Volatility.MEDIUM, Volatility.HIGH, Volatility.VERY_HIGH),
        believe=bool(b.rng.random() < 0.6),
        confidence=(0.6, 0.95),
        age_s=(1_800.0, 86_400.0),
    )


@register_family(
    "C",
    "relevance",
    version=VERSION,
    world=WORLD,
    description="goal relevance: many uncertain facts, few matter to the decision",
)
def generate_relevance(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-C scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(2, 5))
    n_bystanders = int(rng.integers(3, 5))
    b = Builder.start(rng, wording, scenario_id, family="C", world=world)
    aspects = signals.pick(wording, words.ASPECTS, 1 + n_bystanders)
    state = b.variable(
        f"{b.system}_state",
        b.values(words.STATE_PAIRS),
        b.volatility(Volatility.MEDIUM, Volatility.HIGH),
        believe=bool(rng.random() < 0.7),
        confidence=(0.55, 0.9),
        age_s=(600.0, 14_400.0),
    )
    cond = b.condition(aspects[0])
    bystanders = [_bystander(b, a) for a in aspects[1:]]

    s0, s1 = b.domain(state)
    ok = b.domain(cond)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain0, gain1 = rng.uniform(0.6, 1.2, size=2)
    b.action(
        verbs[0],
        [({state: s0, cond: ok}, gain0), ({state: s0}, gain0 - rng.uniform(0.5, 1.5)), ({}, -1.0)],
    )
    b.action(verbs[1], [({state: s1}, gain1), ({}, -rng.uniform(0.5, 1.5))])
    b.action(verbs[2], [({}, rng.uniform(-0.2, 0.2))])

    # Pivotal: a good instrument on the state and on the condition; sometimes a weaker state view.
    for reports in ([state], [cond]):
        b.source(
            reports,
            authority=rng.uniform(0.75, 0.95),
            age_s=rng.uniform(0.0, 900.0),
            cues=signals.quiet_cues(rng) if rng.random() < 0.7 else signals.mixed_cues(rng),
        )
    if rng.random() < 0.5:
        b.source(
            [state],
            authority=rng.uniform(0.5, 0.75),
            age_s=rng.uniform(900.0, 14_400.0),
            cues=signals.mixed_cues(rng),
        )
    # Bystanders: watched by instruments as good as the pivotal ones, one or two each, some joint.
    for var in bystanders:
        for _ in range(int(rng.integers(1, 3))):
            b.source(
                [var],
                authority=rng.uniform(0.75, 0.97),
                age_s=rng.uniform(0.0, 900.0),
                cues=signals.quiet_cues(rng) if rng.random() < 0.5 else signals.mixed_cues(rng),
            )
    for _ in range(int(rng.integers(1, 3))):
        pair = [str(v) for v in rng.choice(bystanders, size=2, replace=False)]
        b.source(
            pair,
            authority=rng.uniform(0.6, 0.9),
            age_s=rng.uniform(0.0, 3_600.0),
            cues=signals.mixed_cues(rng),
        )
    b.distractors(int(rng.integers(2, 5)), str(rng.choice(bystanders)))
    raw = b.build(budget=budget, cost_weight=float(rng.uniform(0.003, 0.015)), actions_text=verbs)
    return b.validate(raw)
