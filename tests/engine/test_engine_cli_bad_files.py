"""Bad seed and config files on the engine CLI: one stderr line, exit 2, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )


def _one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ")
    return lines[0]


@pytest.mark.parametrize("name", ["seed.yaml", "seed.json"])
def test_engine_load_of_a_non_utf8_file_is_one_line(tmp_path: Path, name: str) -> None:
    seed = tmp_path / name
    seed.write_bytes(b"\xff\xfe\x00 not text")
    line = _one_error_line(_cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db")))
    assert name in line


def test_engine_load_of_unparsable_yaml_is_one_line_with_its_position(tmp_path: Path) -> None:
    seed = tmp_path / "seed.yaml"
    seed.write_text("goals: [\n  - : :\n")
    line = _one_error_line(_cli("engine", "load", str(seed), "--db", str(tmp_path / "m.db")))
    assert "seed.yaml" in line and "line" in line


def test_engine_config_that_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "engine.json"
    config.write_bytes(b"\xff\xfe\x00")
    (tmp_path / "empty.yaml").write_text("")
    _cli("engine", "load", str(tmp_path / "empty.yaml"), "--db", str(tmp_path / "m.db"))
    line = _one_error_line(
        _cli("engine", "survey", "--db", str(tmp_path / "m.db"), "--config", str(config))
    )
    assert "engine.json" in line


def test_engine_config_of_unparsable_yaml_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "engine.yaml"
    config.write_text(": : :\n")
    (tmp_path / "empty.yaml").write_text("")
    _cli("engine", "load", str(tmp_path / "empty.yaml"), "--db", str(tmp_path / "m.db"))
    line = _one_error_line(
        _cli("engine", "survey", "--db", str(tmp_path / "m.db"), "--config", str(config))
    )
    assert "engine.yaml" in line


def test_survey_table_piped_keeps_goal_titles_readable(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from heedful.cli import app

    seed = tmp_path / "seed.yaml"
    seed.write_text(
        "goals:\n  - {id: g, title: 'Cut cloud cost by 10 percent', status: active}\n"
        "nodes:\n  - {id: n, content: 'cloud usage report', confidence: 0.8}\n"
    )
    db = str(tmp_path / "m.db")
    runner = CliRunner()
    assert runner.invoke(app, ["engine", "load", str(seed), "--db", db]).exit_code == 0
    # Piped with no COLUMNS (pytest-xdist's workers set COLUMNS=80, which the CLI honours).
    result = runner.invoke(
        app, ["engine", "survey", "--db", db, "--triage", "voc"], env={"COLUMNS": None}
    )
    assert result.exit_code == 0, result.output
    assert "Cut cloud cost by 10 percent" in result.output


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("nodes:\n  - {id: a}\nedges:\n  - {source: a, target: b}\n", "unknown node 'b'"),
        ("nodes:\n  - {id: a}\noutcomes:\n  - {status: failure, node_ids: [zz]}\n", "'zz'"),
        ("nodes:\n  - {id: a}\noutcomes:\n  - {status: failure, goal_id: nope}\n", "'nope'"),
        ("nodes:\n  - {id: a}\n  - {id: a}\n", "node 'a'"),
        ("goals:\n  - {id: g, title: T}\n  - {id: g, title: U}\n", "goal 'g'"),
    ],
)
def test_seed_file_with_a_bad_reference_loads_nothing(
    tmp_path: Path, body: str, message: str
) -> None:
    from heedful.engine import InMemoryGraph
    from heedful.engine.seed import load_seed_file
    from heedful.errors import HeedfulError

    graph = InMemoryGraph()
    before = graph.digest()
    path = tmp_path / "seed.yaml"
    path.write_text(body)
    with pytest.raises(HeedfulError, match=message):
        load_seed_file(graph, path)
    assert graph.digest() == before


def test_corrected_seed_file_loads_after_a_failed_load(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    seed = tmp_path / "seed.yaml"
    seed.write_text("nodes:\n  - {id: a}\nedges:\n  - {source: a, target: b}\n")
    assert "unknown node 'b'" in _one_error_line(_cli("engine", "load", str(seed), "--db", db))
    seed.write_text("nodes:\n  - {id: a}\n  - {id: b}\nedges:\n  - {source: a, target: b}\n")
    proc = _cli("engine", "load", str(seed), "--db", db)
    assert proc.returncode == 0, proc.stderr
    assert "2 nodes, 1 edge," in proc.stdout


def test_seed_file_may_reference_nodes_already_in_the_store(tmp_path: Path) -> None:
    db = str(tmp_path / "m.db")
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("nodes:\n  - {id: a}\n")
    second.write_text(
        "nodes:\n  - {id: b}\nedges:\n  - {source: a, target: b}\n"
        "outcomes:\n  - {status: success, node_ids: [a]}\n"
    )
    assert _cli("engine", "load", str(first), "--db", db).returncode == 0
    proc = _cli("engine", "load", str(second), "--db", db)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("nodes:\n  - {id: a}\nedges:\n  - {source: a, target: a}\n  - {source: a, target: b}\n",
         "edges.1.target: unknown node 'b'"),
        ("nodes:\n  - {id: a}\nedges:\n  - {source: x, target: a}\n",
         "edges.0.source: unknown node 'x'"),
        ("nodes:\n  - {id: a}\noutcomes:\n  - {status: failure, node_ids: [a, zz]}\n",
         "outcomes.0.node_ids.1: unknown node 'zz'"),
        ("nodes:\n  - {id: a}\noutcomes:\n  - {status: failure, goal_id: nope}\n",
         "outcomes.0.goal_id: unknown goal 'nope'"),
        ("nodes:\n  - {id: a}\n  - {id: a}\n", "nodes.1.id: node 'a' already exists"),
    ],
)  # fmt: skip
def test_seed_reference_errors_name_the_file_and_the_place(
    tmp_path: Path, body: str, where: str
) -> None:
    from heedful.engine import InMemoryGraph
    from heedful.engine.seed import load_seed_file
    from heedful.errors import HeedfulError

    path = tmp_path / "seed.yaml"
    path.write_text(body)
    with pytest.raises(HeedfulError) as info:
        load_seed_file(InMemoryGraph(), path)
    assert str(info.value) == f"{path}:{where}"


# Code under test here reads the default clock (no clock= reaches it: the CLI, a server, a
# store opened by path): pinned, so no result depends on how long the machine takes.
pytestmark = pytest.mark.usefixtures("fixed_clock")
