"""The registry of scenario families: a decorator, like :func:`heedful.bench.register_policy`.

A family module defines its generator and decorates it with :func:`register_family`; the package
``heedful.bench.families`` imports every public module in its folder, which registers them all.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from heedful.model import Scenario

#: A family's generator, ``make(rng, wording, scenario_id) -> Scenario``: ``rng`` draws the
#: structure (roles, priors, accuracies, utilities, metadata), ``wording`` the surface (names,
#: labels, teasers, task text, injected text) independently of it, and ``scenario_id`` is the id to
#: give the scenario.
Maker = Callable[[np.random.Generator, np.random.Generator, str], Scenario]


@dataclass(frozen=True)
class Family:
    """A registered scenario family.

    Attributes:
        code: One-letter code of document 000 §16 (``"G"``).
        name: Long name (``"budgeted"``).
        version: Generator version; bump on any change that can move scores.
        description: One line.
        make: The generator (see :data:`Maker`).
    """

    code: str
    name: str
    version: str
    description: str
    make: Maker


#: Every registered family by code, in registration order (filled by importing the package).
FAMILIES: dict[str, Family] = {}


def register_family(
    code: str, name: str, *, version: str, description: str
) -> Callable[[Maker], Maker]:
    """Function decorator: register a generator as family ``code`` (long name ``name``).

    Example::

        @register_family("G", "budgeted", version="G-v1", description="budgeted inspection")
        def generate_budgeted(rng, wording, scenario_id): ...

    Raises:
        ValueError: the code or the name is taken by another generator, or the code is not one
            upper-case letter.
    """
    if not (len(code) == 1 and code.isalpha() and code.isupper()):
        raise ValueError(f"family code must be one upper-case letter, got {code!r}")

    def decorate(make: Maker) -> Maker:
        fam = Family(code, name, version, description, make)
        for other in FAMILIES.values():
            same = other.code == code or other.name.lower() == name.lower()
            if same and other.make.__qualname__ != make.__qualname__:
                raise ValueError(
                    f"family {code} ({name}) clashes with registered {other.code} ({other.name})"
                )
        FAMILIES[code] = fam
        return make

    return decorate
