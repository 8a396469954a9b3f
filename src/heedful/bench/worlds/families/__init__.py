"""Seeded scenario generators, one per benchmark family (SPEC §5; document 000 §14, §16).

Every scenario ``i`` of a family is generated from its own seed sequence
``[seed, stream, family, i]``, split into a *structure* stream and an independent *wording*
stream, so scenario ``i`` does not depend on how many others were generated and the surface text
never correlates with the latent structure.

Families register themselves with :func:`register_family` (see :mod:`._registry`); every public
module of this folder is imported, so adding a family means adding one module.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from collections.abc import Sequence
from typing import TypedDict, Unpack

import numpy as np

from heedful.bench.seeds import Stream, name_key, seed_sequence
from heedful.bench.worlds.families import unprompted
from heedful.bench.worlds.families._registry import FAMILIES, Family, Maker, register_family
from heedful.bench.worlds.families._worlds import DEFAULT_SHIFT, World, WorldSpec
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import Condition, Scenario

#: Version of the generator machinery; each family also has its own version.
GENERATOR_VERSION = "heedful.families/2"

# Importing every public module of this folder registers its family (private helpers start
# with "_"); a new family is one new module, nothing else to edit.
for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    if not _module.startswith("_"):
        importlib.import_module(f"{__name__}.{_module}")


def family_names() -> list[str]:
    """Return the codes of every family, sorted."""
    return sorted(FAMILIES)


def get_family(name: str) -> Family:
    """Return a family by code (``G``) or long name (``budgeted``), case-insensitively.

    Raises:
        UnknownNameError: listing the known families.
    """
    for fam in FAMILIES.values():
        if name.strip().lower() in (fam.code.lower(), fam.name.lower()):
            return fam
    known = ", ".join(f"{f.code} ({f.name})" for f in (FAMILIES[c] for c in family_names()))
    raise UnknownNameError(f"unknown family {name!r}; known families: {known}")


def parse_family_list(text: str) -> list[Family]:
    """Split ``"G,B"`` into families (``"all"`` = every family)."""
    names = [n for n in (p.strip() for p in text.split(",")) if n]
    if not names:
        raise InvalidArgumentError("no family given")
    if names == ["all"]:
        return [FAMILIES[c] for c in family_names()]
    fams = [get_family(n) for n in names]
    if len({f.code for f in fams}) != len(fams):
        raise InvalidArgumentError(f"a family is listed twice in {text!r}")
    return fams


def scenario_rngs(
    family: str, seed: int, index: int, stream: Stream = Stream.DEV
) -> tuple[np.random.Generator, np.random.Generator]:
    """Return the (structure, wording) generators of scenario ``index`` of a family."""
    structure, wording = seed_sequence(seed, stream, name_key(family), index).spawn(2)
    return np.random.default_rng(structure), np.random.default_rng(wording)


def world_rng(
    family: str, seed: int, index: int, stream: Stream = Stream.DEV
) -> np.random.Generator:
    """Return the generator of the hidden model of scenario ``index`` of a family (its own
    stream, so the visible scenario is the same at every shift)."""
    return np.random.default_rng(seed_sequence(seed, stream, name_key(f"{family}/world"), index))


def check_shift(shift: float) -> float:
    """Return ``shift`` as a float, or raise if it is negative or not finite.

    Raises:
        InvalidArgumentError: naming the bad value.
    """
    value = float(shift)
    if not (math.isfinite(value) and value >= 0.0):
        raise InvalidArgumentError(f"shift must be a finite number ≥ 0, got {shift!r}")
    return value


def generate_family(
    name: str,
    count: int,
    seed: int,
    *,
    stream: Stream = Stream.DEV,
    condition: Condition = Condition.ANNOUNCED,
    shift: float = DEFAULT_SHIFT,
) -> list[Scenario]:
    """Generate ``count`` scenarios of one family from a root seed and a seed stream.

    ``shift`` (≥ 0) sets how far every scenario's hidden model is from the controller's defaults
    (0: exactly the defaults; see :mod:`heedful.bench.worlds.families._worlds`). The visible
    scenarios are the same at every shift; only the hidden truth moves.

    ``condition=UNPROMPTED`` returns the unprompted twins of the same scenarios (same structure
    and truth, a task that neither asks for inspection nor states a budget; ids end in ``-u``;
    see :mod:`heedful.bench.worlds.families.unprompted`).

    Raises:
        UnknownNameError: unknown family.
        InvalidArgumentError: ``count < 1``, a negative seed or a bad shift.
    """
    fam = get_family(name)
    shift = check_shift(shift)
    if count < 1:
        raise InvalidArgumentError(f"count must be at least 1, got {count}")
    if seed < 0:
        raise InvalidArgumentError(f"seed must be a non-negative integer, got {seed}")
    tag = "d" if stream is Stream.DEV else "h"
    out = []
    for i in range(count):
        rng, wording = scenario_rngs(fam.code, seed, i, stream)
        world = fam.draw_world(shift, world_rng(fam.code, seed, i, stream))
        made = fam.make(rng, wording, f"{fam.code}-{tag}{seed}-{i:04d}", world)
        if condition is Condition.UNPROMPTED:
            made = unprompted.unprompted_twin(
                made, unprompted.twin_wording(fam.code, seed, i, stream)
            )
        out.append(made)
    return out


class DrawOptions(TypedDict, total=False):
    """The keywords of :func:`generate_family` (its defaults), which :func:`generate_suite`
    passes on to it."""

    stream: Stream
    condition: Condition
    shift: float


def generate_suite(
    families: Sequence[str], count: int, seed: int, **options: Unpack[DrawOptions]
) -> list[Scenario]:
    """Generate ``count`` scenarios of each named family: :func:`generate_family` for each, with
    the same keywords (seed stream, condition, shift)."""
    return [s for f in families for s in generate_family(f, count, seed, **options)]


def generator_versions(
    families: Sequence[str], *, unprompted_twins: bool = False, shift: float = DEFAULT_SHIFT
) -> dict[str, str]:
    """Return ``{code: version}`` for the named families plus the machinery version, the shift
    of the hidden models (``"shift"``: which worlds were used) and the unprompted task
    rewriter's version, when it was used."""
    out = {"generator": GENERATOR_VERSION, "shift": f"{check_shift(shift):g}"}
    out.update({get_family(f).code: get_family(f).version for f in families})
    if unprompted_twins:
        out["unprompted"] = unprompted.VERSION
    return out


__all__ = [
    "DEFAULT_SHIFT",
    "FAMILIES",
    "GENERATOR_VERSION",
    "DrawOptions",
    "Family",
    "Maker",
    "World",
    "WorldSpec",
    "check_shift",
    "family_names",
    "generate_family",
    "generate_suite",
    "generator_versions",
    "get_family",
    "parse_family_list",
    "register_family",
    "scenario_rngs",
    "world_rng",
]
