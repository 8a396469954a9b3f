"""Reading, validating and writing ``heedful.scenario/v1`` files (SPEC §2).

Every problem is reported as a :class:`heedful.errors.ScenarioError` naming the file, the path
inside it (``sources[3].accuracy``) and what is wrong.
"""

from __future__ import annotations

import itertools
import math
import string
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from heedful.errors import InputError, ScenarioError
from heedful.model.documents import read_document
from heedful.model.inputs import Id, validate_strict
from heedful.model.scenario import (
    FORMAT_V1,
    ActionView,
    Belief,
    Condition,
    Cost,
    HiddenSource,
    LiarMode,
    SalienceCues,
    Scenario,
    ScenarioKind,
    ScenarioTruth,
    ScenarioView,
    SourceTruth,
    SourceView,
    UtilityRule,
    VariableView,
    Volatility,
)

PRIOR_TOLERANCE = 1e-9
#: Above this many joint worlds the "every world matches a utility rule" check is skipped
#: unless the last rule is unconditional (which is then required).
_MAX_WORLDS_TO_ENUMERATE = 1_000_000


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _VariableDoc(_Doc):
    domain: list[str] = Field(min_length=1)
    prior: list[float]
    volatility: Volatility = Volatility.MEDIUM


class _SourceDoc(_Doc):
    id: Id
    label: str = ""
    kind: str = "document"
    reports: list[Id] = Field(default_factory=list)
    authority: float = Field(default=0.5, ge=0.0, le=1.0)
    age_s: float = Field(default=0.0, ge=0.0)
    cost: Cost = Field(default_factory=Cost)
    salience: SalienceCues = Field(default_factory=SalienceCues)
    content: str = ""
    accuracy: float | None = Field(default=None, ge=0.0, le=1.0)
    echo: dict[str, str] | None = None
    fails: float = Field(default=0.0, ge=0.0, le=1.0)
    render: str | None = None
    revealed_by: Id | None = None
    trusted: bool = True
    honesty: float | None = Field(default=None, ge=0.0, le=1.0)
    liar: LiarMode | None = None


class _ScenarioDoc(_Doc):
    format: str
    id: Id
    kind: ScenarioKind = ScenarioKind.INSPECTION
    family: str = "custom"
    condition: Condition = Condition.ANNOUNCED
    task: str = ""
    budget: int = Field(ge=0)
    cost_weight: float = Field(default=0.0, ge=0.0)
    variables: dict[Id, _VariableDoc] = Field(min_length=1)
    actions: dict[Id, ActionView] = Field(min_length=1)
    beliefs: list[Belief] = Field(default_factory=list)
    sources: list[_SourceDoc] = Field(default_factory=list)
    world: dict[str, str] | None = None


