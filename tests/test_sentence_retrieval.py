import numpy as np
import pytest

from xalign.measures.neighbours import csls
from xalign.measures.sentence_retrieval import (
    add_mean_direction,
    best_layer,
    layerwise_retrieval,
    nearest,
    retrieval_accuracy,
)
from xalign.measures.sts import layerwise_sts, pair_cosines, sts_spearman


def _brute_force_accuracy(Q, C):
    q = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    c = C / np.linalg.norm(C, axis=1, keepdims=True)
    return float((np.argmax(q @ c.T, axis=1) == np.arange(len(Q))).mean())


def test_accuracy_matches_brute_force_on_noisy_translations():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 24)).astype(np.float32)
    Y = (X + rng.normal(scale=1.2, size=X.shape)).astype(np.float32)  # some pairs get lost
    expected = _brute_force_accuracy(X, Y)
    assert 0.2 < expected < 0.99  # the test case is neither trivial nor hopeless
    assert retrieval_accuracy(X, Y) == pytest.approx(expected)
    assert retrieval_accuracy(Y, X) == pytest.approx(_brute_force_accuracy(Y, X))


def test_csls_retrieval_matches_full_csls_matrix():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 16)).astype(np.float32)
    Y = (X + rng.normal(scale=1.0, size=X.shape)).astype(np.float32)
    expected = float((csls(X, Y, k=5).argmax(1) == np.arange(120)).mean())
    assert retrieval_accuracy(X, Y, method="csls", k=5) == pytest.approx(expected)


def test_hand_computed_case_and_duplicates_count_as_misses():
    X = np.array([[1, 0], [0, 1], [1, 1]], np.float32)
    Y = np.array([[1, 0.1], [1, 0], [1, 1.1]], np.float32)
    # x0 -> y1 (exact direction) is a miss; x1 -> y2 (closest to (0,1)) is a miss; x2 -> y2 hit
    assert list(nearest(X, Y)) == [1, 2, 2]
    assert retrieval_accuracy(X, Y) == pytest.approx(1 / 3)


def test_layerwise_and_best_layer():
    rng = np.random.default_rng(2)
    base = rng.normal(size=(80, 8))
    noise = [3.0, 0.1, 1.0]  # layer 1 is the cleanest
    X = np.stack([base] * 3, 1)
    Y = np.stack([base + rng.normal(scale=s, size=base.shape) for s in noise], 1)
    df = layerwise_retrieval(X, Y)
    assert set(df["direction"]) == {"xx->en", "en->xx"}
    assert len(df) == 6
    assert best_layer(df) == 1
    both = add_mean_direction(df, ["layer"])
    m = both[(both.direction == "mean") & (both.layer == 0)]["value"].item()
    assert m == pytest.approx(df[df.layer == 0]["value"].mean())
    with pytest.raises(ValueError):
        layerwise_retrieval(X, Y[:10])
    with pytest.raises(ValueError):
        retrieval_accuracy(X[:, 0], Y[:, 0], method="dot")


def test_sts_spearman_toy_case():
    U = np.array([[1, 0], [1, 0], [1, 0], [1, 0]], float)
    V = np.array([[1, 0], [1, 1], [0, 1], [-1, 0.2]], float)  # cosines 1, .71, 0, -.98
    assert sts_spearman(U, V, [5.0, 3.0, 1.0, 0.0]) == pytest.approx(100.0)
    assert sts_spearman(U, V, [0.0, 1.0, 3.0, 5.0]) == pytest.approx(-100.0)
    # one swapped pair: rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert sts_spearman(U, V, [5.0, 1.0, 3.0, 0.0]) == pytest.approx(80.0)
    assert pair_cosines(np.zeros((1, 2)), np.ones((1, 2)))[0] == 0.0
    with pytest.raises(ValueError):
        sts_spearman(U, V, [1.0, 2.0])


def test_layerwise_sts():
    U1 = np.array([[1, 0], [1, 0], [1, 0], [1, 0]], float)
    V1 = np.array([[1, 0], [1, 1], [0, 1], [-1, 0.2]], float)
    U = np.stack([U1, U1], 1)
    V = np.stack([V1, V1[::-1]], 1)  # layer 7 reverses the ranking
    df = layerwise_sts(U, V, [5.0, 3.0, 1.0, 0.0], layers=[5, 7])
    assert list(df["layer"]) == [5, 7]
    assert df["value"].tolist() == pytest.approx([100.0, -100.0])


def test_spearman_is_bit_identical_to_scipy():
    """The bootstrap's fast Spearman: the same float as scipy's, ties (resampled rows) included."""
    from scipy.stats import rankdata, spearmanr

    from xalign.measures.sts import average_ranks, spearman

    rng = np.random.default_rng(7)
    for _ in range(300):
        n = int(rng.integers(3, 300))
        idx = rng.integers(0, n, n)  # a bootstrap resample: repeated rows, tied values
        a, b = rng.normal(size=n)[idx], (np.round(rng.normal(size=n) * 2) / 2)[idx]
        assert (average_ranks(a) == rankdata(a)).all()
        assert spearman(a, b) == spearmanr(a, b).statistic
    assert np.isnan(spearman([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]))
    assert np.isnan(spearman([1.0, np.nan, 3.0], [1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="shape"):
        spearman([1.0, 2.0], [1.0, 2.0, 3.0])
