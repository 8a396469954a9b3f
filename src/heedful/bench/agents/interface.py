"""The interface-only distribution an agent under test may hold (document 000 Appendix C).

Appendix C separates what the agent may see — ``benchmark_client.py`` and
``scenario_interface.schema.json`` — from everything evaluator-private (generator, latent
states, scoring keys, oracle policy, hold-out seeds, benchmark version). :func:`build_interface`
writes the visible half into a folder of its own:

* ``scenario_interface.schema.json`` — :func:`interface_schema`: the JSON Schema of a task view
  (:class:`~heedful.model.TaskView`, exactly what a policy or an agent is handed — no id,
  family, condition, prior, accuracy, echo, failure rate, render, honesty or world), of one
  observation (a tool result) and of the three tools' arguments;
* ``benchmark_client.py`` — a standard-library-only client
  (:mod:`heedful.bench.agents.interface_client`, copied as is) that checks views and
  observations against the schema and builds tool arguments;
* ``INTERFACE.md`` — what the two are, and what is deliberately absent.

The folder imports nothing of heedful; ``tests/bench/test_bench_interface.py`` checks that and
that no evaluator-private field or module is in it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from heedful.bench.agents import interface_client
from heedful.errors import InvalidArgumentError
from heedful.model import SourceView, TaskView

#: Version of the interface (bump on any change an agent's client must follow).
INTERFACE_VERSION = "heedful.interface/1"
#: The files of a built distribution, in the order they are written.
FILES = ("scenario_interface.schema.json", "benchmark_client.py", "INTERFACE.md")

_IDS = {"type": "array", "items": {"type": "string"}}
_OBSERVATION: dict[str, Any] = {
    "type": "object",
    "description": (
        "One tool result: what an inspection returned. values: variable -> reported value, or "
        "null when the read failed (failed) or its result is not shown yet (withheld, static "
        "condition). revealed: sources this read named that were hidden until now."
    ),
    "properties": {
        "source_id": {"type": "string"},
        "values": {
            "anyOf": [
                {"type": "object", "additionalProperties": {"type": "string"}},
                {"type": "null"},
            ]
        },
        "failed": {"type": "boolean"},
        "withheld": {"type": "boolean"},
        "revealed": {"type": "array", "items": {"$ref": "#/$defs/SourceView"}},
    },
    "required": ["source_id"],
    "additionalProperties": False,
}
_TOOLS: dict[str, Any] = {
    "InspectSource": {
        "type": "object",
        "description": "inspect_source (adaptive condition): one listed or revealed source.",
        "properties": {"source_id": {"type": "string"}},
        "required": ["source_id"],
        "additionalProperties": False,
    },
    "PlanInspections": {
        "type": "object",
        "description": "plan_inspections (static condition): distinct sources, at most budget.",
        "properties": {"source_ids": _IDS},
        "required": ["source_ids"],
        "additionalProperties": False,
    },
    "Decide": {
        "type": "object",
        "description": "decide: an action of the view and a value per decision variable.",
        "properties": {
            "action": {"type": "string"},
            "beliefs": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["action", "beliefs"],
        "additionalProperties": False,
    },
}

_README = """# heedful benchmark interface ({version})

What an agent under test may hold (document 000 Appendix C, "piper-visible"):

- `scenario_interface.schema.json` — the JSON Schema of a task view (`$defs.TaskView`: the
  task, the budget, the cost weight, the variables' domains and volatility classes, the actions
  and their utilities, the agent's beliefs, each source's visible metadata — `trusted` among
  them: an untrusted source's authority is only a claim), of one tool result
  (`$defs.Observation`) and of the tools' arguments (`$defs.InspectSource`,
  `$defs.PlanInspections`, `$defs.Decide`);
- `benchmark_client.py` — a Python standard-library client: `load_view`, `load_observation`,
  `inspect_source`, `plan_inspections`, `decide`; `python benchmark_client.py validate VIEW.json`.

Deliberately absent (evaluator-private): the generator, latent states (priors, the world,
whether an untrusted source is honest), scoring keys (accuracies, echoes, failure rates,
renders), the oracle, hold-out seeds and keys, and the benchmark's own version record. A view
that carries any field outside the schema is refused by the client.
"""


def interface_schema() -> dict[str, Any]:
    """The JSON Schema of what an agent sees: task views, observations, tool arguments."""
    task = TaskView.model_json_schema(ref_template="#/$defs/{model}")
    defs = dict(task.pop("$defs", {}))
    defs["TaskView"] = task
    defs.setdefault("SourceView", SourceView.model_json_schema(ref_template="#/$defs/{model}"))
    defs["Observation"] = _OBSERVATION
    defs.update(_TOOLS)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "heedful scenario interface",
        "version": INTERFACE_VERSION,
        "description": (
            "What an agent under test is shown by the heedful benchmark (document 000 "
            "Appendix C): nothing evaluator-private."
        ),
        "$ref": "#/$defs/TaskView",
        "$defs": defs,
    }


def build_interface(out: str | Path) -> list[Path]:
    """Write the interface-only distribution into ``out`` (created; must be new or empty).

    Returns:
        The written files, in :data:`FILES` order.

    Raises:
        InvalidArgumentError: ``out`` is a file, or a folder that already holds something.
    """
    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InvalidArgumentError(f"{folder}: give a new or empty folder for the interface")
    folder.mkdir(parents=True, exist_ok=True)
    schema_path, client_path, readme_path = (folder / name for name in FILES)
    schema_path.write_text(json.dumps(interface_schema(), indent=1) + "\n", encoding="utf-8")
    shutil.copyfile(Path(interface_client.__file__), client_path)
    readme_path.write_text(_README.format(version=INTERFACE_VERSION), encoding="utf-8")
    return [schema_path, client_path, readme_path]
