"""The SentEval-style evaluator: feature shapes, probes on toy data, selection, batcher plumbing."""

import numpy as np
import pytest

from xalign.data.tasks import Split, Task
from xalign.measures.probe import ProbeSpec, evaluate_features, fit_probe, pair_features, scores
from xalign.measures.probe_tasks import embed, evaluate, features, learning_curve
from xalign.measures.sentbank import SentenceBank, unique


@pytest.fixture(autouse=True)
def _probe_cache_in_tmp(tmp_path, monkeypatch):
    """Probe fits are cached on disk; keep these tests' entries out of the user cache."""
    from xalign.core.cache import EmbeddingCache
    from xalign.measures import probe

    monkeypatch.setattr(probe, "_probe_cache", EmbeddingCache(tmp_path / "probe-cache"))


def test_pair_features_shape_and_values():
    u = np.array([[1.0, 2.0], [0.0, -1.0]])
    v = np.array([[3.0, 1.0], [2.0, 2.0]])
    f = pair_features(u, v)
    assert f.shape == (2, 8) and f.dtype == np.float32
    assert f[0].tolist() == [1, 2, 3, 1, 2, 1, 3, 2]  # u, v, |u-v|, u*v
    assert f[1].tolist() == [0, -1, 2, 2, 2, 3, 0, -2]
    with pytest.raises(ValueError, match="one shape"):
        pair_features(u, v[:1])


def separable(n=240, d=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % k
    centers = np.eye(k, d) * 6.0
    X = centers[y] + rng.normal(scale=0.5, size=(n, d))
    return X.astype(np.float32), y


@pytest.mark.parametrize("spec", [
    ProbeSpec("lr", kind="logreg", config="prototyping", kfold=3),
    ProbeSpec("mlp", kind="mlp", nhid=8, config="standard", kfold=3),
    ProbeSpec("lr-noreg", kind="logreg", config="prototyping", regs=(), max_epoch=200, epoch_size=2),
    ProbeSpec("mlp5", kind="mlp", nhid=5, config="prototyping", regs=(), max_epoch=60, epoch_size=1),
    ProbeSpec("sk", backend="sklearn", kfold=3),
])
def test_probes_learn_separable_toy_set(spec):
    X, y = separable()
    Xte, yte = separable(seed=1)
    r = evaluate_features(X, y, Xte, yte, spec, seed=3)
    assert r["acc"] == 100.0 and r["macro_f1"] == 100.0
    assert r["n_train"] == 240 and r["n_test"] == 240


def test_probe_is_deterministic_with_a_seed():
    X, y = separable(n=90, seed=2)
    X = X + np.random.default_rng(5).normal(scale=3.0, size=X.shape).astype(np.float32)  # make it hard
    spec = ProbeSpec("mlp", kind="mlp", nhid=4, config="prototyping", kfold=3)
    a = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=7, cache=False)
    b = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=7, cache=False)
    assert a["acc"] == b["acc"] and a["reg"] == b["reg"]


def test_selection_uses_the_grid_and_dev():
    X, y = separable(n=120)
    spec = ProbeSpec("lr", config="prototyping", kfold=4, regs=(1e-5, 10.0))
    _, info = fit_probe(X, y, spec, seed=0)
    assert info["selection"] == "4-fold" and info["reg"] == 1e-5 and len(info["cv_scores"]) == 2
    _, info = fit_probe(X, y, spec, dev=(X[:30], y[:30]), seed=0)
    assert info["selection"] == "dev"
    _, info = fit_probe(X, y, spec.with_(regs=()), seed=0)
    assert info["reg"] == 1e-9 and info["cv_scores"] == []
    # a one-value grid selects nothing: record what ran, not "4-fold"
    assert info["selection"] == "none (one grid value)"
    assert info["early_stopping"] == "5% of train held out (6 items)"
    _, info = fit_probe(X, y, spec.with_(regs=()), dev=(X[:30], y[:30]), seed=0)
    assert info["early_stopping"] == "dev split (30 items)"


