"""Confidence intervals for sampled metrics: a percentile bootstrap over the items (queries, rows).

``bootstrap_ci(values, stat)`` resamples the items with replacement ``n_boot``
times and returns the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles
of the statistic; ``accuracy_ci`` is the same for a boolean "correct" array
(the interval of the mean, a fraction in [0, 1]). Seeded, so a rerun gives
the same interval.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def bootstrap_ci(values, stat: Callable = np.mean, n_boot: int = 1000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval ``(lo, hi)`` of ``stat(values)``, resampling the items of ``values``.

    ``values``: a 1-d array (or a 2-d array whose rows are the items).
    ``stat`` is called on each resample (it may take ``axis=0`` rows).
    An empty array gives ``(nan, nan)``.
    """
    x = np.asarray(values)
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    if n_boot < 1:
        raise ValueError(f"n_boot must be positive, got {n_boot}")
    n = len(x)
    if n == 0:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    if stat is np.mean and x.ndim == 1:  # vectorised fast path, same numbers
        stats = x[idx].mean(axis=1)
    else:
        stats = np.array([stat(x[i]) for i in idx], dtype=float)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def accuracy_ci(correct, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Bootstrap interval of an accuracy (the mean of a boolean array), as fractions in [0, 1]."""
    c = np.asarray(correct)
    if c.ndim != 1:
        raise ValueError(f"correct must be a 1-d boolean array, got shape {c.shape}")
    return bootstrap_ci(c.astype(float), np.mean, n_boot=n_boot, level=level, seed=seed)
