"""Paired comparisons over the same items: two models' difference, and which layer of one model is best.

Both resample the *items* once for every system compared, so what is shared cancels:

- :func:`stat_difference_ci`: ``stat(a) - stat(b)`` for two models scored on the same items, with its
  paired bootstrap interval (:func:`xalign.measures.intervals.paired_difference_ci` for a mean,
  :func:`~xalign.measures.intervals.paired_bootstrap_ci` for any other statistic, e.g. a Spearman
  correlation or a transfer rate).
- :func:`best_layer_shares`: in what share of bootstrap resamples each layer has the highest
  statistic: an interval on *which* layer is best, not only on its score.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from xalign.measures.intervals import paired_bootstrap_ci, paired_difference_ci


def _items(x, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=float)
    if a.ndim == 0 or len(a) == 0:
        raise ValueError(f"{name} must hold one score (or one row) per item, at least one item; got shape {a.shape}")
    return a


def stat_difference_ci(items_a, items_b, stat: Callable = np.mean, n_boot: int = 1000, level: float = 0.95,
                       seed: int = 0) -> tuple[float, float, float]:
    """The difference ``stat(items_a) - stat(items_b)`` of two systems on the same items, with a paired interval.

    Args:
        items_a, items_b: one score (0/1 hit, a value) or one row per item for each system, aligned: row i of
            both is the same test item. Shapes (n, ...), equal, n >= 1.
        stat: per-item array -> number (default the mean: for 0/1 hits, an accuracy as a share).
        n_boot: bootstrap resamples (each draws n items with replacement, the same ones for both systems).
        level: coverage of the interval, in (0, 1).
        seed: the generator's seed (a rerun gives the same numbers).

    Returns:
        ``(difference, lo, hi)`` in the unit of ``stat``; identical inputs give ``(0, 0, 0)``.
        (nan, nan) bounds when fewer than half the resamples have a finite statistic.

    Raises:
        ValueError: empty inputs, or shapes that differ (not the same items).
    """
    a, b = _items(items_a, "items_a"), _items(items_b, "items_b")
    if a.shape != b.shape:
        raise ValueError(f"items_a and items_b must score the same items (one shape), got {a.shape} and {b.shape}")
    if stat is np.mean and a.ndim == 1:
        return paired_difference_ci(a, b, n_boot, level, seed)
    lo, hi = paired_bootstrap_ci([a, b], lambda x, y: stat(x) - stat(y), n_boot, level, seed)
    return float(stat(a) - stat(b)), lo, hi


def best_layer_shares(items_by_layer: Sequence, stat: Callable = np.mean, n_boot: int = 1000,
                      seed: int = 0) -> np.ndarray:
    """The share of bootstrap resamples in which each layer has the highest statistic.

    Every resample draws the items once (n with replacement) and scores every layer on those items; the
    layer with the highest statistic wins it (a tie goes to the earlier layer, as the card's best layer;
    a statistic that is not finite never wins).

    Args:
        items_by_layer: L arrays of one score or row per item, all of shape (n, ...), row i the same item.
        stat: per-item array -> number (default the mean).
        n_boot: bootstrap resamples, >= 1.
        seed: the generator's seed.

    Returns:
        (L,) shares in [0, 1], in the order given; they sum to 1 (0 everywhere when no resample has a
        finite statistic).

    Raises:
        ValueError: no layers, n_boot < 1, or layers of different shapes.
    """
    if int(n_boot) < 1:
        raise ValueError(f"n_boot must be a positive number of resamples, got {n_boot}")
    X = [_items(x, f"items_by_layer[{i}]") for i, x in enumerate(items_by_layer)]
    if not X:
        raise ValueError("items_by_layer is empty: no layers to choose from")
    if len({x.shape for x in X}) > 1:
        raise ValueError(f"every layer must score the same items (one shape), got {sorted({x.shape for x in X})}")
    X = np.stack(X)  # (L, n, ...)
    L, n = X.shape[:2]
    rng = np.random.default_rng(seed)
    wins = np.zeros(L)
    step = max(1, int(2e7 // max(1, X[0].size * L)))  # resamples per block: a bounded block of memory
    for start in range(0, int(n_boot), step):
        idx = rng.integers(0, n, size=(min(step, int(n_boot) - start), n))
        if stat is np.mean and X.ndim == 2:
            vals = X[:, idx].mean(-1).T  # (b, L)
        else:
            vals = np.array([[stat(X[j][i]) for j in range(L)] for i in idx], dtype=float)
        vals = np.where(np.isfinite(vals), vals, -np.inf)
        ok = np.isfinite(vals).any(1)
        wins += np.bincount(vals[ok].argmax(1), minlength=L)
    total = wins.sum()
    return wins / total if total else wins
