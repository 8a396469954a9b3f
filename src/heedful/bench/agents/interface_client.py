"""benchmark_client.py — the agent's side of the heedful benchmark interface (document 000 App. C).

This file is the whole client an agent under test may hold: the Python standard library only,
nothing of the evaluator (no generator, no latent states, no scoring keys, no oracle, no seeds).
Beside it, ``scenario_interface.schema.json`` describes what the agent is shown: a task view
(the task, the budget, the cost weight, the variables' domains and volatility classes, the
actions and their utilities, the agent's beliefs, each source's visible metadata — ``trusted``
among them) and the tool results (observations). The client checks what arrives against that
schema (a view carrying any other field is refused: the interface has no place for a prior, an
accuracy or a world) and builds the arguments of the three tools:

* ``inspect_source`` ``{source_id}`` — adaptive condition, one read at a time;
* ``plan_inspections`` ``{source_ids}`` — static condition, every read at once;
* ``decide`` ``{action, beliefs}`` — the final action and the beliefs it rests on.

Usage::

    python benchmark_client.py validate view.json        # exit 0, or one line and exit 2
    python benchmark_client.py plan view.json a,b         # the plan_inspections arguments

    from benchmark_client import load_view, plan_inspections
    view = load_view(open("view.json").read())
    args = plan_inspections(view, ["registry"])
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

#: The interface schema shipped beside this file.
SCHEMA_FILE = "scenario_interface.schema.json"


class InterfaceError(ValueError):
    """Something does not fit the interface; the message names where."""


def schema() -> dict[str, Any]:
    """The interface schema (read from :data:`SCHEMA_FILE` beside this file)."""
    data: dict[str, Any] = json.loads((Path(__file__).with_name(SCHEMA_FILE)).read_text("utf-8"))
    return data


def _resolve(node: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        node = root["$defs"][name]
    return node


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def check(value: Any, node: dict[str, Any], root: dict[str, Any], where: str = "$") -> None:
    """Check ``value`` against a schema node (the subset the interface uses).

    Raises:
        InterfaceError: naming the path of the first value that does not fit.
    """
    node = _resolve(node, root)
    if "anyOf" in node:
        errors = []
        for option in node["anyOf"]:
            try:
                check(value, option, root, where)
                return
            except InterfaceError as exc:
                errors.append(str(exc))
        raise InterfaceError(errors[0] if errors else f"{where}: fits no option")
    kind = node.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind]) and not (
            kind in ("integer", "number") and isinstance(value, bool)
        )
        if not ok:
            raise InterfaceError(f"{where}: expected {kind}, got {type(value).__name__}")
    if "enum" in node and value not in node["enum"]:
        raise InterfaceError(f"{where}: {value!r} is not one of {node['enum']}")
    if "const" in node and value != node["const"]:
        raise InterfaceError(f"{where}: must be {node['const']!r}")
    for bound, test in (("minimum", lambda a, b: a >= b), ("maximum", lambda a, b: a <= b)):
        if bound in node and isinstance(value, int | float) and not test(value, node[bound]):
            raise InterfaceError(f"{where}: {value!r} is out of range ({bound} {node[bound]})")
    if isinstance(value, dict):
        props = node.get("properties", {})
        for name in node.get("required", []):
            if name not in value:
                raise InterfaceError(f"{where}: missing field {name!r}")
        extra = node.get("additionalProperties", True)
        for name, item in value.items():
            if name in props:
                check(item, props[name], root, f"{where}.{name}")
            elif extra is False:
                raise InterfaceError(f"{where}: {name!r} is not part of the interface")
            elif isinstance(extra, dict):
                check(item, extra, root, f"{where}.{name}")
    if isinstance(value, list) and "items" in node:
        for i, item in enumerate(value):
            check(item, node["items"], root, f"{where}[{i}]")


def load_view(data: str | dict[str, Any]) -> dict[str, Any]:
    """A task view (JSON text or a parsed mapping), checked against the interface.

    Raises:
        InterfaceError: not JSON, or a field outside the interface or of the wrong type.
    """
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise InterfaceError(f"not JSON: {exc.msg} at line {exc.lineno}") from None
    root = schema()
    check(data, root["$defs"]["TaskView"], root)
    assert isinstance(data, dict)
    return data


def load_observation(data: str | dict[str, Any]) -> dict[str, Any]:
    """One tool result (an observation), checked against the interface.

    Raises:
        InterfaceError: as :func:`load_view`.
    """
    if isinstance(data, str):
        data = json.loads(data)
    root = schema()
    check(data, root["$defs"]["Observation"], root)
    assert isinstance(data, dict)
    return data


def _source_ids(view: dict[str, Any]) -> list[str]:
    return [str(s["id"]) for s in view.get("sources", [])]


def inspect_source(view: dict[str, Any], source_id: str) -> dict[str, Any]:
    """The arguments of ``inspect_source`` for a listed source of ``view``.

    Raises:
        InterfaceError: an unknown source.
    """
    if source_id not in _source_ids(view):
        raise InterfaceError(f"unknown source {source_id!r}; known: {_source_ids(view)}")
    return {"source_id": source_id}


def plan_inspections(view: dict[str, Any], source_ids: list[str]) -> dict[str, Any]:
    """The arguments of ``plan_inspections``: distinct listed sources, at most the budget.

    Raises:
        InterfaceError: an unknown or repeated source, or more than the budget.
    """
    known = _source_ids(view)
    for sid in source_ids:
        if sid not in known:
            raise InterfaceError(f"unknown source {sid!r}; known: {known}")
    if len(set(source_ids)) != len(source_ids):
        raise InterfaceError("a source is listed twice")
    if len(source_ids) > int(view["budget"]):
        raise InterfaceError(f"{len(source_ids)} inspections, the budget is {view['budget']}")
    return {"source_ids": list(source_ids)}


def decide(view: dict[str, Any], action: str, beliefs: dict[str, str]) -> dict[str, Any]:
    """The arguments of ``decide``: an action of ``view`` and a value of each named variable.

    Raises:
        InterfaceError: an unknown action or variable, or a value outside its domain.
    """
    if action not in view["actions"]:
        raise InterfaceError(f"unknown action {action!r}; known: {list(view['actions'])}")
    for name, value in beliefs.items():
        var = view["variables"].get(name)
        if var is None:
            raise InterfaceError(f"unknown variable {name!r}")
        if value not in var["domain"]:
            raise InterfaceError(f"{name}: {value!r} is not in the domain {var['domain']}")
    return {"action": action, "beliefs": dict(beliefs)}


def main(argv: list[str] | None = None) -> int:
    """``validate VIEW.json`` or ``plan VIEW.json ID,ID``; exit 2 with one line on a problem."""
    args = sys.argv[1:] if argv is None else argv
    try:
        if len(args) < 2 or args[0] not in ("validate", "plan"):
            raise InterfaceError(
                "usage: benchmark_client.py validate VIEW.json | plan VIEW.json IDS"
            )
        view = load_view(Path(args[1]).read_text("utf-8"))
        if args[0] == "plan":
            ids = [s for s in (args[2] if len(args) > 2 else "").split(",") if s]
            print(json.dumps(plan_inspections(view, ids)))
        else:
            print(f"ok: {len(view.get('sources', []))} sources, budget {view['budget']}")
    except (InterfaceError, OSError) as exc:
        print(f"benchmark_client: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
