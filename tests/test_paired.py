"""Paired comparisons over the same items (xalign.measures.paired), on known answers."""

import numpy as np
import pytest

from xalign.measures.paired import best_layer_shares, stat_difference_ci


def _spearman_x100(rows: np.ndarray) -> float:
    from scipy.stats import spearmanr

    return 100 * float(spearmanr(rows[:, 0], rows[:, 1]).statistic)


def test_identical_models_differ_by_zero_with_a_degenerate_interval():
    hits = np.random.default_rng(0).random(200) < 0.6
    assert stat_difference_ci(hits, hits, n_boot=300) == (0.0, 0.0, 0.0)
    rows = np.random.default_rng(1).normal(size=(80, 2))  # any statistic, e.g. a correlation of (score, gold)
    diff, lo, hi = stat_difference_ci(rows, rows, _spearman_x100, n_boot=200)
    assert diff == lo == hi == 0.0


def test_a_model_better_on_every_item_has_an_interval_above_zero():
    a, b = np.ones(50), np.zeros(50)
    assert stat_difference_ci(a, b, n_boot=200) == (1.0, 1.0, 1.0)
    rng = np.random.default_rng(2)
    b = rng.random(300) < 0.5
    a = b | (rng.random(300) < 0.3)  # right wherever b is, and on some more items
    diff, lo, hi = stat_difference_ci(a, b, n_boot=500)
    assert diff == pytest.approx(a.mean() - b.mean()) and 0 < lo <= diff <= hi
    diff, lo, hi = stat_difference_ci(b, a, n_boot=500)  # the other way round: entirely below zero
    assert lo <= diff <= hi < 0


def test_pairing_narrows_the_interval_of_two_models_that_agree_on_most_items():
    rng = np.random.default_rng(3)
    b = rng.random(400) < 0.5
    a = b.copy()
    a[np.flatnonzero(~b)[:12]] = True  # 12 more hits, everything else the same
    _, lo, hi = stat_difference_ci(a, b, n_boot=1000)
    assert lo > 0 and hi - lo < 0.05  # unpaired intervals of two 50% accuracies on 400 items are ~10 points wide


def test_a_general_statistic_is_resampled_jointly():
    rng = np.random.default_rng(4)
    gold = rng.normal(size=150)
    good = np.c_[gold + 0.3 * rng.normal(size=150), gold]
    bad = np.c_[gold + 3.0 * rng.normal(size=150), gold]
    diff, lo, hi = stat_difference_ci(good, bad, _spearman_x100, n_boot=300)
    assert diff == pytest.approx(_spearman_x100(good) - _spearman_x100(bad)) and 0 < lo <= diff <= hi


def test_difference_checks_its_inputs():
    with pytest.raises(ValueError, match="same items"):
        stat_difference_ci(np.ones(5), np.ones(6))
    with pytest.raises(ValueError, match="items_a"):
        stat_difference_ci([], [])
    with pytest.raises(ValueError, match="n_boot"):
        stat_difference_ci(np.ones(5), np.ones(5), n_boot=0)


def test_best_layer_shares_on_known_answers():
    rng = np.random.default_rng(5)
    base = rng.random(200) < 0.4
    better = base | (rng.random(200) < 0.5)  # right on a superset of base's items: wins every resample
    shares = best_layer_shares([base, better, base], n_boot=300)
    assert shares.tolist() == [0.0, 1.0, 0.0]
    assert best_layer_shares([base, base], n_boot=100).tolist() == [1.0, 0.0]  # a tie goes to the earlier layer
    close = base.copy()
    close[np.flatnonzero(base)[:2]] = False
    close[np.flatnonzero(~base)[:3]] = True  # one hit more than base overall, but on other items
    shares = best_layer_shares([base, close], n_boot=1000)
    assert shares.sum() == pytest.approx(1.0) and 0.2 < shares[0] < 0.8  # no clear winner: both win often
    assert best_layer_shares([base, close], n_boot=1000, seed=1).tolist() != [0.0, 1.0]


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_best_layer_shares_with_a_general_statistic_and_nan():
    rng = np.random.default_rng(6)
    gold = rng.normal(size=100)
    layers = [np.c_[gold + s * rng.normal(size=100), gold] for s in (2.0, 0.2, 1.0)]
    assert best_layer_shares(layers, _spearman_x100, n_boot=100).tolist() == [0.0, 1.0, 0.0]
    nan_layer = np.c_[np.zeros(100), gold]  # a constant score has no correlation: never the winner
    assert best_layer_shares([nan_layer, layers[2]], _spearman_x100, n_boot=50).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="same items"):
        best_layer_shares([np.ones(5), np.ones(6)])
    with pytest.raises(ValueError, match="no layers"):
        best_layer_shares([])
