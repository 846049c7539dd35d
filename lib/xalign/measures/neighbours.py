"""Nearest neighbours: unit rows, blocked similarity, k-NN densities r(.), top-k and CSLS scores.

The one module that owns these pieces; retrieval (:mod:`xalign.measures.retrieval`, S_weak and
S_strong), the CSLS search (:mod:`xalign.measures.csls`), BLI (:mod:`xalign.measures.bli`), sentence
retrieval and the model card build on it.

Definitions (Conneau et al. 2018):

- rows are L2-normalised, so a similarity is a cosine in [-1, 1];
- ``r_K(q) = mean of the k largest cos(q, x), x in K`` (the density around q in K, :func:`densities`);
- ``CSLS(u_i, v_j) = 2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j)`` in [-4, 4] (:func:`csls_scores`).

Everything takes numpy arrays or torch tensors of shape (N, d) (rows are vectors) and works in row
blocks, so that memory stays O(block x N) even at N = 200,000; the GPU is used when there is one.
A block holds :func:`block_bytes` of float32 scores (:func:`block_rows`).

Two arithmetics are kept, because the numbers computed with them are published: float32 torch
(:func:`unit_rows`, :func:`topk_mean`: every search), and float64 numpy (:func:`unit_rows64`,
:func:`topk_mean64`: the CSLS margins of chapter 1's Table V examples, which rank errors by a margin
rounded to 2 decimals). :func:`csls_scores` serves both and subtracts in the order given
(``(2 S - row) - column``); a caller that subtracts the column term first (the CSLS search, which
adds the row term only to the winners) keeps that order, since it is part of its rounding.
"""

from __future__ import annotations

import numpy as np

from xalign.core.devices import default_device, is_gpu
from xalign.measures.group_topk import GROUP, topk_values
from xalign.measures.validate import positive_int, same_width

DEFAULT_BLOCK_BYTES = 256 * 2**20  # one similarity block on a CPU: 256 MiB of float32
GPU_BLOCK_BYTES = 2 * 2**30  # on a GPU: 2 GiB, at most 1/16 of its memory (fewer, larger products)
MAX_BLOCK_ROWS = 8192  # query rows per block at most


# ------------------------------------------------------------------ devices and blocks
def resolve_device(device: str | None) -> str:
    """``device``, or the default one (the GPU when there is one) for None."""
    return device or default_device()


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


