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
  regulariser; or scikit-learn's ``LogisticRegression`` (standardised inputs); or, for results that
  rounding noise cannot move, a logistic regression trained on the whole training set at once
  (:class:`FullBatchProbe`: L-BFGS in float64 to convergence, no early stopping, the L2 value chosen
  by cross-validated log-loss rather than accuracy).
- model selection: the L2 grid scored by stratified k-fold cross-validation
  on the training data (SentEval's ``KFoldClassifier``), or on a separate
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
from xalign.measures.intervals import accuracy_ci
from xalign.measures.sklearn_probes import FULL_BATCH_REGS, FullBatchProbe, SklearnProbe

Batcher = Callable[[list[str]], np.ndarray]

SENTEVAL_CONFIGS = {
    "prototyping": {"kfold": 5, "optim": "rmsprop", "batch_size": 128, "tenacity": 3, "epoch_size": 2},
    "standard": {"kfold": 10, "optim": "adam", "batch_size": 64, "tenacity": 5, "epoch_size": 4},
}
TORCH_REGS = (1e-5, 1e-4, 1e-3, 1e-2)  # SentEval's L2 grid for its PyTorch classifiers
SKLEARN_CS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0)  # SentEval's C grid for scikit-learn's logistic regression
PROBE_THREADS = 1  # torch threads while training probes (None: leave torch's setting)
PROBE_DTYPE = np.float64  # torch probes train in this precision (float32: SentEval's, rounding-sensitive)


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
    (:class:`FullBatchProbe`, logreg only; of the config only k is used: no batches, no early stopping);
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
        if self.backend in ("sklearn", "full-batch") and self.kind != "logreg":
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
            return {"sklearn": SKLEARN_CS, "full-batch": FULL_BATCH_REGS}.get(self.backend, TORCH_REGS)
        if len(self.regs) == 0:
            return (1e9,) if self.backend == "sklearn" else (1e-9,)
        return tuple(self.regs)

    def with_(self, **kw) -> ProbeSpec:
        return replace(self, **kw)


def _torch_dtype():
    import torch

    return torch.float64 if PROBE_DTYPE == np.float64 else torch.float32


