"""The speed work must not move a number: a small suite run compared with its golden record.

The golden file was written by the code *before* the controller facade was rewritten (issue 13:
"numbers in the README tables are unchanged by the speed work"). It holds every aggregate and
every trial's choices of the controller-driven policies on a static and an adaptive run.

Choices (inspected sources, action) must match exactly; numbers must match to a relative 1e-9:
the last bits of a float sum differ between machines (numpy picks SIMD kernels by CPU, e.g.
AVX-512 or not), while a moved score moves far more than that.

Regenerate (only when a change is *meant* to move scores):
``.venv/bin/python tests/bench/test_bench_golden_suite.py``.
"""

from __future__ import annotations

import json
import math
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


#: Relative tolerance on numbers: far below any real change, above cross-machine float noise.
REL_TOL = 1e-9


def same(actual: Any, expected: Any) -> bool:
    """Equal structure and strings, numbers equal to :data:`REL_TOL` (bools and ints exactly)."""
    if isinstance(expected, float) or isinstance(actual, float):
        if isinstance(actual, bool) or isinstance(expected, bool):
            return actual is expected
        if not isinstance(actual, int | float) or not isinstance(expected, int | float):
            return False
        return math.isclose(actual, expected, rel_tol=REL_TOL, abs_tol=REL_TOL)
    if isinstance(expected, dict):
        return (
            isinstance(actual, dict)
            and actual.keys() == expected.keys()
            and all(same(actual[k], expected[k]) for k in expected)
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(same(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return bool(actual == expected) and type(actual) is type(expected)


def test_same_tolerates_float_noise_but_not_a_moved_number_or_choice() -> None:
    assert same([["x", 60.830522319584944]], [["x", 60.830522319584986]])
    assert not same([["x", 60.8306]], [["x", 60.8305]])
    assert not same([["y", 1.0]], [["x", 1.0]])
    assert not same({"a": [1, 2]}, {"a": [1, 2, 3]})
    assert not same(True, 1.0) and not same("1.0", 1.0)


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
            assert a[:5] == e[:5], f"{condition}: a choice moved: {a} != {e}"
            assert same(a, e), f"{condition}: trial moved: {a} != {e}"
        assert same(act["aggregates"], exp["aggregates"]), f"{condition}: an aggregate moved"


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(golden_record(), sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