def block_rows(n_cols: int, block: int | None = None, device=None, cpu_rows: int = MAX_BLOCK_ROWS) -> int:
    """Query rows per block against ``n_cols`` candidates (memory O(rows x n_cols)).

    Args:
        n_cols: candidates per row.
        block: an explicit row count (wins everywhere; validated >= 1).
        device: a name or ``torch.device`` (None: the CPU).
        cpu_rows: the most rows on a CPU (the CSLS search takes 512, see :mod:`xalign.measures.csls`).

    Returns:
        ``block`` if given, else as many rows as :func:`block_bytes` of float32 scores hold on
        ``device``, from 1 to :data:`MAX_BLOCK_ROWS` (to ``cpu_rows`` on a CPU).
    """
    if block is not None:
        return positive_int("block", block)
    return max(1, min(MAX_BLOCK_ROWS if is_gpu(device) else cpu_rows, block_bytes(device) // (4 * max(n_cols, 1))))


# ------------------------------------------------------------------ unit rows
def unit_rows(X, device: str):
    """Rows of X as an L2-normalised float32 torch tensor on ``device``.

    Args:
        X: (n, d) vectors (numpy or torch, any float dtype).
        device: ``"cpu"``, ``"cuda"``...

    Returns:
        (n, d) float32 unit rows (a zero row stays zero).

    Raises:
        ValueError: not 2-d, or a NaN or infinite entry.
    """
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


def unit_rows64(X, name: str = "X") -> np.ndarray:
    """Rows of X as L2-normalised float64 numpy rows (a zero row stays zero).

    Args:
        X: (n, d) vectors, n >= 1.
        name: the argument's name in error messages.

    Returns:
        (n, d) float64 unit rows.

    Raises:
        ValueError: not (n, d) with n >= 1, or a NaN or infinite entry.
    """
    A = np.asarray(X, dtype=np.float64)
    if A.ndim != 2 or not len(A):
        raise ValueError(f"{name} must be (n, dim) vectors with n >= 1, got shape {A.shape}")
    if not np.isfinite(A).all():
        raise ValueError(f"{name} holds NaN or infinite values")
    norm = np.linalg.norm(A, axis=1, keepdims=True)
    return A / np.where(norm > 0, norm, 1.0)


# ------------------------------------------------------------------ blocked similarity and densities
def product_block(q, keys, out):
    """``q @ keys.T`` into the first rows of ``out``.

    Args:
        q: (rows, d) queries (torch).
        keys: (n_keys, d) candidates.
        out: a (>= rows, n_keys) buffer of q's dtype.

    Returns:
        The (rows, n_keys) block of ``out`` (cosines for unit rows).
    """
    import torch

    return torch.mm(q, keys.T, out=out[: q.shape[0]])


def topk_mean(sim, k: int, group: int = GROUP):
    """Mean of the k largest entries of each row of a similarity block (the density r of each query).

    The k largest come from group maxima (:mod:`xalign.measures.group_topk`): the values torch's
    top-k gives, in its order, so the mean is bit for bit that of ``sim.topk(k).values.mean(1)``.

    Args:
        sim: (rows, n) similarities (torch; ``-inf`` marks a left-out column).
        k: entries averaged (capped at n).
        group: columns per group.

    Returns:
        (rows,) float32.
    """
    return topk_values(sim, min(k, sim.shape[1]), group).float().mean(1)


def topk_mean64(C: np.ndarray, k: int, axis: int = 1) -> np.ndarray:
    """Mean of the k largest entries along ``axis`` of a numpy similarity matrix (``np.partition``).

    Args:
        C: (n_rows, n_cols) similarities (float64 for the float64 arithmetic).
        k: entries averaged, 1 to ``C.shape[axis]``.
        axis: 1: per row (r of each row's vector); 0: per column.

    Returns:
        (n_rows,) or (n_cols,) means in C's dtype.
    """
    n = C.shape[axis]
    top = np.partition(C, n - k, axis=axis)
    return (top[:, n - k:] if axis == 1 else top[n - k:, :]).mean(axis)


def density_block(q, keys, k: int, out, group: int = GROUP):
    """Mean of the k largest cosines of each row of ``q`` against ``keys``.

    Args:
        q: (rows, d) unit queries (torch).
        keys: (n_keys, d) unit candidates.
        k: neighbours averaged (capped at n_keys).
        out: a (>= rows, n_keys) buffer of q's dtype.
        group: columns per group of :mod:`xalign.measures.group_topk`.

    Returns:
        (rows,) float32.
    """
    return topk_mean(product_block(q, keys, out), k, group)


def densities(q, keys, k: int, block: int | None = None, exclude_self: bool = False, group: int = GROUP,
              cpu_rows: int = MAX_BLOCK_ROWS):
    """r_keys(q) for every row of q: the mean of its k largest cosines with the rows of ``keys``, in row blocks.

    Args:
        q: (n_q, d) unit vectors (torch, float32 or bfloat16).
        keys: (n_keys, d) unit vectors.
        k: neighbours averaged (>= 1; fewer candidates: all of them).
        block: rows per block (default :func:`block_rows` with ``cpu_rows``).
        exclude_self: q and keys are the same set and row i of keys is skipped for row i of q.
        group: columns per group of :mod:`xalign.measures.group_topk`.
        cpu_rows: the most rows per block on a CPU.

    Returns:
        (n_q,) float32 mean cosines in [-1, 1].

    Raises:
        ValueError: a bad k or block, widths that differ, no neighbour candidate.
    """
    import torch

    positive_int("k", k)
    same_width(q, keys)
    n_avail = keys.shape[0] - (1 if exclude_self else 0)
    if n_avail < 1:
        raise ValueError("need at least one neighbour candidate")
    k = min(k, n_avail)
    rows = block_rows(keys.shape[0], block, keys.device, cpu_rows)
    buf = torch.empty(min(rows, q.shape[0]), keys.shape[0], dtype=q.dtype, device=q.device)
    out = torch.empty(q.shape[0], device=q.device)
    for s in range(0, q.shape[0], rows):
        sim = product_block(q[s : s + rows], keys, buf)
        if exclude_self:
            idx = torch.arange(s, min(s + rows, q.shape[0]), device=q.device)
            sim[idx - s, idx] = -float("inf")
        out[s : s + rows] = topk_mean(sim, k, group)
    return out


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
    dev = resolve_device(device)
    return densities(unit_rows(Q, dev), unit_rows(K, dev), k, block, exclude_self).cpu().numpy()


# ------------------------------------------------------------------ CSLS scores and top-k
def csls_scores(S, r_row=None, r_col=None, out=None):
    """CSLS from cosines: ``(2 S - r_row[:, None]) - r_col``, in that order (numpy or torch).

    ``r_row`` (the query's own density) is a constant of the row: a search that only ranks the
    candidates may leave it out (None) and subtract it from the winners' scores afterwards; the
    order of the two subtractions is part of each caller's rounding.

    Args:
        S: (rows, n) cosines (numpy or torch).
        r_row: (rows,) each query's density among the candidates, or None.
        r_col: (n,) each candidate's density among the queries, (rows, n) one per entry, or None.
        out: a (rows, n) array for the scores (S itself: in place, one block in memory, not two).

    Returns:
        (rows, n) scores: ``out`` when given, else new, in the dtype S and the densities promote to.
    """
    col = None if r_col is None else r_col if r_col.ndim == 2 else r_col[None, :]
    if out is None:  # new arrays, in the promoted dtype (bf16 cosines, float32 densities: float32 scores)
        out = 2 * S
        out = out if r_row is None else out - r_row[:, None]
        return out if col is None else out - col
    if isinstance(S, np.ndarray):
        np.multiply(S, 2, out=out)
    else:
        import torch

        torch.mul(S, 2, out=out)
    if r_row is not None:
        out -= r_row[:, None]
    if col is not None:
        out -= col
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
    dev = resolve_device(device)
    u, v = unit_rows(U, dev), unit_rows(V, dev)
    r_v = densities(u, v, k, block)  # density of each u in V
    r_u = densities(v, u, k, block)  # density of each v in U
    rows = block_rows(v.shape[0], block, v.device)
    out = np.empty((u.shape[0], v.shape[0]), np.float32)
    for s in range(0, u.shape[0], rows):
        out[s : s + rows] = csls_scores(u[s : s + rows] @ v.T, r_v[s : s + rows], r_u).cpu().numpy()
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
    dev = resolve_device(device)
    same_width(U, V)
    u, v = unit_rows(U, dev), unit_rows(V, dev)
    rows = block_rows(v.shape[0], block, v.device)
    idx = np.empty((u.shape[0], topn), np.int64)
    val = np.empty((u.shape[0], topn), np.float32)
    for s in range(0, u.shape[0], rows):
        top = (u[s : s + rows] @ v.T).topk(min(topn, v.shape[0]), dim=1)
        idx[s : s + rows] = top.indices.cpu().numpy()
        val[s : s + rows] = top.values.cpu().numpy()
    return idx, val
