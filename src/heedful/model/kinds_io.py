"""Reading, validating and writing scenarios of every kind (SPEC §2): ``inspection`` (see
:mod:`heedful.model.scenario_io`), ``switching`` and ``schedule``.

PRIVATE fields sit inline in the file (``value``, ``deadline``, ``resume_cost`` of an interruption;
``value``, ``deadline``, ``hazard`` of an obligation) and are split off into the scenario's truth
on loading. Every problem is a :class:`heedful.errors.ScenarioError` naming the file, the path
inside it (``interruptions[2].deadline``) and what is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from heedful.errors import ScenarioError
from heedful.model.inputs import Id, validate_strict
from heedful.model.scenario import FORMAT_V1, Scenario, ScenarioKind
from heedful.model.scenario_io import (
    _Checker,
    _loc,
    _parse,
    _ScenarioDoc,
    check_header,
    check_unique_ids,
    scenario_files,
    scenario_from_dict,
    scenario_to_dict,
)
from heedful.model.schedule import (
    ObligationTruth,
    ObligationView,
    ScheduleScenario,
    ScheduleTruth,
    ScheduleView,
)
from heedful.model.switching import (
    InterruptionTruth,
    InterruptionView,
    MainTaskView,
    SwitchingScenario,
    SwitchingTruth,
    SwitchingView,
)

__all__ = [
    "AnyScenario",
    "all_scenario_json_schema",
    "any_scenario_from_dict",
    "any_scenario_to_dict",
    "load_any_scenario_set",
    "load_any_scenarios",
]

#: A loaded scenario of any kind.
AnyScenario = Scenario | SwitchingScenario | ScheduleScenario


class _Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _InterruptionDoc(InterruptionView):
    model_config = ConfigDict(frozen=True, extra="forbid", title="Interruption")
    value: float = Field(ge=0.0, description="PRIVATE: utility if handled by the deadline")
    deadline: int = Field(ge=0, description="PRIVATE: step by which handling must be done")
    resume_cost: int = Field(
        default=0, ge=0, description="PRIVATE: extra task steps caused by switching to it"
    )


class _SwitchingDoc(_Doc):
    model_config = ConfigDict(extra="forbid", title="heedful.scenario/v1 (kind: switching)")
    format: str
    id: Id
    kind: Literal["switching"]
    family: str = "custom"
    task: str = ""
    horizon: int = Field(ge=1)
    switch_cost: float = Field(default=0.0, ge=0.0)
    main: MainTaskView
    interruptions: list[_InterruptionDoc] = Field(min_length=1)


class _ObligationDoc(ObligationView):
    model_config = ConfigDict(frozen=True, extra="forbid", title="Obligation")
    value: float = Field(ge=0.0, description="PRIVATE: utility if done by the deadline")
    deadline: int = Field(ge=1, description="PRIVATE: slot count by which it must be done")
    hazard: float = Field(
        default=0.0, ge=0.0, lt=1.0, description="PRIVATE: chance per slot that it lapses"
    )


class _ScheduleDoc(_Doc):
    model_config = ConfigDict(extra="forbid", title="heedful.scenario/v1 (kind: schedule)")
    format: str
    id: Id
    kind: Literal["schedule"]
    family: str = "custom"
    task: str = ""
    slots: int = Field(ge=1)
    slot_minutes: float = Field(default=30.0, gt=0.0)
    obligations: list[_ObligationDoc] = Field(min_length=1)


def _validated(model: type[BaseModel], raw: dict[str, Any], chk: _Checker) -> Any:
    try:
        return validate_strict(model, raw)
    except ValidationError as exc:
        err = exc.errors()[0]
        extra = exc.error_count() - 1
        more = f" (and {extra} more problem{'s' if extra > 1 else ''})" if extra else ""
        raise chk.fail(_loc(err["loc"]), f"{err['msg']}{more}") from None


def _unique_ids(items: Sequence[Any], where: str, chk: _Checker) -> None:
    seen: dict[str, int] = {}
    for i, item in enumerate(items):
        if item.id in seen:
            raise chk.fail(
                f"{where}[{i}].id", f"duplicate id {item.id!r} (also {where}[{seen[item.id]}])"
            )
        seen[item.id] = i


def _finite(pairs: Sequence[tuple[str, float]], chk: _Checker) -> None:
    for where, number in pairs:
        if not math.isfinite(number):
            raise chk.fail(where, f"must be finite, got {number!r}")


def switching_from_dict(
    raw: dict[str, Any], *, file: str = "<memory>", prefix: str = ""
) -> SwitchingScenario:
    """Validate one ``kind: switching`` scenario and split it into view and truth.

    Raises:
        ScenarioError: naming the file, the path and what is wrong.
    """
    chk = _Checker(file, prefix)
    doc: _SwitchingDoc = _validated(_SwitchingDoc, raw, chk)
    _finite(
        [("switch_cost", doc.switch_cost), ("main.value", doc.main.value)]
        + [(f"interruptions[{i}].stakes", x.stakes) for i, x in enumerate(doc.interruptions)]
        + [(f"interruptions[{i}].value", x.value) for i, x in enumerate(doc.interruptions)],
        chk,
    )
    _unique_ids(doc.interruptions, "interruptions", chk)
    for i, x in enumerate(doc.interruptions):
        if x.arrives_at >= doc.horizon:
            raise chk.fail(
                f"interruptions[{i}].arrives_at",
                f"{x.arrives_at} is not before the horizon ({doc.horizon})",
            )
    visible = set(InterruptionView.model_fields)
    view = SwitchingView(
        id=doc.id,
        family=doc.family,
        task=doc.task,
        horizon=doc.horizon,
        switch_cost=doc.switch_cost,
        main=doc.main,
        interruptions=tuple(
            InterruptionView(**x.model_dump(include=visible)) for x in doc.interruptions
        ),
    )
    truth = SwitchingTruth(
        interruptions={
            x.id: InterruptionTruth(value=x.value, deadline=x.deadline, resume_cost=x.resume_cost)
            for x in doc.interruptions
        }
    )
    return SwitchingScenario(view=view, truth=truth, origin=file)


def schedule_from_dict(
    raw: dict[str, Any], *, file: str = "<memory>", prefix: str = ""
) -> ScheduleScenario:
    """Validate one ``kind: schedule`` scenario and split it into view and truth.

    Raises:
        ScenarioError: naming the file, the path and what is wrong.
    """
    chk = _Checker(file, prefix)
    doc: _ScheduleDoc = _validated(_ScheduleDoc, raw, chk)
    _finite(
        [("slot_minutes", doc.slot_minutes)]
        + [(f"obligations[{i}].stakes", o.stakes) for i, o in enumerate(doc.obligations)]
        + [(f"obligations[{i}].value", o.value) for i, o in enumerate(doc.obligations)],
        chk,
    )
    _unique_ids(doc.obligations, "obligations", chk)
    for i, o in enumerate(doc.obligations):
        if o.arrives_at >= doc.slots:
            raise chk.fail(
                f"obligations[{i}].arrives_at",
                f"{o.arrives_at} is not before the end of the horizon ({doc.slots} slots)",
            )
    visible = set(ObligationView.model_fields)
    view = ScheduleView(
        id=doc.id,
        family=doc.family,
        task=doc.task,
        slots=doc.slots,
        slot_minutes=doc.slot_minutes,
        obligations=tuple(ObligationView(**o.model_dump(include=visible)) for o in doc.obligations),
    )
    truth = ScheduleTruth(
        obligations={
            o.id: ObligationTruth(value=o.value, deadline=o.deadline, hazard=o.hazard)
            for o in doc.obligations
        }
    )
    return ScheduleScenario(view=view, truth=truth, origin=file)


def any_scenario_from_dict(raw: Any, *, file: str = "<memory>", prefix: str = "") -> AnyScenario:
    """Validate one scenario of any kind (``kind`` absent means ``inspection``).

    Raises:
        ScenarioError: naming the file, the path and what is wrong.
    """
    chk = _Checker(file, prefix)
    check_header(raw, chk)
    kind = raw.get("kind", ScenarioKind.INSPECTION.value)
    if kind == ScenarioKind.SWITCHING.value:
        return switching_from_dict(raw, file=file, prefix=prefix)
    if kind == ScenarioKind.SCHEDULE.value:
        return schedule_from_dict(raw, file=file, prefix=prefix)
    if kind != ScenarioKind.INSPECTION.value:
        known = ", ".join(k.value for k in ScenarioKind)
        raise chk.fail("kind", f"unknown kind {kind!r}; known kinds: {known}")
    return scenario_from_dict(raw, file=file, prefix=prefix)


def load_any_scenarios(path: str | Path) -> list[AnyScenario]:
    """Load every scenario (of any kind) in one YAML or JSON file."""
    p = Path(path)
    data = _parse(p)
    if isinstance(data, list):
        if not data:
            raise ScenarioError("the file holds an empty list", file=str(p))
        items = [
            any_scenario_from_dict(item, file=str(p), prefix=f"[{i}]")
            for i, item in enumerate(data)
        ]
    else:
        items = [any_scenario_from_dict(data, file=str(p))]
    check_unique_ids(items)
    return items


def load_any_scenario_set(paths: Sequence[str | Path]) -> list[AnyScenario]:
    """Load scenarios of any kind from files and folders; ids unique across the set."""
    items = [s for f in scenario_files(paths) for s in load_any_scenarios(f)]
    check_unique_ids(items)
    return items


def any_scenario_to_dict(scenario: AnyScenario) -> dict[str, Any]:
    """Return the file form of a scenario of any kind (view and truth merged back)."""
    if isinstance(scenario, Scenario):
        return scenario_to_dict(scenario)
    if isinstance(scenario, SwitchingScenario):
        out = scenario.view.model_dump(mode="json", exclude={"interruptions"})
        out["interruptions"] = [
            {
                **x.model_dump(mode="json"),
                **scenario.truth.interruptions[x.id].model_dump(mode="json"),
            }
            for x in scenario.view.interruptions
        ]
        return out
    out = scenario.view.model_dump(mode="json", exclude={"obligations"})
    out["obligations"] = [
        {**o.model_dump(mode="json"), **scenario.truth.obligations[o.id].model_dump(mode="json")}
        for o in scenario.view.obligations
    ]
    return out


def all_scenario_json_schema() -> dict[str, Any]:
    """Return one JSON Schema accepting a scenario of every kind (``oneOf`` over the kinds)."""
    defs: dict[str, Any] = {}
    branches = []
    for name, model, kind in (
        ("InspectionScenario", _ScenarioDoc, ScenarioKind.INSPECTION.value),
        ("SwitchingScenario", _SwitchingDoc, ScenarioKind.SWITCHING.value),
        ("ScheduleScenario", _ScheduleDoc, ScenarioKind.SCHEDULE.value),
    ):
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        for key, sub in schema.pop("$defs", {}).items():
            if key in defs and defs[key] != sub:
                raise AssertionError(f"schema definition {key!r} differs between kinds")
            defs[key] = sub
        schema["properties"]["format"] = {"const": FORMAT_V1, "title": "Format"}
        schema["properties"]["kind"] = (
            {"const": kind, "default": kind} if kind == "inspection" else {"const": kind}
        )
        if kind != "inspection":
            schema["required"] = sorted({*schema.get("required", []), "kind"})
        defs[name] = schema
        branches.append({"$ref": f"#/$defs/{name}"})
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": FORMAT_V1,
        "description": "A heedful scenario of kind inspection (default), switching or schedule.",
        "oneOf": branches,
        "$defs": defs,
    }
