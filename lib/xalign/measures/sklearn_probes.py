"""The scikit-learn classifiers: SentEval's ``usepytorch=False`` logistic regression for
:mod:`xalign.measures.probe`, and the float64 pipeline of chapter 3's frozen-feature XNLI probe and the model
card (:func:`make_classifier`). The full-batch probes are in :mod:`xalign.measures.fullbatch`.

Both take a :class:`~xalign.measures.probe.ProbeSpec` (``spec``; not imported here: that module imports
this one) and an L2 value, and answer ``fit``, ``predict`` and
``score`` as the torch probe does; :func:`xalign.measures.probe.make_probe` picks one by the spec's backend.
"""

from __future__ import annotations

import numpy as np

from xalign.measures.scaling import rounding_aware_scaler
from xalign.measures.scored_probe import ScoredProbe

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
    from sklearn.preprocessing import FunctionTransformer

    if not (np.isfinite(C) and C > 0):
        raise ValueError(f"C (inverse regularisation strength) must be a finite number > 0, got {C!r}")
    if kind == "logreg":
        clf = LogisticRegression(C=C, solver="lbfgs", max_iter=LOGREG_MAX_ITER, tol=LOGREG_TOL)
    elif kind == "mlp":
        clf = MLPClassifier(hidden_layer_sizes=(512,), alpha=1.0 / C, early_stopping=True, max_iter=200,
                            random_state=seed)
    else:
        raise ValueError(f"classifier must be 'logreg' or 'mlp', got {kind!r}")
    return make_pipeline(FunctionTransformer(_as_float64), rounding_aware_scaler(), clf)


class SklearnProbe(ScoredProbe):
    """scikit-learn logistic regression on standardised features (SentEval's ``usepytorch=False``)."""

    def __init__(self, spec, n_features: int, n_classes: int, l2: float, seed: int):
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        self.model = make_pipeline(rounding_aware_scaler(), LogisticRegression(C=l2, max_iter=2000, random_state=seed))

    def fit(self, X, y, validation=None, validation_split=0.05, groups=None) -> float:
        self.model.fit(X, y)
        return float("nan")

    def predict(self, X) -> np.ndarray:
        return self.model.predict(X)

    def predict_proba(self, X) -> np.ndarray:
        return self.model.predict_proba(X)

    @property
    def classes(self) -> np.ndarray:
        return self.model.classes_
