"""The family registry: a decorator, auto-import, private helpers, the public API unchanged."""

from __future__ import annotations

import pkgutil

import pytest

import heedful.bench.worlds.families as families_pkg
from heedful.bench.worlds.families import (
    FAMILIES,
    family_names,
    generate_family,
    get_family,
    register_family,
)


def test_every_public_module_registers_its_family_by_decorator() -> None:
    modules = {
        m.name for m in pkgutil.iter_modules(families_pkg.__path__) if not m.name.startswith("_")
    }
    registered = {fam.make.__module__.rsplit(".", 1)[-1] for fam in FAMILIES.values()}
    # Every public module but the unprompted rewriter is a family, and every family has a module.
    assert registered == modules - {"unprompted"}
    assert family_names() == sorted(FAMILIES)


def test_helper_modules_are_private() -> None:
    helpers = {"common", "signals", "words", "registry"}
    public = {m.name for m in pkgutil.iter_modules(families_pkg.__path__)}
    assert not helpers & public


def test_registering_a_taken_code_or_name_is_refused() -> None:
    def other(rng, wording, scenario_id):  # type: ignore[no-untyped-def]
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="clashes"):
        register_family("G", "something-else", version="x-v1", description="d")(other)
    with pytest.raises(ValueError, match="clashes"):
        register_family("Z", "budgeted", version="x-v1", description="d")(other)
    with pytest.raises(ValueError, match="one upper-case letter"):
        register_family("zz", "zz", version="x-v1", description="d")
    assert "Z" not in FAMILIES


def test_a_new_family_registers_and_generates_through_the_public_api() -> None:
    budgeted = get_family("G")

    def copy_of_g(rng, wording, scenario_id, world):  # type: ignore[no-untyped-def]
        return budgeted.make(rng, wording, scenario_id, world)

    register_family("Y", "copy-of-g", version="Y-v1", description="test only")(copy_of_g)
    try:
        made = generate_family("copy-of-g", 2, 1)
        assert [s.id for s in made] == ["Y-d1-0000", "Y-d1-0001"]
        assert get_family("y").version == "Y-v1"
    finally:
        del FAMILIES["Y"]
