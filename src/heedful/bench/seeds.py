"""Seed streams: one root seed, independent streams for development, hold-out and trials.

Development and hold-out scenarios come from separate streams of the same root seed (document 000
§22.1: "development cases and hold-out cases generated from separate seeds"), so publishing a
development seed reveals nothing about the hold-out set.
"""

from __future__ import annotations

import zlib
from enum import IntEnum

import numpy as np


class Stream(IntEnum):
    """Independent uses of one root seed."""

    DEV = 0
    HOLDOUT = 1
    TRIALS = 2
    POLICY = 3
    STATS = 4


def name_key(name: str) -> int:
    """Return a stable 32-bit integer for a name (family or policy), for seeding."""
    return zlib.crc32(name.encode("utf-8"))


def seed_sequence(seed: int, stream: Stream, *keys: int) -> np.random.SeedSequence:
    """Return the seed sequence of ``keys`` inside ``stream`` of the root ``seed``."""
    if seed < 0:
        raise ValueError("seeds are non-negative integers")
    return np.random.SeedSequence([seed, int(stream), *keys])


def generator(seed: int, stream: Stream, *keys: int) -> np.random.Generator:
    """Return a fresh ``numpy`` generator for ``keys`` inside ``stream`` of ``seed``."""
    return np.random.default_rng(seed_sequence(seed, stream, *keys))
