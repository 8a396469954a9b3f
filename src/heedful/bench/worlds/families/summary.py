"""Family B — summary vs authoritative instrument (document 000 §15.1, §16 B).

The agent holds a confident belief that came from a cached summary. The summary's data are old,
its authority is low and the variable is volatile, and it either echoes the old value (zero
information) or reports it with low accuracy. A live authoritative instrument is available;
sometimes a middling secondary source too. One of them is the cheap, coherent, recently pushed
copy and one the dear, quiet live read — which source wears which is drawn by the surface mix
(v3, issue 23: in v2 the summary was always the cheap one, so "dearest relevant source first"
scored 79.9). Three to eight loud distractors report nothing relevant. Budget 1–2.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "B-v3"
#: The family's own hidden model per unit of shift (docs/benchmark.md): values change more slowly
#: than assumed, but authorities and summary-born confidence overclaim and summaries echo more
#: often.
WORLD = WorldSpec(
    hazard_log_mean=-0.3, calibration_log_mean=0.4, confidence_log_mean=0.4, echo_delta=0.15
)
#: Volatility classes of the state and their chances.
VOLATILITY = {Volatility.MEDIUM: 0.3, Volatility.HIGH: 0.5, Volatility.VERY_HIGH: 0.2}


@family(
    "B",
    "summary",
    version=VERSION,
    world=WORLD,
    description="stale cached summary vs live authoritative instrument",
    measures=(
        "summary substitution: the live instrument over the stale cached summary (a ranking "
        "of the relevant sources by authority and age does as well: not value of information)"
    ),
    budget=(1, 3),
    cost_weight=(0.005, 0.03),
)
def summary(b: Builder) -> None:
    """The summary, the instrument, maybe a secondary view; distractors."""
    n_distract = b.count(3, 9)
    volatility = Volatility(
        b.rng.choice([v.value for v in VOLATILITY], p=list(VOLATILITY.values()))
    )
    state = b.state(
        words.STATE_PAIRS,
        volatility,
        confidence=(0.8, 0.97),
        age_s=(1_200.0, 64_800.0),
        origin="summary",
    )
    noise = b.irrelevant(Volatility.LOW, Volatility.HIGH)
    b.stakes(state, [None, None], gain=(0.7, 1.2), hedge=(-0.1, 0.3))
    if b.chance(0.5):  # no hedge: the decision is a plain choice between the two commitments
        del b.actions[list(b.actions)[-1]]

    b.cached_copy(state, authority=(0.3, 0.6), echo_rate=0.5)
    b.live_instrument(state, authority=(0.88, 0.99), age_s=(0.0, 30.0))
    if b.chance(0.5):
        b.source([state], authority=(0.55, 0.85), age_s=(300.0, 7_200.0))
    b.distractors(n_distract, noise, silent=0.6)
