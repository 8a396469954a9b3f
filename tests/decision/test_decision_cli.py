from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from heedful.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
DEPLOY = str(EXAMPLES / "deploy_a_or_b.yaml")
XOR = str(EXAMPLES / "xor_jointly_informative.yaml")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "heedful.cli", *args], capture_output=True, text=True, check=False
    )


def test_validate_prints_ok_per_file() -> None:
    result = CliRunner().invoke(app, ["scenario", "validate", DEPLOY, XOR])
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        f"ok {DEPLOY} (1 scenario)",
        f"ok {XOR} (1 scenario)",
    ]


def test_validate_reports_a_bad_file_in_one_line_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(Path(DEPLOY).read_text().replace("budget: 3", "budget: -1"))
    proc = _run("scenario", "validate", str(bad))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.strip().count("\n") == 0
    assert "budget" in proc.stderr


def test_validate_missing_file_exits_2() -> None:
    proc = _run("scenario", "validate", "no/such/file.yaml")
    assert proc.returncode == 2
    assert "no such file" in proc.stderr


def test_schema_prints_json_schema_of_the_format() -> None:
    result = CliRunner().invoke(app, ["scenario", "schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"] == "heedful.scenario/v1"


def test_bench_oracle_json_has_one_object_per_scenario() -> None:
    result = CliRunner().invoke(app, ["bench", "oracle", DEPLOY, XOR, "--json"])
    assert result.exit_code == 0
    records = [json.loads(line) for line in result.output.splitlines()]
    assert [r["id"] for r in records] == ["deploy-a-or-b", "xor-jointly-informative"]
    assert records[0]["optimal_sets"] == [["compat_matrix", "registry"]]
    assert {"id", "v_star", "optimal_sets", "u_random", "v_empty", "critical"} <= set(records[0])
    assert "v_adaptive" not in records[0]


def test_bench_oracle_adaptive_adds_the_adaptive_value() -> None:
    result = CliRunner().invoke(app, ["bench", "oracle", XOR, "--json", "--adaptive"])
    record = json.loads(result.output)
    assert record["v_adaptive"] >= record["v_star"] - 1e-9


def test_bench_oracle_prints_a_table() -> None:
    result = CliRunner().invoke(app, ["bench", "oracle", DEPLOY])
    assert result.exit_code == 0
    assert "deploy-a-or-b" in result.output
    assert "compat_matrix, registry" in result.output


def test_bench_oracle_bad_input_exits_2_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: heedful.scenario/v1\nid: x\n")
    proc = _run("bench", "oracle", str(bad))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: ")