def test_scores_constant_predictor():
    s = scores([0, 1, 2, 0, 1, 2], [0, 0, 0, 0, 0, 0])
    assert s["acc"] == pytest.approx(100 / 3)
    assert s["macro_f1"] == pytest.approx(100 * (0.5 / 3))  # F1 of class 0 is 0.5, others 0


def test_bad_specs():
    with pytest.raises(ValueError, match="nhid"):
        ProbeSpec("m", kind="mlp", nhid=0)
    with pytest.raises(ValueError, match="logistic regression only"):
        ProbeSpec("m", kind="mlp", nhid=3, backend="sklearn")
    with pytest.raises(ValueError, match="config"):
        ProbeSpec("m", config="fast")


def toy_bank():
    words = ["a", "b", "c", "d", "e", "f"]
    rng = np.random.default_rng(0)
    vec = rng.normal(size=(6, 2, 4)).astype(np.float32)
    return SentenceBank(words, {"mean": vec}, {"mean": [6, 12]}), vec


def test_bank_batcher_and_errors():
    bank, vec = toy_bank()
    out = bank.batcher("mean", 12)(["c", "a"])
    assert np.array_equal(out, vec[[2, 0], 1])
    assert np.array_equal(bank.batcher("mean", -1)(["b"]), vec[[1], 1])
    with pytest.raises(KeyError, match="not kept"):
        bank.array("mean", 3, ["a"])
    with pytest.raises(KeyError, match="not in the bank"):
        bank.array("mean", 12, ["zzz"])
    merged = bank.merge(SentenceBank(["a", "z"], {"mean": np.ones((2, 2, 4), np.float32)}, {"mean": [6, 12]}))
    assert merged.texts == ["a", "b", "c", "d", "e", "f", "z"]
    assert np.array_equal(merged.array("mean", 6, ["a"]), vec[[0], 0])  # the first bank wins
    assert unique(["x", "y", "x"]) == ["x", "y"]


def test_evaluate_pair_task_calls_batcher_once_with_distinct_texts():
    # sentence vectors chosen so that label = (hypothesis equals premise): [u,v,|u-v|,u*v] makes it linear
    rng = np.random.default_rng(0)
    vocab = [f"s{i}" for i in range(40)]
    table = {t: rng.normal(size=8).astype(np.float32) for t in vocab}
    calls = []

    def batcher(texts):
        calls.append(list(texts))
        return np.stack([table[t] for t in texts])

    def make(n, seed):
        r = np.random.default_rng(seed)
        prem = [vocab[i] for i in r.integers(0, 40, n)]
        same = r.integers(0, 2, n)
        hyp = [p if s else vocab[(vocab.index(p) + 1 + r.integers(0, 39)) % 40] for p, s in zip(prem, same)]
        return Split((prem, hyp), same)

    task = Task("toy", make(400, 1), make(200, 2), 2, meta={"lang": "xx"})
    rows = evaluate(task, batcher, [ProbeSpec("sk", backend="sklearn", kfold=3)])
    assert len(calls) == 1 and calls[0] == sorted(set(calls[0]))
    assert rows[0]["lang"] == "xx" and rows[0]["task"] == "toy"
    assert rows[0]["acc"] > 95
    vec = embed(batcher, ["s1", "s1", "s2"])
    assert set(vec) == {"s1", "s2"}
    assert features(task.test, vec | embed(batcher, task.all_texts())).shape == (200, 32)
    curve = learning_curve(task, batcher, ProbeSpec("sk", backend="sklearn", kfold=3), [50, 400])
    assert [r["n_train"] for r in curve] == [50, 400]


def test_split_checks_lengths():
    with pytest.raises(ValueError, match="labels"):
        Split((["a", "b"],), [0])


