"""Standardising probe features without turning rounding noise into signal.

A feature column that is the same number in every training row (up to rounding) carries no information, but a
z-score divides its rounding residue by its own tiny standard deviation and hands the probe a column of unit
variance made of noise. Chapter 5's first-token features at layer 0 are such columns: the [CLS] embedding
before any attention is the same vector for every sentence, so its pair features can differ between sentences
only by rounding. scikit-learn's ``StandardScaler`` leaves only exactly constant columns alone. Here a column
whose range is within rounding of its own largest magnitude is centred and zeroed, in training and test alike,
so the probe sees what exact arithmetic would give it: nothing.

The variation harness once turned that row into noise anyway: it drew independent noise for every copy of
the one vector, which no machine does (one input through one kernel gives one result), and the row's macro-F1
moved by 18 points. It now draws each vector's noise from its own bits (:func:`xalign.core.perturb.vector_noise`):
the copies stay equal, the columns stay exactly constant, and this rule zeroes them. Wider rules were measured
and rejected (``bench/constant_columns.py``): the old noise flipped components of chapter 5's float16 banks by one
float16 step, and a threshold at two such steps of a component's magnitude comes within 1.4x of the first
token's informative components (layers 5 and 9), while one at the vector's scale that spares them (64 ulps,
nearest informative component 36x away) misses the flips.
"""

from __future__ import annotations

import numpy as np

#: a column whose range (max - min over the training rows) is at most this share of its largest magnitude is
#: constant up to rounding. float32 keeps 24 bits (a relative step of 6e-8) and two machines' kernels differ by
#: a few steps; 1e-5 is 80+ steps, far below any informative spread (chapter 5's real features: 1e-2 and up)
ROUNDING_SPREAD = 1e-5

_SCALER_CLASS = None  # made on first use: scikit-learn loads only when a probe is fitted


def constant_columns(X) -> np.ndarray:
    """(d,) bool: the columns of ``X`` ((n, d), any float) that are constant up to rounding (:data:`ROUNDING_SPREAD`)."""
    X = np.asarray(X, np.float64)
    if not len(X):
        return np.zeros(X.shape[1], dtype=bool)
    spread = X.max(0) - X.min(0)
    return spread <= ROUNDING_SPREAD * np.abs(X).max(0)


def rounding_aware_scaler():
    """A new ``RoundingAwareScaler``: scikit-learn's ``StandardScaler`` (float64), except that a column constant
    up to rounding in the data it is fitted on (:func:`constant_columns`) transforms to 0 everywhere instead of to
    its noise at unit variance; its ``constant_`` ((d,) bool) says which. Informative columns are scaled exactly
    as ``StandardScaler`` scales them (same mean, same scale, same numbers). Usable in a scikit-learn pipeline."""
    global _SCALER_CLASS
    if _SCALER_CLASS is None:
        from sklearn.preprocessing import StandardScaler

        class RoundingAwareScaler(StandardScaler):
            def fit(self, X, y=None, sample_weight=None):
                X = np.asarray(X, np.float64)
                super().fit(X, y, sample_weight)
                self.constant_ = constant_columns(X)
                return self

            def transform(self, X, copy=None):
                out = super().transform(np.asarray(X, np.float64), copy=copy)
                out[:, self.constant_] = 0.0
                return out

        _SCALER_CLASS = RoundingAwareScaler
    return _SCALER_CLASS()
