"""The full-batch MLP (issue 46 item 3) and the premise-grouped validation splits (chapter 5's selection)."""

import numpy as np
import pytest
import torch

from xalign.data.tasks import Split, Task
from xalign.measures import folds, probe, probe_tasks
from xalign.measures.fullbatch import FULL_BATCH_MLP_REGS, FULL_BATCH_MLP_TOL, FullBatchMLP


def _three_class(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)).astype(np.float32)
    y = (X[:, :4].sum(1) + rng.normal(size=n) > 0).astype(int) + (X[:, 4] * X[:, 5] > 0.3)
    return X, y.astype(int)


def _perturbed(x, seed, ulps=4):
    """``x`` moved by about ``ulps`` float32 units in the last place of each row's largest element."""
    rng = np.random.default_rng(seed)
    scale = np.spacing(np.abs(x).max(1, keepdims=True).astype(np.float32))
    return (x + ulps * scale * rng.standard_normal(x.shape)).astype(np.float32)


MLP = probe.ProbeSpec("MLP", kind="mlp", nhid=12, backend="full-batch", config="prototyping", kfold=3)


def test_full_batch_mlp_predictions_survive_rounding_noise_and_thread_counts():
    X, y = _three_class(300, 40, 1)
    Xt, _ = _three_class(400, 40, 2)
    plain, info = probe.fit_predict(X, y, MLP, 3, None, 0, [Xt], cache=False)
    noisy, _ = probe.fit_predict(_perturbed(X, 3), y, MLP, 3, None, 0, [_perturbed(Xt, 4)], cache=False)
    old = probe.PROBE_THREADS
    try:
        probe.PROBE_THREADS = 2
        two, _ = probe.fit_predict(X, y, MLP, 3, None, 0, [Xt], cache=False)
    finally:
        probe.PROBE_THREADS = old
    assert np.array_equal(plain[0], noisy[0]) and np.array_equal(plain[0], two[0])
    assert info["selection"] == "3-fold, log-loss" and info["reg"] in FULL_BATCH_MLP_REGS
    assert info["early_stopping"].startswith("none (full batch, L-BFGS")


def test_full_batch_mlp_stops_at_a_stationary_point_of_the_penalised_loss():
    X, y = _three_class(200, 10, 5)
    clf = FullBatchMLP(MLP, 10, 3, 0.01, seed=0)
    clf.fit(X, y)
    Z = torch.from_numpy(clf.scaler.transform(X.astype(np.float64)))
    w = [t.clone().requires_grad_(True) for t in clf.weights]
    loss = torch.nn.functional.cross_entropy(clf._logits(Z, w), torch.from_numpy(y))
    (loss + 0.005 * (w[0].square().sum() + w[2].square().sum())).backward()
    assert max(float(t.grad.abs().max()) for t in w) < 10 * FULL_BATCH_MLP_TOL
    assert clf.score(X, y) > np.bincount(y).max() / len(y) + 0.05  # it learns more than the majority label
    assert clf.predict_proba(X).shape == (200, 3)
    other = FullBatchMLP(MLP, 10, 3, 0.01, seed=1)
    other.fit(X, y)  # another seed starts elsewhere
    assert not torch.equal(other.weights[0], clf.weights[0])
    with pytest.raises(ValueError, match="finite number > 0"):
        FullBatchMLP(MLP, 10, 3, 0.0, seed=0)


def test_seeds_share_one_selection_and_differ_in_initial_weights_only(monkeypatch, tmp_path):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    monkeypatch.setattr(probe, "_probe_cache", None)
    X, y = _three_class(150, 8, 6)
    calls = []
    real = probe.select_reg
    monkeypatch.setattr(probe, "select_reg", lambda *a, **k: calls.append(a[5]) or real(*a, **k))
    infos = [probe.fit_predict(X, y, MLP, 3, None, s, [X], select_seed=0)[1] for s in (0, 1, 2)]
    assert calls == [0]  # chosen once, with the first seed, then read from the cache
    assert len({i["reg"] for i in infos}) == 1
    lr = probe.ProbeSpec("LR", kind="logreg", nhid=0, backend="torch", config="prototyping", kfold=3, max_epoch=4)
    probe.fit_predict(X, y, lr, 3, None, 1, [X], select_seed=0)
    assert calls == [0]  # SentEval's probes select per seed, as SentEval does


# --------------------------------------------------------------------------- premise groups
def _premise_task(n_premises=60, seed=0):
    """Each premise with three hypotheses, one per label; the premise's text decides nothing."""
    prem = [f"premise {i}" for i in range(n_premises) for _ in range(3)]
    hyp = [f"hypothesis {i} {lab}" for i in range(n_premises) for lab in range(3)]
    labels = np.tile(np.arange(3), n_premises)
    return Split((prem, hyp), labels)


