"""Recognising proportional outcome rows: the fast grouping equals ``np.unique`` on rows."""

from __future__ import annotations

import numpy as np
import pytest

from heedful.decision.valuation import _row_groups, merge_proportional_rows


@pytest.mark.parametrize("seed", range(20))
def test_row_groups_number_rows_like_numpy_unique(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 40)), int(rng.integers(1, 6))
    keys = np.round(rng.integers(0, 3, (n, m)) / 3.0, 12)
    _, expected = np.unique(keys, axis=0, return_inverse=True)
    assert (_row_groups(keys) == expected.reshape(-1)).all()


def test_proportional_rows_are_summed_and_zero_rows_dropped() -> None:
    rows = np.array([[0.1, 0.2], [0.0, 0.0], [0.2, 0.4], [0.3, 0.1]])
    merged = merge_proportional_rows(rows)
    assert merged.shape == (2, 2)
    assert np.allclose(sorted(merged.sum(axis=1)), [0.4, 0.9])
