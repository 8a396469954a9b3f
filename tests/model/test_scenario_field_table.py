"""docs/scenario-format.md's field table is the schema's (`heedful scenario schema --markdown`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from heedful.errors import ScenarioError
from heedful.model import load_scenarios
from heedful.model.kinds_io import all_scenario_json_schema
from heedful.model.schema_table import field_rows, markdown_field_tables

DOC = Path(__file__).resolve().parents[2] / "docs" / "scenario-format.md"


def test_the_docs_table_is_the_schemas() -> None:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- fields:begin -->\n(.*?)<!-- fields:end -->", text, re.S)
    assert found, "docs/scenario-format.md has no generated field table"
    assert found.group(1) == markdown_field_tables(all_scenario_json_schema())


def test_every_property_of_the_schema_has_a_row() -> None:
    schema = all_scenario_json_schema()
    names = {n for d in schema["$defs"].values() for n in d.get("properties", {})}
    paths = {r.path.rsplit(".", 1)[-1].removeprefix("[]") for r in field_rows(schema)}
    assert names <= paths
    rows = {(r.kind, r.path): r for r in field_rows(schema)}
    assert rows[("inspection", "sources[].salience.verbosity")].type == "integer ≥ 0"
    assert rows[("inspection", "budget")].required
    assert rows[("schedule", "obligations[].timescale")].type == (
        "`minutes` \\| `hours` \\| `week`"
    )


def test_a_value_of_the_wrong_type_is_refused_as_the_table_says(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "format: heedful.scenario/v1\nid: s\nbudget: 1\n"
        "variables: {x: {domain: [a, b], prior: [0.5, 0.5]}}\n"
        "actions: {go: {utility: [{value: 1.0}]}}\n"
        "sources: [{id: a, reports: [x], accuracy: 0.9, salience: {verbosity: 12.5}}]\n"
    )
    with pytest.raises(ScenarioError, match="verbosity"):
        load_scenarios(path)
