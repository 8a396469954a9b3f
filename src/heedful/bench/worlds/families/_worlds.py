"""Hidden models of the generated worlds: each family draws its own (issue 9, item 3).

The controller assumes one model of the world (SPEC §4.1, document 000 §9–§10): values change at
the default hazard of their volatility class with exponential ageing, a source's accuracy is
``(1 − s)·authority + s/n``, and a belief of confidence ``c`` keeps ``c·(1 − p_stale)`` on its
value. A benchmark whose hidden truth is that same model measures how well a policy inverts the
generator. So every scenario here gets its own *hidden model*, drawn from its family's
:class:`WorldSpec` and scaled by the run's **shift** ``σ ≥ 0`` (how far the worlds are from the
controller's defaults; 0 reproduces them exactly):

* hazards: ``λ_v = λ_default(v) · exp(σ·(μ_h + s_h·z_v))`` per volatility class (sorted, so a more
  volatile class never changes more slowly), ageing ``p_stale = 1 − exp(−(λ·age)^β)`` with
  Weibull shape ``β = exp(σ·(μ_β + s_β·z))``;
* calibration: ``accuracy = chance + (1 − p_stale)·(authority^γ − chance)`` plus Gaussian noise
  of sd ``0.03 + 0.04·σ``, with ``γ = exp(σ·(μ_γ + s_γ·z))`` (γ > 1: authorities overclaim);
* beliefs: ``keep = confidence^κ · (1 − p_stale)`` with ``κ = exp(σ·(μ_κ + s_κ·z))`` (κ > 1: the
  agent's confidence overclaims), mixed with Dirichlet noise of weight ``0.1 + 0.1·σ`` (≤ 0.5);
* echoes: a source that echoes with default probability ``p`` does so with
  ``clip(p + σ·δ_echo, 0.05, 0.95)``;
* failures: a failure rate ``f`` becomes ``min(0.5, f·exp(σ·μ_f) + σ·f_floor)``.

Every visible signal stays honest — accuracy rises with authority and falls with the age of the
data, the believed value stays likelier with confidence, a more volatile class changes faster —
but the exact numbers are the family's own, not the controller's formulas inverted. The draws
of the hidden model come from a world stream of their own, so the *visible* scenario is the same
at every shift: only the truth behind it moves (a paired robustness curve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from heedful.model import Volatility

#: The controller's default hazards (changes per hour; SPEC §4.1), the worlds' shift-0 model.
DEFAULT_HAZARDS: dict[Volatility, float] = {
    Volatility.IMMUTABLE: 0.0,
    Volatility.LOW: 0.001,
    Volatility.MEDIUM: 0.05,
    Volatility.HIGH: 0.5,
    Volatility.VERY_HIGH: 5.0,
}
#: The shift of the benchmark's worlds when none is given: far enough from the controller's
#: defaults that inverting its formulas is not the task, near enough that the signals help.
DEFAULT_SHIFT = 1.0

_ORDER = (Volatility.LOW, Volatility.MEDIUM, Volatility.HIGH, Volatility.VERY_HIGH)


class WorldSpec(BaseModel):
    """A family's own distribution of hidden models, per unit of shift (see the module doc).

    Attributes:
        hazard_log_mean: ``μ_h``: mean log factor of the hazards (> 0: values change faster than
            the controller assumes).
        hazard_log_sd: ``s_h``: per-class spread of the log factor.
        shape_log_mean: ``μ_β``: mean log Weibull shape of ageing (> 0: change comes in bursts
            after a delay; < 0: early changes, long tail).
        shape_log_sd: ``s_β``.
        calibration_log_mean: ``μ_γ``: mean log exponent of authority (> 0: overclaiming).
        calibration_log_sd: ``s_γ``.
        confidence_log_mean: ``μ_κ``: mean log exponent of belief confidence (> 0: overclaiming).
        confidence_log_sd: ``s_κ``.
        echo_delta: ``δ_echo``: change of an echo probability per unit shift.
        fail_log_mean: ``μ_f``: log factor of failure rates per unit shift.
        fail_floor: ``f_floor``: failure rate added per unit shift (also to never-failing caches).
    """

    model_config = ConfigDict(frozen=True)

    hazard_log_mean: float = 0.5
    hazard_log_sd: float = Field(default=0.5, ge=0.0)
    shape_log_mean: float = 0.0
    shape_log_sd: float = Field(default=0.2, ge=0.0)
    calibration_log_mean: float = 0.3
    calibration_log_sd: float = Field(default=0.3, ge=0.0)
    confidence_log_mean: float = 0.3
    confidence_log_sd: float = Field(default=0.3, ge=0.0)
    echo_delta: float = 0.0
    fail_log_mean: float = 0.3
    fail_floor: float = Field(default=0.02, ge=0.0, le=0.2)


#: Noise of the shift-0 model (the generators' historical values), and its growth per unit shift.
BASE_ACCURACY_SD = 0.03
ACCURACY_SD_PER_SHIFT = 0.04
BASE_PRIOR_NOISE = 0.1
PRIOR_NOISE_PER_SHIFT = 0.1
MAX_PRIOR_NOISE = 0.5
MAX_ACCURACY = 0.99
MAX_FAILS = 0.5


@dataclass(frozen=True)
class World:
    """The hidden model of one scenario (drawn by :meth:`draw`; ``World()`` is shift 0).

    Attributes:
        shift: The shift it was drawn at.
        hazards: Changes per hour per volatility class.
        shape: Weibull shape of ageing (1 = exponential).
        calibration: Exponent ``γ`` of authority in the accuracy.
        confidence_power: Exponent ``κ`` of belief confidence in the prior.
        echo_delta: Added to every echo probability.
        fail_factor: Multiplies every failure rate.
        fail_floor: Added to every failure rate.
    """

    shift: float = 0.0
    hazards: tuple[tuple[Volatility, float], ...] = tuple(DEFAULT_HAZARDS.items())
    shape: float = 1.0
    calibration: float = 1.0
    confidence_power: float = 1.0
    echo_delta: float = 0.0
    fail_factor: float = 1.0
    fail_floor: float = 0.0

    @classmethod
    def draw(cls, spec: WorldSpec, shift: float, rng: np.random.Generator) -> World:
        """Draw one scenario's hidden model from a family's spec at a shift."""
        if shift == 0.0:
            return cls()
        z = rng.standard_normal(len(_ORDER) + 3)
        logs = sorted(
            math.log(DEFAULT_HAZARDS[v]) + shift * (spec.hazard_log_mean + spec.hazard_log_sd * x)
            for v, x in zip(_ORDER, z[: len(_ORDER)], strict=True)
        )
        hazards = {Volatility.IMMUTABLE: 0.0} | {
            v: math.exp(lg) for v, lg in zip(_ORDER, logs, strict=True)
        }
        zs, zc, zk = z[len(_ORDER) :]
        return cls(
            shift=shift,
            hazards=tuple(hazards.items()),
            shape=math.exp(shift * (spec.shape_log_mean + spec.shape_log_sd * zs)),
            calibration=math.exp(
                shift * (spec.calibration_log_mean + spec.calibration_log_sd * zc)
            ),
            confidence_power=math.exp(
                shift * (spec.confidence_log_mean + spec.confidence_log_sd * zk)
            ),
            echo_delta=shift * spec.echo_delta,
            fail_factor=math.exp(shift * spec.fail_log_mean),
            fail_floor=shift * spec.fail_floor,
        )

    def hazard(self, volatility: Volatility) -> float:
        """Changes per hour of a volatility class in this world."""
        return dict(self.hazards)[volatility]

    def p_stale(self, volatility: Volatility, age_s: float) -> float:
        """Chance a value of this class changed within ``age_s``: ``1 − exp(−(λ·age)^β)``."""
        x = self.hazard(volatility) * max(age_s, 0.0) / 3600.0
        return -math.expm1(-(x**self.shape)) if x > 0 else 0.0

    @property
    def accuracy_sd(self) -> float:
        """Sd of the Gaussian noise on a source's accuracy."""
        return BASE_ACCURACY_SD + ACCURACY_SD_PER_SHIFT * self.shift

    @property
    def prior_noise(self) -> float:
        """Weight of the Dirichlet noise mixed into every prior."""
        return min(MAX_PRIOR_NOISE, BASE_PRIOR_NOISE + PRIOR_NOISE_PER_SHIFT * self.shift)

    def keep(self, confidence: float, volatility: Volatility, age_s: float) -> float:
        """Probability mass a belief keeps on its value: ``confidence^κ · (1 − p_stale)``."""
        return float(confidence**self.confidence_power * (1.0 - self.p_stale(volatility, age_s)))

    def accuracy(
        self, authority: float, volatility: Volatility, age_s: float, size: int, noise: float
    ) -> float:
        """A source's accuracy on one variable; ``noise`` is a standard normal draw."""
        chance = 1.0 / size
        fresh = 1.0 - self.p_stale(volatility, age_s)
        acc = chance + fresh * (authority**self.calibration - chance) + self.accuracy_sd * noise
        return float(min(max(acc, chance), MAX_ACCURACY))

    def echo_rate(self, default: float) -> float:
        """Probability a would-be echo source echoes, given its family's default."""
        if self.echo_delta == 0.0:
            return default
        return min(0.95, max(0.05, default + self.echo_delta))

    def fails(self, default: float) -> float:
        """A source's failure rate, given the family's default draw."""
        if self.shift == 0.0:
            return default
        return min(MAX_FAILS, default * self.fail_factor + self.fail_floor)
