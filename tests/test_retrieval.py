"""CSLS retrieval and the weak / strong alignment scores, against brute-force references."""

import numpy as np
import pytest
import torch

from xalign.measures import neighbours as N
from xalign.measures import retrieval as R
from xalign.measures.csls import csls_topk


def unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def brute_csls(U, V, k):
    u, v = unit(U), unit(V)
    C = u @ v.T
    r_v = np.sort(C, 1)[:, -k:].mean(1)
    r_u = np.sort(C.T, 1)[:, -k:].mean(1)
    return 2 * C - r_v[:, None] - r_u[None, :]


def brute_weak(U, V, k):
    S = brute_csls(U, V, k)
    return np.mean([S[i, i] > np.max(np.delete(S[i], i)) for i in range(len(U))])


def topk_mean_brute(q, K, k):
    """Mean of the k largest cosines of q with the rows of K (q itself counts when it is a row of K)."""
    return float(np.mean(sorted((K @ q).tolist(), reverse=True)[:k]))


def brute_strong(U, V, k):
    """Eq. 3 with the authors' CSLS: every candidate's density is taken among the sources
    (a source vector counts as its own neighbour), the query's own term dropped.
    Written from the equation with plain loops."""
    u, v = unit(U), unit(V)
    n = len(u)
    dens_u = [topk_mean_brute(u[j], u, k) for j in range(n)]   # r_U(u_j), u_j among its own neighbours
    hits = 0
    for i in range(n):
        own = 2 * float(u[i] @ v[i]) - topk_mean_brute(v[i], u, k)
        rivals = [2 * float(u[i] @ u[j]) - dens_u[j] for j in range(n) if j != i]
        hits += own > max(rivals)
    return hits / n


def brute_strong_xalign01(U, V, k):
    """The xalign 0.1 formula: full CSLS, the query's density among the targets for the
    translation and among the other sources for every rival."""
    S = brute_csls(U, V, k)
    u = unit(U)
    CU = u @ u.T
    r = np.array([np.sort(np.delete(CU[i], i))[-k:].mean() for i in range(len(U))])
    SU = 2 * CU - r[:, None] - r[None, :]
    return np.mean([S[i, i] > np.max(np.delete(SU[i], i)) for i in range(len(U))])


def offset_clouds(rng, n=200, d=16, offset=0.0, noise=0.9):
    """Paired point clouds; the target side is shifted by a common language vector of norm ``offset``."""
    U = rng.normal(size=(n, d))
    shift = np.zeros(d)
    shift[0] = offset * np.sqrt(d)
    return U, U + noise * rng.normal(size=U.shape) + shift


@pytest.fixture
def noisy_pairs(rng):
    U = rng.normal(size=(240, 24))
    V = U + 0.9 * rng.normal(size=U.shape)
    return U, V


def test_identical_spaces_score_one(rng):
    U = rng.normal(size=(300, 32))
    assert R.s_weak(U, U) == 1.0
    assert R.s_strong(U, U) == 1.0


def test_unrelated_spaces_score_near_chance(rng):
    U, V = rng.normal(size=(400, 32)), rng.normal(size=(400, 32))
    assert R.s_weak(U, V) < 0.05
    assert R.s_strong(U, V) < 0.05


def test_csls_matches_brute_force(noisy_pairs):
    U, V = noisy_pairs
    for block in (None, 7, 1000):
        np.testing.assert_allclose(N.csls(U, V, k=10, block=block), brute_csls(U, V, 10), atol=1e-5)


def test_csls_on_rectangular_sets(rng):
    U, V = rng.normal(size=(50, 8)), rng.normal(size=(130, 8))
    np.testing.assert_allclose(N.csls(U, V, k=5), brute_csls(U, V, 5), atol=1e-5)
    idx, val = csls_topk(U, V, k=5, topn=3, block=11)
    ref = brute_csls(U, V, 5)
    np.testing.assert_array_equal(idx[:, 0], ref.argmax(1))
    np.testing.assert_allclose(val, np.sort(ref, 1)[:, ::-1][:, :3], atol=1e-5)


def test_weak_and_strong_match_brute_force(noisy_pairs):
    U, V = noisy_pairs
    weak, strong = brute_weak(U, V, 10), brute_strong(U, V, 10)
    assert 0.2 < weak < 1.0 and 0.1 < strong < 1.0  # a case where both tests matter
    for block in (None, 13):
        assert R.s_weak(U, V, k=10, block=block) == pytest.approx(weak)
        assert R.s_strong(U, V, k=10, block=block) == pytest.approx(strong)


