"""Family G — budgeted inspection (document 000 §14.1, §16 G).

One decision with three actions over one latent state (three values), two auxiliary variables that
decide whether a committing action pays off, and one irrelevant variable (24 worlds). Twelve to
twenty-four sources: four high-value instruments (two on the state, one on each auxiliary), a
handful of partially useful ones (weaker or older views of the same variables) and many loud
distractors that report nothing relevant. Budget 3–5, costs low: the budget binds.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "G-v3"
#: The family's own hidden model per unit of shift (docs/benchmark.md): faster change with a long
#: tail, overclaiming authorities and confidence.
WORLD = WorldSpec(
    hazard_log_mean=0.5, shape_log_mean=-0.2, calibration_log_mean=0.35, confidence_log_mean=0.3
)
N_HIGH = 4


@family(
    "G",
    "budgeted",
    version=VERSION,
    world=WORLD,
    description="budgeted inspection: many candidates, hard budget",
    measures=(
        "value of information: voc-model beats the best authority/age/reports ranking of the "
        "relevant sources by 15+ points (reads jointly worth the budget)"
    ),
    budget=(3, 6),
    cost_weight=(0.002, 0.012),
)
def budgeted(b: Builder) -> None:
    """Four good instruments, 3–6 partial views, distractors up to 12–24 sources."""
    n_partial = b.count(3, 7)
    n_distract = b.count(12, 25) - N_HIGH - n_partial
    aspects = b.aspects(2)
    state = b.state(
        words.STATE_TRIPLES,
        Volatility.MEDIUM,
        Volatility.HIGH,
        confidence=(0.55, 0.95),
        age_s=(600.0, 43_200.0),
    )
    # Like b.condition, but sometimes believed: the belief coin is drawn after the volatility.
    aux1 = b.variable(
        f"{b.system}_{aspects[0]}",
        b.values(words.BINARY_VALUES),
        b.volatility(Volatility.LOW, Volatility.MEDIUM),
        believe=b.chance(0.5),
        confidence=(0.6, 0.95),
        age_s=(3_600.0, 172_800.0),
    )
    aux2 = b.condition(aspects[1])
    noise = b.irrelevant(*(v for v in Volatility if v is not Volatility.IMMUTABLE))
    # Each committing action pays off only in its state *and* when its auxiliary condition holds.
    b.stakes(state, [aux1, aux2], loss=(0.4, 1.5), last=(0.3, 0.8))

    # High value: two good instruments on the state, one on each auxiliary condition.
    for reports in ([state], [state], [aux1], [aux2]):
        b.source(reports, authority=(0.75, 0.95), age_s=(0.0, 600.0), cues=signals.any_cues)
    # Partially useful: weaker or older views of the same variables.
    for _ in range(n_partial):
        shape = b.count(0, 3)
        aux = aux1 if b.chance(0.5) else aux2
        if shape == 0:
            b.source([aux], authority=(0.55, 0.8), age_s=(0.0, 7_200.0))
        elif shape == 1:
            b.source([state], authority=(0.45, 0.75), age_s=(1_800.0, 86_400.0))
        else:
            b.source([state, aux], authority=(0.5, 0.75), age_s=(0.0, 7_200.0))
    b.distractors(n_distract, noise)
