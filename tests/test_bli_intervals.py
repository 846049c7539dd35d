"""Bootstrap confidence intervals (xalign.measures.intervals) on known answers."""

import numpy as np
import pytest

from xalign.measures.intervals import accuracy_ci, bootstrap_ci


def test_accuracy_interval_covers_the_true_accuracy_at_the_stated_rate():
    rng = np.random.default_rng(7)
    true, n, trials = 0.7, 300, 200
    covered = 0
    for t in range(trials):
        correct = rng.random(n) < true
        lo, hi = accuracy_ci(correct, n_boot=400, seed=t)
        assert lo <= correct.mean() <= hi
        covered += lo <= true <= hi
    assert 0.89 <= covered / trials <= 0.99  # stated 95%


def test_interval_width_matches_the_binomial_standard_error():
    correct = np.r_[np.ones(500, bool), np.zeros(500, bool)]
    lo, hi = accuracy_ci(correct)
    assert hi - lo == pytest.approx(2 * 1.96 * np.sqrt(0.25 / 1000), rel=0.15)


def test_bootstrap_is_seeded_and_handles_degenerate_input():
    x = np.arange(50.0)
    assert bootstrap_ci(x, seed=3) == bootstrap_ci(x, seed=3)
    assert bootstrap_ci(x, stat=np.median) != bootstrap_ci(x)
    assert accuracy_ci(np.ones(20, bool)) == (1.0, 1.0)
    assert all(np.isnan(v) for v in accuracy_ci(np.array([], bool)))
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci(x, level=1.5)
