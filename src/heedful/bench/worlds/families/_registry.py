"""The registry of scenario families: a decorator, like :func:`heedful.bench.register_policy`.

A family module defines its generator and decorates it with :func:`register_family`; the package
``heedful.bench.worlds.families`` imports every public module in its folder, which registers
them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from heedful.bench.worlds.families._worlds import World, WorldSpec
from heedful.model import Scenario

#: A family's generator, ``make(rng, wording, scenario_id, world) -> Scenario``: ``rng`` draws the
#: structure (roles, metadata, utilities, and the standard draws behind priors and accuracies),
#: ``wording`` the surface (names, labels, kinds, teasers, task text, injected text) independently
#: of it, ``scenario_id`` is the id to give the scenario and ``world`` is its hidden model (drawn
#: from the family's :class:`WorldSpec` at the run's shift; pass it to ``Builder.start``).
Maker = Callable[[np.random.Generator, np.random.Generator, str, World], Scenario]


@dataclass(frozen=True)
class Family:
    """A registered scenario family.

    Attributes:
        code: One-letter code of document 000 §16 (``"G"``).
        name: Long name (``"budgeted"``).
        version: Generator version; bump on any change that can move scores.
        description: One line.
        make: The generator (see :data:`Maker`).
        world: The family's own distribution of hidden models (docs/benchmark.md).
        measures: What a score on it measures, in one line (``heedful list families``): "value
            of information" only when ``voc-model`` beats the best ranking of the relevant
            sources by authority, age and reports by 15 points
            (:mod:`heedful.bench.validity.ranking` checks it); else what it tests instead.
    """

    code: str
    name: str
    version: str
    description: str
    make: Maker
    world: WorldSpec = field(default_factory=WorldSpec)
    measures: str = ""

    def draw_world(self, shift: float, rng: np.random.Generator) -> World:
        """Draw one scenario's hidden model from this family's spec at ``shift`` (≥ 0)."""
        return World.draw(self.world, shift, rng)


#: Every registered family by code, in registration order (filled by importing the package).
FAMILIES: dict[str, Family] = {}


def register_family(
    code: str,
    name: str,
    *,
    version: str,
    description: str,
    world: WorldSpec | None = None,
    measures: str = "",
) -> Callable[[Maker], Maker]:
    """Function decorator: register a generator as family ``code`` (long name ``name``).

    Example::

        @register_family("G", "budgeted", version="G-v1", description="budgeted inspection")
        def generate_budgeted(rng, wording, scenario_id, world): ...

    ``world`` is the family's own :class:`WorldSpec` (default: ``WorldSpec()``); ``measures``
    says what a score on it measures (see :class:`Family`).

    Raises:
        ValueError: the code or the name is taken by another generator, or the code is not one
            upper-case letter.
    """
    if not (len(code) == 1 and code.isalpha() and code.isupper()):
        raise ValueError(f"family code must be one upper-case letter, got {code!r}")

    def decorate(make: Maker) -> Maker:
        fam = Family(code, name, version, description, make, world or WorldSpec(), measures)
        for other in FAMILIES.values():
            same = other.code == code or other.name.lower() == name.lower()
            if same and other.make.__qualname__ != make.__qualname__:
                raise ValueError(
                    f"family {code} ({name}) clashes with registered {other.code} ({other.name})"
                )
        FAMILIES[code] = fam
        return make

    return decorate