def test_multi_head_fit_equals_separate_fits():
    from xalign.measures.probe import TorchProbe

    X, y = separable(n=150, d=5, seed=4)
    X = X + np.random.default_rng(9).normal(scale=4.0, size=X.shape).astype(np.float32)
    for spec in (ProbeSpec("lr", config="prototyping"), ProbeSpec("mlp", kind="mlp", nhid=3, config="standard")):
        regs = (1e-5, 1e-2, 0.5)
        multi = TorchProbe(spec, 5, 3, regs, seed=2)
        best = multi.fit(X[:120], y[:120], validation=(X[120:], y[120:]))
        for h, reg in enumerate(regs):
            one = TorchProbe(spec, 5, 3, reg, seed=2)
            b1 = one.fit(X[:120], y[:120], validation=(X[120:], y[120:]))
            assert b1[0] == best[h]
            assert one.n_epochs <= multi.n_epochs
            assert np.array_equal(one.predict(X), multi.predict(X, head=h))


def test_zero_shot_transfer_fits_once():
    from xalign.measures.probe_tasks import evaluate_transfer

    X, y = separable(n=60, d=4)
    names = [f"t{i}" for i in range(60)]
    table = dict(zip(names, X))
    other = {f"o{i}": X[i] + 0.01 for i in range(60)}  # a "translation" close to the source
    batcher = lambda texts: np.stack([table.get(t, other.get(t)) for t in texts])
    src = Task("src", Split((names,), y), Split((names,), y), 3)
    tgt = Task("tgt", Split((names,), y), Split((list(other),), y), 3, meta={"lang": "xx"})
    rows = evaluate_transfer(src, [src, tgt], batcher, [ProbeSpec("lr", config="prototyping", kfold=3)])
    assert [r["acc"] for r in rows] == [100.0, 100.0] and rows[1]["lang"] == "xx"


def test_standardize_rescues_a_small_scale_mlp():
    """Features 1000x smaller: SentEval's unscaled MLP stays on its plateau; z-scoring learns them."""
    X, y = separable(n=240, seed=3)
    X = X * 1e-3
    spec = ProbeSpec("mlp", kind="mlp", nhid=8, config="prototyping", regs=(), standardize=True, min_validation=0.2)
    res = evaluate_features(X[:180], y[:180], X[180:], y[180:], spec, seed=0)
    assert res["acc"] == 100.0
    plain = evaluate_features(X[:180], y[:180], X[180:], y[180:], spec.with_(standardize=False), seed=0)
    assert plain["acc"] < 100.0


# --------------------------------------------------------------------------- intervals, cache, threads
def test_interval_covers_true_accuracy_of_a_toy_classifier_at_the_stated_rate():
    """Toy classifier sign(x) on x ~ N(+-mu, 1): its true accuracy is Phi(mu). Over many test sets of
    300 items, the 95 % interval must cover it about 95 % of the time."""
    from scipy.stats import norm

    from xalign.measures.intervals import accuracy_ci

    mu, n, reps = 0.5, 300, 200
    true_acc = norm.cdf(mu)
    rng = np.random.default_rng(0)
    covered, widths = 0, []
    for r in range(reps):
        y = rng.integers(0, 2, n)
        x = np.where(y == 1, mu, -mu) + rng.normal(size=n)
        correct = (x > 0).astype(int) == y
        lo, hi = accuracy_ci(correct, n_boot=500, seed=r)
        covered += lo <= true_acc <= hi
        widths.append(hi - lo)
    assert 0.90 <= covered / reps <= 0.99
    assert np.mean(widths) == pytest.approx(2 * 1.96 * np.sqrt(true_acc * (1 - true_acc) / n), rel=0.15)


