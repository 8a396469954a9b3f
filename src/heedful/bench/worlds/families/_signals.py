"""Honest-signal helpers shared by the generators (SPEC §5; document 000 §9, §10, §14.1).

The hidden quantities follow the visible ones through the scenario's own hidden model
(:class:`~heedful.bench.worlds.families._worlds.World`), plus noise:

* a variable's prior puts ``keep = confidence^κ · (1 − p_stale)`` on the believed value, mixed
  with Dirichlet noise;
* a source's accuracy rises with its visible authority and decays toward chance with the
  staleness of the data it holds, plus Gaussian noise.

So a policy that reads authority, age and volatility is rewarded, no label gives the answer away,
and at a shift above 0 the exact numbers are not the controller's formulas.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from heedful.bench.worlds.families import _words as words
from heedful.bench.worlds.families._worlds import World
from heedful.model import Volatility


def honest_prior(
    rng: np.random.Generator,
    size: int,
    believed: int | None,
    confidence: float,
    age_s: float,
    volatility: Volatility,
    world: World,
) -> list[float]:
    """Return a prior over ``size`` values that follows the visible belief and its staleness.

    The structure ``rng`` makes the same draws at every shift (the visible scenario does not
    depend on the world); ``world`` sets the numbers.

    Args:
        rng: Structure randomness.
        size: Domain size.
        believed: Index of the believed value, or ``None`` when the agent holds no belief.
        confidence: Visible confidence of the belief.
        age_s: Visible age of the belief.
        volatility: Visible volatility class of the variable.
        world: The scenario's hidden model.
    """
    if believed is None:
        base = rng.dirichlet(np.full(size, 3.0))
    else:
        keep = world.keep(confidence, volatility, age_s)
        # After a change the new value is any of the others; "keep" can also land on the old one.
        others = rng.dirichlet(np.full(size - 1, 4.0))
        base = np.empty(size)
        base[believed] = keep + (1.0 - keep) / size
        rest = (1.0 - base[believed]) * others
        base[[i for i in range(size) if i != believed]] = rest
    noise = rng.dirichlet(np.ones(size))
    prior = (1.0 - world.prior_noise) * base + world.prior_noise * noise
    prior = np.clip(prior, 1e-6, None)
    prior = prior / prior.sum()
    return _exact_sum(prior)


def _exact_sum(p: np.ndarray) -> list[float]:
    # Make the float list sum to 1 within 1e-12 after a YAML/JSON round trip.
    values = [float(x) for x in p]
    values[int(np.argmax(p))] += 1.0 - math.fsum(values)
    return values


def honest_accuracy(
    rng: np.random.Generator,
    authority: float,
    age_s: float,
    volatility: Volatility,
    size: int,
    world: World,
) -> float:
    """Return a hidden accuracy that rises with visible authority and falls with data staleness.

    See :meth:`World.accuracy`; at shift 0 it is ``(1 − s)·authority + s/size`` plus noise of
    sd 0.03, clipped to ``[1/size, 0.99]``.
    """
    return world.accuracy(authority, volatility, age_s, size, float(rng.standard_normal()))


#: A count given either fixed or as a half-open ``(low, high)`` range to draw from uniformly.
Span = int | tuple[int, int]


def cues(
    rng: np.random.Generator,
    *,
    urgent_words: Span,
    verbosity: Span,
    recency_s: Span,
    repeats: Span,
) -> dict[str, Any]:
    """Salience cues drawn from the given spans (ranges are drawn in argument order)."""

    def draw(span: Span) -> int:
        return span if isinstance(span, int) else int(rng.integers(*span))

    return {
        "urgent_words": draw(urgent_words),
        "verbosity": draw(verbosity),
        "recency_s": float(draw(recency_s)),
        "repeats": draw(repeats),
    }


def quiet_cues(rng: np.random.Generator) -> dict[str, Any]:
    """Salience cues of a plain, unexciting source."""
    return cues(rng, urgent_words=0, verbosity=(5, 80), recency_s=(30, 7_200), repeats=0)


def mixed_cues(rng: np.random.Generator) -> dict[str, Any]:
    """Salience cues of an ordinary source: sometimes a little loud."""
    return cues(
        rng, urgent_words=(0, 2), verbosity=(20, 300), recency_s=(60, 43_200), repeats=(0, 2)
    )


def loud_cues(rng: np.random.Generator) -> dict[str, Any]:
    """Salience cues of a distractor: recent, repeated, urgent-sounding and verbose."""
    return cues(rng, urgent_words=(2, 7), verbosity=(150, 900), recency_s=(0, 900), repeats=(1, 6))


def any_cues(rng: np.random.Generator) -> dict[str, Any]:
    """Quiet cues seven times in ten, else mixed."""
    return quiet_cues(rng) if rng.random() < 0.7 else mixed_cues(rng)


def terse_cues(rng: np.random.Generator) -> dict[str, Any]:
    """A terse, unexciting record that has not been posted recently."""
    return cues(rng, urgent_words=0, verbosity=(3, 15), recency_s=(900, 7_200), repeats=0)


def shouting_cues(rng: np.random.Generator) -> dict[str, Any]:
    """The loudest item of a scenario: verbose, just posted, repeated, urgent-worded."""
    return cues(rng, urgent_words=(2, 7), verbosity=(400, 1_000), recency_s=(0, 60), repeats=(2, 7))


def injected_cues(rng: np.random.Generator) -> dict[str, Any]:
    """Family H's shouting: even louder than :func:`shouting_cues`."""
    return cues(rng, urgent_words=(3, 9), verbosity=(300, 1_000), recency_s=(0, 60), repeats=(2, 7))


