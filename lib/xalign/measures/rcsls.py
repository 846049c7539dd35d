"""RCSLS: a linear map trained with a relaxed CSLS retrieval loss (Joulin et al. 2018).

Rows are vectors: anchors X (n, d) and Y (n, d) with row i of X translating
row i of Y, preprocessed (unit length, centred, unit length again); negative
pools Zs (m_s, d) and Zt (m_t, d), the source and target vocabularies
(the first 200,000 words in the paper). The loss of a map W (d x d) is

    L(W) = 1/n sum_i [ -2 x_i W . y_i
                       + 1/k sum_{z in N_k(x_i W, Zt)} x_i W . z
                       + 1/k sum_{z in N_k(y_i, Zs W)} z W . y_i ]

where N_k(q, P) are the k rows of P with the largest dot product with q:
the CSLS criterion with the cosine relaxed to a dot product so that W need
not stay orthogonal. It is minimised by full-batch gradient descent from the
Procrustes solution; a step that raises the loss is undone and the learning
rate halved (as in the reference implementation). ``spectral=True`` projects
W onto the spectral-norm ball after each step (its "spectral" model); the
paper's runs used the unconstrained model (lr 10, 20 iterations, k = 10).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xalign.core.devices import default_device
from xalign.core.memory import blocks_reused, scratch
from xalign.measures.mapping import procrustes
from xalign.measures.validate import finite


def _knn(Q, P, k: int, block: int):
    """The k largest dot products of each row of Q with the rows of P: (values, indices), (n_Q, k)."""
    import torch

    k = min(k, P.shape[0])
    vals, idx = [], []
    for s in range(0, Q.shape[0], block):
        q = Q[s:s + block]
        sim = torch.mm(q, P.T, out=scratch("similarity block", (q.shape[0], P.shape[0]), q.dtype, q.device))
        top = sim.topk(k, dim=1)
        vals.append(top.values)
        idx.append(top.indices)
    return torch.cat(vals), torch.cat(idx)


def _mean_rows(Z, index):
    """``Z[index].mean(1)`` for an (n, k) index: (n, d), the gathered rows in a scratch buffer."""
    import torch

    rows = scratch("rcsls neighbours", (index.numel(), Z.shape[1]), Z.dtype, Z.device)
    return torch.index_select(Z, 0, index.reshape(-1), out=rows).view(*index.shape, Z.shape[1]).mean(1)


def rcsls_loss_and_grad(W, X, Y, Zs, Zt, k: int = 10, block: int = 2048, distinct=None):
    """The RCSLS loss of ``W`` and its (sub)gradient; see the module docstring.

    With A_i the mean of the k target negatives nearest x_i W, and B_i the mean of the k source
    negatives whose images z W are nearest y_i, the gradient is ``1/n [X^T (A - 2Y) + B^T Y]``
    (neighbour sets held fixed, the usual top-k subgradient).

    Args:
        W: (d, d) map (torch).
        X: (n, d) source anchors.
        Y: (n, d) target anchors.
        Zs: (n_s, d) source negatives.
        Zt: (n_t, d) target negatives.
        k: negatives averaged.
        block: rows per neighbour-search block.
        distinct: :func:`distinct_rows` of X and of Y (a word in several training pairs repeats its
            row): the neighbour searches then run once per distinct row.

    Returns:
        (loss, a float tensor; gradient, (d, d)).
    """
    import torch

    XW = X @ W
    (xf, xi), (yf, yi) = distinct if distinct is not None else ((None, None), (None, None))
    fwd, i_fwd = _knn(XW if xf is None else XW[xf], Zt, k, block)  # mapped source among the target negatives
    ZsW = torch.mm(Zs, W, out=scratch("rcsls mapped negatives", (Zs.shape[0], W.shape[1]), Zs.dtype, Zs.device))
    bwd, i_bwd = _knn(Y if yf is None else Y[yf], ZsW, k, block)  # target among the mapped source negatives
    A, B = _mean_rows(Zt, i_fwd), _mean_rows(Zs, i_bwd)
    if xi is not None:
        fwd, A = fwd[xi], A[xi]
    if yi is not None:
        bwd, B = bwd[yi], B[yi]
    loss = (-2 * (XW * Y).sum(1) + fwd.mean(1) + bwd.mean(1)).mean()
    grad = (X.T @ (A - 2 * Y) + B.T @ Y) / X.shape[0]
    return loss, grad


def distinct_rows(M: np.ndarray):
    """M's distinct rows as index tensors.

    Args:
        M: (n, d) rows.

    Returns:
        (first, inverse) torch index tensors with ``M[first][inverse] == M``; (None, None) when every
        row is distinct.
    """
    import torch

    _, first, inverse = np.unique(np.asarray(M), axis=0, return_index=True, return_inverse=True)
    if len(first) == len(M):
        return None, None
    return torch.as_tensor(first), torch.as_tensor(inverse.reshape(-1))


def _project_spectral(W):
    import torch

    U, S, Vh = torch.linalg.svd(W)
    return U @ torch.diag(S.clamp(max=1.0)) @ Vh


@dataclass
class RCSLSFit:
    """The learned map ``W`` (d x d, float64) and the loss after each accepted step."""

    W: np.ndarray
    losses: list[float] = field(default_factory=list)
    lr_final: float = 0.0


def fit_rcsls(X: np.ndarray, Y: np.ndarray, Zs: np.ndarray | None = None, Zt: np.ndarray | None = None,
              k: int = 10, lr: float = 10.0, n_iter: int = 20, spectral: bool = False,
              init: np.ndarray | None = None, block: int = 2048, device: str | None = None) -> RCSLSFit:
    """Minimise the RCSLS loss from the Procrustes map (or ``init``).

    Args:
        X: (n, d) source anchors.
        Y: (n, d) target anchors, row i paired with X's row i.
        Zs: (n_s, d) source negatives (default X).
        Zt: (n_t, d) target negatives (default Y).
        k: negatives averaged.
        lr: learning rate.
        n_iter: gradient steps.
        spectral: project W onto the unit spectral ball after each step.
        init: (d, d) starting map (default Procrustes).
        block: rows per neighbour-search block.
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        An :class:`RCSLSFit`: ``W`` (d, d) and ``losses`` (``losses[0]`` the starting map's).
    """
    import torch

    X, Y = finite("X", X, np.float32), finite("Y", Y, np.float32)
    Zs = None if Zs is None else finite("Zs", Zs, np.float32)
    Zt = None if Zt is None else finite("Zt", Zt, np.float32)
    if init is not None:
        init = finite("init", init)
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"{X.shape[0]} source anchors but {Y.shape[0]} target anchors")
    if X.shape[0] < 2:
        raise ValueError("need at least two anchor pairs")
    if n_iter < 0 or lr <= 0 or k < 1:
        raise ValueError(f"need n_iter >= 0, lr > 0, k >= 1 (got {n_iter}, {lr}, {k})")
    dev = device or default_device()
    t = lambda a: torch.as_tensor(np.asarray(a, np.float32), device=dev)
    Xt, Yt = t(X), t(Y)
    Zst = Xt if Zs is None else t(Zs)
    Ztt = Yt if Zt is None else t(Zt)
    W0 = procrustes(X, Y) if init is None else np.asarray(init)
    W = t(W0)

    # a word in several training pairs repeats its row: its neighbours are searched once
    distinct = tuple(tuple(None if i is None else i.to(dev) for i in distinct_rows(M)) for M in (X, Y))

    def loss_and_grad(Wc):
        f, g = rcsls_loss_and_grad(Wc, Xt, Yt, Zst, Ztt, k, block, distinct)
        return float(f), g

    with blocks_reused():  # every loss evaluation's k-NN blocks share one buffer
        f, g = loss_and_grad(W)
        losses = [f]
        for _ in range(n_iter):
            if lr < 1e-4:
                break
            W_new = W - lr * g
            if spectral:
                W_new = _project_spectral(W_new)
            f_new, g_new = loss_and_grad(W_new)
            if f_new > f:  # undo the step, halve the rate
                lr /= 2
                continue
            W, f, g = W_new, f_new, g_new
            losses.append(f)
    return RCSLSFit(W.cpu().double().numpy(), losses, lr)
