"""Validation splits that keep related rows together: k folds and one hold-out, by group.

An XNLI training set holds whole premise groups: each premise comes with three hypotheses, one per label.
Split those rows at random and a held-out hypothesis has its premise's other two hypotheses in training,
with the two other labels; a probe that learns the premise is then marked wrong on the held-out one, so
cross-validation punishes fitting and prefers the strongest regulariser (on chapter 5's XNLI zh task,
ungrouped 5-fold accuracy 33 % = chance at every L2 value where the test accuracy was 56 %). With the rows
of a premise kept in one fold, the cross-validated accuracy is the test accuracy's estimate again (54 %).

``groups``: one integer per row, rows with the same value stay together; ``None``: every row alone (the
plain stratified splits, unchanged).
"""

from __future__ import annotations

import numpy as np


def first_text_groups(texts: tuple[list[str], ...]) -> np.ndarray | None:
    """Group ids of a split's rows by their first sentence, for pair tasks whose first sentences repeat.

    Args:
        texts: the split's sentence slots (one list per slot, all of one length n).

    Returns:
        (n,) int group ids (rows sharing a premise share an id), or ``None`` for a one-sentence task or one
        whose first sentences are all distinct (nothing to keep together).
    """
    if len(texts) < 2:
        return None
    _, ids = np.unique(np.asarray(texts[0], dtype=object).astype(str), return_inverse=True)
    return ids.astype(np.int64) if ids.max(initial=-1) + 1 < len(ids) else None


def cv_splits(y, k: int, seed: int, groups=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified k-fold (train, validation) index pairs; with ``groups``, no group is split across folds.

    Args:
        y: (n,) labels.
        k: folds.
        seed: the shuffle's seed.
        groups: (n,) group ids or ``None``.

    Returns:
        k pairs of sorted index arrays.
    """
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    y = np.asarray(y)
    X = np.zeros((len(y), 1))
    if groups is None:
        return list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(X, y))
    return list(StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed).split(X, y, np.asarray(groups)))


def holdout_indices(n: int, share: float, rng: np.random.Generator, groups=None) -> tuple[np.ndarray, np.ndarray]:
    """(train, held-out) indices with at least one and about ``share`` of the ``n`` rows held out.

    Without groups: a permutation drawn from ``rng``, its first ``max(1, int(share * n))`` rows held out (the
    early-stopping hold-out SentEval draws). With groups: the groups in an order drawn from ``rng``, whole
    groups held out until that many rows are.
    """
    n_val = max(1, int(share * n))
    if groups is None:
        perm = rng.permutation(n)
        return perm[n_val:], perm[:n_val]
    groups = np.asarray(groups)
    order = rng.permutation(np.unique(groups))
    sizes = np.array([np.sum(groups == g) for g in order])
    held = set(order[: int(np.searchsorted(np.cumsum(sizes), n_val)) + 1].tolist())
    mask = np.isin(groups, list(held))
    return np.flatnonzero(~mask), np.flatnonzero(mask)
