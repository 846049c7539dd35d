"""The scikit-learn classifiers: those of :mod:`xalign.measures.probe` (SentEval's ``usepytorch=False`` logistic
regression and the full-batch logistic regression that rounding noise cannot move), and the float64
pipeline of chapter 3's frozen-feature XNLI probe and the model card (:func:`make_classifier`).

Both take a :class:`~xalign.measures.probe.ProbeSpec` (``spec``; not imported here: that module imports
this one) and an L2 value, and answer ``fit``, ``predict`` and
``score`` as the torch probe does; :func:`xalign.measures.probe.make_probe` picks one by the spec's backend.
"""

from __future__ import annotations

import numpy as np

#: the full-batch probes' L2 grid (lambda: the penalty lambda/2 |w|^2 on the mean loss, SentEval's weight decay).
#: SentEval's 1e-5..1e-2 is no grid for a logistic regression trained to convergence: 1,536 standardised pair
#: features on a few hundred pairs are nearly separable, and on chapter 5's XNLI tasks the cross-validated
#: log-loss fell from 3.6 (lambda 1e-3) to 1.2 (lambda 1), still above a uniform guess (1.10), while the
#: small values took minutes to converge. Early stopping was SentEval's regulariser; here lambda is.
FULL_BATCH_REGS = (0.1, 1.0, 10.0, 100.0)
FULL_BATCH_MAX_ITER = 2000  # L-BFGS iterations at most (chapter 5's fits converge in about 30-300)
FULL_BATCH_TOL = 1e-7  # stop once the largest gradient component is below this

#: the logistic probe's convergence: the multinomial L2 problem is strictly convex, so solved this tightly its
#: optimum, and the accuracies read from it, do not depend on the summation order of the machine
LOGREG_TOL = 1e-10
LOGREG_MAX_ITER = 10_000


def _as_float64(X):
    return np.asarray(X, dtype=np.float64)


def make_classifier(kind: str = "logreg", C: float = 1.0, seed: int = 0):
    """A scikit-learn pipeline: float64, standardisation, then logistic regression or a one-hidden-layer MLP.

    The logistic regression is solved in float64 to a gradient of :data:`LOGREG_TOL` (``lbfgs``, which
    stops there or where a step no longer lowers the loss in float64, about 1e-9 on the chapter's data): its
    optimum is unique (L2-penalised, strictly convex), so rounding noise in the features (another CPU's
    float32 kernels) moves it by rounding noise, not by where an early-stopped solver happened to halt (the
    old ``tol=1e-4`` moved XNLI accuracies by 2 points). ``newton-cg`` reaches the same optimum 2-3 times slower.

    Raises:
        ValueError: for an unknown ``kind`` or a ``C`` that is not a finite number > 0.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.neural_network import MLPClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, StandardScaler

    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C (inverse regularisation strength) must be a finite number > 0, got {C!r}")
    if kind == "logreg":
        clf = LogisticRegression(C=C, solver="lbfgs", max_iter=LOGREG_MAX_ITER, tol=LOGREG_TOL)
    elif kind == "mlp":
        clf = MLPClassifier(hidden_layer_sizes=(512,), alpha=1.0 / C, early_stopping=True, max_iter=200,
                            random_state=seed)
    else:
        raise ValueError(f"classifier must be 'logreg' or 'mlp', got {kind!r}")
    return make_pipeline(FunctionTransformer(_as_float64), StandardScaler(), clf)


class SklearnProbe:
    """scikit-learn logistic regression on standardised features (SentEval's ``usepytorch=False``)."""

    def __init__(self, spec, n_features: int, n_classes: int, l2: float, seed: int):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        self.model = make_pipeline(StandardScaler(), LogisticRegression(C=l2, max_iter=2000, random_state=seed))

    def fit(self, X, y, validation=None, validation_split=0.05) -> float:
        self.model.fit(X, y)
        return float("nan")

    def predict(self, X) -> np.ndarray:
        return self.model.predict(X)

    def score(self, X, y) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))


class FullBatchProbe:
    """Logistic regression trained on the whole training set at once, to convergence.

    Standardised float64 features (the training set's mean and std), scikit-learn's ``LogisticRegression``
    (L-BFGS until the largest gradient component is below :data:`FULL_BATCH_TOL`, at most
    :data:`FULL_BATCH_MAX_ITER` iterations); no mini-batches, no early stopping. ``l2`` is SentEval's
    weight decay (the penalty ``l2 / 2 * |W|^2`` on the mean loss, bias unpenalised), so C = 1 / (l2 n).

    Why: SentEval's recipe (shuffled mini-batches, early stopping on a noisy validation accuracy) sends a
    float32 rounding difference in the inputs down another training path; on chapter 5's probes it moved
    cells by up to 27 points between two CPU kinds (issue 46). An L2-penalised logistic regression has one
    optimum (strictly convex), which the solver reaches, so a rounding-scale change of the inputs moves the
    weights by a rounding-scale amount. An MLP is not convex: trained this way its optimum still depended on
    the path for small L2 values (measured: 17 of 300 test predictions flipped at l2 = 1e-4, none at 1e-3 and
    above), and a full-batch MLP on chapter 5's features costs about 2 minutes per task and seed on one
    core (21 fits of the k-fold grid), so the MLPs keep SentEval's training.
    """

    def __init__(self, spec, n_features: int, n_classes: int, l2: float, seed: int):
        if not (np.isfinite(l2) and l2 > 0):
            raise ValueError(f"{spec.name}: the full-batch L2 value must be a finite number > 0, got {l2!r}")
        self.spec, self.l2 = spec, float(l2)
        self.model = None
        self.n_iter = None

    def fit(self, X, y, validation=None, validation_split=None) -> float:
        """Fit on all of ``(X, y)`` (``validation`` plays no part: nothing stops early); returns NaN."""
        import warnings

        from sklearn.exceptions import ConvergenceWarning
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        X, y = np.asarray(X, np.float64), np.asarray(y)
        clf = LogisticRegression(C=1.0 / (self.l2 * len(X)), solver="lbfgs", tol=FULL_BATCH_TOL,
                                 max_iter=FULL_BATCH_MAX_ITER)
        self.model = make_pipeline(StandardScaler(), clf)
        with warnings.catch_warnings():  # a fit that ends on the budget says so in n_iter, recorded in the info
            warnings.simplefilter("ignore", ConvergenceWarning)
            self.model.fit(X, y)
        self.n_iter = int(np.max(clf.n_iter_))
        return float("nan")

    def predict(self, X) -> np.ndarray:
        return self.model.predict(np.asarray(X, np.float64))

    def score(self, X, y) -> float:
        return float(np.mean(self.predict(X) == np.asarray(y)))

    def log_loss(self, X, y) -> float:
        """Mean cross-entropy (nats) of the true labels (scikit-learn's ``log_loss`` over the classes fitted)."""
        from sklearn.metrics import log_loss

        return float(log_loss(y, self.model.predict_proba(np.asarray(X, np.float64)), labels=self.model.classes_))
