"""Score every layer over repeated random samples, and summarise the runs.

The papers report a layer-wise score as the mean (and standard deviation or
95% confidence interval) over several random samplings of N pairs. Arrays of
paired representations have shape (n_pairs, n_layers, dim).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from xalign.core.memory import blocks_reused
from xalign.core.progress import bar


def sample_runs(n_available: int, n: int, runs: int, seed: int) -> list[np.ndarray]:
    """``runs`` index samples drawn without replacement, one after another from one generator seeded ``seed``.

    Args:
        n_available: rows to draw from.
        n: sample size (capped at ``n_available``).
        runs: number of samples.
        seed: random seed.

    Returns:
        ``runs`` sorted (min(n, n_available),) int arrays of row indices.
    """
    rng = np.random.default_rng(seed)
    size = min(n, n_available)
    return [np.sort(rng.choice(n_available, size=size, replace=False)) for _ in range(runs)]


def layerwise_scores(U: np.ndarray, V: np.ndarray, score: Callable[[np.ndarray, np.ndarray], float],
                     samples: list[np.ndarray], layers: list[int] | None = None,
                     desc: str = "layers", rows: tuple[np.ndarray, np.ndarray] | None = None) -> pd.DataFrame:
    """``score(U[idx, l], V[idx, l])`` for every layer l and every sample idx.

    Args:
        U: (n_pairs, L, dim) source vectors (or any rows, with ``rows``).
        V: (n_pairs, L, dim) target vectors.
        score: (n, dim), (n, dim) -> a float, or a dict of named floats (then a ``metric`` column).
        samples: index arrays into the pairs (see :func:`sample_runs`).
        layers: the layer slices to score (default all L).
        desc: progress bar label.
        rows: (rows_u, rows_v) mapping pair i to row ``rows_u[i]`` of U and ``rows_v[i]`` of V, so the
            pairs' vectors need not be gathered into a copy first (only one (n_sample, dim) slice per score is).

    Returns:
        Tidy frame (layer, run, value[, metric]).
    """
    if rows is None:
        if U.shape[:2] != V.shape[:2]:
            raise ValueError(f"U and V must be paired: {U.shape} vs {V.shape}")
        rows_u = rows_v = None
    else:
        rows_u, rows_v = (np.asarray(r, dtype=np.int64) for r in rows)
        if len(rows_u) != len(rows_v) or U.shape[1] != V.shape[1]:
            raise ValueError(f"rows must pair U and V: {len(rows_u)} vs {len(rows_v)} rows, "
                             f"{U.shape[1]} vs {V.shape[1]} layers")
    layers = list(range(U.shape[1])) if layers is None else list(layers)
    rows = []
    with blocks_reused():  # every (layer, run) scores samples of one size: their similarity blocks are reused
        for li, layer in enumerate(bar(layers, desc=desc, leave=False)):
            for run, idx in enumerate(samples):
                if rows_u is None:
                    value = score(U[idx, li], V[idx, li])
                else:
                    value = score(U[rows_u[idx], li], V[rows_v[idx], li])
                if isinstance(value, dict):
                    rows += [{"layer": layer, "run": run, "metric": m, "value": v} for m, v in value.items()]
                else:
                    rows.append({"layer": layer, "run": run, "value": value})
    return pd.DataFrame(rows)


def summarise(df: pd.DataFrame, by: list[str], value: str = "value", scale: float = 1.0) -> pd.DataFrame:
    """Mean, standard deviation and 95% CI half-width over runs, per group.

    Args:
        df: tidy frame of runs.
        by: the grouping columns.
        value: the column summarised.
        scale: multiplies every statistic (100: fractions to percent).

    Returns:
        One row per group: the ``by`` columns, ``mean``, ``std``, ``count`` (runs), ``ci95``.
    """
    g = df.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    out["ci95"] = 1.96 * out["std"] / np.sqrt(out["count"].clip(lower=1))
    for c in ("mean", "std", "ci95"):
        out[c] = out[c] * scale
    return out


def best_and_last(summary: pd.DataFrame, group: list[str], layer: str = "layer") -> pd.DataFrame:
    """Rows of the best layer (highest mean) and of the last layer, per group.

    Args:
        summary: output of :func:`summarise` (with a ``mean`` column).
        group: the columns identifying a group.
        layer: the layer column.

    Returns:
        The chosen rows with a ``which`` column (``"best"``, ``"last"``, ``"first"``).
    """
    out = []
    for _, sub in summary.groupby(group, sort=False):
        best = sub.loc[sub["mean"].idxmax()].copy()
        best["which"] = "best"
        last = sub.loc[sub[layer].idxmax()].copy()
        last["which"] = "last"
        first = sub.loc[sub[layer].idxmin()].copy()
        first["which"] = "first"
        out += [first, best, last]
    return pd.DataFrame(out).reset_index(drop=True)
