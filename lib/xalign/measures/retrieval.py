"""The weak / strong alignment scores (S_weak, S_strong) of N translation pairs, from CSLS.

All functions take numpy arrays or torch tensors of shape (N, d) (rows are
vectors; they are L2-normalised here, so similarities are cosines) and work
in row blocks so that memory stays O(block x N) even at N = 200,000. They use
the GPU when one is present. Unit rows, blocks, densities and CSLS scores come from
:mod:`xalign.measures.neighbours` (as do the full CSLS matrix, :func:`~xalign.measures.neighbours.csls`,
and plain cosine neighbours, :func:`~xalign.measures.neighbours.cosine_topk`).

Definitions (Gaschi et al. 2022, Eqs. 1-3; Conneau et al. 2018 for CSLS):

- ``r_V(u) = mean of the k largest cos(u, v), v in V`` (the density around u in V);
- ``CSLS(u_i, v_j) = 2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j)``;
- ``S_weak = 1/N sum_i [CSLS(u_i, v_i) > max_{j != i} CSLS(u_i, v_j)]``;
- ``S_strong = 1/N sum_i [s(u_i, v_i) > max_{j != i} s(u_i, u_j)]`` (Eq. 3): the
  competitors are the other *source* vectors. As in the authors' code
  (posos-tech/multilingual-alignment-and-transfer, ``multilingual_eval/retrieval.py``,
  ``evaluate_alignment_with_cosim(..., csls_k=10, strong_alignment=1.0)`` at the
  IJCNN 2022 commit), the query's own density term is dropped (it is the same
  for every candidate and cancels) and every candidate's density is taken in
  the search space, the source vectors U:
  ``s(u_i, v_i) = 2 cos(u_i, v_i) - r_U(v_i)`` and
  ``s(u_i, u_j) = 2 cos(u_i, u_j) - r_U(u_j)``, where ``r_U(u_j)`` counts u_j
  itself among its k neighbours (cosine 1), as the authors' ``topk_mean`` over
  ``x @ x.T`` does.

xalign 0.1 subtracted the query's density among the *targets*, r_V(u_i), from
the translation's score but its density among the other *sources* from every
competitor's, and left u_j itself out of r_U(u_j). Since same-language
neighbours are closer, that favoured the translation exactly when the two
languages sit apart. That formula is kept only inside :func:`alignment_scores`
(``with_xalign01=True``, for chapter 1's before/after table); no public function returns it.

For identical spaces (U = V) both scores are 1 whenever the points are well
separated (e.g. random vectors in a few dozen dimensions). CSLS does not make
that a theorem: a vector with a near-duplicate in a sparse region can lose to
it, since candidates have different density terms.
"""

from __future__ import annotations

import numpy as np

from xalign.core.memory import blocks_reused, scratch
from xalign.measures.neighbours import (
    DEFAULT_BLOCK_BYTES,
    block_rows,
    csls_scores,
    densities,
    resolve_device,
    topk_mean,
    unit_rows,
)
from xalign.measures.validate import positive_int, same_width


def _check_pairs(U, V):
    if len(U) != len(V):
        raise ValueError(f"U and V must be paired row by row: {len(U)} vs {len(V)} rows")
    if len(U) < 2:
        raise ValueError("need at least two pairs")
    same_width(U, V)


def _weak_hits(u, v, r_v, r_u, block) -> np.ndarray:
    rows = block_rows(v.shape[0], block, v.device)
    hits = np.empty(u.shape[0], bool)
    for s in range(0, u.shape[0], rows):
        e = min(s + rows, u.shape[0])
        blk = csls_scores(u[s:e] @ v.T, r_v[s:e], r_u)
        ar = np.arange(e - s)
        own = blk[ar, ar + s].clone()
        blk[ar, ar + s] = -float("inf")
        hits[s:e] = (own > blk.max(1).values).cpu().numpy()
    return hits


