"""Nearest-neighbour retrieval with CSLS, and the weak / strong alignment scores.

All functions take numpy arrays or torch tensors of shape (N, d) (rows are
vectors; they are L2-normalised here, so similarities are cosines) and work
in row blocks so that memory stays O(block x N) even at N = 200,000. They use
the GPU when one is present.

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

from xalign.core.devices import default_device, is_gpu
from xalign.core.memory import blocks_reused, scratch
from xalign.measures.group_topk import topk_values
from xalign.measures.validate import positive_int, same_width

DEFAULT_BLOCK_BYTES = 256 * 2**20  # one similarity block on a CPU: 256 MiB of float32
GPU_BLOCK_BYTES = 2 * 2**30  # on a GPU: 2 GiB, at most 1/16 of its memory (fewer, larger products)


def block_bytes(device=None) -> int:
    """Bytes of float32 scores one similarity block may hold on ``device``.

    On an H200, CSLS at N = 200,000 took 1.96 s (float32) / 0.43 s (bf16) in blocks of 512 queries,
    1.44 s / 0.24 s in 4,096 (2026-11-26): a GPU wants blocks far above a CPU's cache-sized ones.

    Args:
        device: a name (``"cuda:0"``) or ``torch.device``; None: the CPU.

    Returns:
        256 MiB on a CPU; on a GPU 2 GiB, at most 1/16 of its memory.
    """
    if not is_gpu(device):
        return DEFAULT_BLOCK_BYTES
    import torch

    return min(GPU_BLOCK_BYTES, torch.cuda.get_device_properties(torch.device(device)).total_memory // 16)


def _device(device: str | None) -> str:
    return device or default_device()


def _as_unit_tensor(X, device: str):
    """Rows of X as an L2-normalised float32 torch tensor on ``device``."""
    import torch

    t = torch.as_tensor(np.asarray(X) if not isinstance(X, torch.Tensor) else X)
    if t.ndim != 2:
        raise ValueError(f"expected a 2-d array of row vectors, got shape {tuple(t.shape)}")
    t = t.to(device=device, dtype=torch.float32)
    # the squares of entries beyond ~1.8e19 overflow float32 (and those below ~1e-19 underflow): normalize()
    # would give such a row a zero or near-zero norm's result, scoring 0.0 against everything. Those rows
    # (only those: the others stay bit for bit) are first scaled by their largest |entry|.
    norms = torch.linalg.vector_norm(t, dim=1)
    bad = ~torch.isfinite(norms) | (norms < 1e-18)
    if bool(bad.any()):
        t = t.clone()  # t may share the caller's array
        t[bad] = t[bad] / t[bad].abs().amax(dim=1, keepdim=True).clamp_min(1e-30)
    t = torch.nn.functional.normalize(t, dim=1)
    # a NaN or an infinity makes its row NaN; unit rows cannot overflow the sum (one pass, not isfinite's four)
    if not torch.isfinite(t.sum()):
        raise ValueError("input contains NaN or infinite values")
    return t


def _block_rows(n_cols: int, block: int | None, device=None, cpu_rows: int = 8192) -> int:
    """Query rows per block against ``n_cols`` candidates: ``block`` if given, else as many as
    :func:`block_bytes` of float32 scores hold on ``device``, from 1 to 8,192 (to ``cpu_rows`` on a CPU)."""
    if block is not None:
        return positive_int("block", block)
    return max(1, min(8192 if is_gpu(device) else cpu_rows, block_bytes(device) // (4 * max(n_cols, 1))))


def mean_topk_similarity(Q, K, k: int = 10, exclude_self: bool = False, block: int | None = None,
                         device: str | None = None) -> np.ndarray:
    """Mean of the k largest cosines of each row of Q against the rows of K (the CSLS density r_K(q)).

    Args:
        Q: (n_Q, d) query vectors (numpy or torch; L2-normalised here).
        K: (n_K, d) vectors the neighbours are taken from.
        k: neighbours averaged (>= 1; fewer rows in K: all of them).
        exclude_self: Q and K are the same set and row i of K is skipped for row i of Q.
        block: query rows per block (default: :func:`block_bytes` of float32 scores).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (n_Q,) float32 mean cosines in [-1, 1].
    """
    dev = _device(device)
    q, kk = _as_unit_tensor(Q, dev), _as_unit_tensor(K, dev)
    return _mean_topk(q, kk, k, exclude_self, block).cpu().numpy()


def _mean_topk(q, kk, k, exclude_self, block):
    import torch

    positive_int("k", k)
    same_width(q, kk)
    n_avail = kk.shape[0] - (1 if exclude_self else 0)
    if n_avail < 1:
        raise ValueError("need at least one neighbour candidate")
    k_eff = min(k, n_avail)
    rows = _block_rows(kk.shape[0], block, kk.device)
    out = torch.empty(q.shape[0], device=q.device)
    for s in range(0, q.shape[0], rows):
        sim = q[s : s + rows] @ kk.T
        if exclude_self:
            idx = torch.arange(s, min(s + rows, q.shape[0]), device=q.device)
            sim[idx - s, idx] = -float("inf")
        out[s : s + rows] = topk_values(sim, k_eff).mean(1)
    return out


def csls(U, V, k: int = 10, block: int | None = None, device: str | None = None) -> np.ndarray:
    """CSLS similarity of every u_i with every v_j (Eq. 2): ``2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j)``.

    The output itself is n_U x n_V; to search large sets use :func:`xalign.measures.csls.csls_topk`.

    Args:
        U: (n_U, d) queries (numpy or torch; L2-normalised here).
        V: (n_V, d) candidates.
        k: neighbours in each CSLS density term (>= 1; fewer vectors: all of them).
        block: query rows per block (default: :func:`block_bytes` of float32 scores); memory O(block x N).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (n_U, n_V) float32 CSLS scores in [-4, 4].
    """
    dev = _device(device)
    u, v = _as_unit_tensor(U, dev), _as_unit_tensor(V, dev)
    r_v = _mean_topk(u, v, k, False, block)  # density of each u in V
    r_u = _mean_topk(v, u, k, False, block)  # density of each v in U
    rows = _block_rows(v.shape[0], block, v.device)
    out = np.empty((u.shape[0], v.shape[0]), np.float32)
    for s in range(0, u.shape[0], rows):
        blk = 2 * (u[s : s + rows] @ v.T) - r_v[s : s + rows, None] - r_u[None, :]
        out[s : s + rows] = blk.cpu().numpy()
    return out


def cosine_topk(U, V, topn: int = 1, block: int | None = None,
                device: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Plain nearest neighbours by cosine.

    Args:
        U: (n_U, d) queries (numpy or torch; L2-normalised here).
        V: (n_V, d) candidates.
        topn: neighbours per query, 1 to n_V.
        block: query rows per block (default: :func:`block_bytes` of float32 scores).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (indices, scores): (n_U, topn) int64 rows of V, best first, and their (n_U, topn) float32 cosines.
    """
    positive_int("topn", topn, len(V), "the number of candidates")
    dev = _device(device)
    same_width(U, V)
    u, v = _as_unit_tensor(U, dev), _as_unit_tensor(V, dev)
    rows = _block_rows(v.shape[0], block, v.device)
    idx = np.empty((u.shape[0], topn), np.int64)
    val = np.empty((u.shape[0], topn), np.float32)
    for s in range(0, u.shape[0], rows):
        top = (u[s : s + rows] @ v.T).topk(min(topn, v.shape[0]), dim=1)
        idx[s : s + rows] = top.indices.cpu().numpy()
        val[s : s + rows] = top.values.cpu().numpy()
    return idx, val