def test_bootstrap_ci_known_answers_and_errors():
    from xalign.measures.intervals import accuracy_ci, bootstrap_ci

    assert bootstrap_ci([2.0] * 10) == (2.0, 2.0)  # no spread, no width
    assert bootstrap_ci(np.arange(100.0), seed=3) == bootstrap_ci(np.arange(100.0), seed=3)
    lo, hi = bootstrap_ci(np.arange(100.0), stat=np.median)
    assert lo < 49.5 < hi
    with pytest.raises(ValueError, match="empty"):
        bootstrap_ci([])
    with pytest.raises(ValueError, match="level"):
        bootstrap_ci([1.0, 2.0], level=95)
    with pytest.raises(ValueError, match="booleans"):
        accuracy_ci([0.5, 1.0])


def test_evaluate_reports_an_interval_around_the_accuracy():
    X, y = separable(n=240, seed=3)
    X = X + np.random.default_rng(1).normal(scale=5.0, size=X.shape).astype(np.float32)
    r = evaluate_features(X[:160], y[:160], X[160:], y[160:], ProbeSpec("sk", backend="sklearn", kfold=3), cache=False)
    assert r["acc_lo"] <= r["acc"] <= r["acc_hi"] and r["acc_hi"] - r["acc_lo"] > 5


def test_probe_fits_are_cached_and_reused(tmp_path, monkeypatch):
    from xalign.core.cache import EmbeddingCache
    from xalign.measures import probe

    monkeypatch.setattr(probe, "_probe_cache", EmbeddingCache(tmp_path / "probes"))
    X, y = separable(n=90, seed=5)
    spec = ProbeSpec("lr", config="prototyping", kfold=3)
    a = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=1)
    assert len(list((tmp_path / "probes").glob("*/*.npz"))) == 1
    monkeypatch.setattr(probe, "fit_probe", lambda *a, **k: pytest.fail("a warm rerun must not train"))
    b = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=1)
    assert {k: v for k, v in a.items() if k != "seconds"} == {k: v for k, v in b.items() if k != "seconds"}
    with pytest.raises(pytest.fail.Exception):  # another seed is another entry
        evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=2)


def test_torch_threads_restores_the_setting():
    import torch

    from xalign.core.threads import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before
    with pytest.raises(ValueError, match="non-negative"), torch_threads(-2):
        pass


def test_probes_that_differ_only_in_name_share_one_cached_fit(monkeypatch):
    from xalign.measures import probe

    X, y = separable(n=90, seed=5)
    spec = ProbeSpec("LR", config="prototyping", kfold=3)
    a = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec, seed=1)
    monkeypatch.setattr(probe, "fit_probe", lambda *a, **k: pytest.fail("the same set-up under another name trained"))
    b = evaluate_features(X[:60], y[:60], X[60:], y[60:], spec.with_(name="nhid=0"), seed=1)
    assert b["probe"] == "nhid=0" and b["acc"] == a["acc"] and b["reg"] == a["reg"]


def test_rmsprop_step_is_torchs_rmsprop_bit_for_bit(monkeypatch):
    """The written-out RMSprop gives torch.optim.RMSprop's weights exactly, without calling it."""
    import torch

    from xalign.measures.probe import TorchProbe

    X, y = separable(n=300, d=12, seed=2)
    X = X + np.random.default_rng(3).normal(scale=3.0, size=X.shape).astype(np.float32)
    for spec in (ProbeSpec("lr", config="prototyping"), ProbeSpec("mlp", kind="mlp", nhid=4, config="prototyping")):
        ref = TorchProbe(spec, 12, 3, (1e-5, 1e-2), seed=4)
        ref.optimizer = torch.optim.RMSprop(list(ref.params.values()))  # torch's own step
        ref.fit(X[:240], y[:240], validation=(X[240:], y[240:]))
        with monkeypatch.context() as m:
            m.setattr(torch.optim.RMSprop, "step", lambda *a, **k: pytest.fail("torch's RMSprop.step was called"))
            ours = TorchProbe(spec, 12, 3, (1e-5, 1e-2), seed=4)
            ours.fit(X[:240], y[:240], validation=(X[240:], y[240:]))
        assert ours.n_epochs == ref.n_epochs
        for k in ref.params:
            assert torch.equal(ours.params[k], ref.params[k])