def _strong_hits(u, v, r_u, k, block) -> np.ndarray:
    """Eq. 3 as the authors compute it: own = 2 cos(u_i, v_i) - r_U(v_i), rivals 2 cos(u_i, u_j) - r_U(u_j)."""
    r_uu = densities(u, u, k, block)   # each u_j's density among the sources, itself included
    own = 2 * (u * v).sum(1) - r_u
    return _beats_source_rivals(own, u, None, r_uu, block)


def _strong_hits_xalign01(u, v, r_v, r_u, k, block) -> np.ndarray:
    """S_strong hits as computed by xalign 0.1 (wrong density term): kept only to show before/after."""
    r_uu = densities(u, u, k, block, True)  # u's density among the *other* sources
    own = 2 * (u * v).sum(1) - r_v - r_u      # r_v: the query's density among the targets (the error)
    return _beats_source_rivals(own, u, r_uu, r_uu, block)


def _beats_source_rivals(own, u, row_term, col_term, block) -> np.ndarray:
    """own_i > max_{j != i} 2 cos(u_i, u_j) - row_term_i - col_term_j, in blocks of rows; (N,) bool.

    ``row_term`` None: the query's own term is left out (it cancels in Eq. 3).
    """
    rows = block_rows(u.shape[0], block, u.device)
    hits = np.empty(u.shape[0], bool)
    for s in range(0, u.shape[0], rows):
        e = min(s + rows, u.shape[0])
        blk = csls_scores(u[s:e] @ u.T, None, col_term)
        if row_term is not None:  # after the column term: (2 S - col) - row, rounded as before
            blk -= row_term[s:e, None]
        ar = np.arange(e - s)
        blk[ar, ar + s] = -float("inf")
        hits[s:e] = (own[s:e] > blk.max(1).values).cpu().numpy()
    return hits


def _prepare(U, V, k, block, device):
    _check_pairs(U, V)
    dev = resolve_device(device)
    u, v = unit_rows(U, dev), unit_rows(V, dev)
    r_v = densities(u, v, k, block)   # u_i's density among the targets
    r_u = densities(v, u, k, block)   # v_i's density among the sources
    return u, v, r_v, r_u


def weak_hits(U, V, k: int = 10, block: int | None = None, device: str | None = None) -> np.ndarray:
    """Per pair: is v_i the CSLS nearest neighbour of u_i among all v_j? (the terms of Eq. 1)

    Args:
        U: (N, d) source vectors, row i the translation of V's row i (numpy or torch; L2-normalised here).
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term (>= 1; fewer vectors: all of them).
        block: query rows per block (default: :func:`~xalign.measures.neighbours.block_bytes` of float32 scores); memory O(block x N).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (N,) bool, one per pair.
    """
    u, v, r_v, r_u = _prepare(U, V, k, block, device)
    return _weak_hits(u, v, r_v, r_u, block)


def strong_hits(U, V, k: int = 10, block: int | None = None, device: str | None = None) -> np.ndarray:
    """Per pair: does v_i beat every other source vector u_j (j != i) as u_i's neighbour? (Eq. 3)

    Arguments and result as :func:`weak_hits`: (N, d) ``U`` and ``V`` in, (N,) bool out, one per pair.
    """
    u, v, _r_v, r_u = _prepare(U, V, k, block, device)
    return _strong_hits(u, v, r_u, k, block)


