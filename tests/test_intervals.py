"""Bootstrap confidence intervals: coverage at the stated rate, determinism, input checks."""

import numpy as np
import pytest
from scipy.stats import spearmanr

from xalign.measures.intervals import (
    accuracy_ci,
    bootstrap_ci,
    error_bar_lengths,
    paired_bootstrap_ci,
    paired_difference_ci,
    stratified_bootstrap_ci,
)


def test_accuracy_interval_covers_the_true_accuracy_at_the_stated_rate():
    # a toy classifier that is right with probability 0.7 on each of 150 items (a Tatoeba-sized sample)
    true_acc, n, draws = 0.7, 150, 400
    rng = np.random.default_rng(7)
    covered = 0
    for d in range(draws):
        correct = rng.random(n) < true_acc
        lo, hi = accuracy_ci(correct, n_boot=500, level=0.95, seed=d)
        covered += lo <= true_acc <= hi
    rate = covered / draws
    # 95% nominal; the percentile bootstrap runs slightly narrow at n=150; binomial sd of the rate ~0.011
    assert 0.91 <= rate <= 0.985, rate


def test_lower_level_gives_narrower_interval_and_lower_coverage():
    rng = np.random.default_rng(3)
    x = rng.random(300) < 0.4
    lo95, hi95 = accuracy_ci(x, level=0.95)
    lo50, hi50 = accuracy_ci(x, level=0.5)
    assert lo95 < lo50 < x.mean() < hi50 < hi95


def test_interval_is_seeded_and_in_the_unit_asked():
    x = np.r_[np.ones(60), np.zeros(40)].astype(bool)
    assert accuracy_ci(x, seed=1) == accuracy_ci(x, seed=1)
    lo, hi = accuracy_ci(x, seed=1)
    plo, phi = accuracy_ci(x, seed=1, scale=100)
    assert (plo, phi) == pytest.approx((100 * lo, 100 * hi))
    assert 0.45 < lo < 0.6 < hi < 0.75  # share: about 0.6 +- 1.96 * 0.049
    assert bootstrap_ci(np.ones(20)) == (1.0, 1.0)  # no spread, no width


def test_bootstrap_of_any_statistic_and_of_paired_arrays():
    rng = np.random.default_rng(0)
    x = rng.normal(5.0, 1.0, 400)
    lo, hi = bootstrap_ci(x, stat=np.median)
    assert lo < 5.0 < hi and hi - lo < 0.5
    gold = rng.random(250)
    pred = gold + rng.normal(0, 0.2, 250)
    r = spearmanr(pred, gold)[0]
    lo, hi = paired_bootstrap_ci([pred, gold], lambda a, b: spearmanr(a, b)[0])
    assert lo < r < hi and hi - lo < 0.2


@pytest.mark.parametrize("bad, match", [([], "empty"), (5.0, "1-d"), ([1.0, np.nan], "NaN")])
def test_bad_scores_are_named(bad, match):
    with pytest.raises(ValueError, match=match):
        bootstrap_ci(bad)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1, 0, 1], level=95)
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_ci([1, 0, 1], n_boot=0)
    with pytest.raises(ValueError, match="correct"):
        accuracy_ci([0.5, 1.0])
    with pytest.raises(ValueError, match="one length"):
        paired_bootstrap_ci([[1, 2, 3], [1, 2]], lambda a, b: 0.0)


def test_stratified_interval_of_a_mean_over_groups():
    rng = np.random.default_rng(5)
    groups = [rng.random(150) < p for p in (0.5, 0.7, 0.9)]
    point = np.mean([g.mean() for g in groups])
    lo, hi = stratified_bootstrap_ci(groups)
    assert lo < point < hi
    # three groups of 150 average out: narrower than one group of 150
    one_lo, one_hi = bootstrap_ci(groups[1])
    assert hi - lo < one_hi - one_lo
    pairs = [np.c_[x, x + rng.normal(0, 0.3, 100)] for x in rng.random((3, 100))]
    lo, hi = stratified_bootstrap_ci(pairs, stat=lambda a: spearmanr(a[:, 0], a[:, 1])[0])
    assert 0 < lo < hi < 1
    with pytest.raises(ValueError, match="groups"):
        stratified_bootstrap_ci([np.ones(3), []])


def test_paired_difference_known_answers():
    # two systems that agree on every item: the difference is 0 in every resample
    a = np.r_[np.ones(30), np.zeros(20)].astype(bool)
    assert paired_difference_ci(a, a) == (0.0, 0.0, 0.0)
    # b is right exactly where a is, plus on 5 more of 50 items: +10 points, and the items a gets
    # right and b wrong are none, so no resample can put the difference below 0
    b = a.copy()
    b[30:35] = True
    d, lo, hi = paired_difference_ci(b, a, scale=100)
    assert d == pytest.approx(10.0)
    assert 0.0 <= lo < 10.0 < hi
    # a per-item constant shift: every resample differs by exactly that constant
    x = np.random.default_rng(0).random(40)
    assert paired_difference_ci(x + 0.25, x) == pytest.approx((0.25, 0.25, 0.25))


def test_paired_difference_is_narrower_than_separate_intervals_when_systems_agree():
    # 450 items (an XNLI test set); the two systems agree on 90 % of them, so the paired interval of the
    # difference is much narrower than the gap between two separate intervals would suggest
    rng = np.random.default_rng(5)
    a = rng.random(450) < 0.55
    b = a.copy()
    flip = rng.choice(450, size=45, replace=False)
    b[flip] = ~b[flip]
    d, lo, hi = paired_difference_ci(b, a, scale=100, seed=2)
    alo, ahi = accuracy_ci(a, scale=100, seed=2)
    assert hi - lo < 0.75 * (ahi - alo)  # about sqrt(0.1) / 0.5 = 0.63 of the width
    # the normal approximation of the paired difference: sd of the per-item differences / sqrt(n)
    diff = b.astype(float) - a.astype(float)
    half = 1.96 * 100 * diff.std() / np.sqrt(450)
    assert (lo, hi) == pytest.approx((d - half, d + half), abs=0.8)
    # the same numbers as the general paired bootstrap of mean(b) - mean(a) with the same seed
    plo, phi = paired_bootstrap_ci([b.astype(float), a.astype(float)], lambda u, v: u.mean() - v.mean(), seed=2)
    assert (lo, hi) == pytest.approx((100 * plo, 100 * phi))


def test_paired_difference_rejects_unaligned_or_bad_scores():
    with pytest.raises(ValueError, match="same items"):
        paired_difference_ci(np.ones(5), np.ones(4))
    with pytest.raises(ValueError, match="empty"):
        paired_difference_ci([], [])
    with pytest.raises(ValueError, match="NaN"):
        paired_difference_ci([1.0, np.nan], [1.0, 0.0])


def test_error_bars_are_the_interval_lengths_never_negative():
    err = error_bar_lengths([50.0, 100 / 3, np.nan, 10.0], [40.0, 100 / 3 + 1e-14, 1.0, np.nan], [55.0, 100 / 3, 2.0, 12.0])
    assert err.shape == (2, 4)
    np.testing.assert_allclose(err[:, 0], [10.0, 5.0])
    assert (err >= 0).all() and err[:, 2].tolist() == [0.0, 0.0] and err[:, 3].tolist() == [0.0, 2.0]
    with pytest.raises(ValueError, match="one entry each"):
        error_bar_lengths([1.0, 2.0], [0.0], [3.0, 4.0])
