"""Confidence intervals for sampled metrics: percentile bootstrap over per-item scores.

A metric measured on a sample (Tatoeba accuracy on 150 pairs, XNLI accuracy
on 300 rows, a Spearman correlation on 250 STS pairs) carries sampling noise;
these helpers put an interval around it. They know no model and no paper:
they take one score per item (1/0 for a hit, a per-item value) or, for a
statistic of several aligned arrays (a correlation), the arrays themselves,
and resample the items with replacement.

- :func:`bootstrap_ci`: percentile bootstrap of ``stat`` over items.
- :func:`accuracy_ci`: the same for a boolean array of correct answers (a
  share in [0, 1]; ``scale=100`` for percent, the unit of the chapters' tables).
- :func:`paired_bootstrap_ci`: a statistic of aligned arrays (e.g. Spearman
  between predicted and gold similarity), resampling rows jointly.
- :func:`paired_difference_ci`: the difference of two systems' mean scores on the
  *same* items (e.g. MLP minus LR accuracy on one test set), resampling the items
  once for both, so the interval is that of the difference itself, not two
  separate intervals set side by side.
- :func:`error_bar_lengths`: an interval as a figure's error bars (lengths below and above the value).

Every interval is seeded (``seed``), so a rerun gives the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def _check(n_boot: int, level: float) -> None:
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be a positive number of resamples, got {n_boot}")
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), e.g. 0.95, got {level}")


def _percentiles(stats: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(stats, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bootstrap_ci(values_or_hits, stat: Callable = np.mean, n_boot: int = 1000, level: float = 0.95,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of ``stat`` over per-item scores.

    ``stat`` is applied to ``n_boot`` resamples drawn with replacement (a seeded generator).

    Args:
        values_or_hits: (n,) one number per item (booleans count as 1/0), or (n, ...) one row per
            item (rows are resampled together, e.g. (prediction, gold) for a correlation).
        stat: maps such an array to a number.
        n_boot: bootstrap resamples.
        level: coverage of the interval, in (0, 1).
        seed: the generator's seed.

    Returns:
        (lo, hi): the ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles of the resampled
        statistic, in the unit of ``stat`` (a mean of hits is a share in [0, 1]).
    """
    x = np.asarray(values_or_hits, dtype=float)
    if x.ndim == 0:
        raise ValueError(f"values_or_hits must hold one score (1-d) or one row (n-d) per item, got shape {x.shape}")
    if x.size == 0:
        raise ValueError("values_or_hits is empty: no items to resample")
    if x.ndim == 1 and not np.all(np.isfinite(x)):
        raise ValueError("values_or_hits holds NaN or infinite scores")
    _check(n_boot, level)
    idx = np.random.default_rng(seed).integers(0, len(x), size=(int(n_boot), len(x)))
    if stat is np.mean and x.ndim == 1:  # vectorised fast path for the common case
        stats = x[idx].mean(axis=1)
    else:
        stats = np.array([stat(x[i]) for i in idx], dtype=float)
    return _percentiles(stats, level)


def accuracy_ci(correct, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
                scale: float = 1.0) -> tuple[float, float]:
    """Bootstrap interval of an accuracy.

    Args:
        correct: (n,) one boolean (or 0/1) per item.
        n_boot: bootstrap resamples.
        level: coverage of the interval, in (0, 1).
        seed: the generator's seed.
        scale: 1 for a share in [0, 1], 100 for percent.

    Returns:
        (lo, hi) times ``scale``; no items: ``(nan, nan)``.
    """
    c = np.asarray(correct)
    if c.size == 0:  # an accuracy over no items is undefined (e.g. no query left after a filter)
        return float("nan"), float("nan")
    if c.ndim != 1:
        raise ValueError(f"correct must be one boolean per item (1-d), got shape {c.shape}")
    if c.dtype != bool and not np.isin(c, (0, 1)).all():
        raise ValueError("correct must hold booleans or 0/1, one per item")
    lo, hi = bootstrap_ci(c.astype(float), np.mean, n_boot, level, seed)
    return scale * lo, scale * hi