def _hits_in_memory(u, v, k, xalign01: bool = False) -> tuple[np.ndarray, ...]:
    """Weak and strong hits from two full N x N products (u v^T, u u^T) instead of the blocked passes.

    With ``xalign01`` the xalign 0.1 strong hits come third (from the same products).
    """
    import torch

    n = u.shape[0]
    ar = torch.arange(n, device=u.device)
    with blocks_reused():  # the N x N matrices of every call (layer, run) share two buffers: no page faults
        c = torch.mm(u, v.T, out=scratch("similarity block", (n, n), u.dtype, u.device))
        # the k largest of each row through group maxima (xalign.measures.group_topk): torch's topk values
        r_v = topk_mean(c, k)
        c_t = scratch("similarity block 2", (n, n), u.dtype, u.device).copy_(c.T)
        r_u = topk_mean(c_t, k)  # columns' top k: rows of the transposed copy
        cos_own = c[ar, ar].clone()
        csls_scores(c, r_v, r_u, out=c)  # (2c - r_v) - r_u in place
        diag = c[ar, ar].clone()
        c[ar, ar] = -float("inf")
        weak = diag > c.max(1).values
        t = torch.mm(u, u.T, out=c)  # u u^T in the same buffer: u v^T is done with
        r_uu = topk_mean(t, k)                 # itself included, as the authors
        t[ar, ar] = -float("inf")
        extra = ()
        if xalign01:
            r_other = topk_mean(t, min(k, n - 1))
            old_own = 2 * cos_own - r_v - r_u
            rivals = csls_scores(t, r_other, r_other, out=c_t).max(1).values  # (2t - row) - col
            extra = ((old_own > rivals).cpu().numpy(),)
        csls_scores(t, None, r_uu, out=t)
        strong = (2 * cos_own - r_u) > t.max(1).values
    return (weak.cpu().numpy(), strong.cpu().numpy(), *extra)


def alignment_scores(U, V, k: int = 10, block: int | None = None, device: str | None = None,
                     with_xalign01: bool = False) -> dict[str, float]:
    """S_weak and S_strong of N translation pairs in one pass (they share the CSLS density terms).

    When no ``block`` is forced and an N x N float32 matrix fits in one block
    (N <= ~8,000), the two similarity matrices are computed once and reused
    (2 matrix products instead of 5); otherwise the blocked passes run.

    Args:
        U: (N, d) source vectors, row i the translation of V's row i (numpy or torch; L2-normalised here).
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term (>= 1; fewer vectors: all of them).
        block: query rows per block (default: :func:`~xalign.measures.neighbours.block_bytes` of float32 scores); memory O(block x N).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).
        with_xalign01: add ``"S_strong_xalign01"``, S_strong as computed by xalign 0.1 (wrong
            density term), for a before/after comparison only.

    Returns:
        ``{"S_weak": s, "S_strong": s}``: fractions of the N pairs in [0, 1].

    Raises:
        ValueError: shapes that differ, a bad k or block, NaN or infinite input.
    """
    _check_pairs(U, V)
    positive_int("k", k)
    n = len(U)
    if block is None and 4 * n * n <= DEFAULT_BLOCK_BYTES:
        dev = resolve_device(device)
        hits = _hits_in_memory(unit_rows(U, dev), unit_rows(V, dev), k, with_xalign01)
    else:
        u, v, r_v, r_u = _prepare(U, V, k, block, device)
        hits = (_weak_hits(u, v, r_v, r_u, block), _strong_hits(u, v, r_u, k, block))
        if with_xalign01:
            hits += (_strong_hits_xalign01(u, v, r_v, r_u, k, block),)
    names = ("S_weak", "S_strong", "S_strong_xalign01")
    return {name: float(h.mean()) for name, h in zip(names, hits)}


def s_weak(U, V, k: int = 10, **kw) -> float:
    """Weak alignment score (Eq. 1): the fraction of pairs whose translation is u_i's CSLS nearest neighbour in V.

    Args:
        U: (N, d) source vectors, row i the translation of V's row i.
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term.
        **kw: ``block``, ``device`` (see :func:`weak_hits`).

    Returns:
        A fraction in [0, 1].
    """
    return float(weak_hits(U, V, k, **kw).mean())


def s_strong(U, V, k: int = 10, **kw) -> float:
    """Strong alignment score (Eq. 3, as the authors compute it): the fraction of pairs whose translation
    beats every other source vector u_j.

    Args:
        U: (N, d) source vectors, row i the translation of V's row i.
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term.
        **kw: ``block``, ``device`` (see :func:`strong_hits`).

    Returns:
        A fraction in [0, 1].
    """
    return float(strong_hits(U, V, k, **kw).mean())
