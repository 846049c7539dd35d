"""Confidence intervals for sampled metrics (percentile bootstrap).

A score measured on a few hundred test items carries a few points of
sampling noise; these helpers put an interval beside it. Both return the
interval in the units of the statistic (``accuracy_ci``: a fraction of 1).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def bootstrap_ci(values, stat: Callable = np.mean, n_boot: int = 1000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval of ``stat(values)``: resample items with replacement ``n_boot`` times.

    ``values``: a 1-d array of per-item values (e.g. 0/1 correctness); ``stat``
    must accept an ``axis`` keyword (numpy reductions do). Returns ``(lo, hi)``.
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) == 0:
        raise ValueError(f"bootstrap_ci: values must be a non-empty 1-d array, got shape {x.shape}")
    if not 0 < level < 1:
        raise ValueError(f"bootstrap_ci: level must lie in (0, 1), got {level}")
    if n_boot < 1:
        raise ValueError(f"bootstrap_ci: n_boot must be >= 1, got {n_boot}")
    rng = np.random.default_rng(seed)
    boots = np.empty(n_boot)
    step = max(1, 2_000_000 // len(x))  # resample in blocks of at most ~2M draws
    for start in range(0, n_boot, step):
        k = min(step, n_boot - start)
        idx = rng.integers(0, len(x), size=(k, len(x)))
        boots[start:start + k] = stat(x[idx], axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(boots, [alpha, 1 - alpha])
    return float(lo), float(hi)


def accuracy_ci(correct, n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Interval of an accuracy from the per-item correctness (booleans); a fraction of 1."""
    c = np.asarray(correct)
    if c.dtype != bool and not np.isin(c, (0, 1)).all():
        raise ValueError("accuracy_ci: correct must be booleans (or 0/1), one per test item")
    return bootstrap_ci(c.astype(float), np.mean, n_boot=n_boot, level=level, seed=seed)