def paired_bootstrap_ci(arrays: Sequence, stat: Callable, n_boot: int = 1000, level: float = 0.95,
                        seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap of ``stat(*arrays)`` resampling the rows of aligned arrays together.

    Resamples on which ``stat`` is not finite (a constant resample has no correlation) are dropped.

    Args:
        arrays: (n, ...) arrays, row i of each about item i.
        stat: e.g. ``lambda pred, gold: spearman(pred, gold)``.
        n_boot: bootstrap resamples.
        level: coverage of the interval, in (0, 1).
        seed: the generator's seed.

    Returns:
        (lo, hi); (nan, nan) if fewer than half the resamples are finite.
    """
    arrays = [np.asarray(a) for a in arrays]
    if not arrays:
        raise ValueError("arrays is empty")
    n = len(arrays[0])
    if n == 0 or any(len(a) != n for a in arrays):
        raise ValueError(f"arrays must be non-empty and of one length, got lengths {[len(a) for a in arrays]}")
    _check(n_boot, level)
    idx = np.random.default_rng(seed).integers(0, n, size=(int(n_boot), n))
    stats = np.array([stat(*(a[i] for a in arrays)) for i in idx], dtype=float)
    stats = stats[np.isfinite(stats)]
    if stats.size < n_boot / 2:
        return float("nan"), float("nan")
    return _percentiles(stats, level)


def paired_difference_ci(scores_a, scores_b, n_boot: int = 1000, level: float = 0.95, seed: int = 0,
                         scale: float = 1.0) -> tuple[float, float, float]:
    """Difference of two systems' mean per-item scores on the same items, with its paired bootstrap interval.

    Args:
        scores_a, scores_b: one score per item for each system (booleans count as 1/0), aligned: row i of
            both is the same test item. Shape (n,), n >= 1.
        n_boot, level, seed: as :func:`bootstrap_ci` (a seeded generator: a rerun gives the same numbers).
        scale: unit of the result (1: a share; 100: percentage points for 0/1 hits).

    Returns:
        ``(mean(a) - mean(b), lo, hi)`` times ``scale``: each resample draws n items with replacement and
        scores both systems on those same items, so items both get right (or wrong) cancel and the
        interval is that of the difference, narrower than two separate intervals when the systems agree
        on most items.
    """
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    if a.ndim != 1 or b.ndim != 1 or len(a) != len(b):
        raise ValueError(f"scores_a and scores_b must be one score per item for the same items (1-d, one "
                         f"length), got shapes {a.shape} and {b.shape}")
    if len(a) == 0:
        raise ValueError("scores_a and scores_b are empty: no items to resample")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("scores_a or scores_b holds NaN or infinite scores")
    d = a - b
    lo, hi = bootstrap_ci(d, np.mean, n_boot, level, seed)
    return scale * float(d.mean()), scale * lo, scale * hi


def stratified_bootstrap_ci(groups: Sequence, stat: Callable = np.mean, combine: Callable = np.mean,
                            n_boot: int = 1000, level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap of ``combine([stat(g) for g in groups])``, each group resampled on its own.

    For a mean over independent samples, e.g. the average Tatoeba accuracy over languages (each
    language its own sentences).

    Args:
        groups: one per-item array per group (rows are items; a 2-d group is resampled by rows, so
            ``stat`` may be a correlation of its columns).
        stat: one group's statistic.
        combine: the groups' statistics -> one number.
        n_boot: bootstrap resamples.
        level: coverage of the interval, in (0, 1).
        seed: the generator's seed.

    Returns:
        (lo, hi) in the unit of ``combine``.
    """
    groups = [np.asarray(g) for g in groups]
    if not groups or any(len(g) == 0 for g in groups):
        raise ValueError("groups must be a non-empty list of non-empty per-item arrays")
    _check(n_boot, level)
    rng = np.random.default_rng(seed)
    per_group = []
    for g in groups:
        idx = rng.integers(0, len(g), size=(int(n_boot), len(g)))
        if stat is np.mean and g.ndim == 1:
            per_group.append(g.astype(float)[idx].mean(axis=1))
        else:
            per_group.append(np.array([stat(g[i]) for i in idx], dtype=float))
    stats = np.array([combine(col) for col in np.stack(per_group, axis=1)], dtype=float)
    stats = stats[np.isfinite(stats)]
    if stats.size < n_boot / 2:
        return float("nan"), float("nan")
    return _percentiles(stats, level)


def error_bar_lengths(value, lo, hi) -> np.ndarray:
    """The lengths below and above ``value`` of its interval ``[lo, hi]``, as matplotlib's ``yerr``
    wants them: shape (2, n), never negative, 0 where a bound or the value is missing.

    The point estimate and its bootstrap interval are computed by different arithmetic (a mean over
    seeds, quantiles of resampled item means), so where the interval is degenerate (every resample
    the same) the estimate can lie 1e-14 outside it; matplotlib rejects such a negative length, so
    it is read as 0 (the interval touches the estimate).

    Args:
        value, lo, hi: (n,) the estimates and their bounds, in one unit.
    """
    y, lo, hi = (np.asarray(a, dtype=float).reshape(-1) for a in (value, lo, hi))
    if not len(y) == len(lo) == len(hi):
        raise ValueError(f"value, lo and hi need one entry each per point: {len(y)}, {len(lo)}, {len(hi)}")
    err = np.vstack([y - lo, hi - y])
    return np.where(np.isfinite(err), np.clip(err, 0.0, None), 0.0)
