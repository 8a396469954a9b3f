"""Training rows collected per scenario, on any backend, give the same dataset and model."""

from __future__ import annotations

from typing import Any

import numpy as np

from heedful.bench.run.backend import ProcessBackend
from heedful.learn.config import LearnConfig, RankerConfig
from heedful.learn.ranker import RidgeRanker
from heedful.learn.train import build_dataset, train_model


def _same(a: object, b: object) -> None:
    for field in ("x", "y", "group", "state"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_worker_processes_collect_the_same_rows_as_this_process() -> None:
    serial = build_dataset(["G", "B"], 2, seed=1)
    assert serial.y.size > 0
    _same(serial, build_dataset(["G", "B"], 2, seed=1, backend=ProcessBackend(2)))


def test_a_scenarios_rows_do_not_depend_on_the_scenarios_before_it() -> None:
    # Family B alone, and B after G: B's rows (by group offset) are the same rows.
    alone = build_dataset(["B"], 2, seed=1)
    after = build_dataset(["G", "B"], 2, seed=1)
    keep = after.group >= 2
    np.testing.assert_array_equal(alone.x, after.x[keep])
    np.testing.assert_array_equal(alone.y, after.y[keep])


#: One ridge and no validation scenarios: the rounds of collection are what is under test.
SMALL = LearnConfig(ranker=RankerConfig(ridge_grid=(1000.0,), validation_count=0))


def test_the_trained_model_is_the_same_with_worker_processes() -> None:
    one = train_model(["G"], 2, seed=2, config=SMALL, command="test")
    two = train_model(["G"], 2, seed=2, config=SMALL, command="test", backend=ProcessBackend(2))
    assert one.manifest["rounds"] == 2
    assert comparable(one) == comparable(two)


def comparable(model: RidgeRanker) -> dict[str, Any]:
    """The model file's content without the wall-clock fields of its manifest."""
    data = model.to_dict()
    data["manifest"] = {
        k: v for k, v in data["manifest"].items() if k not in ("trained_at", "train_seconds")
    }
    return data
