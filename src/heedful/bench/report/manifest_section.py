"""The report's manifest: what produced the run, as tables a reader scans (not Python reprs)."""

from __future__ import annotations

import html
import json
from typing import Any

from heedful.bench.report.layout import SCROLL_CLASS
from heedful.bench.results import Manifest

__all__ = ["manifest_html"]


def _e(text: object) -> str:
    return html.escape(str(text))


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict | list):
        return _e(json.dumps(value, ensure_ascii=False, sort_keys=True))
    return _e(value)


def _pairs(rows: list[tuple[str, Any]], head: tuple[str, str]) -> str:
    body = "".join(
        f"<tr><td class='l'>{_e(k)}</td><td class='l wrap'>{_value(v)}</td></tr>" for k, v in rows
    )
    return (
        f"<div class='{SCROLL_CLASS}'><table><tr><th class='l'>{_e(head[0])}</th>"
        f"<th class='l'>{_e(head[1])}</th></tr>{body}</table></div>"
    )


def manifest_html(m: Manifest) -> str:
    """The section: the run's settings and environment, its policies with their parameters, the
    generator versions (and the agent, when one ran)."""
    data = m.model_dump(mode="json")
    policies = data.pop("policies", [])
    versions = data.pop("generator_versions", {})
    agent = data.pop("agent", None)
    data.pop("config", None)  # every number of the benchmark: results.json has it
    out = ["<h2>Manifest</h2>", _pairs(list(data.items()), ("field", "value"))]
    if policies:
        rows = [
            (
                p.get("name", "?"),
                ", ".join(f"{k}={json.dumps(v)}" for k, v in sorted(p.get("params", {}).items()))
                or "defaults",
            )
            for p in policies
        ]
        out += ["<h3>Policies</h3>", _pairs(rows, ("policy", "parameters"))]
    if versions:
        out += [
            "<h3>Generator versions</h3>",
            _pairs(list(versions.items()), ("family or part", "version")),
        ]
    if agent:
        out += ["<h3>Agent</h3>", _pairs(list(agent.items()), ("field", "value"))]
    out.append(
        "<p class='note'>The benchmark's configuration (every threshold and count) is in "
        "results.json under <code>manifest.config</code>.</p>"
    )
    return "\n".join(out)
