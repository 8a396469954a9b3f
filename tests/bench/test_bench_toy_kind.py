"""A scenario kind is one module: a toy kind defined in tests/bench/toy_kind.py (nothing of it
in src/) runs through run_benchmark, the results file, `bench report` and report.html."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

import heedful.bench.kinds.contract as contract
import heedful.bench.policy as policy_registry
import heedful.bench.results.kinds as records
from heedful.bench import load_results, run_benchmark, write_report, write_results
from heedful.bench.kinds import generate_kind_family, kind_names
from heedful.bench.results import Results
from heedful.cli import app
from heedful.errors import InvalidArgumentError

POLICIES = ["oracle", "random", "toy-first", "toy-hint", "voc"]


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """Register the toy kind for one test: every registry is restored after it."""
    policy_registry.policy_names()  # the built-in kinds and policies, before the copies
    monkeypatch.setattr(contract, "_KINDS", dict(contract._KINDS))
    monkeypatch.setattr(
        policy_registry,
        "_KIND_POLICIES",
        {k: dict(v) for k, v in policy_registry._KIND_POLICIES.items()},
    )
    monkeypatch.setattr(records, "_RECORDS", dict(records._RECORDS))
    spec = importlib.util.spec_from_file_location(
        "toy_kind", Path(__file__).with_name("toy_kind.py")
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "toy_kind", module)
    spec.loader.exec_module(module)
    return module


def _run(toy: ModuleType) -> Results:
    scenarios = [*generate_kind_family("T", 6, seed=1), *generate_kind_family("D", 2, seed=1)]
    return run_benchmark(scenarios, POLICIES, trials=2, seed=1)


def test_the_toy_kind_registers_by_importing_its_module(toy: ModuleType) -> None:
    assert kind_names() == ["inspection", "switching", "schedule", "toy"]
    assert policy_registry.policy_kinds("toy-hint") == ["toy"]
    assert "toy" in policy_registry.policy_kinds("random")


def test_run_benchmark_plays_the_toy_kind_against_its_oracle(toy: ModuleType) -> None:
    results = _run(toy)
    rows = {r.policy: r for r in results.aggregates.kind_rows() if r.kind == "toy"}
    # voc has no toy version: each kind plays the names that exist for it.
    assert sorted(rows) == ["oracle", "random", "toy-first", "toy-hint"]
    assert rows["oracle"].score is not None and rows["oracle"].score.mean == pytest.approx(100.0)
    assert rows["oracle"].optimal.p == 1.0
    assert isinstance(rows["toy-hint"], toy.ToyRow)
    assert rows["toy-hint"].followed_hint is not None
    assert rows["toy-hint"].followed_hint.p == 1.0
    assert rows["toy-first"].n_trials == 12
    trials = results.kinds.of("toy") if results.kinds else []
    assert len(trials) == 6 * 2 * 4
    assert all(isinstance(t, toy.ToyTrial) for t in trials)
    # The switching scenarios of the same call keep their own rows, beside the toy kind's.
    assert {r.kind for r in results.aggregates.kind_rows()} == {"switching", "toy"}


def test_the_results_file_keeps_the_toy_rows_and_trials_typed(
    toy: ModuleType, tmp_path: Path
) -> None:
    results = _run(toy)
    path = write_results(results, tmp_path / "results.json")
    loaded = load_results(path)
    assert loaded.aggregates == results.aggregates
    assert loaded.kinds == results.kinds
    row = next(r for r in loaded.aggregates.kind_rows() if r.kind == "toy")
    assert isinstance(row, toy.ToyRow)
    assert loaded.kinds is not None
    assert all(isinstance(t, toy.ToyTrial) for t in loaded.kinds.of("toy"))


def test_bench_report_prints_the_toy_kind_table(toy: ModuleType, tmp_path: Path) -> None:
    path = write_results(_run(toy), tmp_path / "results.json")
    out = CliRunner().invoke(app, ["bench", "report", str(path)])
    assert out.exit_code == 0, out.output
    assert "family T (toy)" in out.output
    assert "hint: picked the highest hint" in out.output
    assert "toy-hint" in out.output
    assert "family D (switching)" in out.output
    assert (tmp_path / "report.html").exists()


def test_report_html_has_the_toy_kind_table(toy: ModuleType, tmp_path: Path) -> None:
    results = _run(toy)
    html = write_report(results, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Family T (toy)" in html
    assert "followed the best hint" in html
    assert "toy-first" in html


def test_a_results_file_naming_an_unregistered_kind_is_refused(
    toy: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_results(_run(toy), tmp_path / "results.json")
    monkeypatch.delitem(records._RECORDS, "toy")
    with pytest.raises(InvalidArgumentError, match=r"unknown scenario kind 'toy'"):
        load_results(path)
