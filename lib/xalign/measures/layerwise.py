"""Score every layer over repeated random samples, and summarise the runs.

The papers report a layer-wise score as the mean (and standard deviation or
95% confidence interval) over several random samplings of N pairs. Arrays of
paired representations have shape (n_pairs, n_layers, dim).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from xalign.core.progress import bar


def sample_runs(n_available: int, n: int, runs: int, seed: int) -> list[np.ndarray]:
    """``runs`` index samples of size min(n, n_available), drawn without replacement."""
    rng = np.random.default_rng(seed)
    size = min(n, n_available)
    return [np.sort(rng.choice(n_available, size=size, replace=False)) for _ in range(runs)]


def layerwise_scores(U: np.ndarray, V: np.ndarray, score: Callable[[np.ndarray, np.ndarray], float],
                     samples: list[np.ndarray], layers: list[int] | None = None,
                     desc: str = "layers") -> pd.DataFrame:
    """score(U[idx, l], V[idx, l]) for every layer l and every sample; tidy (layer, run, value).

    A score function may return a dict of named scores; the frame then has a
    ``metric`` column (one row per metric).
    """
    if U.shape[:2] != V.shape[:2]:
        raise ValueError(f"U and V must be paired: {U.shape} vs {V.shape}")
    layers = list(range(U.shape[1])) if layers is None else list(layers)
    rows = []
    for li, layer in enumerate(bar(layers, desc=desc, leave=False)):
        for run, idx in enumerate(samples):
            value = score(U[idx, li], V[idx, li])
            if isinstance(value, dict):
                rows += [{"layer": layer, "run": run, "metric": m, "value": v} for m, v in value.items()]
            else:
                rows.append({"layer": layer, "run": run, "value": value})
    return pd.DataFrame(rows)


def summarise(df: pd.DataFrame, by: list[str], value: str = "value", scale: float = 1.0) -> pd.DataFrame:
    """Mean, standard deviation and 95% CI half-width over runs, per group (times ``scale``)."""
    g = df.groupby(by, sort=False)[value]
    out = g.agg(["mean", "std", "count"]).reset_index()
    out["std"] = out["std"].fillna(0.0)
    out["ci95"] = 1.96 * out["std"] / np.sqrt(out["count"].clip(lower=1))
    for c in ("mean", "std", "ci95"):
        out[c] = out[c] * scale
    return out


def best_and_last(summary: pd.DataFrame, group: list[str], layer: str = "layer") -> pd.DataFrame:
    """Rows of the best layer (highest mean) and of the last layer, per group; adds ``which``."""
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
