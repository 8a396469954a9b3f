"""examples/redteam/check_families.py, probes_at_commit.py and trust_rules.py: the commands
docs/benchmark.md names for check_family's verdicts, now and on an older commit's generators,
and for family K's trust checks."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, ROOT / "examples" / "redteam" / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_check_families_prints_each_probe_net_and_the_cost_probes_gross(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _script("check_families").main(["--family", "B", "--count", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("B (B-v") and out[0].endswith("PASS")
    assert [line.split()[:2] for line in out[1:] if "gross" in line] == [
        ["cost", "gross"],
        ["surface", "gross"],
    ]


def test_metadata_ranking_prints_one_row_per_family_and_what_it_measures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _script("metadata_ranking").main(["--family", "B,G", "--count", "12"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out] == ["B", "G"]
    assert "measures summary substitution" in out[0]
    assert out[1].endswith("measures value of information")


def test_trust_rules_prints_both_gaps_and_its_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    assert _script("trust_rules").main(["--count", "24"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("family K: ") and "voc-model" in out[0]
    assert [line.split()[0] for line in out[1:3]] == ["trust-everything", "trust-nothing"]
    assert out[-1] == "PASS"


def test_trust_rules_fails_when_the_margin_is_out_of_reach(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _script("trust_rules").main(["--count", "8", "--margin", "200"]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("FAIL: trust-everything")


@pytest.mark.parametrize(
    ("name", "argv", "message"),
    [
        ("check_families", ["--count", "1"], "--count must be at least 2"),
        ("check_families", ["--family", "Q"], "check_families: "),
        ("probes_at_commit", ["--commit", "no-such-commit", "--count", "4"], "probes_at_commit: "),
        ("probes_at_commit", ["--commit", "HEAD", "--count", "1"], "--count must be at least 2"),
        ("trust_rules", ["--count", "1"], "--count must be at least 2"),
        ("metadata_ranking", ["--count", "1"], "--count must be at least 2"),
        ("metadata_ranking", ["--family", "Q"], "metadata_ranking: "),
        ("trust_rules", ["--family", "G", "--count", "4"], "no untrusted source"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_2(
    name: str, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _script(name).main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
