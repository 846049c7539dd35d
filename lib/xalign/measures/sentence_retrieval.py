"""Parallel-sentence retrieval accuracy (Tatoeba / XTREME protocol), per layer and both directions.

Row i of ``X`` (sentences in language xx) and row i of ``Y`` (their English
translations) are a pair. Retrieval from xx to English takes each x_i and
looks for its nearest neighbour among all y_j; it is correct when that
neighbour is y_i (a duplicate translation elsewhere in Y counts as a miss,
as in XTREME). Similarities are cosines (``method="cosine"``, the paper's
setting) or CSLS (``method="csls"``); the search runs in blocks
(:mod:`xalign.measures.neighbours`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.measures.csls import csls_topk
from xalign.measures.neighbours import cosine_topk

METHODS = ("cosine", "csls")
DIRECTIONS = ("xx->en", "en->xx")


def nearest(queries, candidates, method: str = "cosine", k: int = 10) -> np.ndarray:
    """Index of the nearest candidate of each query row.

    Args:
        queries: (n_queries, d) query vectors.
        candidates: (n_candidates, d) candidate vectors.
        method: ``"cosine"`` or ``"csls"`` (:func:`xalign.measures.csls.csls_topk`).
        k: CSLS neighbours (ignored for cosine).

    Returns:
        (n_queries,) int64 rows of ``candidates``.
    """
    if method == "cosine":
        idx, _ = cosine_topk(queries, candidates, topn=1)
    elif method == "csls":
        idx, _ = csls_topk(queries, candidates, k=k, topn=1)
    else:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return idx[:, 0]


def retrieval_hits(queries, candidates, method: str = "cosine", k: int = 10) -> np.ndarray:
    """Per query row i: is its nearest candidate ``candidates[i]`` (paired row by row)?

    Args:
        queries: (n, d) query vectors.
        candidates: (n, d) candidates, row i the translation of query i.
        method: ``"cosine"`` or ``"csls"`` (:func:`xalign.measures.csls.csls_topk`).
        k: CSLS neighbours (ignored for cosine).

    Returns:
        (n,) bool.
    """
    if len(queries) != len(candidates):
        raise ValueError(f"queries and candidates must be paired: {len(queries)} vs {len(candidates)} rows")
    if len(queries) == 0:
        raise ValueError("no sentence pairs to retrieve")
    return nearest(queries, candidates, method, k) == np.arange(len(queries))


def retrieval_accuracy(queries, candidates, method: str = "cosine", k: int = 10) -> float:
    """Fraction of rows i whose nearest candidate is ``candidates[i]`` (paired row by row).

    Args:
        queries: (n, d) query vectors.
        candidates: (n, d) candidates, row i the translation of query i.
        method: ``"cosine"`` or ``"csls"`` (:func:`xalign.measures.csls.csls_topk`).
        k: CSLS neighbours (ignored for cosine).

    Returns:
        A fraction in [0, 1].
    """
    return float(retrieval_hits(queries, candidates, method, k).mean())


def layerwise_retrieval(X: np.ndarray, Y: np.ndarray, layers: list[int] | None = None,
                        method: str = "cosine", directions=DIRECTIONS, keep_hits: bool = False) -> pd.DataFrame:
    """Retrieval accuracy per layer and direction for paired sentence vectors.

    Args:
        X: (n, L, d) vectors of the xx side, row i the translation of Y's row i.
        Y: (n, L, d) vectors of the English side.
        layers: labels of the L slices (default 0..L-1).
        method: ``"cosine"`` or ``"csls"``.
        directions: among ``"xx->en"`` (X queries Y) and ``"en->xx"``.
        keep_hits: add a ``hits`` column, the per-query (n,) bool array the accuracy is the mean of
            (for confidence intervals).

    Returns:
        Tidy frame (layer, direction, value = accuracy in percent, 0-100).
    """
    X, Y = np.asarray(X), np.asarray(Y)
    if X.ndim != 3 or X.shape[:2] != Y.shape[:2]:
        raise ValueError(f"expected paired (n, L, d) arrays, got {X.shape} and {Y.shape}")
    layers = list(range(X.shape[1])) if layers is None else list(layers)
    if len(layers) != X.shape[1]:
        raise ValueError(f"{len(layers)} layer labels for {X.shape[1]} layers")
    bad = [d for d in directions if d not in DIRECTIONS]
    if bad:
        raise ValueError(f"directions must be among {DIRECTIONS}, got {bad}")
    rows = []
    for li, layer in enumerate(layers):
        for d in directions:
            q, c = (X[:, li], Y[:, li]) if d == "xx->en" else (Y[:, li], X[:, li])
            hits = retrieval_hits(q, c, method)
            rows.append({"layer": layer, "direction": d, "value": 100 * float(hits.mean()),
                         **({"hits": hits} if keep_hits else {})})
    return pd.DataFrame(rows)


def add_mean_direction(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Append rows with ``direction == "mean"``: the mean over directions for each group of ``keys``.

    Args:
        frame: tidy frame with ``direction`` and ``value`` columns.
        keys: the columns that identify a group (e.g. ``["pair", "layer"]``).

    Returns:
        ``frame`` with the mean rows appended.
    """
    mean = frame.groupby(keys, sort=False, as_index=False)["value"].mean()
    mean["direction"] = "mean"
    return pd.concat([frame, mean], ignore_index=True)


def best_layer(frame: pd.DataFrame, value: str = "value") -> int:
    """The layer with the highest mean ``value`` over all other keys (ties: the lowest layer).

    Args:
        frame: tidy frame with a ``layer`` column.
        value: the column to maximise.

    Returns:
        A layer index.
    """
    if frame.empty:
        raise ValueError("no scores to choose a layer from")
    means = frame.groupby("layer")[value].mean()
    return int(means.index[np.argmax(means.to_numpy())])