def cached_cues(rng: np.random.Generator) -> dict[str, Any]:
    """A coherent cached copy pushed into context recently: no urgent words, some repeats."""
    return cues(rng, urgent_words=0, verbosity=(60, 400), recency_s=(0, 900), repeats=(0, 4))


def cheap_cost(rng: np.random.Generator) -> dict[str, Any]:
    """The cost of a cache: few tokens, fast."""
    return draw_cost(rng, tokens=(30, 200), latency_ms=(10, 200))


def dear_cost(rng: np.random.Generator) -> dict[str, Any]:
    """The cost of a live instrument: more tokens, slow."""
    return draw_cost(rng, tokens=(150, 600), latency_ms=(300, 3_000))


def draw_cost(
    rng: np.random.Generator,
    *,
    tokens: tuple[int, int] = (60, 700),
    latency_ms: tuple[int, int] = (50, 2500),
) -> dict[str, Any]:
    """A cost drawn from one distribution for every role (cost is not a role label), unless a
    family narrows the ranges on purpose."""
    return {
        "tokens": int(rng.integers(*tokens)),
        "tool_calls": 1,
        "latency_ms": int(rng.integers(*latency_ms)),
    }


def pick_one(rng: np.random.Generator, items: Sequence[str]) -> str:
    """``str(rng.choice(items))`` — the same draw (``integers(0, len(items))``) without turning
    the list into an array on every call."""
    return str(items[int(rng.integers(0, len(items)))])


def teaser(wording: np.random.Generator, cues: dict[str, Any], topic: str) -> str:
    """Render a teaser whose loudness matches the visible cues (and says nothing else)."""
    n_words = max(3, min(24, int(cues["verbosity"]) // 25))
    body = [pick_one(wording, words.FILLER) for _ in range(n_words)]
    body.insert(int(wording.integers(0, len(body) + 1)), topic)
    shout = [pick_one(wording, words.URGENT_WORDS) for _ in range(int(cues["urgent_words"]))]
    text = " ".join([*shout, *body])
    if int(cues["repeats"]) > 0:
        text += f" (repeated x{int(cues['repeats']) + 1})"
    return text


def stated_stakes(
    rng: np.random.Generator, value: float, inflation: float
) -> tuple[float, bool, float]:
    """A D/J sender's visible reliability, whether it reports honestly this time, and the stakes
    it states (families D and J share this hidden model).

    The reliability ``authority`` is uniform in ``[0.3, 0.95)``; the sender is honest with that
    probability. The stated stakes are the true ``value`` with log-normal noise that grows as
    authority falls, plus up to ``inflation × (1 − authority)``. Returns
    ``(authority, honest, stakes)``.
    """
    authority = float(rng.uniform(0.3, 0.95))
    honest = bool(rng.random() < authority)
    stakes = value * math.exp(rng.normal(0.0, 0.4 * (1.0 - authority)))
    stakes += inflation * (1.0 - authority) * float(rng.uniform(0.0, 1.0))
    return authority, honest, stakes


def claim_teaser(
    rng: np.random.Generator, wording: np.random.Generator, claimed: float, topic: str
) -> str:
    """The teaser of a D/J message: its urgent words follow the *claimed* urgency only (none up
    to 0.5, else ``round(3 × claimed)``), its length is a structure draw."""
    loud = round(claimed * 3) if claimed > 0.5 else 0
    verbosity = int(rng.integers(40, 400))
    return teaser(wording, {"urgent_words": loud, "verbosity": verbosity, "repeats": 0}, topic)


def source_label(wording: np.random.Generator, system: str) -> str:
    """A neutral label like ``"ops billing dashboard"``."""
    qualifier = pick_one(wording, words.SOURCE_QUALIFIERS)
    return f"{qualifier} {system} {pick_one(wording, words.SOURCE_NOUNS)}"


def pick(wording: np.random.Generator, items: tuple[Any, ...], k: int) -> list[Any]:
    """Pick ``k`` distinct items."""
    return [items[i] for i in wording.choice(len(items), size=k, replace=False)]
