"""The tests' CSLS references: the definition written out (Conneau et al. 2018, Eq. 2).

:func:`xalign.measures.csls.csls_topk` is the library's one CSLS search; these are only what it is
checked against: :func:`csls_scores` every pair in float64, and :func:`csls_topk_three_products`,
the three-product float32 search the library used before (``U V^T`` for r_V, ``V U^T`` for r_U,
``U V^T`` again for the scores), whose candidates the chapters' numbers were computed with.
"""

import numpy as np

from xalign.measures.neighbours import block_rows, densities, unit_rows


def unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def csls_scores(U, V, k):
    """(n_U, n_V) float64: 2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j), every pair."""
    C = unit(np.asarray(U, np.float64)) @ unit(np.asarray(V, np.float64)).T
    r_v = np.sort(C, axis=1)[:, -k:].mean(1)
    r_u = np.sort(C, axis=0)[-k:, :].mean(0)
    return 2 * C - r_v[:, None] - r_u[None, :]


def topk_lowest_index_first(S, topn):
    """(indices, scores) of the ``topn`` largest entries of each row of S, equal scores lowest index first."""
    order = np.argsort(-S, axis=1, kind="stable")[:, :topn]
    return order, np.take_along_axis(S, order, 1)


def csls_topk_three_products(U, V, k=10, topn=1, block=None, device="cpu"):
    """The ``topn`` best CSLS candidates, three blocked float32 products; (indices, scores), (n_U, topn)."""
    u, v = unit_rows(U, device), unit_rows(V, device)
    r_v = densities(u, v, k, block)
    r_u = densities(v, u, k, block)
    rows = block_rows(v.shape[0], block, v.device)
    idx = np.empty((u.shape[0], topn), np.int64)
    val = np.empty((u.shape[0], topn), np.float32)
    for s in range(0, u.shape[0], rows):
        blk = 2 * (u[s : s + rows] @ v.T) - r_v[s : s + rows, None] - r_u[None, :]
        top = blk.topk(min(topn, v.shape[0]), dim=1)
        idx[s : s + rows] = top.indices.cpu().numpy()
        val[s : s + rows] = top.values.cpu().numpy()
    return idx, val

