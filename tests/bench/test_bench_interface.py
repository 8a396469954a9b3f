"""The interface-only distribution (document 000 Appendix C): it builds, holds nothing
evaluator-private, imports nothing of heedful, and its client accepts every view a policy gets
and refuses anything more."""

from __future__ import annotations

import ast
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from heedful.bench.agents.interface import FILES, INTERFACE_VERSION, build_interface
from heedful.bench.views import policy_view
from heedful.bench.worlds.families import family_names, generate_family, get_family
from heedful.cli import app
from heedful.errors import InvalidArgumentError
from heedful.model import ScenarioTruth, SourceTruth, scenario_to_dict

#: Every PRIVATE field of the scenario format, and the scenario-only fields a policy never sees
#: (the truth's ``sources`` maps ids to a :class:`SourceTruth`, whose fields are listed; the
#: view's ``sources`` of the same name are the visible ones).
PRIVATE = (
    set(SourceTruth.model_fields)
    | (set(ScenarioTruth.model_fields) - {"sources"})
    | {"prior", "revealed_by", "format", "family", "condition"}
)
#: Standard-library modules the client may import (and nothing else).
STDLIB = {"__future__", "json", "sys", "pathlib", "typing"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("visible") / "piper-visible"
    build_interface(out)
    return out


@pytest.fixture(scope="module")
def client(built: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_client", built / "benchmark_client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["benchmark_client"] = module
    spec.loader.exec_module(module)
    return module


def _property_names(node: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        found |= set(node.get("properties", {}))
        for value in node.values():
            found |= _property_names(value)
    elif isinstance(node, list):
        for value in node:
            found |= _property_names(value)
    return found


def test_the_distribution_holds_exactly_the_schema_the_client_and_a_readme(built: Path) -> None:
    assert sorted(p.name for p in built.iterdir()) == sorted(FILES)


def test_the_schema_has_no_private_field(built: Path) -> None:
    schema = json.loads((built / "scenario_interface.schema.json").read_text())
    assert schema["version"] == INTERFACE_VERSION
    names = _property_names(schema)
    assert {"task", "budget", "sources", "authority", "trusted", "links"} <= names
    assert not names & PRIVATE, names & PRIVATE


def test_no_file_names_a_private_module_or_imports_heedful(built: Path) -> None:
    tree = ast.parse((built / "benchmark_client.py").read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert {m.split(".")[0] for m in imported} <= STDLIB, imported
    for path in built.iterdir():
        text = path.read_text()
        for private in ("heedful.decision", "heedful.bench", "worlds", "oracle_policy", "holdout"):
            assert f"import {private}" not in text and f"from {private}" not in text


@pytest.mark.parametrize("family", [f for f in family_names() if get_family(f).code not in "DJ"])
def test_the_client_accepts_the_view_of_every_inspection_family(
    family: str, client: ModuleType
) -> None:
    for scenario in generate_family(family, 2, 0):
        view = json.loads(policy_view(scenario).model_dump_json())
        assert client.load_view(view) == view


def test_the_client_refuses_a_scenario_file_with_its_private_fields(client: ModuleType) -> None:
    raw = scenario_to_dict(generate_family("K", 1, 0)[0])
    with pytest.raises(client.InterfaceError, match="not part of the interface"):
        client.load_view(raw)


def test_the_client_refuses_a_source_that_carries_its_accuracy(client: ModuleType) -> None:
    view = json.loads(policy_view(generate_family("G", 1, 0)[0]).model_dump_json())
    view["sources"][0]["accuracy"] = 0.9
    with pytest.raises(client.InterfaceError, match=r"sources\[0\]: 'accuracy'"):
        client.load_view(view)


def test_the_client_builds_tool_arguments_within_the_view(client: ModuleType) -> None:
    view = json.loads(policy_view(generate_family("G", 1, 0)[0]).model_dump_json())
    first = view["sources"][0]["id"]
    assert client.plan_inspections(view, [first]) == {"source_ids": [first]}
    assert client.inspect_source(view, first) == {"source_id": first}
    with pytest.raises(client.InterfaceError, match="unknown source"):
        client.plan_inspections(view, ["nope"])
    with pytest.raises(client.InterfaceError, match="budget"):
        client.plan_inspections(view, [s["id"] for s in view["sources"]])
    action = next(iter(view["actions"]))
    var, spec = next(iter(view["variables"].items()))
    assert client.decide(view, action, {var: spec["domain"][0]})["action"] == action
    with pytest.raises(client.InterfaceError, match="not in the domain"):
        client.decide(view, action, {var: "no-such-value"})


def test_the_client_checks_an_observation(client: ModuleType) -> None:
    assert client.load_observation({"source_id": "a", "values": {"x": "1"}})["source_id"] == "a"
    with pytest.raises(client.InterfaceError, match="expected string"):
        client.load_observation({"source_id": "a", "values": {"x": 1}})


def test_build_refuses_a_folder_that_holds_something(tmp_path: Path) -> None:
    (tmp_path / "x").write_text("")
    with pytest.raises(InvalidArgumentError, match="new or empty folder"):
        build_interface(tmp_path)


def test_the_command_builds_it_and_its_client_runs_on_its_own(tmp_path: Path) -> None:
    import subprocess

    out = tmp_path / "visible"
    result = CliRunner().invoke(app, ["interface", "build", "--out", str(out)])
    assert result.exit_code == 0, result.output
    view = tmp_path / "view.json"
    view.write_text(policy_view(generate_family("B", 1, 0)[0]).model_dump_json())
    ran = subprocess.run(
        [sys.executable, "-I", str(out / "benchmark_client.py"), "validate", str(view)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert ran.returncode == 0 and ran.stdout.startswith("ok: "), ran.stderr
