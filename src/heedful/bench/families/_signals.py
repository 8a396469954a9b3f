"""Honest-signal helpers shared by the generators (SPEC §5; document 000 §9, §10, §14.1).

The hidden quantities are derived from the visible ones plus noise:

* a variable's prior puts ``confidence · (1 − p_stale)`` (SPEC §4.1) on the believed value, where
  ``p_stale = 1 − exp(−λ(volatility) · age)``, mixed with a little Dirichlet noise;
* a source's accuracy is its visible authority, decayed toward chance by the staleness of the data
  it holds, plus Gaussian noise.

So a policy that reads authority, age and volatility correctly is rewarded, and no label gives the
answer away.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from heedful.bench.families import _words as words
from heedful.model import Volatility


class SignalConfig(BaseModel):
    """Numbers of the honest-signal model.

    Attributes:
        hazard_per_hour: Change hazard per volatility class (SPEC §4.1 defaults).
        prior_noise: Weight of the Dirichlet(1) noise mixed into every prior.
        accuracy_noise_sd: Standard deviation of the Gaussian noise on accuracy.
        max_accuracy: Accuracies are capped here (no source is perfect).
    """

    model_config = ConfigDict(frozen=True)

    hazard_per_hour: dict[Volatility, float] = Field(
        default_factory=lambda: {
            Volatility.IMMUTABLE: 0.0,
            Volatility.LOW: 0.001,
            Volatility.MEDIUM: 0.05,
            Volatility.HIGH: 0.5,
            Volatility.VERY_HIGH: 5.0,
        }
    )
    prior_noise: float = Field(default=0.1, ge=0.0, le=1.0)
    accuracy_noise_sd: float = Field(default=0.03, ge=0.0)
    max_accuracy: float = Field(default=0.99, gt=0.0, le=1.0)


SIGNALS = SignalConfig()


def p_stale(volatility: Volatility, age_s: float, config: SignalConfig = SIGNALS) -> float:
    """Return ``1 − exp(−λ · age)``, the chance a value of this volatility changed since age_s."""
    return 1.0 - math.exp(-config.hazard_per_hour[volatility] * age_s / 3600.0)


def honest_prior(
    rng: np.random.Generator,
    size: int,
    believed: int | None,
    confidence: float,
    age_s: float,
    volatility: Volatility,
    config: SignalConfig = SIGNALS,
) -> list[float]:
    """Return a prior over ``size`` values that follows the visible belief and its staleness.

    Args:
        rng: Structure randomness.
        size: Domain size.
        believed: Index of the believed value, or ``None`` when the agent holds no belief.
        confidence: Visible confidence of the belief.
        age_s: Visible age of the belief.
        volatility: Visible volatility class of the variable.
        config: The signal model.
    """
    if believed is None:
        base = rng.dirichlet(np.full(size, 3.0))
    else:
        keep = confidence * (1.0 - p_stale(volatility, age_s, config))
        # After a change the new value is any of the others; "keep" can also land on the old one.
        others = rng.dirichlet(np.full(size - 1, 4.0))
        base = np.empty(size)
        base[believed] = keep + (1.0 - keep) / size
        rest = (1.0 - base[believed]) * others
        base[[i for i in range(size) if i != believed]] = rest
    noise = rng.dirichlet(np.ones(size))
    prior = (1.0 - config.prior_noise) * base + config.prior_noise * noise
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
    config: SignalConfig = SIGNALS,
) -> float:
    """Return a hidden accuracy that follows visible authority and the staleness of the data.

    ``accuracy ≈ (1 − s) · authority + s / size`` with ``s = p_stale(volatility, age_s)``, plus
    noise, clipped to ``[1/size, max_accuracy]``.
    """
    s = p_stale(volatility, age_s, config)
    acc = (1.0 - s) * authority + s / size + rng.normal(0.0, config.accuracy_noise_sd)
    return float(min(max(acc, 1.0 / size), config.max_accuracy))


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


def teaser(wording: np.random.Generator, cues: dict[str, Any], topic: str) -> str:
    """Render a teaser whose loudness matches the visible cues (and says nothing else)."""
    n_words = max(3, min(24, int(cues["verbosity"]) // 25))
    body = [str(wording.choice(words.FILLER)) for _ in range(n_words)]
    body.insert(int(wording.integers(0, len(body) + 1)), topic)
    shout = [str(wording.choice(words.URGENT_WORDS)) for _ in range(int(cues["urgent_words"]))]
    text = " ".join([*shout, *body])
    if int(cues["repeats"]) > 0:
        text += f" (repeated x{int(cues['repeats']) + 1})"
    return text


def source_label(wording: np.random.Generator, system: str) -> str:
    """A neutral label like ``"ops billing dashboard"``."""
    return (
        f"{wording.choice(words.SOURCE_QUALIFIERS)} {system} {wording.choice(words.SOURCE_NOUNS)}"
    )


def pick(wording: np.random.Generator, items: tuple[Any, ...], k: int) -> list[Any]:
    """Pick ``k`` distinct items."""
    return [items[i] for i in wording.choice(len(items), size=k, replace=False)]


def kind_for_authority(rng: np.random.Generator, authority: float) -> str:
    """A visible ``kind`` that tracks authority loosely (an honest but noisy signal)."""
    if authority >= 0.85 and rng.random() < 0.8:
        return str(rng.choice(words.INSTRUMENT_KINDS))
    if authority >= 0.55 and rng.random() < 0.7:
        return str(rng.choice(words.MIDDLE_KINDS))
    return str(rng.choice(words.CHATTER_KINDS))
