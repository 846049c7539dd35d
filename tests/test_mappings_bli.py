"""RCSLS and VecMap: loss, gradient, toy problems with known answers, and fit_map on vocabularies."""

import numpy as np
import pytest
import torch

from xalign.data.static import StaticVectors
from xalign.measures.bli import evaluate_bli
from xalign.measures.bli_maps import apply_map, fit_map
from xalign.measures.mapping import procrustes
from xalign.measures.neighbours import cosine_topk
from xalign.measures.rcsls import fit_rcsls, rcsls_loss_and_grad
from xalign.measures.vecmap import fit_vecmap, whitening_matrix


def _unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _shared_signal_problem(seed=0, n=1000, d_signal=6, d_private=10):
    """A toy problem built for RCSLS: the two spaces share a rotated signal subspace, and each
    has private noise dimensions. An orthogonal map must carry the noise along (it preserves
    norms), a free linear map can shrink it: RCSLS, which is not constrained to be orthogonal
    and optimises retrieval directly, should do much better than Procrustes."""
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(n, d_signal))
    R, _ = np.linalg.qr(rng.normal(size=(d_signal, d_signal)))
    X = _unit(np.hstack([S, rng.normal(size=(n, d_private))]))
    Y = _unit(np.hstack([S @ R, rng.normal(size=(n, d_private))]))
    return X.astype(np.float32), Y.astype(np.float32)


def _p_at_1(Xm, Y):
    idx, _ = cosine_topk(Xm, Y, 1)
    return float((idx[:, 0] == np.arange(len(Y))).mean())


def test_rcsls_gradient_matches_autograd():
    rng = np.random.default_rng(1)
    X, Y = (torch.tensor(rng.normal(size=(30, 5)), dtype=torch.float64) for _ in range(2))
    Zs, Zt = (torch.tensor(rng.normal(size=(40, 5)), dtype=torch.float64) for _ in range(2))
    W = torch.tensor(rng.normal(size=(5, 5)), dtype=torch.float64, requires_grad=True)
    loss, grad = rcsls_loss_and_grad(W.detach(), X, Y, Zs, Zt, k=3, block=7)
    # reference: the loss written directly, differentiated by autograd
    XW = X @ W
    fwd = (XW @ Zt.T).topk(3, dim=1).values.mean(1)
    bwd = (Y @ (Zs @ W).T).topk(3, dim=1).values.mean(1)
    ref = (-2 * (XW * Y).sum(1) + fwd + bwd).mean()
    ref.backward()
    assert float(loss) == pytest.approx(float(ref.detach()), rel=1e-10)
    assert torch.allclose(grad, W.grad, atol=1e-10)


def test_rcsls_lowers_its_loss_and_beats_procrustes_on_a_problem_built_for_it():
    X, Y = _shared_signal_problem()
    train, test = slice(0, 600), slice(600, 1000)
    W_p = procrustes(X[train], Y[train])
    fit = fit_rcsls(X[train], Y[train], k=10, lr=10.0, n_iter=30)
    assert fit.losses[-1] < fit.losses[0] - 0.2
    assert all(b <= a for a, b in zip(fit.losses, fit.losses[1:]))  # only improving steps are kept
    p_proc = _p_at_1(X[test] @ W_p, Y[test])
    p_rcsls = _p_at_1(X[test] @ fit.W, Y[test])
    assert p_rcsls > p_proc + 0.1, (p_proc, p_rcsls)


def test_rcsls_spectral_model_keeps_the_norm_bounded():
    X, Y = _shared_signal_problem(seed=2, n=200)
    fit = fit_rcsls(X, Y, n_iter=10, spectral=True)
    assert np.linalg.svd(fit.W, compute_uv=False).max() <= 1 + 1e-5
    with pytest.raises(ValueError):
        fit_rcsls(X[:1], Y[:1])


def test_vecmap_without_its_extra_steps_is_procrustes():
    rng = np.random.default_rng(3)
    X, Z = _unit(rng.normal(size=(100, 6))), _unit(rng.normal(size=(100, 6)))
    fit = fit_vecmap(X, Z, whiten=False, src_reweight=0, trg_reweight=0, src_dewhiten=None, trg_dewhiten=None)
    # mapping both sides into the shared space is the orthogonal map X -> Z seen from Z's side
    assert np.allclose(fit.A_src @ fit.A_tgt.T, procrustes(X, Z), atol=1e-10)


def test_vecmap_recovers_an_exact_orthogonal_relation_and_whitens():
    rng = np.random.default_rng(4)
    X = _unit(rng.normal(size=(300, 8)) * np.linspace(0.5, 2, 8))
    R, _ = np.linalg.qr(rng.normal(size=(8, 8)))
    Z = X @ R
    fit = fit_vecmap(X, Z)  # VecMap's supervised defaults
    assert _p_at_1(X @ fit.A_src, Z @ fit.A_tgt) == 1.0
    Wh = whitening_matrix(X)
    assert np.allclose((X @ Wh).T @ (X @ Wh), np.eye(8), atol=1e-8)
    # fewer anchors than dimensions: whitening acts on the anchors' span and projects out the rest
    W3 = whitening_matrix(X[:3])
    assert np.allclose(np.linalg.eigvalsh((X[:3] @ W3).T @ (X[:3] @ W3)), [0] * 5 + [1] * 3, atol=1e-8)
    with pytest.raises(ValueError):
        whitening_matrix(np.zeros((4, 3)))
    with pytest.raises(ValueError):
        fit_vecmap(X, Z, src_dewhiten="bogus")


@pytest.mark.parametrize("method", ["procrustes", "rcsls", "vecmap"])
def test_fit_map_learns_a_rotation_between_vocabularies(method):
    rng = np.random.default_rng(5)
    d, n = 10, 300
    base = rng.normal(size=(n, d))
    R, _ = np.linalg.qr(rng.normal(size=(d, d)))
    src = StaticVectors([f"s{i}" for i in range(n)], base.astype(np.float32))
    tgt = StaticVectors([f"t{i}" for i in range(n)], (base @ R + 0.01 * rng.normal(size=(n, d))).astype(np.float32))
    train = [(f"s{i}", f"t{i}") for i in range(200)] + [("unknown", "t1")]
    test = [(f"s{i}", f"t{i}") for i in range(200, 300)]
    raw = evaluate_bli(src, tgt, test, ks=(1,), retrievals=("nn",)).precision.iloc[0]
    alignment, info = fit_map(method, src, tgt, train, rcsls_options={"n_iter": 5})
    U, V = apply_map(alignment, src, tgt)
    mapped = evaluate_bli(U, V, test, ks=(1,), retrievals=("nn", "csls"))
    assert info["n_anchors"] == 200
    assert raw < 50 and (mapped.precision >= 99).all()
    with pytest.raises(ValueError):
        fit_map("bogus", src, tgt, train)
    with pytest.raises(ValueError):
        fit_map(method, src, tgt, [("unknown", "t1")])