def test_first_text_groups_and_grouped_splits_keep_a_premise_together():
    split = _premise_task()
    groups = folds.first_text_groups(split.texts)
    assert groups is not None and len(np.unique(groups)) == 60
    assert folds.first_text_groups((["a", "b"],)) is None and folds.first_text_groups((["a", "b"], ["c", "d"])) is None
    for tr, te in folds.cv_splits(split.labels, 5, 0, groups):
        assert not set(groups[tr]) & set(groups[te])
    rng = np.random.default_rng(0)
    tr, val = folds.holdout_indices(180, 0.2, rng, groups)
    assert not set(groups[tr]) & set(groups[val]) and len(val) >= 36
    plain = folds.holdout_indices(180, 0.2, np.random.default_rng(4))
    perm = np.random.default_rng(4).permutation(180)  # without groups: SentEval's permutation, as before
    assert np.array_equal(plain[1], perm[:36]) and np.array_equal(plain[0], perm[36:])


def test_grouped_folds_score_a_premise_memoriser_as_the_test_set_does():
    """Ungrouped folds put a premise's other two hypotheses, with the other two labels, in training: a probe
    that learns premises is then scored below chance on the fold, and selection flees to the strongest L2."""
    rng = np.random.default_rng(0)
    n_prem, d = 90, 16
    P = rng.normal(size=(n_prem, d)) * 3
    X = np.repeat(P, 3, axis=0) + 0.3 * rng.normal(size=(3 * n_prem, d))
    y = np.concatenate([rng.permutation(3) for _ in range(n_prem)])  # as XNLI: one hypothesis per label
    X = X.astype(np.float32)
    groups = np.repeat(np.arange(n_prem), 3)
    spec = probe.ProbeSpec("LR", backend="full-batch", regs=(1e-3,), kfold=5)
    folds_plain = folds.cv_splits(y, 5, 0)
    folds_grouped = folds.cv_splits(y, 5, 0, groups)

    def cv_acc(splits):
        accs = []
        for tr, te in splits:
            clf = probe.make_probe(spec, d, 3, 1e-3, 0)
            clf.fit(X[tr], y[tr])
            accs.append(clf.score(X[te], y[te]))
        return 100 * np.mean(accs)

    grouped, plain = cv_acc(folds_grouped), cv_acc(folds_plain)
    assert abs(grouped - 100 / 3) < 8  # the held-out premises are new: chance, as on a test set
    assert plain < grouped - 8  # ungrouped: the memorised premise points to a wrong label


def test_chapter_tasks_pass_their_premise_groups(monkeypatch):
    split = _premise_task(30)
    rng = np.random.default_rng(1)
    vec = {t: rng.normal(size=4).astype(np.float32) for slot in split.texts for t in slot}
    task = Task("XNLI toy", split, split, 3)
    seen = []
    real = probe_tasks.fit_predict
    monkeypatch.setattr(probe_tasks, "fit_predict", lambda *a, **k: seen.append(k.get("groups")) or real(*a, **k))
    spec = probe.ProbeSpec("LR", backend="full-batch", kfold=3)
    batcher = lambda texts: np.stack([vec[t] for t in texts])
    (row,) = probe_tasks.evaluate(task, batcher, [spec], seeds=[0], use_dev=False)
    assert row["selection"] == "3-fold, rows grouped, log-loss"
    assert seen and all(g is not None and len(np.unique(g)) == 30 for g in seen)
    dev = probe_tasks.with_holdout(task, 0.2, 0).dev
    train = probe_tasks.with_holdout(task, 0.2, 0).train
    assert not set(dev.texts[0]) & set(train.texts[0]) and len(dev.labels) == 18


def test_what_ended_a_full_batch_fit_is_recorded_without_its_rounding_dependent_iteration_count():
    """issue 46: on an Intel Xeon the same fits stopped after 203 L-BFGS iterations where the AMD reference
    stopped after 200 (the same predictions), and the diagnosis table's early_stopping text flipped."""
    from xalign.measures.probe import ProbeSpec, fit_predict, fit_probe

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(60, 5)).astype(np.float32), np.arange(60) % 3
    spec = ProbeSpec("LR", kind="logreg", backend="full-batch", regs=(0.1,))
    _, info = fit_predict(X, y, spec, 3, None, 1, [X], cache=False)
    assert info["early_stopping"] == "none (full batch, L-BFGS to convergence)"
    assert isinstance(info["iterations"], int) and info["iterations"] > 0
    assert fit_probe(X, y, spec, 3, None, 1)[1]["early_stopping"] == info["early_stopping"]  # at the fit itself
    tight = spec.with_(regs=(0.001,))  # another problem, another count: the words stay the same
    _, other = fit_predict(X, y, tight, 3, None, 1, [X], cache=False)
    assert other["iterations"] != info["iterations"] and other["early_stopping"] == info["early_stopping"]
    senteval = ProbeSpec("LR", kind="logreg", backend="torch", regs=(0.1,))
    _, early = fit_predict(X, y, senteval, 3, (X[:12], y[:12]), 1, [X], cache=False)
    assert early["early_stopping"] == "dev split (12 items)" and "iterations" not in early
