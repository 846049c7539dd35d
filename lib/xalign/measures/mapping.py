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

    Args:
        X: (n, d) vectors.
        mean: (d,) mean to subtract (default: that of the normalised X).

    Returns:
        (processed (n, d) rows, the (d,) mean used, to apply to other vectors).
    """
    X = finite("X", X, np.float64)
    X = X / np.maximum(row_norms(X), 1e-12)  # a new array: the steps below work in place
    if mean is None:
        mean = X.mean(0)
    X -= mean
    X /= np.maximum(row_norms(X), 1e-12)
    return X, mean


def row_norms(X: np.ndarray) -> np.ndarray:
    """Euclidean norm of each row, without ``np.linalg.norm``'s copy of X.

    Args:
        X: (n, d) real array.

    Returns:
        (n, 1) norms (the values of ``np.linalg.norm(X, axis=1, keepdims=True)``).
    """
    return np.sqrt(np.add.reduce(X * X, axis=1, keepdims=True))


def procrustes(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """The orthogonal map between paired rows: W minimising ``||X W - Y||_F``.

    Args:
        X: (n, d) source anchors.
        Y: (n, d) target anchors, row i paired with X's row i.

    Returns:
        (d, d) orthogonal W. With fewer independent anchor pairs than dimensions (e.g. 100 centred sentence
        pairs in 384 dimensions) the minimiser is not unique; this returns the one closest to the identity
        (largest trace), so that rounding cannot rotate the directions the anchors leave free.

    Raises:
        ValueError: anchors of different shapes or holding NaN or infinite values.
    """
    X, Y = finite("X", X, np.float64), finite("Y", Y, np.float64)
    if X.shape != Y.shape:
        raise ValueError(f"Procrustes needs paired anchors of the same shape, got {X.shape} and {Y.shape}")
    U, s, Vt = np.linalg.svd(X.T @ Y)
    rank = int(np.sum(s > s[0] * len(s) * np.finfo(np.float64).eps)) if s.size and s[0] > 0 else 0
    if rank == len(s):
        return U @ Vt
    # Fewer independent anchors than dimensions: every orthogonal map of the directions no anchor spans is
    # equally optimal, and the SVD's pick among them is decided by rounding. Take the optimum closest to the
    # identity (max trace): on the unconstrained directions, the polar factor of their overlap.
    U_c, V_c = U[:, rank:], Vt[rank:].T
    P, _, Rt = np.linalg.svd(U_c.T @ V_c)
    return U[:, :rank] @ Vt[:rank] + U_c @ (P @ Rt) @ V_c.T


def least_squares_map(X: np.ndarray, Y: np.ndarray, ridge: float = 0.0) -> np.ndarray:
    """The linear map M minimising ``||X M - Y||_F + ridge ||M||_F^2``.

    Args:
        X: (n, d) source rows.
        Y: (n, d') target rows.
        ridge: L2 penalty (>= 0).

    Returns:
        (d, d') M.
    """
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
        """Map source vectors into the shared space.

        Args:
            X: (m, d) source vectors.

        Returns:
            (m, d) float32.
        """
        if self.mean_src is not None:
            X, _ = normalize_center(X, self.mean_src)
        return _times(_times(finite("X", X, np.float64), self.W), self.M_src).astype(np.float32)

    def transform_tgt(self, Y: np.ndarray) -> np.ndarray:
        """Map target vectors into the shared space.

        Args:
            Y: (m, d) target vectors.

        Returns:
            (m, d) float32.
        """
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
    """Procrustes from source anchors X to target anchors Y, optionally followed by MIM.

    Args:
        X: (n, d) source anchors.
        Y: (n, d) target anchors, row i paired with X's row i.
        mim: add the MIM maps: least-squares maps of X W and of Y onto their midpoint (X W + Y) / 2.
        center: normalise, centre and normalise again first (the means are kept for new vectors).
        ridge: MIM's ridge penalty.

    Returns:
        An :class:`Alignment` (``transform_src`` / ``transform_tgt`` map new (m, d) vectors).
    """
    return fit_alignments(X, Y, (mim,), center, ridge)[0]


def fit_alignments(X: np.ndarray, Y: np.ndarray, mims=(False, True), center: bool = True,
                   ridge: float = 1e-3) -> list[Alignment]:
    """:func:`fit_alignment` for each flag of ``mims`` on the same anchors.

    The normalising, centring and Procrustes steps they share run once (the values are those of
    separate fits).

    Args:
        X: (n, d) source anchors.
        Y: (n, d) target anchors.
        mims: one alignment per flag.
        center: as for :func:`fit_alignment`.
        ridge: as for :func:`fit_alignment`.

    Returns:
        One :class:`Alignment` per flag of ``mims``.

    Raises:
        ValueError: anchors holding NaN or infinite values (naming X or Y).
    """
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
