"""Chapter 1's Table V: the example errors come out the same when the vectors move at float32 rounding scale
(issue #46 item 4). On main's rule (a random draw among the CSLS errors) a near-tie that flips between a hit
and a miss shifts the draw and shows other words."""

import numpy as np
import pandas as pd
import pytest

from xalign.papers.gaschi2022.examples import best_layer, csls_margins, example_errors


def _pairs(n=120, dim=24, seed=3, noise=2.5):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(n, dim))
    V = U + noise * rng.normal(size=(n, dim))
    V[7] = V[8] + 1e-7 * rng.normal(size=dim)  # a near-tie: pair 7's and 8's translations are the same up to rounding
    words = [f"w{i:03d}" for i in range(n)]
    return words, [f"t{i:03d}" for i in range(n)], U, V


def test_margins_match_a_direct_csls():
    _, _, U, V = _pairs(n=30, dim=8)
    u = U / np.linalg.norm(U, axis=1, keepdims=True)
    v = V / np.linalg.norm(V, axis=1, keepdims=True)
    S = u @ v.T
    k = 5
    C = 2 * S - np.sort(S, 1)[:, -k:].mean(1)[:, None] - np.sort(S, 0)[-k:].mean(0)[None, :]
    retrieved, margin = csls_margins(U, V, k)
    for i in range(30):
        others = [j for j in range(30) if j != i]
        j = max(others, key=lambda j: C[i, j])
        assert retrieved[i] == j
        assert margin[i] == pytest.approx(C[i, j] - C[i, i], abs=1e-12)


def test_examples_survive_float32_rounding_noise():
    src, tgt, U, V = _pairs()
    base = example_errors(src, tgt, U, V, k=10)
    assert len(base) == 12
    assert (base["CSLS margin"] > 0).all()
    assert base["CSLS margin"].is_monotonic_decreasing
    rng = np.random.default_rng(0)
    for _ in range(20):
        scale = np.abs(U).max() * np.finfo(np.float32).eps
        Up = (U + scale * rng.normal(size=U.shape)).astype(np.float32)
        Vp = (V + scale * rng.normal(size=V.shape)).astype(np.float32)
        pd.testing.assert_frame_equal(example_errors(src, tgt, Up, Vp, k=10), base)


def test_ties_go_alphabetical_and_zero_margins_are_never_shown():
    # two identical pairs of vectors: each retrieves the other's translation with margin 0 (a tie, not an error)
    U = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [-1.0, 0.2]])
    V = U.copy()
    out = example_errors(["b", "a", "c", "d"], ["tb", "ta", "tc", "td"], U, V, k=1)
    assert out.empty
    V2 = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [-1.0, 0.2]])  # a and b both miss, with the same margin
    out = example_errors(["b", "a", "c", "d"], ["tb", "ta", "tc", "td"], U, V2, k=1)
    assert list(out["reference word"][:2]) == ["a", "b"]


def test_best_layer_rounds_before_choosing():
    weak = pd.DataFrame({"pair": "de-en", "layer": [7, 8, 9], "mean": [80.0, 81.04, 81.0]})
    assert best_layer(weak, "de-en") == 8
    weak.loc[1, "mean"] = 81.0000001  # equal to layer 9 up to rounding: the earlier layer, whichever is larger
    assert best_layer(weak, "de-en") == 8
    weak.loc[1, "mean"] = 80.9999999
    assert best_layer(weak, "de-en") == 8


@pytest.mark.parametrize("kw, msg", [({"n": 0}, "n = 0"), ({"decimals": -1}, "decimals"), ({"k": 0}, "k = 0")])
def test_bad_input_names_the_parameter(kw, msg):
    src, tgt, U, V = _pairs(n=20, dim=4)
    with pytest.raises(ValueError, match=msg):
        example_errors(src, tgt, U, V, **kw)
