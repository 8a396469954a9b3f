"""Family B — summary vs authoritative instrument (document 000 §15.1, §16 B).

The agent holds a confident belief that came from a cached summary. The summary is cheap, recently
pushed into context and coherent — but its data are old, its authority is low and the variable is
volatile, and it either echoes the old value (zero information) or reports it with low accuracy.
A live authoritative instrument is available at a higher cost; sometimes a middling secondary
source too. Three to eight loud distractors report nothing relevant. Budget 1–2.
"""

from __future__ import annotations

import numpy as np

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder
from heedful.bench.worlds.families._registry import register_family
from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario, Volatility

VERSION = "B-v2"
#: The family's own hidden model per unit of shift (docs/benchmark.md): values change more slowly
#: than assumed, but authorities and summary-born confidence overclaim and summaries echo more
#: often.
WORLD = WorldSpec(
    hazard_log_mean=-0.3, calibration_log_mean=0.4, confidence_log_mean=0.4, echo_delta=0.15
)


@register_family(
    "B",
    "summary",
    version=VERSION,
    world=WORLD,
    description="stale cached summary vs live authoritative instrument",
)
def generate_summary(
    rng: np.random.Generator,
    wording: np.random.Generator,
    scenario_id: str,
    world: World,
) -> Scenario:
    """Generate one family-B scenario (a :data:`heedful.bench.worlds.families.Maker`)."""
    budget = int(rng.integers(1, 3))
    n_distract = int(rng.integers(3, 9))
    b = Builder.start(rng, wording, scenario_id, family="B", world=world)

    volatility = Volatility(
        rng.choice(
            [Volatility.MEDIUM.value, Volatility.HIGH.value, Volatility.VERY_HIGH.value],
            p=[0.3, 0.5, 0.2],
        )
    )
    state = b.variable(
        f"{b.system}_status",
        b.values(words.STATE_PAIRS),
        volatility,
        believe=True,
        confidence=(0.8, 0.97),
        age_s=(1_200.0, 64_800.0),
        origin="summary",
    )
    noise = b.irrelevant(b.volatility(Volatility.LOW, Volatility.HIGH))
    belief = b.belief_of(state)
    assert belief is not None  # believe=True above

    v0, v1 = b.domain(state)
    verbs = signals.pick(wording, words.VERBS, 3)
    b.action(verbs[0], [({state: v0}, rng.uniform(0.7, 1.2)), ({}, -rng.uniform(0.5, 1.5))])
    b.action(verbs[1], [({state: v1}, rng.uniform(0.7, 1.2)), ({}, -rng.uniform(0.5, 1.5))])
    with_hedge = bool(rng.random() < 0.5)
    if with_hedge:
        b.action(verbs[2], [({}, rng.uniform(-0.1, 0.3))])

    summary_cues = signals.cues(
        rng, urgent_words=0, verbosity=(80, 300), recency_s=(0, 900), repeats=(0, 3)
    )
    cheap = signals.draw_cost(rng, tokens=(30, 150), latency_ms=(10, 150))
    echo = {state: str(belief["value"])} if b.echoes(0.5) else None
    b.source(
        [state],
        authority=rng.uniform(0.3, 0.6),
        age_s=float(belief["age_s"]),
        cues=summary_cues,
        cost=cheap,
        echo=echo,
        fails=0.0,
    )
    b.source(
        [state],
        authority=rng.uniform(0.88, 0.99),
        age_s=rng.uniform(0.0, 30.0),
        cues=signals.quiet_cues(rng),
        cost=signals.draw_cost(rng, tokens=(150, 500), latency_ms=(500, 3_000)),
    )
    if rng.random() < 0.5:
        b.source(
            [state],
            authority=rng.uniform(0.55, 0.85),
            age_s=rng.uniform(300.0, 7_200.0),
            cues=signals.mixed_cues(rng),
        )
    b.distractors(n_distract, noise, silent=0.6)

    raw = b.build(
        budget=budget,
        cost_weight=float(rng.uniform(0.005, 0.03)),
        actions_text=verbs if with_hedge else verbs[:2],
    )
    return b.validate(raw)