def test_torch_input_and_cosine_topk(noisy_pairs):
    U, V = noisy_pairs
    assert R.s_weak(torch.tensor(U), torch.tensor(V)) == pytest.approx(brute_weak(U, V, 10))
    idx, _ = N.cosine_topk(U, V, topn=1, block=5)
    np.testing.assert_array_equal(idx[:, 0], (unit(U) @ unit(V).T).argmax(1))


def test_mean_topk_excludes_self(rng):
    X = rng.normal(size=(30, 6))
    C = unit(X) @ unit(X).T
    np.fill_diagonal(C, -np.inf)
    np.testing.assert_allclose(N.mean_topk_similarity(X, X, k=4, exclude_self=True),
                               np.sort(C, 1)[:, -4:].mean(1), atol=1e-6)


def test_bad_inputs_are_rejected(rng):
    U = rng.normal(size=(10, 4))
    with pytest.raises(ValueError, match="paired"):
        R.s_weak(U, U[:9])
    bad = U.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        R.s_weak(bad, U)
    bad[3, 1] = -np.inf
    with pytest.raises(ValueError, match="infinite"):
        R.s_weak(U, bad)
    huge = U * 1e30   # finite (its squared norm overflows float32): accepted, as before
    assert np.isfinite(N.csls(huge, U)).all()
    with pytest.raises(ValueError, match="2-d"):
        N.csls(U[0], U)


def test_alignment_scores_in_one_pass(noisy_pairs):
    U, V = noisy_pairs
    ref = {"S_weak": pytest.approx(brute_weak(U, V, 10)), "S_strong": pytest.approx(brute_strong(U, V, 10))}
    assert R.alignment_scores(U, V, k=10, block=17) == ref   # blocked passes
    assert R.alignment_scores(U, V, k=10) == ref             # two in-memory products


def test_alignment_scores_identical_spaces(rng):
    U = rng.normal(size=(300, 32))
    assert R.alignment_scores(U, U.copy(), k=10) == {"S_weak": 1.0, "S_strong": 1.0}
    assert R.alignment_scores(U, U.copy(), k=10, block=50) == {"S_weak": 1.0, "S_strong": 1.0}


@pytest.mark.parametrize(("offset", "noise"), [(0.0, 0.9), (1.5, 0.6)])
def test_strong_matches_the_equation_with_and_without_a_language_offset(rng, offset, noise):
    U, V = offset_clouds(rng, offset=offset, noise=noise)
    ref = brute_strong(U, V, 10)
    assert 0.05 < ref < 0.95
    for block in (None, 13):
        assert R.s_strong(U, V, k=10, block=block) == pytest.approx(ref)
        assert R.alignment_scores(U, V, k=10, block=block)["S_strong"] == pytest.approx(ref)


def test_the_xalign01_formula_favoured_the_translation_under_an_offset(rng):
    """The old formula is kept, clearly named, and differs from Eq. 3 where the languages sit apart."""
    U, V = offset_clouds(rng, offset=1.5, noise=0.6)
    old, new = brute_strong_xalign01(U, V, 10), brute_strong(U, V, 10)
    assert old > new + 0.05
    for block in (None, 13):
        scores = R.alignment_scores(U, V, k=10, block=block, with_xalign01=True)
        assert scores["S_strong_xalign01"] == pytest.approx(old)
        assert scores["S_strong"] == pytest.approx(new)
    assert "S_strong_xalign01" not in R.alignment_scores(U, V, k=10)
    # no public function of the metric layer returns the wrong score (only the named flag above, for chapter 1)
    assert [n for n in dir(R) if "xalign01" in n and not n.startswith("_")] == []


def test_strong_density_counts_a_vector_as_its_own_neighbour():
    """k = 1: each source's density is its cosine with itself (1), so a rival scores
    2 cos(u_i, u_j) - 1 and the translation 2 cos(u_i, v_i) - max_j cos(v_i, u_j)."""
    U = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.05]])
    V = np.array([[0.9, 0.6], [0.2, 1.0], [-1.0, -0.3]])
    assert R.s_strong(U, V, k=1) == pytest.approx(brute_strong(U, V, 1))
    u, v = unit(U), unit(V)
    expect = [2 * u[i] @ v[i] - max(u @ v[i]) > max(2 * u[i] @ u[j] - 1 for j in range(3) if j != i)
              for i in range(3)]
    assert R.s_strong(U, V, k=1) == pytest.approx(np.mean(expect))
