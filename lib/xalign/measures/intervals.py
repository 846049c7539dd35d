"""Bootstrap confidence intervals for scores computed on small fixed samples.

:func:`bootstrap_ci` resamples the rows of ``values`` with replacement
``n_boot`` times (seeded), applies ``stat`` to each resample and returns the
percentile interval. :func:`accuracy_ci` is the common case: the mean of 0/1
outcomes (vectorised, so a thousand resamples of a few hundred items take
milliseconds).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def _check(n: int, n_boot: int, level: float) -> None:
    if n < 1:
        raise ValueError("values: need at least one observation for a confidence interval")
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")


def _percentiles(stats: np.ndarray, level: float) -> tuple[float, float]:
    stats = np.asarray(stats, np.float64)
    stats = stats[np.isfinite(stats)]
    if stats.size == 0:
        return float("nan"), float("nan")
    a = (1 - level) / 2
    lo, hi = np.quantile(stats, [a, 1 - a])
    return float(lo), float(hi)


def bootstrap_ci(values, stat: Callable = np.mean, n_boot: int = 1000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat(values)``: rows of ``values`` (axis 0) are resampled.

    ``values`` may be 1-d (one number per item) or n-d (one row per item, e.g.
    paired scores for a correlation); ``stat`` takes an array shaped like
    ``values`` and returns a number. Returns (lo, hi).
    """
    values = np.asarray(values)
    n = len(values)
    _check(n, n_boot, level)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    if stat is np.mean and values.ndim == 1:  # vectorised fast path
        return _percentiles(values[idx].mean(1), level)
    return _percentiles(np.array([stat(values[i]) for i in idx]), level)


def accuracy_ci(correct, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Bootstrap interval of the fraction of ``correct`` (0/1 or bool per item), in [0, 1]."""
    correct = np.asarray(correct, np.float64).ravel()
    return bootstrap_ci(correct, np.mean, n_boot, level, seed)
