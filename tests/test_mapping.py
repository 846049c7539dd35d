"""Procrustes and Meeting-in-the-Middle (xalign.measures.mapping)."""

import numpy as np
import pytest

from xalign.measures import mapping
from xalign.measures.mapping import (
    fit_alignment,
    fit_alignments,
    least_squares_map,
    normalize_center,
    procrustes,
    row_norms,
)


def random_rotation(d, rng):
    Q, R = np.linalg.qr(rng.normal(size=(d, d)))
    return Q * np.sign(np.diag(R))


def test_procrustes_recovers_a_known_rotation():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 16))
    W = random_rotation(16, rng)
    W_hat = procrustes(X, X @ W)
    assert np.allclose(W_hat, W, atol=1e-8)
    assert np.allclose(W_hat.T @ W_hat, np.eye(16), atol=1e-10)


def test_procrustes_with_noise_is_orthogonal_and_close():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(500, 8))
    W = random_rotation(8, rng)
    W_hat = procrustes(X, X @ W + 0.01 * rng.normal(size=(500, 8)))
    assert np.allclose(W_hat.T @ W_hat, np.eye(8), atol=1e-10)
    assert np.abs(W_hat - W).max() < 0.01


def test_procrustes_with_fewer_anchors_than_dimensions_is_not_decided_by_rounding():
    # 20 centred anchor pairs in 48 dimensions: many orthogonal maps are optimal. A float32-scale
    # perturbation of the anchors must not rotate what the map does to new vectors (the SVD's own pick of
    # the free directions moved them by O(1)), and the pick must be optimal, orthogonal and the identity
    # where the anchors already agree.
    rng = np.random.default_rng(4)
    d, n = 48, 20
    X = rng.normal(size=(n, d))
    X -= X.mean(0)
    Y = X @ random_rotation(d, rng)
    W = procrustes(X, Y)
    W_noisy = procrustes(X * (1 + 1e-7 * rng.normal(size=X.shape)), Y)
    assert np.allclose(W.T @ W, np.eye(d), atol=1e-10)
    assert np.allclose(X @ W, Y, atol=1e-8)  # still the optimum: the anchors map exactly
    new = rng.normal(size=(200, d))
    assert np.abs(new @ W - new @ W_noisy).max() < 1e-4
    assert np.allclose(procrustes(X, X), np.eye(d), atol=1e-10)  # nothing to rotate: the identity
    assert np.trace(W) >= np.trace(_svd_pick(X, Y)) - 1e-9  # the largest trace among the optima


def _svd_pick(X, Y):
    U, _, Vt = np.linalg.svd(X.T @ Y)
    return U @ Vt


def test_fit_alignment_maps_rotated_space_onto_target():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 12)) + 3.0  # off-centre: centring must handle it
    W = random_rotation(12, rng)
    Y = X @ W
    al = fit_alignment(X, Y)
    Xm, Ym = al.transform_src(X), al.transform_tgt(Y)
    cos = (Xm * Ym).sum(1) / np.linalg.norm(Xm, axis=1) / np.linalg.norm(Ym, axis=1)
    assert cos.min() > 0.999


def test_mim_reduces_anchor_distance():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(400, 10))
    A = rng.normal(size=(10, 10))  # a non-orthogonal relation: Procrustes alone cannot fit it
    Y = X @ A + 0.1 * rng.normal(size=(400, 10))
    orig, mim = fit_alignment(X, Y, mim=False), fit_alignment(X, Y, mim=True)

    def dist(al):
        return np.linalg.norm(al.transform_src(X) - al.transform_tgt(Y), axis=1).mean()

    assert dist(mim) < 0.8 * dist(orig)


def test_mim_middle_is_the_least_squares_solution():
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
    M = least_squares_map(X, Y)
    # the residual is orthogonal to X's columns (normal equations)
    assert np.allclose(X.T @ (X @ M - Y), 0, atol=1e-8)


def test_normalize_center_rows_are_unit_and_reuse_the_mean():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(20, 5)) + 2
    Z, mean = normalize_center(X)
    assert np.allclose(np.linalg.norm(Z, axis=1), 1)
    Z2, mean2 = normalize_center(X[:3], mean)
    assert np.allclose(Z2, Z[:3]) and mean2 is mean


def test_bad_anchor_shapes_are_errors():
    with pytest.raises(ValueError, match="anchors"):
        fit_alignment(np.zeros((3, 4)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="same shape"):
        procrustes(np.zeros((3, 4)), np.zeros((3, 5)))


def test_fit_alignments_share_procrustes_and_equal_separate_fits(monkeypatch):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(300, 12)) + 1, rng.normal(size=(300, 12))
    orig, mim = fit_alignment(X, Y), fit_alignment(X, Y, mim=True)
    calls = []
    real = mapping.procrustes
    monkeypatch.setattr(mapping, "procrustes", lambda *a: calls.append(1) or real(*a))
    both = fit_alignments(X, Y, (False, True))
    assert len(calls) == 1
    for a, b in zip((orig, mim), both):
        for f in ("W", "M_src", "M_tgt", "mean_src", "mean_tgt"):
            assert np.array_equal(getattr(a, f), getattr(b, f)), f


def test_identity_factor_is_skipped_and_row_norms_are_numpys():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 8))
    assert mapping._times(X, np.eye(8)) is X
    assert np.array_equal(mapping._times(X, 2 * np.eye(8)), 2 * X)
    assert np.array_equal(row_norms(X), np.linalg.norm(X, axis=1, keepdims=True))
    X0 = X.copy()
    Z, mean = normalize_center(X)
    assert np.array_equal(X, X0)  # the input is not changed in place
    assert np.allclose(np.linalg.norm(Z, axis=1), 1) and mean.shape == (8,)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_maps_name_nan_and_infinite_anchors_instead_of_failing_in_the_svd(bad):
    """procrustes(X, X) with one inf never returned (or said 'SVD did not converge'), as did the other maps."""
    from xalign.measures.rcsls import fit_rcsls
    from xalign.measures.vecmap import fit_vecmap

    rng = np.random.default_rng(0)
    good = rng.standard_normal((40, 6))
    X = good.copy()
    X[3, 2] = bad
    what = r"X holds \d+ NaN and \d+ infinite values \(the first at index \(3, 2\)\)"
    for fit in (procrustes, least_squares_map, fit_alignment, lambda a, b: fit_vecmap(a, b),
                lambda a, b: fit_rcsls(a, b, n_iter=1)):
        with pytest.raises(ValueError, match=what):
            fit(X, good)
    with pytest.raises(ValueError, match=r"Y holds"):
        procrustes(good, X)
    with pytest.raises(ValueError, match=what):
        fit_alignment(good, good).transform_src(X)
    with pytest.raises(ValueError, match=r"Zs holds"):
        fit_rcsls(good, good, Zs=X, n_iter=1)
