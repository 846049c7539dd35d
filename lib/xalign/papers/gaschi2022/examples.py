"""Table V's example errors, chosen by a rule that rounding on another machine cannot flip.

A random draw among the S_weak errors shows other words as soon as one near-tie flips between a hit and a
miss (the draw's indices shift), and that is what a machine of another CPU kind does. Here an error's
*margin* is how far the retrieved word's CSLS score lies above the translation's (float64); the examples
are the errors with the largest margin rounded to :data:`DECIMALS` decimals, ties broken by the words in
alphabetical order. An error whose rounded margin is 0 is never shown (it is a near-tie, not a mistake the
model is sure of), so float32 rounding (about 1e-7) changes the choice only for a margin lying within
1e-7 of a rounding boundary.

Part of chapter 1's method; see :mod:`xalign.papers.gaschi2022.weakstrong` for the scores.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.measures.neighbours import csls_scores, topk_mean64, unit_rows64

#: the margin's precision for ranking (CSLS units; the CSLS score lies in [-4, 4])
DECIMALS = 2


def csls_margins(U, V, k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """For each source word i, its best other candidate j != i and the margin CSLS(i, j) - CSLS(i, i).

    Args:
        U, V: (n, dim) vectors of the n pairs' source and target words (row i of V is i's translation).
        k: CSLS neighbourhood size, 1 to n.

    Returns:
        (retrieved, margin): (n,) the index of the best candidate other than the translation and (n,) its
        CSLS margin over the translation in float64 (> 0: an error).
    """
    u, v = unit_rows64(U, "U"), unit_rows64(V, "V")
    if u.shape != v.shape:
        raise ValueError(f"U and V must hold the same pairs (one shape), got {u.shape} and {v.shape}")
    n = len(u)
    if not 1 <= int(k) <= n:
        raise ValueError(f"k = {k}: the CSLS neighbourhood must be 1 to the number of pairs ({n})")
    k = int(k)
    C = u @ v.T  # cosines, then CSLS in place (one (n, n) float64 matrix besides the partitions)
    r_v = topk_mean64(C, k, axis=1)  # each source word's density among the targets
    r_u = topk_mean64(C, k, axis=0)  # each target word's density among the sources
    csls_scores(C, r_v, r_u, out=C)
    gold = np.diag(C).copy()
    np.fill_diagonal(C, -np.inf)
    retrieved = C.argmax(1)
    return retrieved, C[np.arange(n), retrieved] - gold


def example_errors(src: list[str], tgt: list[str], U, V, k: int = 10, n: int = 12,
                   decimals: int = DECIMALS) -> pd.DataFrame:
    """The ``n`` S_weak errors the model is surest of, in an order rounding cannot change.

    Args:
        src, tgt: the n pairs' source and target words (row i of ``U`` / ``V``).
        U, V: (n, dim) the words' vectors.
        k: CSLS neighbourhood size.
        n: examples wanted (>= 1; fewer when fewer errors have a positive rounded margin).
        decimals: the margin's rounding before ranking (>= 0).

    Returns:
        ``row`` (the pair's index), ``reference word``, ``target word``, ``model output``, ``CSLS margin``
        (rounded), largest margin first, ties by the three words alphabetically.
    """
    if int(n) < 1:
        raise ValueError(f"n = {n}: the number of examples must be >= 1")
    if int(decimals) < 0:
        raise ValueError(f"decimals = {decimals}: the margin's rounding must be >= 0 decimals")
    if not len(src) == len(tgt) == len(U):
        raise ValueError(f"src, tgt and U must hold the same pairs, got {len(src)}, {len(tgt)} and {len(U)}")
    retrieved, margin = csls_margins(U, V, k)
    out = pd.DataFrame({"row": np.arange(len(src)), "reference word": list(src), "target word": list(tgt),
                        "model output": [tgt[j] for j in retrieved],
                        "CSLS margin": np.round(margin, int(decimals))})
    out = out[out["CSLS margin"] > 0]
    out = out.sort_values(["CSLS margin", "reference word", "target word", "model output", "row"],
                          ascending=[False, True, True, True, True], kind="mergesort")
    return out.head(int(n)).reset_index(drop=True)


def best_layer(weak: pd.DataFrame, pair: str, decimals: int = 1) -> int:
    """The layer with the highest mean S_weak (%) of ``pair``, the mean rounded to ``decimals`` first and ties
    going to the earlier layer, so that a rerun's rounding cannot move it between two equal layers."""
    d = weak[weak["pair"] == pair]
    if not len(d):
        raise ValueError(f"pair = {pair!r} has no S_weak rows (pairs: {sorted(weak['pair'].unique())})")
    d = d.assign(rounded=d["mean"].round(decimals)).sort_values(["rounded", "layer"], ascending=[False, True])
    return int(d["layer"].iloc[0])
