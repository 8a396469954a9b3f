"""Family E — hidden state change, "dirty state" (document 000 §16 E; §8 dirty beliefs).

The agent holds three confident beliefs the decision depends on: a state and two conditions.
Each has an upstream instrument. For a *clean* belief the instrument's data are older than the
belief (the belief was derived after the last upstream update) and the variable changes slowly.
For a *dirty* belief — at least one, often the state — the upstream instrument's data are newer
than the belief (the source changed after the belief was formed) and the variable is volatile,
so the honest prior has moved away from the believed value. Each dirty belief also has a cache
derived from the old upstream data: it only echoes the believed value. The cache's cheap, recent
look is one surface bundle in the mix (v3, issue 23). Loud distractors report an irrelevant
variable or nothing. Budget 1–3.

v4 (issue 23, candidate recall that can fail): a dirty belief's upstream instrument is often not
listed up front. Its reply is named by what another source returns — either the derived cache
("built from <instrument>": it reports the belief's variable, so every goal-dependency
generator proposes it) or a silent catalogue that reports no variable (no generator of the
controller proposes it). The revealer's ``links`` count is visible; which source it names is
not, until it is read.
"""

from __future__ import annotations

from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._common import Builder, family
from heedful.bench.worlds.families._worlds import WorldSpec
from heedful.model import Volatility

VERSION = "E-v4"
#: The family's own hidden model per unit of shift (docs/benchmark.md): changes come in bursts,
#: faster than assumed; a derived cache is sometimes refreshed and reports.
WORLD = WorldSpec(
    hazard_log_mean=0.5,
    shape_log_mean=0.3,
    calibration_log_mean=0.2,
    confidence_log_mean=0.4,
    echo_delta=-0.1,
)
#: Chance that each belief is dirty (state, first condition, second condition).
DIRTY_RATE = (0.7, 0.35, 0.35)
#: Chance that a dirty belief's upstream instrument is hidden until another source is read, and
#: then that the derived cache (else a silent catalogue) is what reveals it.
HIDDEN_RATE = 0.5
CACHE_REVEALS = 0.5


@family(
    "E",
    "dirty",
    version=VERSION,
    world=WORLD,
    description="hidden state change: a confident belief whose upstream source changed",
    measures=(
        "value of information: voc-model beats the best authority/age/reports ranking of the "
        "relevant sources by 15+ points (dirty state)"
    ),
    budget=(1, 4),
    cost_weight=(0.003, 0.015),
)
def dirty(b: Builder) -> None:
    """Three beliefs, at least one dirty; an upstream instrument each, a cache per dirty one."""
    flags = [b.chance(p) for p in DIRTY_RATE]
    if not any(flags):
        flags[b.count(0, 3)] = True
    aspects = b.aspects(2)
    names = ["state", *aspects]
    tables = [words.STATE_TRIPLES, words.BINARY_VALUES, words.BINARY_VALUES]
    believed = [
        b.state(
            table,
            *(
                (Volatility.HIGH, Volatility.VERY_HIGH)
                if is_dirty
                else (Volatility.LOW, Volatility.MEDIUM)
            ),
            name=name,
            confidence=(0.85, 0.97),
            age_s=(1_800.0, 21_600.0),
        )
        for name, table, is_dirty in zip(names, tables, flags, strict=True)
    ]
    state, aux1, aux2 = believed
    noise = b.irrelevant(Volatility.MEDIUM, Volatility.HIGH)
    b.stakes(state, [aux1, aux2], loss=1.0, last=(0.3, 0.8))

    for var, is_dirty in zip(believed, flags, strict=True):
        age = float(b.belief_of(var)["age_s"])
        # Upstream instrument: newer than the belief when dirty, older when clean.
        upstream = b.live_instrument(
            var,
            authority=(0.8, 0.97),
            age_s=(0.0, age / 4) if is_dirty else age + b.draw((600.0, 7_200.0)),
        )
        if is_dirty:
            # The derived cache: built from the old upstream data, it repeats the belief.
            cache = b.cached_copy(var, authority=(0.35, 0.6), echo_rate=1.0)
            if b.chance(HIDDEN_RATE):
                if b.chance(CACHE_REVEALS):
                    b.hide(upstream, by=cache)
                else:
                    catalogue = b.source([], authority=(0.5, 0.9), age_s=(0.0, 3_600.0), mix=False)
                    b.hide(upstream, by=catalogue)
    b.distractors(b.count(3, 7), noise)
