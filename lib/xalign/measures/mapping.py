"""Supervised linear maps between embedding spaces: orthogonal Procrustes and Meeting-in-the-Middle.

Rows are vectors throughout: anchors ``X`` (n, d_src) and ``Y`` (n, d_tgt),
row i of X translating row i of Y.

- Procrustes (Schoenemann 1966; Liu et al. 2019, Eqs. 1-2): the orthogonal
  W minimising ||X W - Y||_F; with ``Y^T X = U S V^T`` (row convention) the
  solution is ``W = V U^T``. Anchors are L2-normalised and mean-centred first
  (:func:`normalize_center`), the usual pre-processing.
- Meeting in the middle (Doval et al. 2018; Liu et al. Eq. 3): after the
  orthogonal map, the average of each mapped anchor pair is the "middle" M;
  least-squares linear maps ``M_s`` (from the mapped source) and ``M_t``
  (from the target) are fitted to it, so both spaces move towards each other.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xalign.measures.validate import finite


def normalize_center(X: np.ndarray, mean: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """L2-normalise rows, subtract the mean (the given one, or X's), normalise again.

    Returns the processed rows and the mean used (to apply to other vectors).
    """
    X = finite("X", X, np.float64)
    X = X / np.maximum(row_norms(X), 1e-12)  # a new array: the steps below work in place
    if mean is None:
        mean = X.mean(0)
    X -= mean
    X /= np.maximum(row_norms(X), 1e-12)
    return X, mean


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of each row of a real (n, d) array, as (n, 1): the values of
    ``np.linalg.norm(X, axis=1, keepdims=True)`` without its copy of X."""
    return np.sqrt(np.add.reduce(X * X, axis=1, keepdims=True))


def procrustes(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Orthogonal W (d x d) minimising ||X W - Y||_F for paired rows X (n, d), Y (n, d).

    Raises ValueError for anchors of different shapes or holding NaN or infinite values.
    """
    X, Y = finite("X", X, np.float64), finite("Y", Y, np.float64)
    if X.shape != Y.shape:
        raise ValueError(f"Procrustes needs paired anchors of the same shape, got {X.shape} and {Y.shape}")
    U, _, Vt = np.linalg.svd(X.T @ Y)
    return U @ Vt


def least_squares_map(X: np.ndarray, Y: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """Linear M (d x d) minimising ||X M - Y||_F (+ ridge ||M||^2); X and Y must be finite."""
    X, Y = finite("X", X, np.float64), finite("Y", Y, np.float64)
    A = X.T @ X + ridge * np.eye(X.shape[1])
    return np.linalg.solve(A, X.T @ Y)


@dataclass
class Alignment:
    """A fitted source->target alignment: ``transform_src`` / ``transform_tgt`` map new vectors.

    ``W``: orthogonal source map; ``M_src``/``M_tgt``: MIM maps (identity when
    MIM is off); ``mean_src``/``mean_tgt``: the anchors' means (used when the
    alignment was fitted with centring).
    """

    W: np.ndarray
    M_src: np.ndarray
    M_tgt: np.ndarray
    mean_src: np.ndarray | None
    mean_tgt: np.ndarray | None

    def transform_src(self, X: np.ndarray) -> np.ndarray:
        if self.mean_src is not None:
            X, _ = normalize_center(X, self.mean_src)
        return _times(_times(finite("X", X, np.float64), self.W), self.M_src).astype(np.float32)

    def transform_tgt(self, Y: np.ndarray) -> np.ndarray:
        if self.mean_tgt is not None:
            Y, _ = normalize_center(Y, self.mean_tgt)
        return _times(finite("Y", Y, np.float64), self.M_tgt).astype(np.float32)


def _times(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``X @ M``, skipped when M is the identity (the product would return X's values exactly)."""
    if M.ndim == 2 and M.shape[0] == M.shape[1] and np.array_equal(M, np.eye(len(M))):
        return X
    return X @ M


def fit_alignment(X: np.ndarray, Y: np.ndarray, mim: bool = False, center: bool = True,
                  ridge: float = 1e-3) -> Alignment:
    """Procrustes from source anchors X to target anchors Y, optionally followed by MIM."""
    return fit_alignments(X, Y, (mim,), center, ridge)[0]


def fit_alignments(X: np.ndarray, Y: np.ndarray, mims=(False, True), center: bool = True,
                   ridge: float = 1e-3) -> list[Alignment]:
    """:func:`fit_alignment` for each flag of ``mims``, on the same anchors: the normalising,
    centring and Procrustes steps they share run once (the values are those of separate fits).
    Anchors holding NaN or infinite values are a ValueError naming X or Y."""
    X, Y = finite("X", X), finite("Y", Y)
    if len(X) != len(Y):
        raise ValueError(f"{len(X)} source anchors but {len(Y)} target anchors")
    if len(X) < 2:
        raise ValueError("need at least two anchor pairs")
    mean_x = mean_y = None
    if center:
        X, mean_x = normalize_center(X)
        Y, mean_y = normalize_center(Y)
    W = procrustes(X, Y)
    d = W.shape[1]
    out, mim_maps = [], None
    for mim in mims:
        if not mim:
            out.append(Alignment(W, np.eye(d), np.eye(d), mean_x, mean_y))
            continue
        if mim_maps is None:
            XW = X @ W
            middle = (XW + Y) / 2
            mim_maps = least_squares_map(XW, middle, ridge), least_squares_map(Y, middle, ridge)
        out.append(Alignment(W, *mim_maps, mean_x, mean_y))
    return out
