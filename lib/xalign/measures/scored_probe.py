"""What every fitted probe answers besides ``fit`` and ``predict``: its accuracy and its log-loss.

:class:`ScoredProbe` is the base of the full-batch probes (:mod:`xalign.measures.fullbatch`) and of the
scikit-learn one (:mod:`xalign.measures.sklearn_probes`); a probe supplies ``predict``, ``predict_proba`` and
``classes``, and gets one definition of each score.
"""

from __future__ import annotations

import numpy as np


class ScoredProbe:
    """``score`` and ``log_loss`` of a fitted probe, from its ``predict`` / ``predict_proba`` and ``classes``
    (the labels its probability columns stand for); shared by the full-batch and scikit-learn probes."""

    def score(self, X, y) -> float:
        """Accuracy (a fraction) on ``(X, y)``."""
        return float(np.mean(self.predict(X) == np.asarray(y)))

    def log_loss(self, X, y) -> float:
        """Mean cross-entropy (nats) of the true labels (scikit-learn's ``log_loss``)."""
        from sklearn.metrics import log_loss

        return float(log_loss(y, self.predict_proba(X), labels=self.classes))
