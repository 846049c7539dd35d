"""MEXA's alignment score: the share of parallel sentences that are each other's strict top-1.

Kargaran et al. (2025), "MEXA: Multilingual Evaluation of English-Centric LLMs via
Cross-Lingual Alignment", compare a language with English on n parallel sentences,
layer by layer. With ``S[i, j]`` the cosine similarity of sentence i of language L1 and
sentence j of English (L2), pair i counts as aligned when its own similarity ``S[i, i]``
is strictly greater than every other entry of row i (i's translation beats every other
English sentence) and every other entry of column i (i's English sentence is closest to
i among all L1 sentences). The alignment score is the share of aligned pairs, in [0, 1]:

    mexa(S) = 1/n * sum_i 1[ S[i, i] > max_{j != i} max(S[i, j], S[j, i]) ]

Ties are not aligned (a strict inequality): a model that maps every sentence to the same
vector scores 0, not 1. The paper pools each layer's token states into one sentence
vector first (a position-weighted mean for decoder-only models); that choice belongs to
the caller, who passes the vectors or the similarity matrix.
"""

from __future__ import annotations

import numpy as np


def mexa_aligned(similarity) -> np.ndarray:
    """Per pair: is it the strict top-1 of both its row and its column? (the terms of MEXA's score)

    Args:
        similarity: (n, n) similarities, row i = sentence i of the other language, column j =
            English sentence j, the diagonal the translation pairs; finite values.

    Returns:
        (n,) bool, True where ``S[i, i]`` is strictly above every other entry of row i and of
        column i (n = 1: True, there is no competitor).

    Raises:
        ValueError: not a square 2-d matrix, empty, or holding NaN/infinite values.
    """
    S = np.asarray(similarity, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1]:
        raise ValueError(f"similarity must be a square (n, n) matrix (row i, column i = pair i), got shape {S.shape}")
    if S.shape[0] == 0:
        raise ValueError("similarity is empty: no sentence pairs to score")
    if not np.all(np.isfinite(S)):
        raise ValueError("similarity holds NaN or infinite values")
    diag = np.diag(S).copy()
    others = S.copy()
    np.fill_diagonal(others, -np.inf)
    return (diag > others.max(axis=1)) & (diag > others.max(axis=0))


def cosine_matrix(X, Y) -> np.ndarray:
    """(n, m) cosine similarities of the rows of X and Y (a zero row gives 0 everywhere).

    Args:
        X: (n, d) vectors.
        Y: (m, d) vectors.

    Returns:
        (n, m) float64 cosines in [-1, 1].
    """
    X, Y = np.asarray(X, np.float64), np.asarray(Y, np.float64)
    if X.ndim != 2 or Y.ndim != 2 or X.shape[1] != Y.shape[1]:
        raise ValueError(f"expected (n, d) and (m, d) arrays, got {X.shape} and {Y.shape}")

    def unit(A):
        norm = np.linalg.norm(A, axis=1, keepdims=True)
        return np.divide(A, norm, out=np.zeros_like(A), where=norm > 0)

    return unit(X) @ unit(Y).T


def mexa_hits(X, Y) -> np.ndarray:
    """MEXA's per-pair outcome from sentence vectors: cosine matrix, then :func:`mexa_aligned`.

    Args:
        X: (n, d) sentences of the other language, row i the translation of Y's row i.
        Y: (n, d) English sentences.

    Returns:
        (n,) bool; its mean is MEXA's alignment score (x 100 for percent).
    """
    X, Y = np.asarray(X), np.asarray(Y)
    if X.shape != Y.shape:
        raise ValueError(f"X and Y must be paired row by row (the same shape), got {X.shape} and {Y.shape}")
    return mexa_aligned(cosine_matrix(X, Y))


def mexa_score(similarity) -> float:
    """MEXA's alignment score of one similarity matrix: the share of aligned pairs, in [0, 1].

    Args:
        similarity: (n, n) as for :func:`mexa_aligned`.

    Returns:
        The mean of :func:`mexa_aligned`.
    """
    return float(np.mean(mexa_aligned(similarity)))