class TorchProbe:
    """SentEval's PyTorch classifier, trained for several L2 values at once.

    SentEval fits one classifier per L2 value, each from the same seed: the
    same initial weights and the same mini-batches. Here those fits run
    side by side as "heads" of one model (one head per value of ``l2``,
    heads share no parameters, the loss is the sum of the heads' losses), so
    a grid costs about one fit. Per head, as in SentEval: the weights with
    the best validation accuracy are kept; training stops once the count of
    non-improving checks exceeds ``tenacity`` (never reset); each check
    follows ``epoch_size`` passes over the shuffled data; L2 is weight decay
    added to the gradient; RMSprop / Adam with torch's default learning rates. Unlike SentEval,
    training runs in float64 (inputs, the seed's float32 initial weights widened, optimiser state):
    in float32 a rounding-scale change of the inputs or of the summation order (another thread count,
    another CPU) sent training down another path and moved a score by up to 27 points (issue 46).
    """

    def __init__(self, spec: ProbeSpec, n_features: int, n_classes: int, l2, seed: int):
        import torch
        from torch import nn

        self.spec, self.seed = spec, seed
        self.l2 = torch.tensor(np.atleast_1d(np.asarray(l2, dtype=PROBE_DTYPE)))
        H = len(self.l2)
        s = spec.settings
        self.batch_size, self.tenacity, self.epoch_size = s["batch_size"], s["tenacity"], s["epoch_size"]
        torch.manual_seed(seed)
        rep = lambda t: nn.Parameter(t.detach().to(_torch_dtype()).unsqueeze(0).repeat(H, *([1] * t.dim())))  # float64
        if spec.kind == "logreg":
            lin = nn.Linear(n_features, n_classes)
            self.params = {"W": rep(lin.weight.T), "b": rep(lin.bias)}
        else:
            l1, l2_ = nn.Linear(n_features, spec.nhid), nn.Linear(spec.nhid, n_classes)
            self.params = {"W1": rep(l1.weight.T), "b1": rep(l1.bias), "W2": rep(l2_.weight.T), "b2": rep(l2_.bias)}
        if s["optim"] == "rmsprop":  # torch.optim.RMSprop's update, written out: no per-step dispatch overhead
            self.optimizer, self.square_avg = None, [torch.zeros_like(p) for p in self.params.values()]
        else:
            self.optimizer = {"adam": torch.optim.Adam}[s["optim"]](list(self.params.values()))
        self.rng = np.random.default_rng(seed)
        self.shift, self.scale = None, None
        self.n_epochs = 0
        self.best_val = np.full(H, -1.0)

    @property
    def n_heads(self) -> int:
        return len(self.l2)

    def logits(self, X, train: bool = False):
        """(heads, n, classes) scores for (n, features) inputs."""
        import torch

        p, H = self.params, self.n_heads
        n, d = X.shape
        if self.spec.kind == "logreg":
            W = p["W"].permute(1, 0, 2).reshape(d, -1)  # (d, H*c)
            return (X @ W).view(n, H, -1).permute(1, 0, 2) + p["b"][:, None, :]
        h = X @ p["W1"].permute(1, 0, 2).reshape(d, -1) + p["b1"].reshape(1, -1)  # (n, H*k)
        if self.spec.dropout and train:
            h = torch.nn.functional.dropout(h, self.spec.dropout, training=True)
        h = torch.sigmoid(h).view(n, H, -1).permute(1, 0, 2)  # (H, n, k)
        return torch.bmm(h, p["W2"]) + p["b2"][:, None, :]

    def _scaled(self, X) -> np.ndarray:
        X = np.asarray(X, PROBE_DTYPE)
        return X if self.shift is None else (X - self.shift) / self.scale

    def fit(self, X, y, validation: tuple | None = None, validation_split: float | None = None) -> np.ndarray:
        """Train every head; returns each head's best validation accuracy (fractions).

        Without ``validation``, a ``validation_split`` share (default: the
        spec's ``min_validation``) of the data is held out for early stopping."""
        import torch

        X, y = np.asarray(X, PROBE_DTYPE), np.asarray(y)
        if validation is None:
            perm = self.rng.permutation(len(X))
            n_val = max(1, int((validation_split or self.spec.min_validation) * len(X)))
            validation = (X[perm[:n_val]], y[perm[:n_val]])
            X, y = X[perm[n_val:]], y[perm[n_val:]]
        if self.spec.standardize:
            self.shift, self.scale = X.mean(0), X.std(0) + PROBE_DTYPE(1e-6)
        X = self._scaled(X)
        Xt, yt = torch.from_numpy(X), torch.from_numpy(y.astype(np.int64))
        Xv, yv = np.asarray(validation[0], PROBE_DTYPE), np.asarray(validation[1])  # scaled by score_heads
        H = self.n_heads
        best_state = {k: v.detach().clone() for k, v in self.params.items()}
        strikes = np.zeros(H, dtype=int)
        active = np.ones(H, dtype=bool)
        cross_entropy = torch.nn.functional.cross_entropy
        params = list(self.params.values())
        decay = [self.l2.view((H,) + (1,) * (prm.dim() - 1)) for prm in params]  # L2 per head, broadcast
        while self.n_epochs <= self.spec.max_epoch and active.any():
            for _ in range(self.epoch_size):
                perm = torch.from_numpy(self.rng.permutation(len(Xt)))
                for i in range(0, len(Xt), self.batch_size):
                    idx = perm[i : i + self.batch_size]
                    out, target = self.logits(Xt.index_select(0, idx), train=True), yt.index_select(0, idx)
                    loss = cross_entropy(out[0], target)  # the heads' losses summed: each head's gradient is its own
                    for h in range(1, H):
                        loss = loss + cross_entropy(out[h], target)
                    for prm in params:
                        prm.grad = None
                    loss.backward()
                    with torch.no_grad():
                        for prm, l2 in zip(params, decay):
                            prm.grad.add_(prm * l2)
                    self._step(params)
            self.n_epochs += self.epoch_size
            acc = self.score_heads(Xv, yv)
            for h in np.flatnonzero(active):
                if acc[h] > self.best_val[h]:
                    self.best_val[h] = acc[h]
                    for k, v in self.params.items():
                        best_state[k][h] = v.detach()[h]
                else:
                    if strikes[h] >= self.tenacity:
                        active[h] = False
                    strikes[h] += 1
        with torch.no_grad():
            for k, v in self.params.items():
                v.copy_(best_state[k])
        return self.best_val.copy()

    def _step(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8) -> None:
        """One optimiser step; RMSprop exactly as ``torch.optim.RMSprop`` with its defaults (op for op)."""
        import torch

        if self.optimizer is not None:
            self.optimizer.step()
            return
        with torch.no_grad():
            for prm, sq in zip(params, self.square_avg):
                sq.mul_(alpha).addcmul_(prm.grad, prm.grad, value=1 - alpha)
                prm.addcdiv_(prm.grad, sq.sqrt().add_(eps), value=-lr)

    def predict_heads(self, X) -> np.ndarray:
        """(heads, n) predicted classes."""
        import torch

        with torch.no_grad():
            return self.logits(torch.from_numpy(self._scaled(X))).argmax(-1).numpy()

    def score_heads(self, X, y) -> np.ndarray:
        return (self.predict_heads(X) == np.asarray(y)[None, :]).mean(1)

    def predict(self, X, head: int = 0) -> np.ndarray:
        return self.predict_heads(X)[head]

    def score(self, X, y, head: int = 0) -> float:
        return float(self.score_heads(X, y)[head])


