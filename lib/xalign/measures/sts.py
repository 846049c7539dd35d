"""Semantic textual similarity: Spearman correlation of cosine similarities with gold scores.

:func:`spearman` is the library's one Spearman's rho (STS, the card, chapters 2, 3 and 5 call it;
:func:`spearman_test` adds a p-value).

The STS convention (SemEval 2017, SentEval): score each sentence pair by the
cosine of its two sentence vectors and report Spearman's rank correlation
with the gold similarities, times 100.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr


def pair_cosines(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Cosine of each row pair (u_i, v_i); zero vectors give 0.

    Args:
        U: (n, d) first sentences.
        V: (n, d) second sentences.

    Returns:
        (n,) float64 cosines in [-1, 1].
    """
    U, V = np.asarray(U, np.float64), np.asarray(V, np.float64)
    if U.shape != V.shape or U.ndim != 2:
        raise ValueError(f"expected two (n, d) arrays of the same shape, got {U.shape} and {V.shape}")
    num = (U * V).sum(1)
    den = np.linalg.norm(U, axis=1) * np.linalg.norm(V, axis=1)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def average_ranks(x) -> np.ndarray:
    """1-based ranks of ``x``, ties sharing their average rank (scipy's ``rankdata``).

    Args:
        x: (n,) values.

    Returns:
        (n,) float64 ranks in [1, n].
    """
    x = np.asarray(x, np.float64)
    if x.ndim != 1:
        raise ValueError(f"average_ranks needs a 1-d array, got shape {x.shape}")
    order = np.argsort(x, kind="stable")
    xs = x[order]
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])  # first sorted position of each tie group
    ends = np.r_[starts[1:], len(x)]
    ranks = np.empty(len(x))
    ranks[order] = np.repeat((starts + ends + 1) / 2.0, ends - starts)  # mean of ranks starts+1 .. ends
    return ranks


def spearman(x, y) -> float:
    """Spearman's rho, bit-identical to ``scipy.stats.spearmanr(x, y).statistic`` at a third of its cost.

    Pearson of the average ranks, for bootstraps that call it thousands of times.

    Args:
        x: (n,) values.
        y: (n,) values.

    Returns:
        rho in [-1, 1]; NaN if either array is constant or holds a NaN.
    """
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    if x.shape != y.shape or x.ndim != 1:
        raise ValueError(f"expected two (n,) arrays of one shape, got {x.shape} and {y.shape}")
    if len(x) < 2 or np.isnan(x).any() or np.isnan(y).any() or (x == x[0]).all() or (y == y[0]).all():
        return float("nan")
    return float(np.corrcoef(np.column_stack((average_ranks(x), average_ranks(y))), rowvar=False)[1, 0])


def spearman_test(x, y) -> tuple[float, float]:
    """Spearman's rho with its two-sided p-value (scipy's t approximation, n - 2 degrees of freedom).

    For a table that reports p; a statistic alone (a bootstrap's) is :func:`spearman`.

    Args:
        x: (n,) values, n >= 3.
        y: (n,) values.

    Returns:
        (rho in [-1, 1], p in [0, 1]); NaN for both if either array is constant.
    """
    res = spearmanr(x, y)
    return float(res.statistic), float(res.pvalue)


def mean_track_spearman(rows: np.ndarray) -> float:
    """Mean over STS tracks of Spearman's rho x 100 between pair cosines and gold scores.

    Args:
        rows: (n, 3) items: track id, pair cosine, gold score (the card's bootstrap resamples these rows).

    Returns:
        The mean of each track's rho x 100 (a constant track counts as missing); NaN if every track is.
    """
    rows = np.asarray(rows, np.float64)
    vals = [spearman(rows[rows[:, 0] == t, 1], rows[rows[:, 0] == t, 2]) for t in np.unique(rows[:, 0])]
    return 100 * float(np.nanmean(vals)) if not np.all(np.isnan(vals)) else float("nan")


def sts_spearman(U: np.ndarray, V: np.ndarray, gold) -> float:
    """Spearman's rho x 100 between pair cosines and gold scores.

    Args:
        U: (n, d) first sentences.
        V: (n, d) second sentences.
        gold: (n,) gold similarity scores.

    Returns:
        rho x 100, in [-100, 100].
    """
    gold = np.asarray(gold, np.float64)
    if len(gold) != len(U):
        raise ValueError(f"{len(gold)} gold scores for {len(U)} sentence pairs")
    if len(gold) < 3:
        raise ValueError("need at least three pairs for a rank correlation")
    return float(100 * spearman(pair_cosines(U, V), gold))


def layerwise_sts(U: np.ndarray, V: np.ndarray, gold, layers: list[int] | None = None) -> pd.DataFrame:
    """Spearman's rho x 100 per layer for paired sentence vectors.

    Args:
        U: (n, L, d) first sentences.
        V: (n, L, d) second sentences.
        gold: (n,) gold similarity scores.
        layers: labels of the L slices (default 0..L-1).

    Returns:
        Tidy frame (layer, value in [-100, 100]).
    """
    if U.ndim != 3 or U.shape != V.shape:
        raise ValueError(f"expected paired (n, L, d) arrays, got {U.shape} and {V.shape}")
    layers = list(range(U.shape[1])) if layers is None else list(layers)
    return pd.DataFrame([{"layer": layer, "value": sts_spearman(U[:, i], V[:, i], gold)}
                         for i, layer in enumerate(layers)])
