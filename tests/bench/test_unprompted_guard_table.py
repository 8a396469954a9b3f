"""examples/unprompted_guard.py: the docs table comes from a results file, never by hand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from heedful.bench.results import load_results
from heedful.bench.suite import run_to_folder

ROOT = Path(__file__).resolve().parents[2]


def _script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        "unprompted_guard", ROOT / "examples" / "unprompted_guard.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_reads_the_run(tmp_path: Path) -> None:
    script = _script()
    out = run_to_folder(
        families="B",
        condition="both",
        count=4,
        trials=1,
        seed=0,
        policies=",".join(script.POLICIES),
        out=tmp_path / "run",
        workers=1,
        progress=False,
    )
    text = script.table(load_results(out.results_path))
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [r.split("`")[1] for r in rows] == list(script.POLICIES)
    by = {r.split("`")[1]: r.split(" | ") for r in rows}
    # summary-trusting reads only when the task asks: never on an unprompted task.
    assert by["summary-trusting"][1].startswith("0 %")
    # the oracle reads no task text: its gap is n/a, not a 0 printed as a finding.
    assert "n/a — reads no task text" in by["oracle"][-1]
    # the split by the oracle's own reads: the oracle reads it in every trial where it does.
    assert by["oracle"][2].startswith("100 %") or "(0 trials)" in text
