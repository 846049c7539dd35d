"""CSLS retrieval: the ``topn`` best CSLS candidates of each query, exact, in two blocked products.

``CSLS(u_i, v_j) = 2 cos(u_i, v_j) - r_V(u_i) - r_U(v_j)`` (Conneau et al. 2018), with ``r_V(u)`` the
mean of the k largest cosines of u with the rows of V. :func:`csls_topk` is the library's one CSLS
search (the written-out definition, three N x N x d products, is the tests' reference,
``tests/csls_reference.py``). Written out, CSLS needs ``U V^T`` for r_V, ``V U^T`` for r_U, and
``U V^T`` again for the scores. Here the first and the third are the same product: one pass
over ``V U^T`` gives r_U, then each query block's ``S = u V^T`` gives its r_V
(the mean of the row's k largest entries) and, from the same S, the scores
``2 S - r_U`` (r_V(u_i) is a constant of the row: it does not change which
candidates win and is subtracted from their scores afterwards). Memory stays
O(block x N). Duplicate candidates (bitwise-equal rows, equal scores) are listed lowest index first.

``precision="bfloat16"`` runs the products on bf16 copies of the unit vectors
(AVX512-BF16 / AMX on recent CPUs, tensor cores on GPUs) and keeps densities
and scores in float32. Cosines then carry an error of about 1e-3, so a query
whose two best candidates are closer than that may swap them;
``tests/test_csls.py`` states the agreement with float32 on random data.
float32 (the default) gives the definition's candidates (scores equal up to float rounding).

**No full-width top-k.** With AMX the bf16 products are so fast (0.14 s for one 20,000 x 20,000 x 384
product on two cores) that torch's top-k over the N x N scores and the row maxima of ``2 S - r_U``
cost twice as much as the products. Both are read from group maxima instead
(:mod:`xalign.measures.group_topk`, exact): the densities as the top-k of the k groups with the
largest maxima, and the best candidates from the entries of those same groups, accepted for a row
when their best score beats ``2 max(S over a group) - min(r_U over the group)`` of every other group; a row
where it does not (a candidate with a low density outside the row's most similar groups) gets the
plain ``2 S - r_U`` over all candidates. For that bound to be tight the score pass lays the
candidates out sorted by r_U, so that each group holds candidates of about the same density (the
layout is a permutation of V's rows, undone in the returned indices). Any N: the columns beyond the
last whole group (N mod 16) are a tail that is always read.

Blocks hold :data:`BLOCK_ROWS` queries (fewer where 256 MiB of float32 scores, :mod:`xalign.measures.neighbours`'s
blocks, hold fewer: 335 at N = 200,000). With group maxima, measured on an AMX Xeon (2 cores) at
N = 20,000: 512 rows were the fastest in bf16 (1.14x the three-product floor; 128 rows 1.63x, 256
1.25x, 1,024 1.22x) and within 5% of the fastest in float32 (256 rows 0.81x, 512 0.69x, 1,024 0.66x).
With full-width top-k (before) 256 rows had been the fastest on a Zen 4. A GPU takes the blocks of
:func:`xalign.measures.neighbours.block_bytes` instead (2 GiB of float32 scores: 2,684 rows at
N = 200,000), since there launches and small products, not caches, bound the time.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from xalign.measures import neighbours
from xalign.measures.group_topk import GROUP, top_groups, topk_values
from xalign.measures.neighbours import csls_scores, product_block, resolve_device, unit_rows
from xalign.measures.validate import positive_int, same_width

PRECISIONS = ("float32", "bfloat16")
BLOCK_ROWS = 512  # queries per block (at most 256 MiB of float32 scores; see the module notes)


def block_rows(n_cols: int, block: int | None = None, device=None) -> int:
    """Query rows per block against ``n_cols`` candidates (memory O(block x n_cols) either way).

    Args:
        n_cols: candidates per row.
        block: an explicit row count (wins everywhere).
        device: a name or ``torch.device`` (None: CPU).

    Returns:
        ``block`` if given; on a CPU :data:`BLOCK_ROWS` or fewer where 256 MiB of float32 scores hold
        fewer; on a GPU as many as its block budget (:func:`xalign.measures.neighbours.block_bytes`) holds.
    """
    return neighbours.block_rows(n_cols, block, device, cpu_rows=BLOCK_ROWS)


def _product_dtype(precision: str):
    import torch

    if precision not in PRECISIONS:
        raise ValueError(f"precision must be one of {PRECISIONS}, got {precision!r}")
    return torch.float32 if precision == "float32" else torch.bfloat16


class ScoreLayout(NamedTuple):
    """The candidates of the score pass, each group of :mod:`~xalign.measures.group_topk` holding
    candidates of about the same density."""

    keys: object         # (n, d) candidate vectors in column order
    density: object      # (n,) float32 r_U of each column
    min_density: object  # (Q,) the lowest r_U in each group (the tail is in no group)
    candidate: object    # (n,) the row of V in each column


def score_layout(v, r_u, group: int = GROUP) -> ScoreLayout:
    """Lay out the candidates so that group c holds the c-th ``group`` of them by density.

    With ``Q = n // group``, column ``p < group * Q`` belongs to group ``p mod Q`` and holds the
    candidate of density rank ``(p mod Q) * group + p // Q``; the tail's columns hold the highest ranks.

    Args:
        v: (n, d) candidate vectors (torch).
        r_u: (n,) each candidate's density among the queries.
        group: columns per group.

    Returns:
        A :class:`ScoreLayout` (keys (n, d), density (n,), min_density (Q,), candidate (n,)).
    """
    import torch

    n = v.shape[0]
    Q = n // group
    col = torch.arange(n, device=v.device)
    rank = torch.where(col < group * Q, (col % max(Q, 1)) * group + col // max(Q, 1), col)
    candidate = torch.argsort(r_u, stable=True)[rank]        # density rank -> candidate, per column
    density = r_u[candidate]
    min_density = density[: group * Q].view(group, Q).amin(0)
    return ScoreLayout(v[candidate], density, min_density, candidate)


def csls_block(S, layout: ScoreLayout, k: int, topn: int, group: int = GROUP):
    """The ``topn`` best candidates of one query block.

    Args:
        S: (b, n) cosines of the block's queries with ``layout.keys``.
        layout: :func:`score_layout` of the candidates.
        k: neighbours in r_V.
        topn: candidates per query.
        group: columns per group.

    Returns:
        (columns of the layout (b, topn), their CSLS scores (b, topn), the block's r_V (b,)).
    """
    import torch

    chosen = top_groups(S, min(k, S.shape[1]), group)
    r_v = topk_values(S, min(k, S.shape[1]), group, chosen).float().mean(1)  # topk_mean from the chosen groups
    # every group's best possible 2 S - r_U; the chosen groups' entries (and the tail's) are scored exactly
    if chosen.groups.shape[1] < chosen.bounds.shape[1]:
        bound = csls_scores(chosen.bounds.float(), None, layout.min_density)
        bound = bound.scatter_(1, chosen.groups, float("-inf")).amax(1)
    else:  # every group was taken
        bound = torch.full((S.shape[0],), float("-inf"), device=S.device)
    scores = csls_scores(chosen.entries, None, layout.density[chosen.positions])  # 2 S - r_U; r_V comes last
    if topn <= scores.shape[1]:
        best = scores.topk(topn, dim=1) if topn > 1 else scores.max(1, keepdim=True)
        columns, values = chosen.positions.gather(1, best.indices), best.values
        unsure = values[:, -1] <= bound
    else:
        columns = values = None
        unsure = torch.ones(S.shape[0], dtype=torch.bool, device=S.device)
    if bool(unsure.any()):  # a better candidate may lie in another group: score the whole row
        rows = torch.nonzero(unsure).flatten()
        full = csls_scores(S[rows], None, layout.density).topk(topn, dim=1)
        if columns is None:
            columns, values = full.indices, full.values
        else:
            columns[rows], values[rows] = full.indices, full.values
    return columns, values - r_v[:, None], r_v


def csls_topk(U, V, k: int = 10, topn: int = 1, block: int | None = None, device: str | None = None,
              precision: str = "float32", group: int = GROUP) -> tuple[np.ndarray, np.ndarray]:
    """The ``topn`` best CSLS candidates in V for each query in U (exact in float32).

    Args:
        U: (n_U, d) queries (numpy or torch; rows are L2-normalised here).
        V: (n_V, d) candidates.
        k: neighbours in the densities r_V(u) and r_U(v) (>= 1; fewer candidates: all of them).
        topn: candidates returned per query, 1 to n_V.
        block: queries per block (default: :func:`block_rows`); memory O(block x n_V).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).
        precision: ``"float32"`` (exact up to float rounding) or ``"bfloat16"`` products (see the module notes).
        group: columns per group of :mod:`xalign.measures.group_topk` (the results do not depend on it).

    Returns:
        (indices, scores): (n_U, topn) int64 rows of V, best first, and their (n_U, topn) float32
        CSLS scores in [-4, 4]. Duplicate candidates (bitwise-equal rows) come lowest index first.

    Raises:
        ValueError: a bad k, topn, block, group or precision, widths that differ, NaN or infinite input.
    """
    import torch

    positive_int("k", k)
    positive_int("topn", topn, len(V), "the number of candidates")
    positive_int("group", group)
    same_width(U, V)
    dtype = _product_dtype(precision)
    dev = resolve_device(device)
    u, v = unit_rows(U, dev).to(dtype), unit_rows(V, dev).to(dtype)
    r_u = neighbours.densities(v, u, k, block, group=group, cpu_rows=BLOCK_ROWS)  # candidates' density among queries
    layout = score_layout(v, r_u, group)
    rows = block_rows(v.shape[0], block, v.device)
    buf = torch.empty(min(rows, u.shape[0]), v.shape[0], dtype=dtype, device=dev)
    idx = np.empty((u.shape[0], topn), np.int64)
    val = np.empty((u.shape[0], topn), np.float32)
    for s in range(0, u.shape[0], rows):
        columns, scores, _ = csls_block(product_block(u[s : s + rows], layout.keys, buf), layout, k, topn, group)
        idx[s : s + rows] = layout.candidate[columns].cpu().numpy()
        val[s : s + rows] = scores.cpu().numpy()
    _lowest_index_first(idx, duplicate_classes(v))
    return idx, val


def duplicate_classes(v) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Rows of ``v`` that are bitwise equal (the same candidate twice: equal scores for every query).

    Args:
        v: (n, d) candidate vectors (torch, float32 or bfloat16).

    Returns:
        None when every row is distinct, else (class (n,) of each row, members (n,) rows ordered by
        class then index, start (n_classes + 1,) of each class in ``members``).
    """
    import torch

    a = v.view(torch.int16) if v.dtype == torch.bfloat16 else v
    a = np.ascontiguousarray(a.cpu().numpy())
    rows = a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()
    _, cls, counts = np.unique(rows, return_inverse=True, return_counts=True)
    if counts.max(initial=1) == 1:
        return None
    members = np.argsort(cls, kind="stable")
    return cls.ravel(), members, np.concatenate([[0], np.cumsum(counts)])


def _lowest_index_first(idx: np.ndarray, classes) -> None:
    """Duplicate candidates listed lowest index first (in place): the n-th candidate of a row from a
    class of bitwise-equal rows becomes the class's n-th lowest row (their scores are equal, up to the
    products' rounding, which is then no tie-breaker)."""
    if classes is None:
        return
    cls, members, start = classes
    sizes = np.diff(start)
    for i in np.flatnonzero((sizes[cls[idx]] > 1).any(1)):
        seen: dict[int, int] = {}
        for j, c in enumerate(cls[idx[i]]):
            if sizes[c] > 1:
                n = seen.get(c, 0)
                idx[i, j] = members[start[c] + n]
                seen[c] = n + 1
