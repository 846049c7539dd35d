"""SentEval's PyTorch classifier (logistic regression or a one-hidden-layer MLP), trained with early stopping.

Used by :mod:`xalign.measures.probe` for the ``"torch"`` backend of a :class:`~xalign.measures.probe.ProbeSpec`
(the thesis' configuration in chapter 5, and our probes with ``probe_training = "senteval"``).
"""

from __future__ import annotations

import numpy as np

from xalign.measures.folds import holdout_indices
from xalign.measures.scaling import constant_columns

PROBE_DTYPE = np.float64  # torch probes train in this precision (float32: SentEval's, rounding-sensitive)


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

    def __init__(self, spec, n_features: int, n_classes: int, l2, seed: int):  # spec: a probe.ProbeSpec
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

    def fit(self, X, y, validation: tuple | None = None, validation_split: float | None = None,
            groups=None) -> np.ndarray:
        """Train every head; returns each head's best validation accuracy (fractions).

        Without ``validation``, a ``validation_split`` share (default: the spec's ``min_validation``) of the
        data is held out for early stopping, whole ``groups`` at a time when given
        (:func:`xalign.measures.folds.holdout_indices`)."""
        import torch

        X, y = np.asarray(X, PROBE_DTYPE), np.asarray(y)
        if validation is None:
            tr, val = holdout_indices(len(X), validation_split or self.spec.min_validation, self.rng, groups)
            validation = (X[val], y[val])
            X, y = X[tr], y[tr]
        if self.spec.standardize:
            # a column constant up to rounding is zeroed (scale inf), not blown up to unit variance
            scale = np.where(constant_columns(X), np.inf, X.std(0) + PROBE_DTYPE(1e-6))
            self.shift, self.scale = X.mean(0), scale.astype(PROBE_DTYPE)
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
