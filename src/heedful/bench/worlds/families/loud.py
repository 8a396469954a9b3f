"""Family A — loud distractor vs quiet critical signal (document 000 §16 A).

A decision hangs on one volatile state. A tiny, quiet, fresh and authoritative source records its
latest change; a verbose, recent, repeated, urgent-sounding item competes with it — either an old
echo of the believed state or nothing relevant at all. A few ordinary sources fill the rest.
Budget 1–2: the policy must resist the loud item.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "A-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): the state changes faster
#: than the controller assumes; confidence overclaims.
WORLD = WorldSpec(hazard_log_mean=0.6, calibration_log_mean=0.2, confidence_log_mean=0.3)


@register_family(
    "A",
    "loud",
    version=VERSION,
    world=WORLD,
    description="loud distractor vs quiet critical signal",
)
def generate_loud(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-A scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(1, 3))
    b = Builder.start(rng, wording, scenario_id, family="A", world=world)
    aspect = str(wording.choice(words.ASPECTS))
    state = b.variable(
        f"{b.system}_status",
        b.values(words.STATE_PAIRS),
        b.volatility(Volatility.HIGH, Volatility.VERY_HIGH),
        believe=True,
        confidence=(0.7, 0.95),
        age_s=(600.0, 14_400.0),
    )
    aux = b.condition(aspect)
    noise = b.irrelevant(Volatility.HIGH)
    belief = b.belief_of(state)
    assert belief is not None  # believe=True above

    v0, v1 = b.domain(state)
    ok = b.domain(aux)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain, loss = rng.uniform(0.7, 1.2), rng.uniform(0.6, 1.6)
    b.action(verbs[0], [({state: v0, aux: ok}, gain), ({state: v0}, gain / 2), ({}, -loss)])
    b.action(verbs[1], [({state: v1}, rng.uniform(0.6, 1.1)), ({}, -rng.uniform(0.6, 1.6))])
    b.action(verbs[2], [({}, rng.uniform(-0.1, 0.2))])

    # The quiet critical signal: fresh, authoritative, terse, not recently "posted".
    b.source(
        [state],
        authority=rng.uniform(0.85, 0.97),
        age_s=rng.uniform(0.0, 120.0),
        cues=signals.cues(
            rng, urgent_words=0, verbosity=(3, 15), recency_s=(900, 7_200), repeats=0
        ),
    )
    # The loud item: an old echo of the believed state, or nothing relevant.
    echoes = bool(rng.random() < 0.5)
    b.source(
        [state] if echoes else [],
        authority=rng.uniform(0.35, 0.7),
        age_s=float(belief["age_s"]) if echoes else rng.uniform(0.0, 86_400.0),
        cues=signals.cues(
            rng, urgent_words=(2, 6), verbosity=(400, 1_000), recency_s=(0, 60), repeats=(2, 6)
        ),
        echo={state: str(belief["value"])} if echoes else None,
    )
    # Ordinary sources: one on the auxiliary condition, a weaker view of the state, chatter.
    b.source(
        [aux],
        authority=rng.uniform(0.6, 0.9),
        age_s=rng.uniform(0.0, 3_600.0),
        cues=signals.mixed_cues(rng),
    )
    if rng.random() < 0.5:
        b.source(
            [state],
            authority=rng.uniform(0.45, 0.7),
            age_s=rng.uniform(1_800.0, 21_600.0),
            cues=signals.mixed_cues(rng),
        )
    b.distractors(int(rng.integers(2, 5)), noise, loud=0.5)
    raw = b.build(budget=budget, cost_weight=float(rng.uniform(0.005, 0.02)), actions_text=verbs)
    return b.validate(raw)
