"""VecMap's supervised multi-step mapping (Artetxe, Labaka and Agirre 2018, AAAI).

Both spaces are transformed, each by a product of linear steps learned on
the dictionary's anchor rows X (n, d) and Z (n, d) (already unit length,
centred, unit length: VecMap's ``--normalize unit center unit``):

1. whitening: ``W_x1 = (X^T X)^(-1/2)``, ``W_z1 = (Z^T Z)^(-1/2)``;
2. orthogonal mapping: ``U S V^T = (X W_x1)^T (Z W_z1)``, ``W_x2 = U``, ``W_z2 = V``;
3. re-weighting by ``S^src_reweight`` and ``S^trg_reweight``;
4. de-whitening of either side by ``W_x2^T W_x1^(-1) W_x2`` (``"src"``) or
   ``W_z2^T W_z1^(-1) W_z2`` (``"trg"``);
5. optional dimensionality reduction (keep the first ``dim`` columns).

VecMap's ``--supervised`` defaults are whitening, re-weighting 0.5 on both
sides and de-whitening each side with its own whitening matrix; with no
whitening, no re-weighting and no de-whitening the method reduces to
orthogonal Procrustes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xalign.measures.validate import finite


def _whitening_pair(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(M^T M)^(-1/2)`` and its inverse ``(M^T M)^(1/2)``, from the eigenvectors of M^T M.

    With fewer independent rows than dimensions the inverse square root is
    taken on M's row space (a pseudo-inverse), so whitening projects out the
    directions the anchors do not span instead of dividing by zero.
    """
    M = np.asarray(M, np.float64)
    w, V = np.linalg.eigh(M.T @ M)          # eigenvalues = squared singular values of M
    s = np.sqrt(np.clip(w, 0, None))
    if not s.size or s.max() == 0:
        raise ValueError("cannot whiten an all-zero anchor matrix")
    keep = s > 1e-6 * s.max()
    inv_s = np.where(keep, 1 / np.where(keep, s, 1), 0.0)
    return (V * inv_s) @ V.T, (V * np.where(keep, s, 0.0)) @ V.T


def whitening_matrix(M: np.ndarray) -> np.ndarray:
    """``(M^T M)^(-1/2)`` (a pseudo-inverse square root if M is rank-deficient).

    Args:
        M: (n, d) anchors.

    Returns:
        (d, d) float64.
    """
    return _whitening_pair(M)[0]


@dataclass
class VecMapFit:
    """``A_src`` (d x d') and ``A_tgt`` (d x d'): apply as ``X @ A_src``, ``Z @ A_tgt``."""

    A_src: np.ndarray
    A_tgt: np.ndarray
    singular_values: np.ndarray


def fit_vecmap(X: np.ndarray, Z: np.ndarray, whiten: bool = True, src_reweight: float = 0.5,
               trg_reweight: float = 0.5, src_dewhiten: str | None = "src", trg_dewhiten: str | None = "trg",
               dim: int | None = None) -> VecMapFit:
    """The multi-step supervised map from anchors X to Z (see the module docstring).

    Args:
        X: (n, d) source anchors.
        Z: (n, d) target anchors, row i paired with X's row i.
        whiten: whiten both sides first.
        src_reweight: source re-weighting exponent.
        trg_reweight: target re-weighting exponent.
        src_dewhiten: ``"src"``, ``"trg"`` or None: whose whitening the source side undoes.
        trg_dewhiten: the same for the target side.
        dim: keep this many dimensions (None: all).

    Returns:
        A :class:`VecMapFit` (``A_src`` (d, dim) and ``A_tgt`` (d, dim) maps).
    """
    X, Z = finite("X", X, np.float64), finite("Z", Z, np.float64)
    if X.shape != Z.shape:
        raise ValueError(f"anchors must be paired and of one dimension, got {X.shape} and {Z.shape}")
    for name, v in (("src_dewhiten", src_dewhiten), ("trg_dewhiten", trg_dewhiten)):
        if v not in (None, "src", "trg"):
            raise ValueError(f"{name} must be None, 'src' or 'trg', got {v!r}")
    d = X.shape[1]
    I = np.eye(d)
    (Wx1, Wx1_inv), (Wz1, Wz1_inv) = (_whitening_pair(X), _whitening_pair(Z)) if whiten else ((I, I), (I, I))
    U, s, Vt = np.linalg.svd((X @ Wx1).T @ (Z @ Wz1))
    Wx2, Wz2 = U, Vt.T
    A_src = Wx1 @ Wx2 @ np.diag(s ** src_reweight)
    A_tgt = Wz1 @ Wz2 @ np.diag(s ** trg_reweight)
    dewhiten = {"src": Wx2.T @ Wx1_inv @ Wx2, "trg": Wz2.T @ Wz1_inv @ Wz2}
    if src_dewhiten:
        A_src = A_src @ dewhiten[src_dewhiten]
    if trg_dewhiten:
        A_tgt = A_tgt @ dewhiten[trg_dewhiten]
    if dim:
        A_src, A_tgt = A_src[:, :dim], A_tgt[:, :dim]
    return VecMapFit(A_src, A_tgt, s)