def make_probe(spec: ProbeSpec, n_features: int, n_classes: int, l2: float, seed: int):
    cls = {"sklearn": SklearnProbe, "full-batch": FullBatchProbe}.get(spec.backend, TorchProbe)
    return cls(spec, n_features, n_classes, l2, seed)


# --------------------------------------------------------------------------- model selection
def scores(y_true, y_pred) -> dict[str, float]:
    """Accuracy and macro-F1, in percent."""
    from sklearn.metrics import accuracy_score, f1_score

    return {"acc": 100.0 * accuracy_score(y_true, y_pred),
            "macro_f1": 100.0 * f1_score(y_true, y_pred, average="macro", zero_division=0)}


def fit_probe(X, y, spec: ProbeSpec, n_classes: int | None = None, dev: tuple | None = None,
              seed: int = 1111) -> tuple[object, dict]:
    """Choose the regulariser, then fit on all of ``X``; returns (fitted probe, selection info).

    With ``dev=(X_dev, y_dev)`` the grid is scored on dev and dev also drives
    early stopping (SentEval's SplitClassifier); otherwise by stratified
    k-fold on ``X`` (the held-out fold drives early stopping, as in SentEval's
    KFoldClassifier), and the final fit holds out 5 % for early stopping.
    A one-value grid skips the search.
    """
    with torch_threads(PROBE_THREADS):
        return _fit_probe(X, y, spec, n_classes, dev, seed)


def _fit_probe(X, y, spec, n_classes, dev, seed):
    from sklearn.model_selection import StratifiedKFold

    X, y = np.asarray(X, np.float32), np.asarray(y)
    if len(X) != len(y):
        raise ValueError(f"{len(X)} feature rows but {len(y)} labels")
    n_classes = n_classes or int(y.max()) + 1
    grid = spec.grid()
    by_loss = spec.backend == "full-batch"  # a continuous score: no near-tie of accuracies to flip the choice
    if len(grid) == 1:  # nothing to select: record what ran, not the k-fold that did not
        selection = "none (one grid value)"
    else:
        selection = ("dev" if dev is not None else f"{spec.settings['kfold']}-fold") + (", log-loss" if by_loss else "")
    info = {"selection": selection, "grid": list(grid)}
    cv: list[float] = []
    losses: list[float] = []

    def grid_scores(Xtr, ytr, val):
        """Validation accuracy (%) and log-loss (nats; NaN unless full-batch) of every grid value trained
        on (Xtr, ytr)."""
        if spec.backend == "torch":  # all grid values in one multi-head fit
            clf = TorchProbe(spec, X.shape[1], n_classes, grid, seed)
            clf.fit(Xtr, ytr, validation=val)
            return 100 * clf.score_heads(*val), np.full(len(grid), np.nan)
        fits = [make_probe(spec, X.shape[1], n_classes, reg, seed) for reg in grid]
        for f in fits:
            f.fit(Xtr, ytr)
        loss = [f.log_loss(*val) if by_loss else np.nan for f in fits]
        return np.array([100 * f.score(*val) for f in fits]), np.array(loss)

    if len(grid) > 1:
        if dev is not None:
            acc, loss = grid_scores(X, y, dev)
        else:
            skf = StratifiedKFold(n_splits=spec.settings["kfold"], shuffle=True, random_state=seed)
            folds = [grid_scores(X[tr], y[tr], (X[te], y[te])) for tr, te in skf.split(X, y)]
            acc, loss = np.mean([f[0] for f in folds], axis=0), np.mean([f[1] for f in folds], axis=0)
        cv, losses = [float(v) for v in acc], [float(v) for v in loss]
        best = grid[int(np.argmin(loss))] if by_loss else grid[int(np.argmax(cv))]
    else:
        best = grid[0]
    info.update(reg=best, cv_scores=cv, cv_best=cv[grid.index(best)] if cv else None,
                **({"cv_log_loss": losses} if by_loss else {}))
    clf = make_probe(spec, X.shape[1], n_classes, best, seed)
    clf.fit(X, y, validation=dev)
    if spec.backend == "full-batch":
        info["early_stopping"] = f"none (full batch, L-BFGS, {clf.n_iter} iterations)"
    elif spec.backend == "sklearn":
        info["early_stopping"] = "none (sklearn)"
    elif dev is not None:
        info["early_stopping"] = f"dev split ({len(dev[1])} items)"
    else:
        n_val = max(1, int(spec.min_validation * len(X)))
        info["early_stopping"] = f"{spec.min_validation:.0%} of train held out ({n_val} items)"
    return clf, info


