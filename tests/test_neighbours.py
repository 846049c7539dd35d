"""xalign.measures.neighbours: densities, CSLS scores and blocks against the definitions written out."""

import numpy as np
import pytest
import torch

from xalign.measures import neighbours as N


@pytest.fixture
def pair():
    rng = np.random.default_rng(3)
    return rng.normal(size=(23, 6)).astype(np.float32), rng.normal(size=(31, 6)).astype(np.float32)


def unit64(X):
    X = np.asarray(X, np.float64)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def brute_density(Q, K, k, exclude_self=False):
    """Mean of the k largest cosines of each row of Q with K, by sorting every row (float64)."""
    C = unit64(Q) @ unit64(K).T
    if exclude_self:
        np.fill_diagonal(C, -np.inf)
    return np.sort(C, axis=1)[:, ::-1][:, :k].mean(1)


@pytest.mark.parametrize("k", [1, 4, 31, 100])
def test_densities_are_the_mean_of_the_k_largest_cosines(pair, k):
    U, V = pair
    got = N.mean_topk_similarity(U, V, k=k, device="cpu")
    assert got.dtype == np.float32 and got.shape == (23,)
    np.testing.assert_allclose(got, brute_density(U, V, min(k, 31)), atol=1e-6)
    np.testing.assert_allclose(N.mean_topk_similarity(U, U, k=3, exclude_self=True, device="cpu"),
                               brute_density(U, U, 3, exclude_self=True), atol=1e-6)


def test_csls_is_twice_the_cosine_minus_both_densities(pair):
    U, V = pair
    r_v, r_u = brute_density(U, V, 5), brute_density(V, U, 5)
    want = 2 * unit64(U) @ unit64(V).T - r_v[:, None] - r_u[None, :]
    np.testing.assert_allclose(N.csls(U, V, k=5, device="cpu"), want, atol=2e-6)
    # the score function alone, on a 2 x 2 example: 2 S - row - column
    S = np.array([[0.5, -0.25], [1.0, 0.0]])
    np.testing.assert_array_equal(N.csls_scores(S, np.array([0.5, 0.25]), np.array([0.125, 1.0])),
                                  [[0.375, -2.0], [1.625, -1.25]])
    np.testing.assert_array_equal(N.csls_scores(S, None, np.array([0.125, 1.0])), [[0.875, -1.5], [1.875, -1.0]])


def test_csls_scores_in_place_equal_the_new_array_bit_for_bit(pair):
    U, V = pair
    S = N.unit_rows(U, "cpu") @ N.unit_rows(V, "cpu").T
    r_row, r_col = torch.rand(23), torch.rand(31)
    want = N.csls_scores(S, r_row, r_col)
    got = N.csls_scores(S.clone(), r_row, r_col, out=None)
    buf = S.clone()
    assert torch.equal(N.csls_scores(buf, r_row, r_col, out=buf), want) and torch.equal(got, want)
    assert torch.equal(want, 2 * S - r_row[:, None] - r_col[None, :])


@pytest.mark.parametrize("block", [1, 2, 5, 22, 23, None])
def test_blocked_results_equal_the_unblocked_ones(pair, block):
    """Up to the product's rounding (BLAS rounds a (rows, d) x (d, n) product by its own kernel per shape)."""
    U, V = pair
    whole = N.csls(U, V, k=4, block=10_000, device="cpu")
    np.testing.assert_allclose(N.csls(U, V, k=4, block=block, device="cpu"), whole, rtol=0, atol=2e-6)
    np.testing.assert_allclose(N.mean_topk_similarity(U, V, k=4, block=block, device="cpu"),
                               N.mean_topk_similarity(U, V, k=4, block=10_000, device="cpu"), rtol=0, atol=1e-6)
    (i, s), (i0, s0) = N.cosine_topk(U, V, 3, block=block, device="cpu"), N.cosine_topk(U, V, 3, device="cpu")
    np.testing.assert_array_equal(i, i0)
    np.testing.assert_allclose(s, s0, rtol=0, atol=1e-6)
    # the same block size twice: bit for bit
    np.testing.assert_array_equal(N.csls(U, V, k=4, block=block, device="cpu"),
                                  N.csls(U, V, k=4, block=block, device="cpu"))


def test_topk_mean_equals_torch_topk_and_the_float64_partition(pair):
    U, V = pair
    S = N.unit_rows(U, "cpu") @ N.unit_rows(V, "cpu").T
    for k in (1, 7, 31, 40):
        assert torch.equal(N.topk_mean(S, k), S.topk(min(k, 31), dim=1).values.mean(1))
    C = unit64(U) @ unit64(V).T
    np.testing.assert_allclose(N.topk_mean64(C, 4, axis=1), brute_density(U, V, 4), rtol=0, atol=1e-12)
    np.testing.assert_allclose(N.topk_mean64(C, 4, axis=0), brute_density(V, U, 4), rtol=0, atol=1e-12)


def test_unit_rows_and_blocks():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [1e30, 0.0]])
    np.testing.assert_allclose(N.unit_rows(X, "cpu").numpy(), [[0.6, 0.8], [0, 0], [1, 0]])
    np.testing.assert_array_equal(N.unit_rows64(X[:2]), [[0.6, 0.8], [0, 0]])
    for bad in (np.array([[np.nan, 1.0]]), np.array([[np.inf, 1.0]])):
        with pytest.raises(ValueError):
            N.unit_rows(bad, "cpu")
        with pytest.raises(ValueError):
            N.unit_rows64(bad)
    with pytest.raises(ValueError):
        N.unit_rows(np.ones(3), "cpu")
    assert N.block_rows(200_000) == N.DEFAULT_BLOCK_BYTES // 800_000 == 335
    assert N.block_rows(10, cpu_rows=512) == 512 and N.block_rows(10, 7) == 7
    with pytest.raises(ValueError):
        N.block_rows(10, 0)
    with pytest.raises(ValueError):
        N.densities(torch.ones(1, 2), torch.ones(1, 2), 3, exclude_self=True)
