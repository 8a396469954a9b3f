"""Family I — self-generated distractor (document 000 §16 I).

The agent's own earlier hypothesis about a state is held as a confident belief (origin
``hypothesis``), hours old, on a variable that changes: it has gone stale. The agent's own
write-ups of it — a note, an analysis, a thread quoting it back — hold the hypothesis itself, so
they only echo it (zero information), their data are as old as it and their authority is honest
and middling. A live instrument on the state competes with them, sometimes with a weaker second
view; one instrument watches an auxiliary condition; loud distractors fill the rest. The
write-ups' cheap, repeated, recently surfaced look is a surface bundle the mix hands to any of
these sources (v3, issue 23). Budget 1–3.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "I-v3"
#: The family's own hidden model per unit of shift (docs/benchmark.md): the agent's own hypotheses
#: are the most overconfident.
WORLD = WorldSpec(
    hazard_log_mean=0.3, calibration_log_mean=0.2, confidence_log_mean=0.5, echo_delta=-0.05
)
ORIGIN = "hypothesis"


@family(
    "I",
    "hypothesis",
    version=VERSION,
    world=WORLD,
    description="self-generated distractor: the agent's own obsolete hypothesis and its echoes",
    measures=(
        "belief inertia: reading past the agent's own obsolete hypothesis and its echoes (a "
        "ranking of the relevant sources by authority and age does as well: not value of "
        "information)"
    ),
    budget=(1, 4),
    cost_weight=(0.003, 0.015),
)
def hypothesis(b: Builder) -> None:
    """The write-ups, the live instrument, maybe a weaker view, the condition; distractors."""
    state = b.state(
        words.STATE_TRIPLES,
        Volatility.MEDIUM,
        Volatility.HIGH,
        confidence=(0.8, 0.97),
        age_s=(7_200.0, 43_200.0),
        origin=ORIGIN,
    )
    cond = b.condition(b.aspects(1)[0])
    noise = b.irrelevant(Volatility.MEDIUM, Volatility.HIGH)
    b.stakes(state, [cond, None], last=(0.3, 0.8))

    # The agent's own write-ups of its hypothesis: they can only repeat it.
    for _ in range(b.count(1, 3)):
        b.cached_copy(state, authority=(0.35, 0.65), echo_rate=1.0)
    b.live_instrument(state, authority=(0.85, 0.97), age_s=(0.0, 300.0))
    if b.chance(0.5):
        b.source([state], authority=(0.5, 0.75), age_s=(1_800.0, 14_400.0))
    b.source([cond], authority=(0.7, 0.92), age_s=(0.0, 3_600.0))
    b.distractors(b.count(3, 7), noise)