# --------------------------------------------------------------------------- cached fits
_probe_cache = None
#: the code a cached fit is keyed on (bound here, at import: a test that stands in for ``fit_probe`` changes
#: what runs on a miss, not the key)
FIT_CODE = (fit_probe,)


def probe_cache():
    """The on-disk cache of probe fits (``<cache>/probes``; entries written atomically)."""
    global _probe_cache
    if _probe_cache is None:
        from xalign.core.cache import EmbeddingCache
        from xalign.core.paths import cache_dir

        _probe_cache = EmbeddingCache(cache_dir("probes"))
    return _probe_cache


def fit_predict(X, y, spec: ProbeSpec, n_classes: int, dev: tuple | None, seed: int,
                tests: list, cache: bool = True) -> tuple[list[np.ndarray], dict]:
    """:func:`fit_probe`, then predictions for every array in ``tests``; cached on disk.

    The key holds the inputs' digests (train, dev, every test array), the
    spec without its display name (set-ups that differ only in name share a
    fit), the seed and the code that fits and predicts (:func:`fit_probe` and every xalign definition it
    reaches, :func:`xalign.core.code_closure.code_digest`: the memo's rule), so a warm rerun skips training and
    an edit of the training recomputes. ``info`` gains ``dev_acc`` (percent).
    """
    X, y = np.asarray(X, np.float32), np.asarray(y)
    dev = None if dev is None else (np.asarray(dev[0], np.float32), np.asarray(dev[1]))
    tests = [np.asarray(t, np.float32) for t in tests]
    store = probe_cache() if cache else None
    key = {"kind": "probe-fit", "code": code_digest(FIT_CODE), "spec": repr(spec.with_(name="")),
           "seed": int(seed), "n_classes": int(n_classes), "train": array_digest(X, y),
           "dev": array_digest(*dev) if dev is not None else None, "tests": [array_digest(t) for t in tests],
           "threads": PROBE_THREADS, **({} if PROBE_DTYPE == np.float64 else {"dtype": "float32"})}
    hit = store.get(key) if store is not None else None
    if hit is not None:
        return [hit[f"pred{i}"] for i in range(len(tests))], json.loads(str(hit["info"]))
    clf, info = fit_probe(X, y, spec, n_classes, dev, seed)
    info = {**info, "dev_acc": 100 * clf.score(*dev) if dev is not None else None}
    preds = [np.asarray(clf.predict(t)) for t in tests]
    if store is not None:
        store.put(key, info=np.array(json.dumps(info, default=float)),
                  **{f"pred{i}": p for i, p in enumerate(preds)})
    return preds, info


def score_predictions(y_true, pred, n_classes: int, ci_seed: int = 0) -> dict:
    """Accuracy (with its 95 % bootstrap interval over test items), macro-F1, majority share; percent."""
    y_true, pred = np.asarray(y_true), np.asarray(pred)
    lo, hi = accuracy_ci(pred == y_true, seed=ci_seed)
    return {**scores(y_true, pred), "acc_lo": 100 * lo, "acc_hi": 100 * hi,
            "pred_majority_share": 100.0 * float(np.bincount(pred, minlength=n_classes).max() / len(pred))}




def evaluate_features(X_train, y_train, X_test, y_test, spec: ProbeSpec, dev: tuple | None = None,
                      n_classes: int | None = None, seed: int = 1111, cache: bool = True) -> dict:
    """Select, fit, test one probe; returns accuracy (with a 95 % interval), macro-F1 (percent),
    the selection and the early-stopping set that actually ran."""
    t0 = time.time()
    n_classes = n_classes or int(max(np.max(y_train), np.max(y_test))) + 1
    (pred,), info = fit_predict(X_train, y_train, spec, n_classes, dev, seed, [X_test], cache=cache)
    return {"probe": spec.name, **score_predictions(y_test, pred, n_classes), "reg": info["reg"],
            "selection": info["selection"], "early_stopping": info.get("early_stopping"),
            "cv_acc": info["cv_best"], "dev_acc": info["dev_acc"],
            "n_train": len(y_train), "n_test": len(y_test), "seconds": round(time.time() - t0, 2)}
