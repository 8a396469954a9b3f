"""The JSON turn protocol for small models (``--protocol json``, docs/llm.md).

Each turn the model answers one JSON object ``{"tool": NAME, "arguments": {...}}``. Its schema
is built from the trial's real tools, so it admits only the scenario's tool names, source ids,
actions and belief values; where the runtime takes a grammar (llama.cpp: GBNF) the model cannot
produce anything else. The same schema is sent as an OpenAI ``response_format`` to any
endpoint, and the local server turns native ``tools`` requests into this protocol for models
that have no tool-call format of their own.
"""

from __future__ import annotations

import json
from typing import Any

from heedful.bench.agents.bounded import loads_bounded

__all__ = [
    "flatten_messages",
    "parse_turn",
    "schema_grammar",
    "tools_prompt",
    "turn_schema",
]


def turn_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON Schema of one turn: one of the tools with its own arguments."""
    options = []
    for tool in tools:
        fn = tool["function"]
        options.append(
            {
                "type": "object",
                "properties": {
                    "tool": {"type": "string", "enum": [fn["name"]]},
                    "arguments": fn.get("parameters") or {"type": "object", "properties": {}},
                },
                "required": ["tool", "arguments"],
                "additionalProperties": False,
            }
        )
    return {"anyOf": options}


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """What the system message adds under this protocol: the tools and the answer format.

    It names no value of the scenario (no source id, action, variable or value: the task lists
    them, and the schema or grammar admits only them), so the system message is the same text
    in every trial of an agent and condition: the shared prefix a local model's KV cache keeps
    from one trial to the next.
    """
    lines = [
        "Answer every turn with exactly one JSON object and nothing else:",
        '{"tool": "<tool name>", "arguments": {<the tool\'s arguments>}}',
        "Tools:",
    ]
    for tool in tools:
        fn = tool["function"]
        props = (fn.get("parameters") or {}).get("properties") or {}
        args = ", ".join(f"{k}: {_shape(v)}" for k, v in props.items()) or "no arguments"
        lines.append(f"- {fn['name']}({args}): {fn.get('description', '')}")
    return "\n".join(lines)


def _shape(schema: dict[str, Any]) -> str:
    """An argument's shape in words, without the scenario's values (see :func:`tools_prompt`)."""
    if "enum" in schema:
        return "one of the values listed in the task"
    if schema.get("type") == "array":
        return "list of distinct ids listed in the task" if schema.get("uniqueItems") else "list"
    if schema.get("type") == "object":
        return "{variable: value, ...} for the variables you state"
    return str(schema.get("type", "value"))


def parse_turn(text: str) -> tuple[str, dict[str, Any]] | None:
    """``(tool, arguments)`` of one turn's text, or ``None`` when it is not such an object.

    The first ``{`` to the last ``}`` is parsed (a model may wrap the object in prose or a code
    fence); nesting is bounded; ``arguments`` must be an object.
    """
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        data = loads_bounded(text[start : end + 1])
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("tool"), str):
        return None
    args = data.get("arguments", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        return None
    return data["tool"], args


def flatten_messages(messages: list[dict[str, Any]]) -> list[dict[str, str]]:
    """A chat with tool calls as plain system/user/assistant text turns: an assistant's tool
    call becomes its JSON turn, a tool result becomes a user turn saying what the tool answered
    (chat templates of small models have no tool role, or drop its content)."""
    out: list[dict[str, str]] = []
    names: dict[str, str] = {}
    for m in messages:
        role = m.get("role")
        content = m.get("content")
        text = content if isinstance(content, str) else ""
        if role == "assistant" and m.get("tool_calls"):
            turns = []
            for call in m["tool_calls"]:
                fn = call.get("function") or {}
                names[str(call.get("id"))] = str(fn.get("name"))
                args = fn.get("arguments")
                try:
                    parsed = loads_bounded(args) if isinstance(args, str) and args else {}
                except ValueError:
                    parsed = args
                turns.append(json.dumps({"tool": fn.get("name"), "arguments": parsed}))
            out.append({"role": "assistant", "content": "\n".join(turns)})
        elif role == "tool":
            name = names.get(str(m.get("tool_call_id")), "the tool")
            out.append({"role": "user", "content": f"Result of {name}:\n{text}"})
        elif role in ("system", "user", "assistant"):
            out.append({"role": str(role), "content": text})
        else:
            out.append({"role": "user", "content": text})
    return out


# -- JSON Schema → GBNF (the subset heedful's tool schemas use) --------------------------------


class _Grammar:
    def __init__(self) -> None:
        self.rules: dict[str, str] = {}

    def add(self, name: str, body: str) -> str:
        base, n = name, 1
        while name in self.rules and self.rules[name] != body:
            n += 1
            name = f"{base}{n}"
        self.rules[name] = body
        return name

    def visit(self, schema: dict[str, Any], name: str) -> str:
        if "anyOf" in schema or "oneOf" in schema:
            alts = schema.get("anyOf") or schema.get("oneOf") or []
            parts = [self.visit(s, f"{name}-{i}") for i, s in enumerate(alts)]
            return self.add(name, " | ".join(parts))
        if "enum" in schema:
            return self.add(name, " | ".join(_literal(json.dumps(v)) for v in schema["enum"]))
        kind = schema.get("type")
        if kind == "object":
            props: dict[str, Any] = schema.get("properties") or {}
            required = [k for k in schema.get("required", []) if k in props]
            if required:
                parts = []
                for k in required:
                    value = self.visit(props[k], f"{name}-{_rule(k)}")
                    parts.append(f'{_literal(json.dumps(k))} ":" {value}')
                body = '"{" ' + ' "," '.join(parts) + ' "}"'
                return self.add(name, body)
            if not props:
                return self.add(name, '"{" "}"')
            # Optional properties only (the beliefs of decide): any of them, comma-separated.
            pairs = [
                f'{_literal(json.dumps(k))} ":" {self.visit(v, f"{name}-{_rule(k)}")}'
                for k, v in props.items()
            ]
            pair = self.add(f"{name}-pair", " | ".join(f"( {p} )" for p in pairs))
            limit = len(props)
            tail = f'( "," {pair} ){{0,{limit - 1}}}' if limit > 1 else ""
            return self.add(name, f'"{{" ( {pair} {tail} )? "}}"')
        if kind == "array":
            items = schema.get("items") or {"type": "string"}
            if schema.get("uniqueItems") and isinstance(items.get("enum"), list):
                return self._unique(schema, items["enum"], name)
            item = self.visit(items, f"{name}-item")
            most = schema.get("maxItems")
            rest = f"{{0,{int(most) - 1}}}" if isinstance(most, int) and most >= 1 else "*"
            if most == 0:
                return self.add(name, '"[" "]"')
            return self.add(name, f'"[" ( {item} ( "," {item} ){rest} )? "]"')
        if kind == "string":
            return self.add("string", '"\\"" [^"\\\\\\x00-\\x1f]{0,200} "\\""')
        if kind in ("number", "integer"):
            return self.add("number", '"-"? [0-9]{1,12}')
        if kind == "boolean":
            return self.add("boolean", '"true" | "false"')
        return self.add("string", '"\\"" [^"\\\\\\x00-\\x1f]{0,200} "\\""')

    def _unique(self, schema: dict[str, Any], values: list[Any], name: str) -> str:
        """A set of enum values (``uniqueItems``): distinct values, in the enum's order (every
        set has exactly one such spelling), between ``minItems`` and ``maxItems`` of them.

        ``from-i-j``: value *i* then at most *j − 1* more, each after the one before it in the
        enum; ``need`` says how many at least.
        """
        n = len(values)
        most = schema.get("maxItems")
        most = min(n, int(most)) if isinstance(most, int) and most >= 0 else n
        least = schema.get("minItems")
        least = max(0, int(least)) if isinstance(least, int) else 0
        if most == 0 or least > most:
            return self.add(name, '"[" "]"')
        lits = [_literal(json.dumps(v)) for v in values]
        rules: dict[tuple[int, int, int], str] = {}

        def start(i: int, room: int, need: int) -> str:
            """Rule: value i first, then up to ``room − 1`` later values, ``need`` at least
            in all (``need`` ≥ 1 counts value i)."""
            key = (i, room, need)
            if key not in rules:
                later = [
                    start(m, room - 1, max(need - 1, 1))
                    for m in range(i + 1, n)
                    if room > 1 and n - m >= need - 1  # enough values left for ``need``
                ]
                if not later:
                    body = lits[i]
                else:
                    tail = f'"," ( {" | ".join(later)} )'
                    body = f"{lits[i]} {tail}" if need > 1 else f"{lits[i]} ( {tail} )?"
                rules[key] = self.add(f"{name}-from-{i}-{room}-{need}", body)
            return rules[key]

        firsts = [start(i, most, max(least, 1)) for i in range(n) if n - i >= max(least, 1)]
        inner = " | ".join(firsts)
        if least == 0:
            return self.add(name, f'"[" ( {inner} )? "]"')
        return self.add(name, f'"[" ( {inner} ) "]"')


def _rule(text: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in text).strip("-").lower() or "x"


def _literal(text: str) -> str:
    """A GBNF string literal matching ``text`` exactly."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def schema_grammar(schema: dict[str, Any]) -> str:
    """A GBNF grammar (llama.cpp) that admits exactly the JSON texts ``schema`` describes,
    for the subset the tool schemas use (objects, string enums, arrays of them, anyOf)."""
    g = _Grammar()
    root = g.visit(schema, "value")
    g.rules["root"] = root
    return "\n".join(f"{name} ::= {body}" for name, body in g.rules.items()) + "\n"
