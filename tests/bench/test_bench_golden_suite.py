"""The speed work must not move a number: a small suite run compared with its golden record.

The golden file was written by the code *before* the controller facade was rewritten (issue 13:
"numbers in the README tables are unchanged by the speed work"). It holds every aggregate and
every trial's choices of the controller-driven policies on a static and an adaptive run.

Regenerate (only when a change is *meant* to move scores):
``.venv/bin/python tests/bench/test_bench_golden_suite.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heedful.bench import generate_suite, run_benchmark

GOLDEN = Path(__file__).parent / "golden" / "suite_golden.json"

#: Every policy that runs the attention controller (the ones the facade rewrite can move).
POLICIES = (
    "voc",
    "voc-model",
    "voc-no-staleness",
    "voc-no-authority",
    "voc-no-switch-cost",
    "staleness-only",
    "goal-only",
    "risk-only",
)


def _record(adaptive: bool) -> dict[str, Any]:
    count, trials = (1, 1) if adaptive else (6, 2)
    scenarios = generate_suite(["G", "B"], count, seed=0)
    r = run_benchmark(
        scenarios, list(POLICIES), trials=trials, seed=0, adaptive=adaptive, progress=False
    )
    return {
        "aggregates": json.loads(r.aggregates.model_dump_json()),
        "trials": [
            [t.scenario_id, t.policy, t.trial, t.inspected, t.action, t.value, t.score]
            for t in r.trials
        ],
    }


def golden_record() -> dict[str, Any]:
    """Both runs, as plain JSON data."""
    return {"static": _record(False), "adaptive": _record(True)}


def test_small_suite_numbers_match_the_golden_record() -> None:
    expected = json.loads(GOLDEN.read_text())
    actual = json.loads(json.dumps(golden_record()))
    for condition in ("static", "adaptive"):
        exp, act = expected[condition], actual[condition]
        assert len(act["trials"]) == len(exp["trials"])
        for a, e in zip(act["trials"], exp["trials"], strict=True):
            assert a == e, f"{condition}: trial moved: {a} != {e}"
        assert act["aggregates"] == exp["aggregates"], f"{condition}: an aggregate moved"


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(golden_record(), sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
