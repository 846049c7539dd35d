"""Features constant up to rounding carry nothing: a probe standardising them must not learn their rounding noise.

Chapter 5's layer sweep, first-token pooling at layer 0: the [CLS] embedding before attention is one vector for
every sentence, whose copies can differ by rounding; standardised, the logistic regression fits that noise.
"""

import numpy as np
import pytest

from xalign.measures.probe import ProbeSpec, fit_predict
from xalign.measures.scaling import ROUNDING_SPREAD, constant_columns, rounding_aware_scaler


def _rounding_noise(X, seed):
    rng = np.random.default_rng(seed)
    X = np.asarray(X, np.float32)
    return (X.astype(np.float64) * (1 + 4 * 2.0**-23 * rng.standard_normal(X.shape))).astype(np.float32)


def _constant_task(n=240, d=16, seed=0):
    """(X (n, d) float32: one vector repeated, y (n,) three balanced classes, X_test)."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=d).astype(np.float32)
    y = np.arange(n) % 3
    return np.tile(v, (n, 1)), y, np.tile(v, (90, 1))


def test_constant_columns_are_found_up_to_rounding_and_informative_ones_are_not():
    rng = np.random.default_rng(0)
    X = np.column_stack([np.full(50, 3.0), 3.0 * (1 + 1e-7 * rng.standard_normal(50)), rng.normal(size=50),
                         np.zeros(50), 1 + 1e-3 * rng.standard_normal(50)])
    assert constant_columns(X).tolist() == [True, True, False, True, False]
    assert ROUNDING_SPREAD < 1e-3  # a spread of 1e-3 relative is information, kept


def test_the_scaler_scales_informative_columns_as_standard_scaler_and_zeroes_constant_ones():
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(size=(40, 3)), 2.0 * (1 + 1e-7 * rng.standard_normal(40))])
    ours, theirs = rounding_aware_scaler().fit(X), StandardScaler().fit(X)
    T = rng.normal(size=(7, 4))
    assert np.array_equal(ours.transform(T)[:, :3], theirs.transform(T)[:, :3])
    assert not ours.transform(X)[:, 3].any() and not ours.transform(T)[:, 3].any()
    assert np.abs(theirs.transform(X)[:, 3]).max() > 0.5  # the old scaler handed the probe unit-variance noise


@pytest.mark.parametrize("kind,backend", [("logreg", "full-batch"), ("mlp", "full-batch"), ("logreg", "sklearn")])
def test_a_probe_on_constant_features_predicts_the_same_under_rounding_noise(kind, backend):
    X, y, Xt = _constant_task()
    spec = ProbeSpec("p", kind=kind, nhid=4 if kind == "mlp" else 0, backend=backend, regs=(0.1,))
    preds = [fit_predict(_rounding_noise(X, s), y, spec, 3, None, 1, [_rounding_noise(Xt, s + 100)], cache=False)[0][0]
             for s in (1, 2)]
    assert np.array_equal(preds[0], preds[1])
    assert len(set(preds[0].tolist())) == 1  # nothing to learn from: one class for every item


def test_the_senteval_probe_standardised_zeroes_constant_columns():
    from xalign.measures.torch_probe import TorchProbe

    X, y, _ = _constant_task()
    spec = ProbeSpec("p", kind="logreg", standardize=True, max_epoch=2)
    probe = TorchProbe(spec, X.shape[1], 3, 1e-4, 0)
    probe.fit(_rounding_noise(X, 3), y)
    assert np.isinf(probe.scale).all() and not probe._scaled(_rounding_noise(X, 4)).any()
