"""The regret histograms of report.html never crash on rounding (issue 23)."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from heedful.bench.report.page import _histogram, histogram_range

REGRETS = st.lists(
    st.one_of(
        st.floats(min_value=-1e-9, max_value=10.0, allow_nan=False),
        st.sampled_from([0.0, -0.0, -1.1e-16, 1.1e-16, -5e-324]),
    ),
    max_size=40,
)


@given(REGRETS)
def test_histogram_range_is_positive_and_finite_and_the_histogram_draws(
    values: list[float],
) -> None:
    top = histogram_range(values)
    assert math.isfinite(top) and top > 0.0
    assert max(values, default=0.0) <= top or max(values, default=0.0) <= 0.0
    svg = _histogram(values, top)
    assert svg.startswith("<svg") and svg.endswith("</svg>")


@given(st.lists(st.floats(max_value=0.0, allow_nan=False, allow_infinity=False), max_size=40))
def test_all_regrets_at_most_zero_draw_on_the_unit_range(values: list[float]) -> None:
    assert histogram_range([*values, -1.1e-16]) == 1.0
    assert "<rect" in _histogram([*values, -1.1e-16], histogram_range([*values, -1.1e-16]))


def test_the_reported_crash_case() -> None:
    # Every regret ≤ 0 and one −1.1e-16: the range was (0, −1.1e-16) and np.histogram raised.
    values = [0.0, 0.0, -1.1e-16, 0.0]
    assert histogram_range(values) == 1.0
    _histogram(values, -1.1e-16)  # a bad top from an older caller is replaced, not raised on
    _histogram([math.nan, math.inf, 0.2], 0.3)


def test_a_denormal_regret_is_rounding() -> None:
    # Found by the property test: a top of 5e-324 cannot hold 12 finite bins.
    assert histogram_range([5e-324]) == 1.0
    assert _histogram([5e-324], 5e-324).startswith("<svg")
