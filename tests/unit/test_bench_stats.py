# SPDX-License-Identifier: GPL-2.0
"""Unit tests of benchlib.stats: the run order, the bootstrap intervals and
the verdicts that must survive a second run."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
from benchlib import stats  # noqa: E402


def test_run_order_every_scenario_once_per_round():
    names = ["vanilla", "kernel", "pcompact", "manual"]
    order = stats.run_order(names, 5, seed=7)
    assert len(order) == 20
    for r in range(1, 6):
        assert sorted(n for n, run in order[(r - 1) * 4:r * 4]) == sorted(names)
        assert all(run == r for _, run in order[(r - 1) * 4:r * 4])


def test_run_order_is_seeded_and_shuffled():
    names = [f"s{i}" for i in range(6)]
    assert stats.run_order(names, 4, seed=3) == stats.run_order(names, 4, seed=3)
    assert stats.run_order(names, 4, seed=3) != stats.run_order(names, 4, seed=4)
    rounds = [tuple(n for n, _ in stats.run_order(names, 8, seed=1)[i * 6:(i + 1) * 6])
              for i in range(8)]
    # Interleaved in changing orders, not the same order every round.
    assert len(set(rounds)) > 1
    # No scenario is always first.
    assert len({r[0] for r in rounds}) > 1


def test_run_order_limits_drop_out_of_later_rounds():
    order = stats.run_order(["a", "b", "c"], 4, seed=2, limits={"c": 2})
    assert [r for n, r in order if n == "c"] == [1, 2]
    assert [r for n, r in order if n == "a"] == [1, 2, 3, 4]
    assert len(order) == 10 and all(n != "c" for n, _ in order[6:])


def test_runs_per_scenario_says_which_get_fewer_runs():
    names = ["bursts-kernel", "manual", "bursts-pcompact"]
    order = stats.run_order(names, 5, seed=4, limits={"bursts-kernel": 2, "bursts-pcompact": 2})
    assert stats.runs_per_scenario(names, order) == \
        "manual: 5 run(s); bursts-kernel, bursts-pcompact: 2 run(s)"
    order = stats.run_order(names, 3, seed=4)
    assert stats.runs_per_scenario(names, order) == \
        "bursts-kernel, manual, bursts-pcompact: 3 run(s)"


def test_run_order_rejects_bad_input():
    with pytest.raises(ValueError):
        stats.run_order(["a"], 0, seed=1)
    with pytest.raises(ValueError):
        stats.run_order(["a", "a"], 2, seed=1)


@pytest.mark.parametrize("values, expected", [
    ([3], 3), ([1, 9, 2], 2), ([4, 1, 3, 2], 2.5), ([], None)])
def test_median(values, expected):
    assert stats.median(values) == expected


def test_quantile_interpolates():
    assert stats.quantile([0, 10], 0.25) == 2.5
    assert stats.quantile([1, 2, 3], 1.0) == 3
    assert stats.quantile([5], 0.5) == 5


def test_bootstrap_median_interval_holds_the_median_and_is_seeded():
    values = [100, 110, 95, 105, 300]
    a = stats.bootstrap_median(values, seed=11)
    assert a["n"] == 5 and a["median"] == 105
    assert min(values) <= a["lo"] <= a["median"] <= a["hi"] <= max(values)
    assert a == stats.bootstrap_median(values, seed=11)
    # The outlier widens the upper side only.
    assert a["hi"] > 105 and a["lo"] >= 95


def test_bootstrap_median_one_value_has_no_interval():
    out = stats.bootstrap_median([42, None, float("nan")], seed=1)
    assert out == {"n": 1, "median": 42, "lo": None, "hi": None}


def test_bootstrap_median_constant_values_give_a_point():
    out = stats.bootstrap_median([7, 7, 7, 7], seed=1)
    assert out["lo"] == out["hi"] == 7


def test_bootstrap_ratio_separated_samples():
    num = [10, 11, 12, 10, 11]
    den = [100, 105, 98, 110, 101]
    out = stats.bootstrap_ratio(num, den, seed=5)
    assert out["ratio"] == pytest.approx(11 / 101)
    assert 10 / 110 <= out["lo"] <= out["ratio"] <= out["hi"] <= 12 / 98
    assert stats.verdict(out["ratio"], out["lo"], out["hi"], 0.5, "le") == stats.MET
    assert stats.verdict(out["ratio"], out["lo"], out["hi"], 0.05, "le") == stats.MISSED


def test_bootstrap_ratio_overlapping_samples_is_unsettled():
    num = [40, 60, 45, 55, 70]
    den = [100, 90, 120, 80, 110]
    out = stats.bootstrap_ratio(num, den, seed=5)
    assert out["lo"] < 0.5 < out["hi"]
    assert stats.verdict(out["ratio"], out["lo"], out["hi"], 0.5, "le") == stats.UNSETTLED


def test_bootstrap_ratio_zero_denominator():
    assert stats.bootstrap_ratio([1, 2], [0, 0], seed=1)["ratio"] is None
    out = stats.bootstrap_ratio([1, 2, 3], [0, 1, 1], seed=1)
    assert out["ratio"] == 2 and out["hi"] == float("inf")


def test_bootstrap_ratio_with_never():
    inf = float("inf")
    out = stats.bootstrap_ratio([1, 1, 1], [2, inf, 2], seed=1)
    assert out["ratio"] == 0.5 and out["lo"] == 0 and out["hi"] == 0.5
    # inf over inf is unknown: no estimate, and a resample of it is the worst.
    assert stats.bootstrap_ratio([inf, inf, 1], [inf, inf, 2], seed=1)["ratio"] is None
    out = stats.bootstrap_ratio([inf, 1, 1], [inf, 2, 2], seed=1)
    assert out["ratio"] == 0.5 and out["hi"] == inf


@pytest.mark.parametrize("lo, hi, thr, want, expected", [
    (0.2, 0.4, 0.5, "le", "met"),
    (0.2, 0.5, 0.5, "le", "met"),
    (0.51, 0.9, 0.5, "le", "missed"),
    (0.4, 0.6, 0.5, "le", "unsettled"),
    (5.0, 9.0, 5, "ge", "met"),
    (1.0, 4.9, 5, "ge", "missed"),
    (4.0, 6.0, 5, "ge", "unsettled"),
    (None, None, 5, "ge", "unsettled"),
])
def test_verdict(lo, hi, thr, want, expected):
    assert stats.verdict(1.0, lo, hi, thr, want) == expected


def test_verdict_not_measured_and_bad_input():
    assert stats.verdict(None, None, None, 1, "le") == stats.NOT_MEASURED
    with pytest.raises(ValueError):
        stats.verdict(1, 0, 1, 1, "lt")
    with pytest.raises(ValueError):
        stats.verdict(1, 2, 1, 1, "le")


def test_agreement_compares_only_settled_verdicts():
    first = {"a": "met", "b": "missed", "c": "unsettled", "d": "met"}
    second = {"a": "met", "b": "unsettled", "c": "met", "d": "missed"}
    assert stats.agreement(first, second) == ["b", "d"]
    assert stats.agreement(first, first) == []


def test_verdict_needs_five_runs_a_side():
    # An interval wholly under the threshold from 4 runs is no verdict.
    assert stats.verdict(0.5, 0.4, 0.6, 1.0, "le", runs=4) == stats.UNSETTLED
    assert stats.verdict(0.5, 0.4, 0.6, 1.0, "le", runs=5) == stats.MET
    assert stats.verdict(2.0, 1.5, 2.5, 1.0, "le", runs=2) == stats.UNSETTLED
    assert stats.verdict(2.0, 1.5, 2.5, 1.0, "le", runs=5) == stats.MISSED
    assert stats.verdict(None, None, None, 1.0, "le", runs=2) == stats.NOT_MEASURED


def test_bootstrap_ratio_grouped_resamples_whole_groups():
    # Two groups a side, each of identical values: a resample can only pool
    # whole groups, so every resampled median is one of a few pooled ones.
    num = [[10] * 8, [20] * 8]
    den = [[40] * 8, [40] * 8]
    out = stats.bootstrap_ratio_grouped(num, den, seed=3)
    assert out["n_num"] == 2 and out["n_den"] == 2
    assert out["ratio"] == pytest.approx(15 / 40)
    assert out["median_num"] == 15 and out["median_den"] == 40
    assert out["lo"] == pytest.approx(10 / 40) and out["hi"] == pytest.approx(20 / 40)
    # A group counts by its values: one group of 3 against one of 1.
    assert stats.bootstrap_ratio_grouped([[1, 1, 1], [9]], [[1], [1]], seed=3)["ratio"] == 1


def test_bootstrap_ratio_grouped_without_enough_groups():
    out = stats.bootstrap_ratio_grouped([[1, 2, 3]], [[2, 2], [2]], seed=1)
    assert out["ratio"] == 1 and out["lo"] is None and out["hi"] is None
    assert stats.bootstrap_ratio_grouped([[], [None]], [[2]], seed=1)["ratio"] is None
    assert stats.bootstrap_ratio_grouped([[1]], [[0, 0]], seed=1)["ratio"] is None


@pytest.mark.parametrize("table, expected", [
    ((3, 1, 1, 3), 0.485714),    # the tea-tasting table: 34/70
    ((5, 0, 0, 5), 0.007937),    # 2/252
    ((2, 3, 0, 5), 0.444444),
    ((0, 5, 0, 5), 1.0),         # nothing ran out on either side
    ((0, 0, 0, 0), 1.0),
])
def test_fisher_exact_two_sided(table, expected):
    assert stats.fisher_exact(*table) == pytest.approx(expected, abs=1e-6)


def test_fisher_exact_is_symmetric_and_refuses_negative_counts():
    assert stats.fisher_exact(2, 13, 5, 10) == pytest.approx(stats.fisher_exact(5, 10, 2, 13))
    with pytest.raises(ValueError):
        stats.fisher_exact(-1, 2, 3, 4)
