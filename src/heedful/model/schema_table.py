"""Every scenario field and its type, read from the JSON Schema (docs/scenario-format.md).

The table in the docs is this module's output (``heedful scenario schema --markdown``), so the
types a reader sees are the ones the loader checks: ``verbosity`` is an integer ≥ 0 because the
schema says so, and a test compares the page with the schema.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["FieldRow", "field_rows", "markdown_field_tables"]


@dataclass(frozen=True)
class FieldRow:
    """One field of one scenario kind.

    Attributes:
        kind: ``inspection``, ``switching`` or ``schedule``.
        path: Where it sits, e.g. ``sources[].salience.verbosity`` (``<name>``: a key you choose).
        type: Its type and bounds in words, e.g. ``integer ≥ 0``.
        required: It must be given.
        default: Its value when omitted (JSON), or ``""`` when it has none.
    """

    kind: str
    path: str
    type: str
    required: bool
    default: str


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    ref = node.get("$ref")
    if ref is None:
        return node
    return defs[ref.rsplit("/", 1)[-1]]


def _num(value: float) -> str:
    return f"{value:g}"


def _bounds(node: dict[str, Any]) -> str:
    lo, hi = node.get("minimum"), node.get("maximum")
    if lo is not None and hi is not None:
        return f" in [{_num(lo)}, {_num(hi)}]"
    if lo is not None:
        return f" ≥ {_num(lo)}"
    if node.get("exclusiveMinimum") is not None:
        return f" > {_num(node['exclusiveMinimum'])}"
    if hi is not None:
        return f" ≤ {_num(hi)}"
    return ""


def _type(node: dict[str, Any], defs: dict[str, Any]) -> str:
    """The type of a schema node in words (objects: ``object``, their fields get rows)."""
    node = _resolve(node, defs)
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    if "anyOf" in node:
        kinds = [b for b in node["anyOf"] if b.get("type") != "null"]
        text = " or ".join(_type(b, defs) for b in kinds)
        return f"{text} or null" if len(kinds) < len(node["anyOf"]) else text
    kind = node.get("type")
    if kind == "array":
        least = node.get("minItems")
        items = _type(node.get("items", {}), defs)
        return f"list of {items}" + (f" (at least {least})" if least else "")
    if kind == "object":
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "properties" not in node:
            least = node.get("minProperties")
            return f"mapping of name → {_type(extra, defs)}" + (
                f" (at least {least})" if least else ""
            )
        return "object"
    if kind in ("integer", "number"):
        return f"{kind}{_bounds(node)}"
    if kind == "string":
        least = node.get("minLength")
        return "string" + (" (not empty)" if least else "")
    if kind == "boolean":
        return "boolean"
    return "any"


def _children(node: dict[str, Any], defs: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The object whose fields a node's rows continue with, and the path step to it."""
    node = _resolve(node, defs)
    if "anyOf" in node:
        for branch in node["anyOf"]:
            found = _children(branch, defs)
            if found is not None:
                return found
        return None
    if node.get("type") == "array":
        inner = _resolve(node.get("items", {}), defs)
        if "properties" in inner:
            return "[].", inner
        return None
    if "properties" in node:
        return ".", node
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        inner = _resolve(extra, defs)
        if "properties" in inner:
            return ".<name>.", inner
    return None


def _walk(kind: str, obj: dict[str, Any], defs: dict[str, Any], prefix: str) -> list[FieldRow]:
    rows: list[FieldRow] = []
    required = set(obj.get("required", []))
    for name, node in obj.get("properties", {}).items():
        default = json.dumps(node["default"], ensure_ascii=False) if "default" in node else ""
        path = prefix + name
        rows.append(FieldRow(kind, path, _type(node, defs), name in required, default))
        step = _children(node, defs)
        if step is not None:
            rows += _walk(kind, step[1], defs, path + step[0])
    return rows


def field_rows(schema: dict[str, Any]) -> list[FieldRow]:
    """Every field of every kind of the scenario JSON Schema, in schema order."""
    defs = schema.get("$defs", {})
    rows: list[FieldRow] = []
    for branch in schema.get("oneOf", [schema]):
        model = _resolve(branch, defs)
        kind = model.get("properties", {}).get("kind", {}).get("const", "inspection")
        rows += _walk(str(kind), model, defs, "")
    return rows


def markdown_field_tables(schema: dict[str, Any]) -> str:
    """One markdown table per scenario kind: field, type, required, default."""
    out: list[str] = []
    rows = field_rows(schema)
    for kind in dict.fromkeys(r.kind for r in rows):
        out += [f"`kind: {kind}`", "", "| field | type | required | default |", "|---|---|---|---|"]
        for r in (r for r in rows if r.kind == kind):
            default = f"`{r.default}`" if r.default else ""
            out.append(f"| `{r.path}` | {r.type} | {'yes' if r.required else ''} | {default} |")
        out.append("")
    return "\n".join(out).rstrip() + "\n"
