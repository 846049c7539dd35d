"""CSLS top-k in two blocked matrix products instead of three, optionally with bf16 products.

``CSLS(u_i, v_j) = 2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j)`` (Conneau et al. 2018).
:func:`xalign.measures.retrieval.csls_topk` computes it in three blocked
N x N x d products: ``U V^T`` for r_V, ``V U^T`` for r_U, and ``U V^T`` again
for the scores. Here the first and the third are the same product: one pass
over ``V U^T`` gives r_U, then each query block's ``S = u V^T`` gives its r_V
(the mean of the row's k largest entries) and, from the same S, the scores
``2 S - r_U`` (r_V(u_i) is a constant of the row: it does not change which
candidates win and is subtracted from their scores afterwards). Memory stays
O(block x N).

``precision="bfloat16"`` runs the products on bf16 copies of the unit vectors
(AVX512-BF16 / AMX on recent CPUs, tensor cores on GPUs) and keeps densities
and scores in float32. Cosines then carry an error of about 1e-3, so a query
whose two best candidates are closer than that may swap them;
``tests/test_csls_fast.py`` states the agreement with float32 on random data.
float32 (the default) gives :func:`~xalign.measures.retrieval.csls_topk`'s
results (same candidates; scores equal up to float rounding).

Each block is read as few times as possible after its product: the k largest
entries are taken on the product as it comes out (bf16 stays bf16), and the
scores ``2 S - r_U`` are formed in one pass (``torch.add`` with ``alpha=2``,
float32 out) before the row maximum. Blocks hold :data:`BLOCK_ROWS` queries (fewer
where 256 MiB of float32 scores, :mod:`xalign.measures.retrieval`'s blocks, hold
fewer): measured on a Zen 4 (2 cores, bf16 via AVX512-BF16) over 64 to 3,355 rows,
256 rows was the fastest at N = 20,000 in both precisions and within 5% of the
fastest in bf16 at N = 200,000 (in float32 there 12% slower than 1,024 rows, still
below the three-product floor), while 256 MiB blocks (3,355 rows at N = 20,000) made
bf16 1.6x slower at N = 20,000 and 64-row blocks made float32 1.5x slower at N = 200,000.
"""

from __future__ import annotations

import numpy as np

from xalign.measures.retrieval import _as_unit_tensor, _block_rows, _device
from xalign.measures.validate import positive_int, same_width

PRECISIONS = ("float32", "bfloat16")
BLOCK_ROWS = 256  # queries per block (at most 256 MiB of float32 scores; see the module notes)


def block_rows(n_cols: int, block: int | None = None) -> int:
    """Rows per block against ``n_cols`` candidates: ``block`` if given, else :data:`BLOCK_ROWS`
    or fewer where 256 MiB of float32 scores hold fewer (memory O(block x N))."""
    return _block_rows(n_cols, block) if block is not None else min(BLOCK_ROWS, _block_rows(n_cols, None))


def _product_dtype(precision: str):
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    return torch.float32 if precision == "float32" else torch.bfloat16


def density_block(q, keys, k: int):
    """Mean of the k largest cosines of each row of ``q`` against all ``keys``: (rows,) float32."""
    sim = q @ keys.T
    return sim.topk(min(k, keys.shape[0]), dim=1).values.float().mean(1)


def csls_block(u, v, r_u, k: int, topn: int):
    """One query block: (indices, CSLS scores) of its ``topn`` best candidates, and its r_V."""
    import torch

    sim = u @ v.T
    r_v = sim.topk(min(k, v.shape[0]), dim=1).values.float().mean(1)
    sim = torch.add(-r_u[None, :], sim, alpha=2)  # 2 S - r_U in one pass, float32 (bf16 S is promoted)
    if topn == 1:  # a row maximum is cheaper than topk
        val, idx = sim.max(1, keepdim=True)
        return idx, val - r_v[:, None], r_v
    top = sim.topk(topn, dim=1)
    return top.indices, top.values - r_v[:, None], r_v


def densities(q, keys, k: int, block: int | None = None):
    """r_keys(q) for every row of q, in blocks of rows: (n_q,) float32."""
    import torch

    rows = block_rows(keys.shape[0], block)
    out = torch.empty(q.shape[0], device=q.device)
    for s in range(0, q.shape[0], rows):
        out[s : s + rows] = density_block(q[s : s + rows], keys, k)
    return out


def csls_topk_fast(U, V, k: int = 10, topn: int = 1, block: int | None = None, device: str | None = None,
                   precision: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    """The ``topn`` best CSLS candidates in V for each u; returns (indices, scores), each (n_U, topn).

    Same contract as :func:`xalign.measures.retrieval.csls_topk`, two products instead of three;
    ``precision="bfloat16"`` runs the products in bf16 (see the module notes).
    """
    positive_int("k", k)
    positive_int("topn", topn, len(V), "the number of candidates")
    same_width(U, V)
    dtype = _product_dtype(precision)
    dev = _device(device)
    u, v = _as_unit_tensor(U, dev).to(dtype), _as_unit_tensor(V, dev).to(dtype)
    r_u = densities(v, u, k, block)  # each candidate's density among the queries
    rows = block_rows(v.shape[0], block)
    idx = np.empty((u.shape[0], topn), np.int64)
    val = np.empty((u.shape[0], topn), np.float32)
    for s in range(0, u.shape[0], rows):
        i, x, _ = csls_block(u[s : s + rows], v, r_u, k, topn)
        idx[s : s + rows] = i.cpu().numpy()
        val[s : s + rows] = x.cpu().numpy()
    return idx, val
