"""How ``heedful bench run`` takes in scenarios of every kind: split the family list and the
scenario files into the inspection part and the other kinds' (families D, J, … of
:func:`heedful.bench.kinds.kind_families`), which run beside it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heedful.bench.config import BenchConfig
from heedful.bench.kinds import generate_kind_family, kind_families
from heedful.bench.manifest import build_manifest
from heedful.bench.policy import (
    kind_policy_names,
    other_kinds,
    parse_policy_list,
    policy_class,
    policy_names,
)
from heedful.bench.results import Aggregates, Results
from heedful.bench.worlds.families import FAMILIES, family_names
from heedful.errors import InvalidArgumentError, UnknownNameError
from heedful.model import Scenario

__all__ = [
    "empty_results",
    "generate_kinds",
    "inspection_policies",
    "kind_code",
    "kind_versions",
    "split_families",
    "split_scenarios",
]


def kind_code(name: str) -> str | None:
    """The code of a family of a kind other than inspection named by code or long name, else
    ``None``."""
    n = name.strip().lower()
    for fam in kind_families().values():
        if n in (fam.code.lower(), fam.name):
            return fam.code
    return None


def split_families(text: str | None) -> tuple[str | None, list[str]]:
    """Split ``--family`` text into the inspection families (text, or ``None`` if none) and the
    codes of the switching/schedule families. ``all`` means every family of every kind.

    Raises:
        InvalidArgumentError: text that names no family at all (``""``, ``","``) — it used to
            run the default suite.
        UnknownNameError: a name that is no family of any kind.
    """
    if text is None:
        return None, []
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise InvalidArgumentError(f"--family {text!r} names no family (e.g. G,B or D,J or all)")
    if names == ["all"]:
        return ",".join(family_names()), sorted(kind_families())
    inspection, kinds = [], []
    for n in names:
        code = kind_code(n)
        if code is not None:
            kinds.append(code)
            continue
        if not any(n.lower() in (f.code.lower(), f.name) for f in FAMILIES.values()):
            codes = [(f.code, f.name) for f in FAMILIES.values()]
            codes += [(f.code, f.name) for f in kind_families().values()]
            known = ", ".join(f"{c} ({n})" for c, n in codes)
            raise UnknownNameError(f"unknown family {n!r}; known families: {known}")
        inspection.append(n)
    return (",".join(inspection) if inspection else None), kinds


def generate_kinds(codes: Sequence[str], count: int, seed: int) -> list[Any]:
    """Generate ``count`` scenarios of each family of a kind other than inspection."""
    return [s for c in codes for s in generate_kind_family(c, count, seed)]


def split_scenarios(items: Sequence[Any]) -> tuple[list[Scenario], list[Any]]:
    """Separate loaded scenarios into inspection ones and the other kinds' ones."""
    inspection = [s for s in items if isinstance(s, Scenario)]
    kinds = [s for s in items if not isinstance(s, Scenario)]
    return inspection, kinds


def kind_versions(codes: Sequence[str]) -> dict[str, str]:
    """Generator versions of the named families of kinds other than inspection (manifest)."""
    families = kind_families()
    return {c: families[c].version for c in codes}


def inspection_policies(policies: str, *, need: bool) -> list[str]:
    """The names of ``policies`` that exist for inspection scenarios (``all``: the suite).

    A name registered only for D/J is skipped here; a name registered nowhere is an error.

    Raises:
        UnknownNameError: a name no kind knows.
        InvalidArgumentError: ``need`` and no name runs on inspection scenarios.
    """
    if policies.strip() == "all":
        return parse_policy_list("all")
    names = [n.strip() for n in policies.split(",") if n.strip()]
    if not names:
        raise InvalidArgumentError("no policy given")
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"a policy is listed twice in {policies!r}")
    inspection = set(policy_names())
    elsewhere = {n for k in other_kinds() for n in kind_policy_names(k)}
    for n in names:
        if n not in inspection and n not in elsewhere:
            policy_class(n)  # raises, naming the known policies
    kept = [n for n in names if n in inspection]
    if need and not kept:
        raise InvalidArgumentError(
            f"none of {policies!r} runs on inspection scenarios; "
            f"D/J-only policies: {', '.join(sorted(elsewhere - inspection))}"
        )
    return kept


def empty_results(*, seed: int, trials: int, source: str, config: BenchConfig) -> Results:
    """Results with no inspection part (a run of families D and J, … only)."""
    manifest = build_manifest(
        seed=seed,
        condition="static",
        trials=trials,
        policies=[],
        scenarios=[],
        scenario_source=source,
        generator_versions={},
        config=config,
    )
    return Results(
        manifest=manifest, scenarios=[], trials=[], aggregates=Aggregates(rows=[], paired=[])
    )
