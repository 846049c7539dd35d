"""Probes trained on the whole training set at once, in float64, to convergence: results rounding cannot move.

SentEval's recipe (shuffled mini-batches, RMSprop, early stopping on a validation accuracy) sends a float32
rounding difference in the inputs down another training path: on chapter 5's XNLI zh task, inputs perturbed
by 4 float32 ulps changed 145 and 171 of 450 test predictions of its MLP (two noise draws). Trained here, the
same perturbations changed none, for the logistic regression and for the MLP. Two probes, one interface
(``fit``, ``predict``, ``score`` and ``log_loss`` from :class:`~xalign.measures.scored_probe.ScoredProbe`, as :class:`xalign.measures.torch_probe.TorchProbe`):

- :class:`FullBatchProbe`: multinomial logistic regression (scikit-learn, L-BFGS to a gradient of
  :data:`FULL_BATCH_TOL`). L2-penalised, strictly convex: one optimum, which the solver reaches.
- :class:`FullBatchMLP`: ``Linear -> Sigmoid -> Linear`` (SentEval's MLP without dropout), torch's L-BFGS
  with a strong-Wolfe line search in float64 to a gradient of :data:`FULL_BATCH_MLP_TOL`, from the seed's
  initial weights (torch's default initialisation, as SentEval's). Not convex, but a full-batch descent to a
  stationary point lands in the same minimum when the inputs move by rounding (measured above at lambda
  1e-3 to 1e-1; an earlier run at lambda 1e-4 flipped 17 of 300 predictions, so the grid starts above it).

Both standardise the features with the training set's mean and std (a column constant up to rounding becomes 0:
:func:`xalign.measures.scaling.rounding_aware_scaler`) and take ``l2`` as SentEval's weight
decay: the penalty ``l2 / 2 * |W|^2`` on the mean cross-entropy, biases unpenalised. Nothing stops early:
``l2``, chosen by cross-validated log-loss (:func:`xalign.measures.probe.fit_probe`), is the regulariser.
"""

from __future__ import annotations

import warnings

import numpy as np

from xalign.measures.scaling import rounding_aware_scaler
from xalign.measures.scored_probe import ScoredProbe

#: the logistic regression's L2 grid. SentEval's 1e-5..1e-2 is no grid for a logistic regression trained to
#: convergence: 1,536 standardised pair features on a few hundred pairs are nearly separable (chapter 5's
#: XNLI tasks, premise-grouped 5-fold: log-loss 0.84-1.16 at lambda 0.1-1, the optimum inside the grid).
FULL_BATCH_REGS = (0.1, 1.0, 10.0, 100.0)
FULL_BATCH_MAX_ITER = 2000  # L-BFGS iterations at most (chapter 5's fits converge in about 30-300)
FULL_BATCH_TOL = 1e-7  # stop once the largest gradient component is below this
#: the MLP's L2 grid: on chapter 5's XNLI en and zh tasks (premise-grouped 5-fold) the log-loss was lowest at
#: 0.1 (0.85, 0.94), higher at 0.03 (1.03, 1.15); at 1 every fit was the uniform guess (1.0986 = ln 3)
FULL_BATCH_MLP_REGS = (0.03, 0.1, 0.3)
FULL_BATCH_MLP_MAX_ITER = 1000  # L-BFGS iterations at most (chapter 5's fits: about 150-850)
FULL_BATCH_MLP_TOL = 1e-5  # largest gradient component at the stop (1e-5 and 1e-7 flipped no prediction)


def _standardiser(X):
    return rounding_aware_scaler().fit(np.asarray(X, np.float64))


