from __future__ import annotations

import numpy as np
import pytest

from heedful.bench.stats import (
    bootstrap_mean,
    paired_difference,
    proportion,
    transitions,
    wilson_interval,
    z_value,
)


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score).
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, lo: float, hi: float) -> None:
    got = wilson_interval(k, n)
    assert got == pytest.approx((lo, hi), abs=5e-5)


def test_wilson_interval_of_no_trials_is_whole_unit_interval() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_rejects_more_successes_than_trials() -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 2)


def test_z_value_of_95_percent() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)


def test_proportion_of_zero_trials_has_no_point_estimate() -> None:
    assert proportion(0, 0).p is None


def test_bootstrap_of_constant_values_is_a_point() -> None:
    ci = bootstrap_mean([2.5] * 10, np.random.default_rng(0))
    assert ci is not None
    assert (ci.lo, ci.mean, ci.hi) == (2.5, 2.5, 2.5)


def test_bootstrap_of_nothing_is_none() -> None:
    assert bootstrap_mean([], np.random.default_rng(0)) is None


def test_bootstrap_is_reproducible_with_the_same_seed() -> None:
    x = np.random.default_rng(1).normal(size=50)
    a = bootstrap_mean(x, np.random.default_rng(7))
    b = bootstrap_mean(x, np.random.default_rng(7))
    assert a == b


def test_bootstrap_interval_width_matches_normal_theory() -> None:
    x = np.random.default_rng(2).normal(0.0, 1.0, size=400)
    ci = bootstrap_mean(x, np.random.default_rng(3), n_resamples=4000)
    assert ci is not None
    expected = 2 * 1.96 * x.std(ddof=1) / np.sqrt(x.size)
    assert ci.hi - ci.lo == pytest.approx(expected, rel=0.15)
    assert ci.lo < ci.mean < ci.hi


def test_cluster_bootstrap_is_wider_when_clusters_are_perfectly_correlated() -> None:
    base = np.random.default_rng(4).normal(size=30)
    values = np.repeat(base, 5)  # 5 identical trials per scenario
    labels = np.repeat(np.arange(30), 5).tolist()
    naive = bootstrap_mean(values, np.random.default_rng(5))
    clustered = bootstrap_mean(values, np.random.default_rng(5), clusters=labels)
    assert naive is not None and clustered is not None
    assert clustered.hi - clustered.lo > 1.5 * (naive.hi - naive.lo)


def test_paired_difference_counts_wins_losses_and_ties() -> None:
    d = paired_difference([1.0, 2.0, 3.0, 4.0], [0.0, 2.0, 5.0, 1.0], np.random.default_rng(0))
    assert d is not None
    assert (d.a_better, d.b_better, d.ties) == (2, 1, 1)
    assert d.mean == pytest.approx(0.5)


def test_transitions_count_each_paired_outcome() -> None:
    t = transitions([True, True, False, False, True], [True, False, True, False, False])
    assert (t.both, t.only_a, t.only_b, t.neither) == (1, 2, 1, 1)


def test_remembered_resample_draws_equal_fresh_draws_and_leave_the_same_state() -> None:
    from heedful.bench.stats import resample_indices

    for m in (3, 7, 300):
        plain = np.random.default_rng(42)
        expected = [plain.integers(0, m, size=(50, m)) for _ in range(3)]
        after = plain.random()
        for _ in range(2):  # the second pass is served from memory
            rng = np.random.default_rng(42)
            got = [resample_indices(rng, m, 50) for _ in range(3)]
            assert all(np.array_equal(g, e) for g, e in zip(got, expected, strict=True))
            assert rng.random() == after


def test_bootstrap_with_unequal_clusters_counts_each_resample() -> None:
    values = [1.0, 2.0, 3.0, 10.0, 11.0, 0.0]
    clusters = ["a", "a", "a", "b", "c", "c"]
    ci = bootstrap_mean(values, np.random.default_rng(3), clusters=clusters, n_resamples=400)
    assert ci is not None
    sums, counts = np.array([6.0, 10.0, 11.0]), np.array([3.0, 1.0, 2.0])
    draws = np.random.default_rng(3).integers(0, 3, size=(400, 3))
    boot = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    assert (ci.lo, ci.hi) == tuple(np.quantile(boot, [0.025, 0.975]))