def _scalar(value: Any) -> Any:
    """Coerce YAML scalars to the strings domains are made of (``yes`` → ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


def _coerce_values(raw: dict[str, Any]) -> dict[str, Any]:
    """Turn unquoted YAML values (numbers, booleans) into strings where values are expected."""
    out = dict(raw)
    variables = out.get("variables")
    if isinstance(variables, dict):
        out["variables"] = {
            k: (
                {**v, "domain": [_scalar(x) for x in v["domain"]]}
                if isinstance(v, dict) and isinstance(v.get("domain"), list)
                else v
            )
            for k, v in variables.items()
        }
    actions = out.get("actions")
    if isinstance(actions, dict):
        new_actions: dict[str, Any] = {}
        for name, action in actions.items():
            if isinstance(action, dict) and isinstance(action.get("utility"), list):
                rules = [
                    {**r, "when": {k: _scalar(v) for k, v in r["when"].items()}}
                    if isinstance(r, dict) and isinstance(r.get("when"), dict)
                    else r
                    for r in action["utility"]
                ]
                action = {**action, "utility": rules}
            new_actions[str(name)] = action
        out["actions"] = new_actions
    if isinstance(out.get("beliefs"), list):
        out["beliefs"] = [
            {**b, "value": _scalar(b["value"])} if isinstance(b, dict) and "value" in b else b
            for b in out["beliefs"]
        ]
    if isinstance(out.get("sources"), list):
        out["sources"] = [
            {**s, "echo": {k: _scalar(v) for k, v in s["echo"].items()}}
            if isinstance(s, dict) and isinstance(s.get("echo"), dict)
            else s
            for s in out["sources"]
        ]
    if isinstance(out.get("world"), dict):
        out["world"] = {k: _scalar(v) for k, v in out["world"].items()}
    return out


def _loc(parts: Iterable[Any]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix + path if path.startswith("[") else f"{prefix}.{path}"


class _Checker:
    def __init__(self, file: str, prefix: str) -> None:
        self.file = file
        self.prefix = prefix

    def fail(self, path: str, message: str) -> ScenarioError:
        return ScenarioError(message, file=self.file, path=_join(self.prefix, path) or None)


def check_header(raw: Any, chk: _Checker) -> None:
    """Refuse what is not a ``heedful.scenario/v1`` mapping (every scenario kind starts here)."""
    if not isinstance(raw, dict):
        raise chk.fail("", f"a scenario must be a mapping, got {type(raw).__name__}")
    if raw.get("format") != FORMAT_V1:
        raise chk.fail("format", f"must be {FORMAT_V1!r}, got {raw.get('format')!r}")


def scenario_from_dict(raw: Any, *, file: str = "<memory>", prefix: str = "") -> Scenario:
    """Validate one scenario given as a plain dict and split it into view and truth.

    Args:
        raw: The parsed scenario mapping.
        file: Name of the file it came from, for error messages.
        prefix: Path prefix inside the file (e.g. ``[2]`` for the third scenario of a list).

    Raises:
        ScenarioError: naming the file, the path and what is wrong.
    """
    chk = _Checker(file, prefix)
    check_header(raw, chk)
    try:
        doc = validate_strict(_ScenarioDoc, _coerce_values(raw))
    except ValidationError as exc:
        err = exc.errors()[0]
        extra = exc.error_count() - 1
        more = f" (and {extra} more problem{'s' if extra > 1 else ''})" if extra else ""
        raise chk.fail(_loc(err["loc"]), f"{err['msg']}{more}") from None
    if doc.kind is not ScenarioKind.INSPECTION:
        raise chk.fail("kind", f"kind {doc.kind.value!r} is not supported by this version")
    _check(doc, chk)
    links: dict[str, int] = {}
    for s in doc.sources:
        if s.revealed_by is not None:
            links[s.revealed_by] = links.get(s.revealed_by, 0) + 1
    views = {
        s.id: SourceView(
            id=s.id,
            label=s.label,
            kind=s.kind,
            reports=tuple(s.reports),
            authority=s.authority,
            age_s=s.age_s,
            cost=s.cost,
            salience=s.salience,
            content=s.content,
            trusted=s.trusted,
            links=links.get(s.id, 0),
        )
        for s in doc.sources
    }
    view = ScenarioView(
        id=doc.id,
        kind=doc.kind,
        family=doc.family,
        condition=doc.condition,
        task=doc.task,
        budget=doc.budget,
        cost_weight=doc.cost_weight,
        variables={
            k: VariableView(domain=tuple(v.domain), volatility=v.volatility)
            for k, v in doc.variables.items()
        },
        actions=doc.actions,
        beliefs=tuple(doc.beliefs),
        # A source with ``revealed_by`` is not listed: it lives in the truth until revealed.
        sources=tuple(views[s.id] for s in doc.sources if s.revealed_by is None),
    )
    truth = ScenarioTruth(
        priors={k: tuple(v.prior) for k, v in doc.variables.items()},
        sources={
            s.id: SourceTruth(
                accuracy=s.accuracy,
                echo=s.echo,
                fails=s.fails,
                render=s.render,
                honesty=s.honesty,
                liar=(s.liar or "random") if s.honesty is not None else None,
            )
            for s in doc.sources
        },
        world=doc.world,
        hidden=tuple(
            HiddenSource(source=views[s.id], revealed_by=s.revealed_by)
            for s in doc.sources
            if s.revealed_by is not None
        ),
    )
    return Scenario(view=view, truth=truth, origin=file)


def _check(doc: _ScenarioDoc, chk: _Checker) -> None:
    numbers: list[tuple[str, float]] = [("cost_weight", doc.cost_weight)]
    for i, src in enumerate(doc.sources):
        numbers.append((f"sources[{i}].age_s", src.age_s))
        numbers += [(f"sources[{i}].cost.{k}", getattr(src.cost, k)) for k in Cost.model_fields]
    numbers += [(f"beliefs[{i}].age_s", b.age_s) for i, b in enumerate(doc.beliefs)]
    for where, number in numbers:
        if not math.isfinite(number):
            raise chk.fail(where, f"must be finite, got {number!r}")
    for name, vdoc in doc.variables.items():
        where = f"variables.{name}"
        if len(set(vdoc.domain)) != len(vdoc.domain):
            raise chk.fail(f"{where}.domain", "domain values must be unique")
        if len(vdoc.prior) != len(vdoc.domain):
            raise chk.fail(
                f"{where}.prior",
                f"has {len(vdoc.prior)} entries but the domain has {len(vdoc.domain)}",
            )
        if any(p < 0 or not math.isfinite(p) for p in vdoc.prior):
            raise chk.fail(f"{where}.prior", "probabilities must be finite and ≥ 0")
        total = math.fsum(vdoc.prior)
        if abs(total - 1.0) > PRIOR_TOLERANCE:
            raise chk.fail(f"{where}.prior", f"must sum to 1 (±1e-9), sums to {total!r}")

    def check_value(path: str, variable: str, value: str) -> None:
        if variable not in doc.variables:
            raise chk.fail(path, f"unknown variable {variable!r}")
        if value not in doc.variables[variable].domain:
            domain = list(doc.variables[variable].domain)
            raise chk.fail(
                f"{path}.{variable}" if path.endswith(("when", "echo", "world")) else path,
                f"value {value!r} is not in the domain {domain}",
            )

    for name, action in doc.actions.items():
        if not action.utility:
            raise chk.fail(f"actions.{name}.utility", "needs at least one rule")
        for i, rule in enumerate(action.utility):
            for var, value in rule.when.items():
                check_value(f"actions.{name}.utility[{i}].when", var, value)
            if not math.isfinite(rule.value):
                raise chk.fail(f"actions.{name}.utility[{i}].value", "must be finite")
        if action.utility[-1].when:
            _check_rules_cover_worlds(doc, name, action, chk)

    for i, belief in enumerate(doc.beliefs):
        if belief.variable not in doc.variables:
            raise chk.fail(f"beliefs[{i}].variable", f"unknown variable {belief.variable!r}")
        if belief.value not in doc.variables[belief.variable].domain:
            raise chk.fail(
                f"beliefs[{i}].value",
                f"value {belief.value!r} is not in the domain of {belief.variable!r}",
            )

    seen: dict[str, int] = {}
    for i, src in enumerate(doc.sources):
        where = f"sources[{i}]"
        if src.id in seen:
            raise chk.fail(
                f"{where}.id", f"duplicate source id {src.id!r} (also sources[{seen[src.id]}])"
            )
        seen[src.id] = i
        if len(set(src.reports)) != len(src.reports):
            raise chk.fail(f"{where}.reports", "lists a variable twice")
        for j, var in enumerate(src.reports):
            if var not in doc.variables:
                raise chk.fail(f"{where}.reports[{j}]", f"unknown variable {var!r}")
        if src.accuracy is not None and src.echo is not None:
            raise chk.fail(where, "has both accuracy and echo; give exactly one")
        if src.reports and src.accuracy is None and src.echo is None:
            raise chk.fail(where, "reports variables but has neither accuracy nor echo")
        if src.echo is not None:
            if set(src.echo) != set(src.reports):
                raise chk.fail(f"{where}.echo", f"must give a value for exactly {src.reports}")
            for var, value in src.echo.items():
                check_value(f"{where}.echo", var, value)
        _check_honesty(src, where, chk)
        if src.render is not None:
            try:
                fields = {f for _, f, _, _ in string.Formatter().parse(src.render) if f}
            except ValueError as exc:
                raise chk.fail(f"{where}.render", f"bad template: {exc}") from None
            extra = sorted(fields - set(src.reports))
            if extra:
                raise chk.fail(f"{where}.render", f"names variables it does not report: {extra}")

    _check_reveals(doc, chk)

    if doc.budget > len(doc.sources):
        raise chk.fail(
            "budget", f"{doc.budget} is larger than the number of sources ({len(doc.sources)})"
        )

    if doc.world is not None:
        dishonest = [s.id for s in doc.sources if s.honesty is not None]
        if dishonest:
            raise chk.fail(
                "world",
                "a fixed world cannot fix whether a source is honest; drop `world` or the "
                f"`honesty` of {dishonest}",
            )
        missing = sorted(set(doc.variables) - set(doc.world))
        if missing:
            raise chk.fail("world", f"must give a value for every variable; missing {missing}")
        for var, value in doc.world.items():
            check_value("world", var, value)


def _check_honesty(src: _SourceDoc, where: str, chk: _Checker) -> None:
    """``honesty`` (and ``liar``) belong to an untrusted source with noisy reports (§24)."""
    if src.honesty is None:
        if src.liar is not None:
            raise chk.fail(f"{where}.liar", "says how a dishonest source reports; give `honesty`")
        return
    if src.trusted:
        raise chk.fail(
            f"{where}.honesty",
            "a trusted source is honest by definition; give `trusted: false` or drop `honesty`",
        )
    if src.accuracy is None:
        raise chk.fail(
            f"{where}.honesty", "needs a source with `accuracy` (an honest source's reports)"
        )


def _check_reveals(doc: _ScenarioDoc, chk: _Checker) -> None:
    """``revealed_by`` names another source of the scenario, and every chain of reveals starts
    at a listed source (a cycle could never be read)."""
    index = {s.id: i for i, s in enumerate(doc.sources)}
    for i, src in enumerate(doc.sources):
        rev = src.revealed_by
        if rev is None:
            continue
        where = f"sources[{i}].revealed_by"
        if rev == src.id:
            raise chk.fail(where, f"source {src.id!r} cannot reveal itself")
        if rev not in index:
            known = ", ".join(sorted(index))
            raise chk.fail(where, f"unknown source {rev!r} (the scenario's sources: {known})")
        chain = [src.id]
        at: str | None = rev
        while at is not None:
            if at in chain:
                loop = " → ".join([*chain, at])
                raise chk.fail(where, f"a cycle of reveals ({loop}): none of them can ever be read")
            chain.append(at)
            at = doc.sources[index[at]].revealed_by
    if doc.sources and all(s.revealed_by is not None for s in doc.sources):
        raise chk.fail("sources", "every source is hidden (revealed_by): none can be read first")


def _check_rules_cover_worlds(
    doc: _ScenarioDoc, name: str, action: ActionView, chk: _Checker
) -> None:
    names = list(doc.variables)
    n_worlds = math.prod(len(v.domain) for v in doc.variables.values())
    if n_worlds > _MAX_WORLDS_TO_ENUMERATE:
        raise chk.fail(
            f"actions.{name}.utility",
            "the last rule must have no `when` (too many worlds to check coverage)",
        )
    for values in itertools.product(*(doc.variables[n].domain for n in names)):
        world = dict(zip(names, values, strict=True))
        if not any(all(world.get(k) == v for k, v in r.when.items()) for r in action.utility):
            raise chk.fail(
                f"actions.{name}.utility",
                f"no rule matches the world {world}; end with a rule without `when`",
            )


def _parse(path: Path) -> Any:
    """The parsed document of a scenario file, read through the bounded loader."""
    try:
        return read_document(path)
    except InputError as exc:
        raise ScenarioError(exc.detail, file=str(path)) from None


def load_scenarios(path: str | Path) -> list[Scenario]:
    """Load every scenario in one YAML or JSON file (a mapping or a list of mappings)."""
    p = Path(path)
    data = _parse(p)
    if isinstance(data, list):
        if not data:
            raise ScenarioError("the file holds an empty list", file=str(p))
        items = [
            scenario_from_dict(item, file=str(p), prefix=f"[{i}]") for i, item in enumerate(data)
        ]
    else:
        items = [scenario_from_dict(data, file=str(p))]
    check_unique_ids(items)
    return items


def scenario_files(paths: Sequence[str | Path]) -> list[Path]:
    """Expand files and directories (``*.yaml``, ``*.yml``, ``*.json``, recursively), sorted."""
    out: list[Path] = []
    for path in paths:
        if not str(path).strip():
            raise ScenarioError("an empty path was given; name a scenario file or folder")
        p = Path(path)
        if p.is_dir():
            found = sorted(
                q for q in p.rglob("*") if q.suffix.lower() in {".yaml", ".yml", ".json"}
            )
            if not found:
                raise ScenarioError("no .yaml, .yml or .json files in this directory", file=str(p))
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise ScenarioError("no such file or directory", file=str(p))
    return out


def load_scenario_set(paths: Sequence[str | Path]) -> list[Scenario]:
    """Load scenarios from files and directories; ids must be unique across the whole set."""
    items = [s for f in scenario_files(paths) for s in load_scenarios(f)]
    check_unique_ids(items)
    return items


class _Identified(Protocol):
    @property
    def id(self) -> str: ...

    origin: str


def check_unique_ids(items: Sequence[_Identified]) -> None:
    """Refuse a set in which two scenarios (of any kind) share an id, naming both files."""
    seen: dict[str, str] = {}
    for s in items:
        if s.id in seen:
            raise ScenarioError(
                f"duplicate scenario id {s.id!r} (also in {seen[s.id]})", file=s.origin, path="id"
            )
        seen[s.id] = s.origin


def scenario_to_dict(scenario: Scenario) -> dict[str, Any]:
    """Return the file form of a scenario (view and truth merged back), ready for YAML/JSON."""
    view, truth = scenario.view, scenario.truth
    dumped = view.model_dump(mode="json", exclude={"variables", "sources", "actions"})
    # File order: the scenario's identity first, then the task (as before the TaskView split).
    head = ("format", "id", "kind", "family", "condition")
    out: dict[str, Any] = {k: dumped.pop(k) for k in head} | dumped
    out["variables"] = {
        k: {
            "domain": list(v.domain),
            "prior": list(truth.priors[k]),
            "volatility": v.volatility.value,
        }
        for k, v in view.variables.items()
    }
    out["actions"] = {k: a.model_dump(mode="json") for k, a in view.actions.items()}
    sources = []
    revealer = {h.source.id: h.revealed_by for h in truth.hidden}
    for s in scenario.sources:
        # ``links`` is derived from the hidden sources' ``revealed_by``, never written;
        # ``trusted`` only when false (the default), so older files read and write as before.
        d = s.model_dump(mode="json", exclude={"links"} | ({"trusted"} if s.trusted else set()))
        t = truth.sources[s.id]
        d.update({k: v for k, v in t.model_dump(mode="json").items() if v is not None})
        if s.id in revealer:
            d["revealed_by"] = revealer[s.id]
        sources.append(d)
    out["sources"] = sources
    if truth.world is not None:
        out["world"] = dict(truth.world)
    return out


def scenario_json_schema() -> dict[str, Any]:
    """Return the JSON Schema of the ``heedful.scenario/v1`` file format."""
    schema = _ScenarioDoc.model_json_schema()
    schema["title"] = FORMAT_V1
    schema["properties"]["format"] = {"const": FORMAT_V1, "title": "Format"}
    return schema


__all__ = [
    "UtilityRule",
    "load_scenario_set",
    "load_scenarios",
    "scenario_files",
    "scenario_from_dict",
    "scenario_json_schema",
    "scenario_to_dict",
]
