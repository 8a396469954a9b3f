"""Family K — untrusted claims (document 000 §24).

Some sources are **untrusted**: the view marks them (``trusted: false``), and their authority is
only what they claim — every one claims a high one. Whether each is honest is a latent variable of
the world (PRIVATE ``honesty``, drawn per source from one range for all of them, independent of
every visible field): honest, it reports with the accuracy its claim and its age give; a liar
reports at random or against the truth. The oracles stay exact because the honesty variables are
part of the world state (``heedful.decision.compile_problem``), and a cross-check — a trusted
read beside an untrusted one on the same variable — is valued like any other read.

The decision: a three-valued volatile state and a binary condition (the first committing action
pays off only when the condition holds). A trusted instrument watches the state; one or two
fresher untrusted sources claim to watch it better. The condition is watched by one or two
untrusted sources only (sometimes also a weak trusted one). Distractors, trusted or not. Budget
2–3. So a policy that believes every claim reads the untrusted state sources instead of the
instrument, and a policy that never reads an untrusted source learns nothing about the
condition: only crediting a claim as far as trust allows gets both.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _signals as signals
from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "K-v1"
#: The family's own hidden model per unit of shift (docs/benchmark.md): faster change, trusted
#: authorities overclaim a little.
WORLD = WorldSpec(hazard_log_mean=0.4, calibration_log_mean=0.2, confidence_log_mean=0.3)
#: PRIVATE: the range a scenario's chance that an untrusted source is honest is drawn from.
HONESTY = (0.6, 0.85)
#: PRIVATE: the chance that a scenario's liars report against the truth (else at random).
AGAINST = 0.3
#: What an untrusted source claims: a high authority, fresh data.
CLAIMED_AUTHORITY = (0.95, 0.99)
CLAIMED_AGE_S = (0.0, 120.0)


@family(
    "K",
    "untrusted",
    version=VERSION,
    world=WORLD,
    description="untrusted claims: claimed authority vs trusted metadata (§24)",
    measures=(
        "trust: crediting a claimed authority only as far as trust allows (a ranking fitted "
        "to discount the highest claims comes within 15 points: not value of information)"
    ),
    budget=(3, 4),
    cost_weight=(0.004, 0.015),
)
def untrusted(b: Builder) -> None:
    """A trusted instrument and untrusted claimants on the state, untrusted sources on the
    condition, distractors."""
    state = b.state(
        words.STATE_TRIPLES,
        Volatility.MEDIUM,
        Volatility.HIGH,
        confidence=(0.6, 0.9),
        age_s=(1_800.0, 43_200.0),
    )
    cond = b.condition(b.aspects(1)[0])
    noise = b.irrelevant(Volatility.LOW, Volatility.HIGH)
    b.stakes(state, [cond, cond], gain=(1.0, 1.5), penalty=(1.5, 2.5), last=(0.3, 0.7))

    # One chance of honesty and one way of lying for every untrusted source of the scenario
    # (each one's honesty is still its own latent variable): no visible field tells them apart,
    # and neither can the oracle — it knows how likely a claimant lies, not which one does.
    honesty = b.draw(HONESTY)
    against = 1.0 if b.chance(AGAINST) else 0.0  # and one way of lying
    b.source([state], authority=(0.85, 0.95), age_s=(0.0, 600.0), cues=signals.quiet_cues)
    for _ in range(b.count(1, 3)):
        claimant = b.source([state], authority=CLAIMED_AUTHORITY, age_s=CLAIMED_AGE_S)
        b.untrusted(claimant, honesty=honesty, against=against)
    for _ in range(2):
        claimant = b.source([cond], authority=CLAIMED_AUTHORITY, age_s=CLAIMED_AGE_S)
        b.untrusted(claimant, honesty=honesty, against=against)
    n_distract = b.count(2, 5)
    first = len(b.sources)
    b.distractors(n_distract, noise)
    for i in range(first, first + n_distract):
        if b.chance(0.5):  # distractors are trusted or not alike: the flag marks no role
            b.untrusted(i, honesty=honesty, against=against)
