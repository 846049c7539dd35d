"""Supervised maps for BLI: learnt on the training pairs both vocabularies cover, applied to whole vocabularies.

:func:`fit_map` learns a source->target map (Procrustes, RCSLS, VecMap) on
vocabulary-normalised vectors (unit length, centred on the vocabulary mean, unit
length); :func:`apply_map` puts both vocabularies in its shared space, where
:func:`xalign.measures.bli.evaluate_bli` scores the translations.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xalign.data.static import StaticVectors
from xalign.measures.mapping import Alignment, normalize_center, procrustes

MAPPINGS = ("procrustes", "rcsls", "vecmap")


def anchor_indices(src: StaticVectors, tgt: StaticVectors,
                   pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of the training pairs both vocabularies cover.

    Args:
        src: the source space.
        tgt: the target space.
        pairs: (source word, target word) training pairs.

    Returns:
        (rows into src (m,) int, rows into tgt (m,) int), pair by pair.
    """
    keep = [(src.index[s], tgt.index[t]) for s, t in pairs if s in src.index and t in tgt.index]
    if len(keep) < 2:
        raise ValueError(f"only {len(keep)} of {len(pairs)} training pairs are in both vocabularies")
    i, j = zip(*keep)
    return np.asarray(i), np.asarray(j)


def fit_map(method: str, src: StaticVectors, tgt: StaticVectors, train_pairs: Sequence[tuple[str, str]],
            rcsls_options: dict | None = None, vecmap_options: dict | None = None,
            normalized: tuple | None = None) -> tuple[Alignment, dict]:
    """Learn a supervised source->target map on the covered training pairs.

    Args:
        method: ``"procrustes"`` (orthogonal), ``"rcsls"`` (Joulin et al. 2018; negatives: the whole
            vocabularies unless ``rcsls_options`` says ``n_negatives``) or ``"vecmap"`` (Artetxe et al.
            2018 supervised multi-step).
        src: the (n_src, d) source space.
        tgt: the (n_tgt, d) target space.
        train_pairs: (source word, target word) training pairs.
        rcsls_options: keyword arguments of :func:`xalign.measures.rcsls.fit_rcsls`.
        vecmap_options: keyword arguments of :func:`xalign.measures.vecmap.fit_vecmap`.
        normalized: ``(normalize_center(src.vectors), normalize_center(tgt.vectors))`` when already computed.

    Returns:
        (the :class:`xalign.measures.mapping.Alignment`, applied with ``transform_src`` /
        ``transform_tgt`` or :func:`apply_map`; facts about the fit, a dict).
    """
    if method not in MAPPINGS:
        raise ValueError(f"method must be one of {MAPPINGS}, got {method!r}")
    i, j = anchor_indices(src, tgt, train_pairs)
    (Xn, mean_x), (Yn, mean_y) = normalized or (normalize_center(src.vectors), normalize_center(tgt.vectors))
    if Xn.shape != src.vectors.shape or Yn.shape != tgt.vectors.shape:
        raise ValueError("normalized vectors do not match the vocabularies")
    X, Y = Xn[i], Yn[j]
    d_t = Y.shape[1]
    info = {"method": method, "n_train_pairs": len(train_pairs), "n_anchors": len(i)}
    if method == "procrustes":
        return Alignment(procrustes(X, Y), np.eye(d_t), np.eye(d_t), mean_x, mean_y), info
    if method == "rcsls":
        from xalign.measures.rcsls import fit_rcsls

        opts = dict(rcsls_options or {})
        n_neg = opts.pop("n_negatives", None)
        fit = fit_rcsls(X, Y, Zs=Xn[:n_neg], Zt=Yn[:n_neg], **opts)
        info.update(loss_start=fit.losses[0], loss_end=fit.losses[-1], steps=len(fit.losses) - 1)
        return Alignment(fit.W, np.eye(d_t), np.eye(d_t), mean_x, mean_y), info
    from xalign.measures.vecmap import fit_vecmap

    fit = fit_vecmap(X, Y, **(vecmap_options or {}))
    d = fit.A_src.shape[1]
    return Alignment(fit.A_src, np.eye(d), fit.A_tgt, mean_x, mean_y), info


def apply_map(alignment: Alignment | None, src: StaticVectors, tgt: StaticVectors,
              normalized: tuple | None = None) -> tuple[StaticVectors, StaticVectors]:
    """Both vocabularies in the shared space of ``alignment``.

    The same vectors as ``alignment.transform_src`` / ``transform_tgt``; products with an identity
    matrix are skipped.

    Args:
        alignment: the fitted map (None: the spaces unchanged).
        src: the (n_src, d) source space.
        tgt: the (n_tgt, d) target space.
        normalized: as for :func:`fit_map`, used where its mean is the alignment's.

    Returns:
        (the mapped source space, the mapped target space), (n_src, d) and (n_tgt, d) float32.
    """
    if alignment is None:
        return src, tgt
    pre = normalized or (None, None)
    X = _centred(src.vectors, alignment.mean_src, pre[0])
    Y = _centred(tgt.vectors, alignment.mean_tgt, pre[1])
    return (StaticVectors(src.words, _times(_times(X, alignment.W), alignment.M_src).astype(np.float32)),
            StaticVectors(tgt.words, _times(Y, alignment.M_tgt).astype(np.float32)))


def _centred(V: np.ndarray, mean: np.ndarray | None, pre: tuple | None) -> np.ndarray:
    """``normalize_center(V, mean)`` (V itself, as float64, without a mean); ``pre`` when it is that already."""
    if mean is None:
        return np.asarray(V, np.float64)
    if pre is not None and pre[0].shape == V.shape and np.array_equal(pre[1], mean):
        return pre[0]
    return normalize_center(V, mean)[0]


def _times(X: np.ndarray, M: np.ndarray) -> np.ndarray:
    """X @ M, skipped when M is the identity (the product would return X itself)."""
    if M.shape[0] == M.shape[1] and np.array_equal(M, np.eye(M.shape[0])):
        return X
    return X @ M
