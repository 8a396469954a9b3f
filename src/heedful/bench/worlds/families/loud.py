"""Family A — loud item vs quiet record (document 000 §16 A).

A decision hangs on one volatile state. A fresh, authoritative source records its latest change;
an old echo of the believed state (or an item that reports nothing relevant) competes with it. One
of the two is terse and quiet, the other verbose, recent, repeated and urgent-sounding — which
one is a coin (v3, issue 23: in v2 the loud item was never the instrument, so "skip the loud one"
needed no judgement). A few ordinary sources fill the rest. Budget 1–2: the policy must judge by
authority and age, not by volume.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "A-v3"
#: The family's own hidden model per unit of shift (docs/benchmark.md): the state changes faster
#: than the controller assumes; confidence overclaims.
WORLD = WorldSpec(hazard_log_mean=0.6, calibration_log_mean=0.2, confidence_log_mean=0.3)


@family(
    "A",
    "loud",
    version=VERSION,
    world=WORLD,
    description="loud item vs quiet record: volume says nothing, authority and age do",
    measures=(
        "salience resistance: the fresh authoritative record over the loud item (a ranking of"
        " the relevant sources by authority and age does as well: not value of information)"
    ),
    budget=(1, 3),
    cost_weight=(0.005, 0.02),
)
def loud(b: Builder) -> None:
    """The record and the loud competitor; a condition, maybe a weaker view, chatter."""
    state = b.state(
        words.STATE_PAIRS,
        Volatility.HIGH,
        Volatility.VERY_HIGH,
        confidence=(0.7, 0.95),
        age_s=(600.0, 14_400.0),
    )
    aux = b.condition(b.aspects(1)[0])
    noise = b.irrelevant(Volatility.HIGH)
    b.stakes(
        state, [aux, None], gain=(0.6, 1.2), penalty=(0.35, 0.6), loss=(0.6, 1.6), hedge=(-0.1, 0.2)
    )

    # The record: fresh and authoritative. Its cues and the competitor's are one quiet and one
    # loud bundle, and the surface mix decides which source wears which.
    b.source([state], authority=(0.85, 0.97), age_s=(0.0, 120.0), cues=signals.terse_cues)
    echoes = b.chance(0.5)
    b.source(
        [state] if echoes else [],
        authority=(0.35, 0.7),
        age_s=float(b.belief_of(state)["age_s"]) if echoes else (0.0, 86_400.0),
        cues=signals.shouting_cues,
        echo=b.echo_of(state) if echoes else None,
    )
    b.source([aux], authority=(0.6, 0.9), age_s=(0.0, 3_600.0))
    if b.chance(0.5):
        b.source([state], authority=(0.45, 0.7), age_s=(1_800.0, 21_600.0))
    b.distractors(b.count(2, 5), noise, loud=0.5)
