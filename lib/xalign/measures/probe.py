"""A SentEval-style evaluator: frozen sentence vectors in, classifier results out.

The pieces follow SentEval (Conneau and Kiela 2018) closely enough that its
two configurations mean the same here:

- ``batcher``: any function ``texts -> (n, dim) array``; :func:`evaluate`
  calls it once with every distinct text of a task (sorted, so the calls are
  the same from run to run and an encoder's cache hits).
- features: one sentence -> its vector; a pair -> ``[u, v, |u - v|, u * v]``
  (:func:`pair_features`).
- classifiers (:class:`ProbeSpec`): SentEval's PyTorch classifier, a linear
  layer (logistic regression, ``nhid=0``) or ``Linear -> Dropout -> Sigmoid
  -> Linear`` (MLP), trained with early stopping on a validation set
  (``tenacity``, ``epoch_size``, ``max_epoch``), L2 weight decay as the
  regulariser (:mod:`xalign.measures.torch_probe`); or scikit-learn's ``LogisticRegression``
  (standardised inputs); or, for results that rounding noise cannot move, a logistic regression or an
  MLP trained on the whole training set at once (:mod:`xalign.measures.fullbatch`: L-BFGS in float64 to
  convergence, no early stopping, the L2 value chosen by cross-validated log-loss rather than accuracy).
- model selection: the L2 grid scored by stratified k-fold cross-validation
  on the training data (SentEval's ``KFoldClassifier``; rows that share a group, such as the
  hypotheses of one XNLI premise, stay in one fold: :mod:`xalign.measures.folds`), or on a separate
  dev split when the task has one (``SplitClassifier``); then one fit on
  all training data and a single look at the test set.
- :data:`SENTEVAL_CONFIGS`: ``"prototyping"`` (k = 5, RMSprop, batch 128,
  tenacity 3, epoch_size 2) and ``"standard"`` (k = 10, Adam, batch 64,
  tenacity 5, epoch_size 4).

Scores are percentages: accuracy and macro-F1 on the test set.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from xalign.core.code_closure import code_digest
from xalign.core.hashing import array_digest
from xalign.core.threads import torch_threads
from xalign.measures.folds import cv_splits
from xalign.measures.fullbatch import FULL_BATCH_MLP_REGS, FULL_BATCH_REGS, FullBatchMLP, FullBatchProbe
from xalign.measures.intervals import accuracy_ci
from xalign.measures.sklearn_probes import SklearnProbe
from xalign.measures.torch_probe import PROBE_DTYPE, TorchProbe

Batcher = Callable[[list[str]], np.ndarray]

SENTEVAL_CONFIGS = {
    "prototyping": {"kfold": 5, "optim": "rmsprop", "batch_size": 128, "tenacity": 3, "epoch_size": 2},
    "standard": {"kfold": 10, "optim": "adam", "batch_size": 64, "tenacity": 5, "epoch_size": 4},
}
TORCH_REGS = (1e-5, 1e-4, 1e-3, 1e-2)  # SentEval's L2 grid for its PyTorch classifiers
SKLEARN_CS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # SentEval's C grid for scikit-learn's logistic regression
PROBE_THREADS = 1  # torch threads while training probes (None: leave torch's setting)


# --------------------------------------------------------------------------- features
def pair_features(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``[u, v, |u - v|, u * v]`` for (n, d) premise and hypothesis vectors -> (n, 4d) float32."""
    u, v = np.asarray(u, dtype=np.float32), np.asarray(v, dtype=np.float32)
    if u.ndim != 2 or u.shape != v.shape:
        raise ValueError(f"pair_features needs two (n, d) arrays of one shape, got {u.shape} and {v.shape}")
    return np.hstack([u, v, np.abs(u - v), u * v])


# --------------------------------------------------------------------------- classifiers
BACKENDS = ("torch", "sklearn", "full-batch")


