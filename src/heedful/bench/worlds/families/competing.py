"""Family F — competing uncertainty (document 000 §16 F).

Two uncertainties compete. A four-valued variable is *extremely* uncertain — very volatile, its
belief hours old, so its prior is close to uniform — and is watched by several fresh,
authoritative instruments; but it appears in no utility rule, or only in a small bonus of the
hedge action. A two-valued state is only *moderately* uncertain (a medium-volatility belief
under two hours old) but decides between large gains and large losses; one good instrument and
one or two weaker ones watch it, plus one on an auxiliary condition. Loud distractors report an
irrelevant variable or nothing. Budget 1–2: attention should follow consequence, not entropy.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "F-v3"
#: The family's own hidden model per unit of shift (docs/benchmark.md): slower change,
#: overclaiming authorities, underclaiming confidence.
WORLD = WorldSpec(hazard_log_mean=-0.4, calibration_log_mean=0.3, confidence_log_mean=-0.3)
#: Chance that the very uncertain variable earns the hedge a small bonus (else it is irrelevant).
LOW_STAKE_RATE = 0.5


@family(
    "F",
    "competing",
    version=VERSION,
    world=WORLD,
    description="competing uncertainty: very uncertain but irrelevant vs consequential",
    measures=(
        "value of information: voc-model beats the best authority/age/reports ranking of the "
        "relevant sources by 15+ points (consequence over entropy)"
    ),
    budget=(1, 3),
    cost_weight=(0.003, 0.015),
)
def competing(b: Builder) -> None:
    """The vague variable and its instruments; the consequential state and its views."""
    aspects = b.aspects(2)
    vague = b.variable(
        f"{b.system}_{aspects[0]}",
        b.values(words.QUAD_VALUES),
        Volatility.VERY_HIGH,
        believe=True,
        confidence=(0.5, 0.9),
        age_s=(7_200.0, 86_400.0),
    )
    state = b.state(
        words.STATE_PAIRS,
        Volatility.MEDIUM,
        name="status",
        confidence=(0.6, 0.85),
        age_s=(600.0, 7_200.0),
    )
    cond = b.condition(aspects[1])
    noise = b.irrelevant(Volatility.HIGH, Volatility.VERY_HIGH)
    verbs = b.stakes(
        state,
        [cond, None],
        gain=(1.5, 3.0),
        penalty=(1.0, 2.5),
        loss=(1.5, 3.0),
        hedge=(-0.2, 0.3),
    )
    if b.chance(LOW_STAKE_RATE):
        hedge = b.actions[verbs[-1]]["utility"][-1]["value"]
        u0 = b.domain(vague)[b.count(0, 4)]
        b.action(verbs[-1], [({vague: u0}, hedge + b.draw((0.02, 0.1))), ({}, hedge)])

    # The very uncertain variable: watched by several fresh, authoritative instruments.
    for _ in range(b.count(2, 5)):
        b.source(
            [vague],
            authority=(0.85, 0.97),
            age_s=(0.0, 300.0),
            cost=lambda rng: signals.draw_cost(rng, tokens=(40, 300), latency_ms=(30, 800)),
        )
    # The consequential state: one good instrument, one or two weaker views; the condition.
    b.source([state], authority=(0.78, 0.93), age_s=(0.0, 900.0), cues=signals.quiet_cues)
    for _ in range(b.count(1, 3)):
        b.source([state], authority=(0.5, 0.75), age_s=(600.0, 7_200.0))
    b.source([cond], authority=(0.7, 0.9), age_s=(0.0, 3_600.0))
    b.distractors(b.count(2, 6), noise)
