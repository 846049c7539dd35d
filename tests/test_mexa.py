"""MEXA's alignment score and MTEB's bitext-mining F1 on hand-built known answers."""

from __future__ import annotations

import numpy as np
import pytest

from xalign.measures.bitext_f1 import bitext_scores, language_mean_f1, weighted_f1
from xalign.measures.mexa import cosine_matrix, mexa_aligned, mexa_hits, mexa_score

# rows: sentences of the other language, columns: English; the diagonal holds the translations
S = np.array([[0.90, 0.10, 0.20, 0.00],   # pair 0: top of its row, but English 0 is closer to sentence 1
              [0.95, 0.50, 0.30, 0.10],   # pair 1: top of its column, not of its row (0.95)
              [0.20, 0.40, 0.80, 0.30],   # pair 2: top of both
              [0.10, 0.20, 0.60, 0.60]])  # pair 3: a tie in its row is not a win


def test_mexa_counts_strict_mutual_top1_only():
    assert mexa_aligned(S).tolist() == [False, False, True, False]
    assert mexa_score(S) == pytest.approx(0.25)
    # stricter than either retrieval direction: pair 0 is an xx->en hit, pair 1 an en->xx hit
    assert (S.argmax(1) == np.arange(4)).tolist() == [True, False, True, False]
    assert (S.argmax(0) == np.arange(4)).tolist() == [False, True, True, True]


def test_mexa_extremes_and_vectors():
    assert mexa_score(np.eye(5)) == 1.0
    assert mexa_score(np.full((5, 5), 0.3)) == 0.0  # one vector for every sentence: nothing aligned
    assert mexa_score([[0.1]]) == 1.0  # no competitor
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    Y = np.array([[2.0, 0.1], [0.1, 3.0], [1.0, 0.9]])  # scaled: cosine ignores the length
    assert mexa_hits(X, Y).tolist() == [True, True, True]
    assert mexa_hits(X, Y[[1, 0, 2]]).tolist() == [False, False, True]
    assert cosine_matrix(X, Y)[0, 0] == pytest.approx(2 / np.hypot(2, 0.1))


@pytest.mark.parametrize("bad, match", [(np.ones((2, 3)), "square"), (np.ones(3), "square"),
                                        (np.zeros((0, 0)), "empty"), ([[1.0, np.nan], [0, 1]], "NaN")])
def test_mexa_refuses_bad_matrices(bad, match):
    with pytest.raises(ValueError, match=match):
        mexa_aligned(bad)


def test_mexa_hits_needs_paired_rows():
    with pytest.raises(ValueError, match="paired"):
        mexa_hits(np.ones((3, 2)), np.ones((4, 2)))


# ------------------------------------------------------------------ MTEB's weighted F1
def test_weighted_f1_hand_worked():
    # 4 queries; 0 and 1 both retrieve target 0, 2 is right, 3 retrieves 1.
    gold, pred = [0, 1, 2, 3], [0, 0, 2, 1]
    # class 0: tp 1, predicted twice, gold once -> 2/3; class 1: 0; class 2: 1; class 3: never predicted -> 0
    assert weighted_f1(gold, pred) == pytest.approx((2 / 3 + 0 + 1 + 0) / 4)
    s = bitext_scores(gold, pred)
    assert s["accuracy"] == 0.5
    assert s["precision"] == pytest.approx((1 / 2 + 0 + 1 + 0) / 4)
    assert s["recall"] == pytest.approx(0.5)
    assert weighted_f1([0, 1, 2], [0, 1, 2]) == 1.0 and weighted_f1([0, 1, 2], [1, 2, 0]) == 0.0


def test_weighted_f1_matches_sklearn_including_bootstrap_repeats():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for n in (1, 5, 40, 200):
        pred = rng.integers(0, n, n)
        pred = np.where(rng.random(n) < 0.6, np.arange(n), pred)  # most right, some collisions
        rows = rng.integers(0, n, n)  # a bootstrap resample: gold indices repeat
        for g, p in ((np.arange(n), pred), (np.arange(n)[rows], pred[rows])):
            want = {"f1": metrics.f1_score(g, p, average="weighted", zero_division=0),
                    "precision": metrics.precision_score(g, p, average="weighted", zero_division=0),
                    "recall": metrics.recall_score(g, p, average="weighted", zero_division=0),
                    "accuracy": metrics.accuracy_score(g, p)}
            assert bitext_scores(g, p) == pytest.approx(want)


def test_language_mean_f1_and_errors():
    rows = np.array([[0, 0, 0], [0, 1, 0], [1, 0, 0], [1, 1, 1]])
    assert language_mean_f1(rows) == pytest.approx((weighted_f1([0, 1], [0, 0]) + 1.0) / 2)
    rng = np.random.default_rng(1)  # the one-pass count equals the language-by-language loop
    rows = np.c_[rng.integers(0, 5, 300), rng.integers(0, 40, 300), rng.integers(0, 40, 300)]
    rows[::3, 2] = rows[::3, 1]
    loop = np.mean([weighted_f1(rows[rows[:, 0] == x, 1], rows[rows[:, 0] == x, 2]) for x in np.unique(rows[:, 0])])
    assert language_mean_f1(rows) == pytest.approx(loop)
    assert language_mean_f1(rows.astype(float) * [3, 1, 1]) == pytest.approx(loop)  # ids as floats, any values
    with pytest.raises(ValueError, match="same length"):
        weighted_f1([0, 1], [0])
    with pytest.raises(ValueError, match="empty"):
        weighted_f1([], [])
    with pytest.raises(ValueError, match="integer"):
        weighted_f1([0.5], [0])
    with pytest.raises(ValueError, match=r"\(n, 3\)"):
        language_mean_f1(np.zeros((3, 2)))