def _check_pairs(U, V):
    if len(U) != len(V):
        raise ValueError(f"U and V must be paired row by row: {len(U)} vs {len(V)} rows")
    if len(U) < 2:
        raise ValueError("need at least two pairs")
    same_width(U, V)


def _weak_hits(u, v, r_v, r_u, block) -> np.ndarray:
    rows = _block_rows(v.shape[0], block, v.device)
    hits = np.empty(u.shape[0], bool)
    for s in range(0, u.shape[0], rows):
        e = min(s + rows, u.shape[0])
        blk = 2 * (u[s:e] @ v.T) - r_v[s:e, None] - r_u[None, :]
        ar = np.arange(e - s)
        own = blk[ar, ar + s].clone()
        blk[ar, ar + s] = -float("inf")
        hits[s:e] = (own > blk.max(1).values).cpu().numpy()
    return hits


def _strong_hits(u, v, r_u, k, block) -> np.ndarray:
    """Eq. 3 as the authors compute it: own = 2 cos(u_i, v_i) - r_U(v_i), rivals 2 cos(u_i, u_j) - r_U(u_j)."""
    r_uu = _mean_topk(u, u, k, False, block)   # each u_j's density among the sources, itself included
    own = 2 * (u * v).sum(1) - r_u
    return _beats_source_rivals(own, u, None, r_uu, block)