class FullBatchProbe(ScoredProbe):
    """Logistic regression on standardised float64 features (scikit-learn's ``LogisticRegression``, L-BFGS
    until the largest gradient component is below :data:`FULL_BATCH_TOL`, at most :data:`FULL_BATCH_MAX_ITER`
    iterations); ``C = 1 / (l2 n)``."""

    def __init__(self, spec, n_features: int, n_classes: int, l2: float, seed: int):
        if not (np.isfinite(l2) and l2 > 0):
            raise ValueError(f"{spec.name}: the full-batch L2 value must be a finite number > 0, got {l2!r}")
        self.spec, self.l2 = spec, float(l2)
        self.model = None
        self.n_iter = None

    def fit(self, X, y, validation=None, validation_split=None, groups=None) -> float:
        """Fit on all of ``(X, y)`` (``validation`` and ``groups`` play no part: nothing stops early); NaN."""
        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        X, y = np.asarray(X, np.float64), np.asarray(y)
        clf = LogisticRegression(C=1.0 / (self.l2 * len(X)), solver="lbfgs", tol=FULL_BATCH_TOL,
                                 max_iter=FULL_BATCH_MAX_ITER)
        self.model = make_pipeline(rounding_aware_scaler(), clf)
        with warnings.catch_warnings():  # a fit that ends on the budget says so in n_iter, recorded in the info
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(X, y)
        self.n_iter = int(np.max(clf.n_iter_))
        return float("nan")

    def predict_proba(self, X) -> np.ndarray:
        return self.model.predict_proba(np.asarray(X, np.float64))

    def predict(self, X) -> np.ndarray:
        return self.model.predict(np.asarray(X, np.float64))

    @property
    def classes(self) -> np.ndarray:
        """The classes fitted (the columns of :meth:`predict_proba`)."""
        return self.model.classes_


class FullBatchMLP(ScoredProbe):
    """One hidden layer of ``spec.nhid`` sigmoid units, trained full-batch by L-BFGS in float64 (see the module).

    Shapes: ``X`` (n, features) float, ``y`` (n,) ints in ``[0, n_classes)``.
    """

    def __init__(self, spec, n_features: int, n_classes: int, l2: float, seed: int):
        if not (np.isfinite(l2) and l2 > 0):
            raise ValueError(f"{spec.name}: the full-batch L2 value must be a finite number > 0, got {l2!r}")
        if spec.nhid <= 0:
            raise ValueError(f"{spec.name}: an MLP needs nhid > 0, got {spec.nhid}")
        self.spec, self.l2, self.seed = spec, float(l2), int(seed)
        self.n_features, self.n_classes = n_features, n_classes
        self.scaler, self.weights, self.n_iter = None, None, None

    def _initial_weights(self):
        import torch

        torch.manual_seed(self.seed)
        first, second = torch.nn.Linear(self.n_features, self.spec.nhid), torch.nn.Linear(self.spec.nhid, self.n_classes)
        return [p.detach().to(torch.float64).clone().requires_grad_(True)
                for p in (first.weight, first.bias, second.weight, second.bias)]

    def _logits(self, Z, weights):
        import torch

        W1, b1, W2, b2 = weights
        return torch.sigmoid(Z @ W1.T + b1) @ W2.T + b2

    def fit(self, X, y, validation=None, validation_split=None, groups=None) -> float:
        """Fit on all of ``(X, y)`` (``validation`` and ``groups`` play no part: nothing stops early); NaN."""
        import torch

        self.scaler = _standardiser(X)
        Z = torch.from_numpy(self.scaler.transform(np.asarray(X, np.float64)))
        target = torch.from_numpy(np.asarray(y, dtype=np.int64))
        weights = self._initial_weights()
        opt = torch.optim.LBFGS(weights, lr=1.0, max_iter=FULL_BATCH_MLP_MAX_ITER, tolerance_grad=FULL_BATCH_MLP_TOL,
                                tolerance_change=1e-12, history_size=20, line_search_fn="strong_wolfe")

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(self._logits(Z, weights), target)
            loss = loss + 0.5 * self.l2 * (weights[0].square().sum() + weights[2].square().sum())
            loss.backward()
            return loss

        opt.step(closure)
        self.weights = [w.detach() for w in weights]
        self.n_iter = int(opt.state[opt._params[0]].get("n_iter", 0))
        return float("nan")

    def predict_proba(self, X) -> np.ndarray:
        """(n, n_classes) class probabilities."""
        import torch

        Z = torch.from_numpy(self.scaler.transform(np.asarray(X, np.float64)))
        with torch.no_grad():
            return torch.softmax(self._logits(Z, self.weights), dim=1).numpy()

    def predict(self, X) -> np.ndarray:
        return self.predict_proba(X).argmax(1)

    @property
    def classes(self) -> np.ndarray:
        """``0 .. n_classes - 1`` (the columns of :meth:`predict_proba`)."""
        return np.arange(self.n_classes)