@dataclass(frozen=True)
class ProbeSpec:
    """One classifier set-up.

    ``kind``: ``"logreg"`` or ``"mlp"`` (``nhid`` hidden sigmoid units);
    ``backend``: ``"torch"`` (SentEval's classifier), ``"sklearn"`` (logreg only) or ``"full-batch"``
    (:mod:`xalign.measures.fullbatch`; of the config only k is used: no batches, no early stopping);
    ``config``: a :data:`SENTEVAL_CONFIGS` name (optimiser, batch, early stopping, k);
    ``regs``: the L2 (torch) / C (sklearn) grid, ``None`` for SentEval's, ``()`` for none
    (SentEval's ``noreg``: weight decay 1e-9); ``max_epoch`` / ``epoch_size`` override
    the config (SentEval's SNLI task uses 15 / 1).
    """

    name: str
    kind: str = "logreg"
    nhid: int = 0
    backend: str = "torch"
    config: str = "standard"
    regs: tuple | None = None
    max_epoch: int = 200
    epoch_size: int | None = None
    dropout: float = 0.0
    kfold: int | None = None  # override the config's k
    standardize: bool = False  # z-score features with the training data's mean and std (SentEval does not)
    min_validation: float = 0.05  # held-out share for early stopping when no dev split is given (SentEval: 5 %)

    def __post_init__(self):
        if self.kind not in ("logreg", "mlp"):
            raise ValueError(f"{self.name}: kind must be 'logreg' or 'mlp', got {self.kind!r}")
        if self.backend not in BACKENDS:
            raise ValueError(f"{self.name}: backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        if self.backend == "sklearn" and self.kind != "logreg":
            raise ValueError(f"{self.name}: the {self.backend} backend is logistic regression only")
        if self.kind == "mlp" and self.nhid <= 0:
            raise ValueError(f"{self.name}: an MLP needs nhid > 0")
        if self.config not in SENTEVAL_CONFIGS:
            raise ValueError(f"{self.name}: config must be one of {sorted(SENTEVAL_CONFIGS)}, got {self.config!r}")

    @property
    def settings(self) -> dict:
        s = dict(SENTEVAL_CONFIGS[self.config])
        if self.epoch_size is not None:
            s["epoch_size"] = self.epoch_size
        if self.kfold is not None:
            s["kfold"] = self.kfold
        return s

    def grid(self) -> tuple:
        if self.regs is None:
            full = FULL_BATCH_MLP_REGS if self.kind == "mlp" else FULL_BATCH_REGS
            return {"sklearn": SKLEARN_CS, "full-batch": full}.get(self.backend, TORCH_REGS)
        if len(self.regs) == 0:
            return (1e9,) if self.backend == "sklearn" else (1e-9,)
        return tuple(self.regs)

    def with_(self, **kw) -> ProbeSpec:
        return replace(self, **kw)


def make_probe(spec: ProbeSpec, n_features: int, n_classes: int, l2: float, seed: int):
    full = FullBatchMLP if spec.kind == "mlp" else FullBatchProbe
    cls = {"sklearn": SklearnProbe, "full-batch": full}.get(spec.backend, TorchProbe)
    return cls(spec, n_features, n_classes, l2, seed)


# --------------------------------------------------------------------------- model selection
def scores(y_true, y_pred) -> dict[str, float]:
    """Accuracy and macro-F1, in percent."""
    from sklearn.metrics import accuracy_score, f1_score

    return {"acc": 100.0 * accuracy_score(y_true, y_pred),
            "macro_f1": 100.0 * f1_score(y_true, y_pred, average="macro", zero_division=0)}


def fit_probe(X, y, spec: ProbeSpec, n_classes: int | None = None, dev: tuple | None = None,
              seed: int = 1111, groups=None, selection: dict | None = None) -> tuple[object, dict]:
    """Choose the regulariser, then fit on all of ``X``; returns (fitted probe, selection info).

    With ``dev=(X_dev, y_dev)`` the grid is scored on dev and dev also drives early stopping (SentEval's
    SplitClassifier); otherwise by stratified k-fold on ``X`` (the held-out fold drives early stopping, as in
    SentEval's KFoldClassifier), and the final fit holds out a share for early stopping. ``groups`` ((n,) ids
    or None): rows that stay together in every fold and hold-out. ``selection``: the info of an earlier
    :func:`select_reg` to fit with instead of searching again. A one-value grid skips the search.
    """
    with torch_threads(PROBE_THREADS):
        X, y = np.asarray(X, np.float32), np.asarray(y)
        if len(X) != len(y) or (groups is not None and len(groups) != len(y)):
            raise ValueError(f"{len(X)} feature rows, {len(y)} labels, {len(groups) if groups is not None else '-'} groups")
        n_classes = n_classes or int(y.max()) + 1
        info = dict(selection) if selection is not None else _select(X, y, spec, n_classes, dev, seed, groups)
        clf = make_probe(spec, X.shape[1], n_classes, info["reg"], seed)
        clf.fit(X, y, validation=dev, groups=groups)
        info["early_stopping"] = _stopping_text(spec, dev, len(X))
        if spec.backend == "full-batch":
            info["iterations"] = int(clf.n_iter)
        return clf, info


def select_reg(X, y, spec: ProbeSpec, n_classes: int, dev: tuple | None, seed: int, groups=None) -> dict:
    """The regulariser :func:`fit_probe` would choose with ``seed`` (its selection info, no final fit)."""
    with torch_threads(PROBE_THREADS):
        return _select(np.asarray(X, np.float32), np.asarray(y), spec, n_classes, dev, seed, groups)


def _select(X, y, spec, n_classes, dev, seed, groups) -> dict:
    grid = spec.grid()
    by_loss = spec.backend == "full-batch"  # a continuous score: no near-tie of accuracies to flip the choice
    if len(grid) == 1:  # nothing to select: record what ran, not the k-fold that did not
        return {"selection": "none (one grid value)", "grid": list(grid), "reg": grid[0], "cv_scores": [],
                "cv_best": None, **({"cv_log_loss": []} if by_loss else {})}
    k = spec.settings["kfold"]
    where = "dev" if dev is not None else (f"{k}-fold" + (", rows grouped" if groups is not None else ""))
    info = {"selection": where + (", log-loss" if by_loss else ""), "grid": list(grid)}

    def grid_scores(Xtr, ytr, val, gtr):
        """Validation accuracy (%) and log-loss (nats; NaN unless full-batch) of every grid value trained
        on (Xtr, ytr)."""
        if spec.backend == "torch":  # all grid values in one multi-head fit
            clf = TorchProbe(spec, X.shape[1], n_classes, grid, seed)
            clf.fit(Xtr, ytr, validation=val)
            return 100 * clf.score_heads(*val), np.full(len(grid), np.nan)
        fits = [make_probe(spec, X.shape[1], n_classes, reg, seed) for reg in grid]
        for f in fits:
            f.fit(Xtr, ytr, groups=gtr)
        loss = [f.log_loss(*val) if by_loss else np.nan for f in fits]
        return np.array([100 * f.score(*val) for f in fits]), np.array(loss)

    if dev is not None:
        acc, loss = grid_scores(X, y, dev, groups)
    else:
        folds = [grid_scores(X[tr], y[tr], (X[te], y[te]), None if groups is None else groups[tr])
                 for tr, te in cv_splits(y, k, seed, groups)]
        acc, loss = np.mean([f[0] for f in folds], axis=0), np.mean([f[1] for f in folds], axis=0)
    cv, losses = [float(v) for v in acc], [float(v) for v in loss]
    best = grid[int(np.argmin(loss))] if by_loss else grid[int(np.argmax(cv))]
    return {**info, "reg": best, "cv_scores": cv, "cv_best": cv[grid.index(best)],
            **({"cv_log_loss": losses} if by_loss else {})}


def _stopping_text(spec: ProbeSpec, dev, n: int) -> str:
    """What ended the final fit, in words. A full-batch fit's L-BFGS iteration count is not part of the words:
    another CPU's rounding moves it by a few (200 on an AMD EPYC, 203 on an Intel Xeon, the same predictions),
    which would make a categorical cell flip without a result changing; :func:`fit_probe` records it as the
    number ``iterations``."""
    if spec.backend == "full-batch":
        return "none (full batch, L-BFGS to convergence)"
    if spec.backend == "sklearn":
        return "none (sklearn)"
    if dev is not None:
        return f"dev split ({len(dev[1])} items)"
    return f"{spec.min_validation:.0%} of train held out ({max(1, int(spec.min_validation * n))} items)"


# --------------------------------------------------------------------------- cached fits
_probe_cache = None
#: the code a cached fit is keyed on (bound here, at import: a test that stands in for ``fit_probe`` changes
#: what runs on a miss, not the key)
FIT_CODE = (fit_probe, select_reg)


def probe_cache():
    """The on-disk cache of probe fits (``<cache>/probes``; entries written atomically)."""
    global _probe_cache
    if _probe_cache is None:
        from xalign.core.cache import EmbeddingCache
        from xalign.core.paths import cache_dir

        _probe_cache = EmbeddingCache(cache_dir("probes"))
    return _probe_cache


def fit_predict(X, y, spec: ProbeSpec, n_classes: int, dev: tuple | None, seed: int,
                tests: list, cache: bool = True, groups=None, select_seed: int | None = None
                ) -> tuple[list[np.ndarray], dict]:
    """:func:`fit_probe`, then predictions for every array in ``tests``; cached on disk.

    The key holds the inputs' digests (train, its row groups, dev, every test array), the spec without its
    display name (set-ups that differ only in name share a fit), the seed and the code that fits and predicts
    (:func:`fit_probe` and every xalign definition it reaches, :func:`xalign.core.code_closure.code_digest`:
    the memo's rule), so a warm rerun skips training and an edit of the training recomputes. ``info`` gains
    ``dev_acc`` (percent).

    ``select_seed``: for a full-batch probe, choose the regulariser once with this seed (its folds and initial
    weights; cached on its own) and fit every ``seed`` with that choice: the seeds then differ in their initial
    weights only, and the grid search is not repeated per seed. Other backends select per seed, as SentEval.
    """
    X, y = np.asarray(X, np.float32), np.asarray(y)
    dev = None if dev is None else (np.asarray(dev[0], np.float32), np.asarray(dev[1]))
    tests = [np.asarray(t, np.float32) for t in tests]
    groups = None if groups is None else np.asarray(groups, dtype=np.int64)
    shared = select_seed is not None and spec.backend == "full-batch"
    store = probe_cache() if cache else None
    inputs = {"code": code_digest(FIT_CODE), "spec": repr(spec.with_(name="")), "n_classes": int(n_classes),
              "train": array_digest(X, y), "dev": array_digest(*dev) if dev is not None else None,
              **({} if groups is None else {"groups": array_digest(groups)}), "threads": PROBE_THREADS,
              **({} if PROBE_DTYPE == np.float64 else {"dtype": "float32"})}
    key = {"kind": "probe-fit", **inputs, "seed": int(seed), "tests": [array_digest(t) for t in tests],
           **({"select_seed": int(select_seed)} if shared else {})}
    hit = store.get(key) if store is not None else None
    if hit is not None:
        return [hit[f"pred{i}"] for i in range(len(tests))], json.loads(str(hit["info"]))
    selection = _shared_selection(X, y, spec, n_classes, dev, int(select_seed), groups, store, inputs) if shared else None
    clf, info = fit_probe(X, y, spec, n_classes, dev, seed, groups=groups, selection=selection)
    info = {**info, "dev_acc": 100 * clf.score(*dev) if dev is not None else None}
    preds = [np.asarray(clf.predict(t)) for t in tests]
    if store is not None:
        store.put(key, info=np.array(json.dumps(info, default=float)),
                  **{f"pred{i}": p for i, p in enumerate(preds)})
    return preds, info


def _shared_selection(X, y, spec, n_classes, dev, select_seed, groups, store, inputs) -> dict:
    """:func:`select_reg` with ``select_seed``, cached under the fit's inputs (no test arrays, no fit seed)."""
    key = {"kind": "probe-selection", **inputs, "select_seed": select_seed}
    hit = store.get(key) if store is not None else None
    if hit is not None:
        return json.loads(str(hit["info"]))
    info = select_reg(X, y, spec, n_classes, dev, select_seed, groups)
    if store is not None:
        store.put(key, info=np.array(json.dumps(info, default=float)))
    return info


def score_predictions(y_true, pred, n_classes: int, ci_seed: int = 0) -> dict:
    """Accuracy (with its 95 % bootstrap interval over test items), macro-F1, majority share; percent."""
    y_true, pred = np.asarray(y_true), np.asarray(pred)
    lo, hi = accuracy_ci(pred == y_true, seed=ci_seed)
    return {**scores(y_true, pred), "acc_lo": 100 * lo, "acc_hi": 100 * hi,
            "pred_majority_share": 100.0 * float(np.bincount(pred, minlength=n_classes).max() / len(pred))}


def evaluate_features(X_train, y_train, X_test, y_test, spec: ProbeSpec, dev: tuple | None = None,
                      n_classes: int | None = None, seed: int = 1111, cache: bool = True, groups=None) -> dict:
    """Select, fit, test one probe; returns accuracy (with a 95 % interval), macro-F1 (percent),
    the selection and the early-stopping set that actually ran. ``groups``: the training rows' groups."""
    t0 = time.time()
    n_classes = n_classes or int(max(np.max(y_train), np.max(y_test))) + 1
    (pred,), info = fit_predict(X_train, y_train, spec, n_classes, dev, seed, [X_test], cache=cache, groups=groups)
    return {"probe": spec.name, **score_predictions(y_test, pred, n_classes), "reg": info["reg"],
            "selection": info["selection"], "early_stopping": info.get("early_stopping"),
            "cv_acc": info["cv_best"], "dev_acc": info["dev_acc"],
            "n_train": len(y_train), "n_test": len(y_test), "seconds": round(time.time() - t0, 2)}