def _strong_hits_xalign01(u, v, r_v, r_u, k, block) -> np.ndarray:
    """S_strong hits as computed by xalign 0.1 (wrong density term): kept only to show before/after."""
    r_uu = _mean_topk(u, u, k, True, block)   # u's density among the *other* sources
    own = 2 * (u * v).sum(1) - r_v - r_u      # r_v: the query's density among the targets (the error)
    return _beats_source_rivals(own, u, r_uu, r_uu, block)


def _beats_source_rivals(own, u, row_term, col_term, block) -> np.ndarray:
    """own_i > max_{j != i} 2 cos(u_i, u_j) - row_term_i - col_term_j, in blocks of rows; (N,) bool.

    ``row_term`` None: the query's own term is left out (it cancels in Eq. 3).
    """
    rows = _block_rows(u.shape[0], block, u.device)
    hits = np.empty(u.shape[0], bool)
    for s in range(0, u.shape[0], rows):
        e = min(s + rows, u.shape[0])
        blk = 2 * (u[s:e] @ u.T) - col_term[None, :]
        if row_term is not None:
            blk -= row_term[s:e, None]
        ar = np.arange(e - s)
        blk[ar, ar + s] = -float("inf")
        hits[s:e] = (own[s:e] > blk.max(1).values).cpu().numpy()
    return hits


def _prepare(U, V, k, block, device):
    _check_pairs(U, V)
    dev = _device(device)
    u, v = _as_unit_tensor(U, dev), _as_unit_tensor(V, dev)
    r_v = _mean_topk(u, v, k, False, block)   # u_i's density among the targets
    r_u = _mean_topk(v, u, k, False, block)   # v_i's density among the sources
    return u, v, r_v, r_u


def weak_hits(U, V, k: int = 10, block: int | None = None, device: str | None = None) -> np.ndarray:
    """Per pair: is v_i the CSLS nearest neighbour of u_i among all v_j? (the terms of Eq. 1)

    Args:
        U: (N, d) source vectors, row i the translation of V's row i (numpy or torch; L2-normalised here).
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term (>= 1; fewer vectors: all of them).
        block: query rows per block (default: :func:`block_bytes` of float32 scores); memory O(block x N).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (N,) bool, one per pair.
    """
    u, v, r_v, r_u = _prepare(U, V, k, block, device)
    return _weak_hits(u, v, r_v, r_u, block)


def strong_hits(U, V, k: int = 10, block: int | None = None, device: str | None = None) -> np.ndarray:
    """Per pair: does v_i beat every other source vector u_j (j != i) as u_i's neighbour? (Eq. 3)

    Args:
        U: (N, d) source vectors, row i the translation of V's row i (numpy or torch; L2-normalised here).
        V: (N, d) target vectors.
        k: neighbours in each CSLS density term (>= 1; fewer vectors: all of them).
        block: query rows per block (default: :func:`block_bytes` of float32 scores); memory O(block x N).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (N,) bool, one per pair.
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
        r_v = topk_values(c, min(k, n)).mean(1)
        c_t = scratch("similarity block 2", (n, n), u.dtype, u.device).copy_(c.T)
        r_u = topk_values(c_t, min(k, n)).mean(1)  # columns' top k: rows of the transposed copy
        cos_own = c[ar, ar].clone()
        torch.add(-r_v[:, None], c, alpha=2, out=c).sub_(r_u[None, :])  # 2c - r_v - r_u, rounded as before
        diag = c[ar, ar].clone()
        c[ar, ar] = -float("inf")
        weak = diag > c.max(1).values
        t = torch.mm(u, u.T, out=c)  # u u^T in the same buffer: u v^T is done with
        r_uu = topk_values(t, min(k, n)).mean(1)                 # itself included, as the authors
        t[ar, ar] = -float("inf")
        extra = ()
        if xalign01:
            r_other = topk_values(t, min(k, n - 1)).mean(1)
            old_own = 2 * cos_own - r_v - r_u
            rivals = torch.add(-r_other[:, None], t, alpha=2, out=c_t).sub_(r_other[None, :]).max(1).values
            extra = ((old_own > rivals).cpu().numpy(),)
        torch.add(-r_uu[None, :], t, alpha=2, out=t)
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
        block: query rows per block (default: :func:`block_bytes` of float32 scores); memory O(block x N).
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
        dev = _device(device)
        hits = _hits_in_memory(_as_unit_tensor(U, dev), _as_unit_tensor(V, dev), k, with_xalign01)
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
