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

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "C-v3"
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
        believe=b.chance(0.6),
        confidence=(0.6, 0.95),
        age_s=(1_800.0, 86_400.0),
    )


@family(
    "C",
    "relevance",
    version=VERSION,
    world=WORLD,
    description="goal relevance: many uncertain facts, few matter to the decision",
    measures=(
        "goal relevance: which variables the decision needs (once the relevant sources are "
        "known, a ranking by authority and age does as well: not value of information)"
    ),
    budget=(2, 5),
    cost_weight=(0.003, 0.015),
)
def relevance(b: Builder) -> None:
    """The pivotal state and condition, 3–4 bystanders watched as well; distractors."""
    n_bystanders = b.count(3, 5)
    aspects = b.aspects(1 + n_bystanders)
    state = b.state(
        words.STATE_PAIRS,
        Volatility.MEDIUM,
        Volatility.HIGH,
        believe=b.chance(0.7),
        confidence=(0.55, 0.9),
        age_s=(600.0, 14_400.0),
    )
    cond = b.condition(aspects[0])
    bystanders = [_bystander(b, a) for a in aspects[1:]]
    b.stakes(state, [cond, None], loss=1.0, hedge=(-0.2, 0.2))

    # Pivotal: a good instrument on the state and on the condition; sometimes a weaker state view.
    for reports in ([state], [cond]):
        b.source(reports, authority=(0.75, 0.95), age_s=(0.0, 900.0), cues=signals.any_cues)
    if b.chance(0.5):
        b.source([state], authority=(0.5, 0.75), age_s=(900.0, 14_400.0))
    # Bystanders: watched by instruments as good as the pivotal ones, one or two each, some joint.
    for var in bystanders:
        for _ in range(b.count(1, 3)):
            b.source([var], authority=(0.75, 0.97), age_s=(0.0, 900.0), cues=signals.any_cues)
    for _ in range(b.count(1, 3)):
        pair = [str(v) for v in b.rng.choice(bystanders, size=2, replace=False)]
        b.source(pair, authority=(0.6, 0.9), age_s=(0.0, 3_600.0))
    b.distractors(b.count(2, 5), str(b.rng.choice(bystanders)))
