"""Family I — self-generated distractor (document 000 §16 I).

The agent's own earlier hypothesis about a state is held as a confident belief (origin
``hypothesis``), hours old, on a variable that changes: it has gone stale. The agent's own
write-ups of it — a note, an analysis, a thread quoting it back — are cheap, recently surfaced,
repeated, and their ``kind`` reads like a document; but they hold the hypothesis itself, so they
only echo it (zero information), their data are as old as it and their authority is honest and
middling. A live instrument on the state competes with them, sometimes with a weaker second
view; one instrument watches an auxiliary condition; loud distractors fill the rest. Budget 1–3.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "I-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): the agent's own hypotheses
#: are the most overconfident.
WORLD = WorldSpec(
    hazard_log_mean=0.3, calibration_log_mean=0.2, confidence_log_mean=0.5, echo_delta=-0.05
)
ORIGIN = "hypothesis"


@register_family(
    "I",
    "hypothesis",
    version=VERSION,
    world=WORLD,
    description="self-generated distractor: the agent's own obsolete hypothesis and its echoes",
)
def generate_hypothesis(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-I scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(1, 4))
    b = Builder.start(rng, wording, scenario_id, family="I", world=world)
    aspect = str(wording.choice(words.ASPECTS))
    state = b.variable(
        f"{b.system}_state",
        b.values(words.STATE_TRIPLES),
        b.volatility(Volatility.MEDIUM, Volatility.HIGH),
        believe=True,
        confidence=(0.8, 0.97),
        age_s=(7_200.0, 43_200.0),
        origin=ORIGIN,
    )
    cond = b.condition(aspect)
    noise = b.irrelevant(b.volatility(Volatility.MEDIUM, Volatility.HIGH))
    belief = b.belief_of(state)
    assert belief is not None  # believe=True above

    s0, s1, s2 = b.domain(state)
    ok = b.domain(cond)[0]
    verbs = signals.pick(wording, words.VERBS, 3)
    gain0, gain1 = rng.uniform(0.6, 1.2, size=2)
    b.action(
        verbs[0],
        [({state: s0, cond: ok}, gain0), ({state: s0}, gain0 - rng.uniform(0.5, 1.5)), ({}, -1.0)],
    )
    b.action(verbs[1], [({state: s1}, gain1), ({}, -rng.uniform(0.5, 1.5))])
    b.action(verbs[2], [({state: s2}, rng.uniform(0.3, 0.8)), ({}, rng.uniform(-0.3, 0.1))])

    # The agent's own write-ups of its hypothesis: they can only repeat it.
    for _ in range(int(rng.integers(1, 3))):
        b.source(
            [state],
            authority=rng.uniform(0.35, 0.65),
            age_s=float(belief["age_s"]),
            cues=signals.cues(
                rng, urgent_words=0, verbosity=(80, 400), recency_s=(0, 600), repeats=(1, 5)
            ),
            cost=signals.draw_cost(rng, tokens=(30, 200), latency_ms=(10, 200)),
            echo={state: str(belief["value"])} if b.echoes(1.0) else None,
            fails=0.0,
        )
    b.source(
        [state],
        authority=rng.uniform(0.85, 0.97),
        age_s=rng.uniform(0.0, 300.0),
        cues=signals.quiet_cues(rng),
        cost=signals.draw_cost(rng, tokens=(150, 600), latency_ms=(400, 3_000)),
    )
    if rng.random() < 0.5:
        b.source(
            [state],
            authority=rng.uniform(0.5, 0.75),
            age_s=rng.uniform(1_800.0, 14_400.0),
            cues=signals.mixed_cues(rng),
        )
    b.source(
        [cond],
        authority=rng.uniform(0.7, 0.92),
        age_s=rng.uniform(0.0, 3_600.0),
        cues=signals.mixed_cues(rng),
    )
    b.distractors(int(rng.integers(3, 7)), noise)
    raw = b.build(budget=budget, cost_weight=float(rng.uniform(0.003, 0.015)), actions_text=verbs)
    return b.validate(raw)
