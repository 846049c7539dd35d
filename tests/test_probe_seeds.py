"""Probe scores over several training seeds: mean, seed spread, interval over test items, collapse flag."""

import numpy as np
import pytest

from xalign.data.tasks import Split, Task
from xalign.measures.intervals import accuracy_ci
from xalign.measures.probe import ProbeSpec, evaluate_features
from xalign.measures.probe_seeds import COLLAPSED_SHARE, majority_share, seed_scores
from xalign.measures.probe_tasks import evaluate, evaluate_transfer, run_grid


@pytest.fixture(autouse=True)
def _probe_cache_in_tmp(tmp_path, monkeypatch):
    """Probe fits are cached on disk; keep these tests' entries out of the user cache."""
    from xalign.core.cache import EmbeddingCache
    from xalign.measures import probe

    monkeypatch.setattr(probe, "_probe_cache", EmbeddingCache(tmp_path / "probe-cache"))


def test_seed_scores_known_answers():
    y = np.array([0, 1, 2, 0, 1, 2])
    right = y.copy()  # 100 %
    half = np.array([0, 1, 2, 1, 2, 0])  # 50 %
    zeros = np.zeros(6, dtype=int)  # one class for every item: 2 of 6 right, 33.3 %
    r = seed_scores(y, [right, half, zeros], n_classes=3, seeds=[0, 1, 2])
    assert r["acc_by_seed"] == pytest.approx([100.0, 50.0, 100 / 3])
    assert r["acc"] == pytest.approx((100 + 50 + 100 / 3) / 3)
    assert (r["acc_min"], r["acc_max"]) == pytest.approx((100 / 3, 100.0))
    assert r["acc_sd"] == pytest.approx(np.std([100, 50, 100 / 3], ddof=1))
    assert r["pred_majority_share"] == 100.0 and majority_share(zeros, 3) == 100.0
    # one seed of three collapses: the run is not collapsed (judged per seed); the two that learn are reported
    assert r["collapsed_seeds"] == 1 and r["collapsed"] is False and r["learning_seeds"] == 2
    assert r["acc_learning"] == pytest.approx(75.0)
    every = seed_scores(y, [zeros, zeros], n_classes=3, seeds=[0, 1])
    assert every["collapsed"] is True and np.isnan(every["acc_learning"])
    assert r["seeds"] == [0, 1, 2] and r["n_seeds"] == 3
    assert r["acc_lo"] <= r["acc"] <= r["acc_hi"]
    # no seed collapses: the flag is off, and a share just under the bar does not count
    r2 = seed_scores(y, [right, half], 3, [5, 6])
    assert not r2["collapsed"] and r2["collapsed_seeds"] == 0 and r2["acc_sd"] == pytest.approx(np.std([100, 50], ddof=1))
    assert majority_share(np.array([0] * 98 + [1, 2]), 3) < COLLAPSED_SHARE


def test_one_seed_gives_the_single_seed_numbers():
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    pred = np.array([0, 1, 0, 0, 1, 1, 0, 1])
    r = seed_scores(y, [pred], 2, [3])
    lo, hi = accuracy_ci(pred == y)
    assert r["acc"] == 75.0 and r["acc_sd"] == 0.0 and r["acc_min"] == r["acc_max"] == 75.0
    assert (r["acc_lo"], r["acc_hi"]) == pytest.approx((100 * lo, 100 * hi))


def test_seed_scores_errors():
    y = np.array([0, 1])
    with pytest.raises(ValueError, match="one prediction array per seed"):
        seed_scores(y, [y], 2, [0, 1])
    with pytest.raises(ValueError, match="one prediction array per seed"):
        seed_scores(y, [], 2, [])
    with pytest.raises(ValueError, match="items"):
        seed_scores(y, [np.array([0, 1, 1])], 2, [0])


def noisy(n=150, d=6, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    X = np.eye(3, d)[y] * 1.5 + rng.normal(scale=1.0, size=(n, d))
    return X.astype(np.float32), y


def test_evaluate_with_seeds_is_the_mean_of_the_single_seed_fits():
    X, y = noisy()
    names = [f"s{i}" for i in range(len(y))]
    table = dict(zip(names, X))
    task = Task("toy", Split((names[:100],), y[:100]), Split((names[100:],), y[100:]), 3)
    spec = ProbeSpec("mlp", kind="mlp", nhid=4, config="prototyping", kfold=3)
    batcher = lambda texts: np.stack([table[t] for t in texts])
    single = [evaluate_features(X[:100], y[:100], X[100:], y[100:], spec, n_classes=3, seed=s)["acc"]
              for s in (0, 1, 2)]
    (row,) = evaluate(task, batcher, [spec], seeds=[0, 1, 2])
    assert row["acc_by_seed"] == pytest.approx(single)
    assert row["acc"] == pytest.approx(np.mean(single))
    assert (row["acc_min"], row["acc_max"]) == pytest.approx((min(single), max(single)))
    assert len(row["reg_by_seed"]) == 3 and row["n_seeds"] == 3
    grid = run_grid([task], {"f": batcher}, [spec], seeds=[0, 1, 2], progress=False)
    assert grid["acc"].iloc[0] == pytest.approx(row["acc"]) and grid["features"].iloc[0] == "f"


def test_transfer_with_seeds_keeps_targets_in_order():
    X, y = noisy(n=90)
    names = [f"t{i}" for i in range(90)]
    table = dict(zip(names, X))
    other = {f"o{i}": X[i] for i in range(90)}
    batcher = lambda texts: np.stack([table.get(t, other.get(t)) for t in texts])
    src = Task("src", Split((names[:60],), y[:60]), Split((names[60:],), y[60:]), 3, meta={"lang": "en"})
    tgt = Task("tgt", Split((names[:60],), y[:60]), Split((list(other)[60:],), y[60:]), 3, meta={"lang": "xx"})
    specs = [ProbeSpec("lr", config="prototyping", kfold=3), ProbeSpec("mlp", kind="mlp", nhid=3, config="prototyping", kfold=3)]
    rows = evaluate_transfer(src, [src, tgt], batcher, specs, seeds=[0, 1])
    assert [(r["probe"], r["lang"]) for r in rows] == [("lr", "en"), ("lr", "xx"), ("mlp", "en"), ("mlp", "xx")]
    # identical test features: the same predictions, so the same numbers, for both targets
    assert rows[0]["acc_by_seed"] == rows[1]["acc_by_seed"] and rows[2]["acc_by_seed"] == rows[3]["acc_by_seed"]


def test_the_seed_moves_sentevals_logistic_regression_not_sklearns():
    """Why Tables 4-7 vary the seed of LR too: SentEval's LR is trained by RMSprop from random weights on
    shuffled batches with a seeded early-stopping hold-out; an LBFGS fit (sklearn) with a fixed C is not
    moved (with a C grid, the seeded k-fold split that picks C can move it)."""
    X, y = noisy(n=150, seed=4)
    torch_lr = ProbeSpec("lr", kind="logreg", config="prototyping", kfold=3)
    accs = {s: evaluate_features(X[:100], y[:100], X[100:], y[100:], torch_lr, n_classes=3, seed=s, cache=False)["acc"]
            for s in range(4)}
    assert len(set(accs.values())) > 1, accs
    sk = ProbeSpec("sk", backend="sklearn", regs=(1.0,))
    sk_accs = {evaluate_features(X[:100], y[:100], X[100:], y[100:], sk, n_classes=3, seed=s, cache=False)["acc"]
               for s in range(3)}
    assert len(sk_accs) == 1
