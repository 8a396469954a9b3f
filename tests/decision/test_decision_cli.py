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


def _kind_files(tmp_path: Path) -> tuple[str, str]:
    d, j = tmp_path / "d.yaml", tmp_path / "j.yaml"
    for family, out in (("D", d), ("J", j)):
        made = CliRunner().invoke(
            app, ["scenario", "generate", "--family", family, "--count", "1", "--out", str(out)]
        )
        assert made.exit_code == 0, made.output
    return str(d), str(j)


def test_bench_oracle_values_switching_and_schedule_files(tmp_path: Path) -> None:
    from heedful.bench.kinds.schedule import ScheduleCase
    from heedful.bench.kinds.switching import SwitchingCase
    from heedful.model.kinds_io import load_any_scenarios

    d, j = _kind_files(tmp_path)
    result = CliRunner().invoke(app, ["bench", "oracle", d, j, DEPLOY, "--json"])
    assert result.exit_code == 0, result.output
    records = {r["id"]: r for r in map(json.loads, result.output.splitlines())}
    switching, schedule = load_any_scenarios(d)[0], load_any_scenarios(j)[0]
    sw = SwitchingCase.prepare(switching)  # type: ignore[arg-type]
    sc = ScheduleCase.prepare(schedule)  # type: ignore[arg-type]
    assert records[switching.id]["v_star"] == sw.oracle.v_star
    assert records[switching.id]["u_random"] == sw.oracle.u_random
    assert len(records[switching.id]["optimal"]) == len(sw.oracle.optimal)
    assert records[schedule.id]["v_star"] == sc.oracle.v_star
    assert len(records[schedule.id]["assignment"]) == sc.problem.slots
    assert records["deploy-a-or-b"]["optimal_sets"] == [["compat_matrix", "registry"]]


def test_bench_oracle_prints_the_d_and_j_oracles(tmp_path: Path) -> None:
    d, j = _kind_files(tmp_path)
    result = CliRunner().invoke(app, ["bench", "oracle", d, j])
    assert result.exit_code == 0, result.output
    assert "(switching)" in result.output and "(schedule)" in result.output
    assert "optimal:" in result.output and "worth serving:" in result.output
    assert "Field required" not in result.output
