"""The chapter-1 protocol pieces: best/last layer rows, static baseline, retrieval errors."""

import numpy as np
import pandas as pd
import pytest

from xalign.data.static import StaticVectors
from xalign.data.words import Token
from xalign.papers.gaschi2022 import pairs as PR
from xalign.papers.gaschi2022 import weakstrong as WS


def test_best_last_rows_pick_the_right_layers():
    runs = pd.DataFrame({"pair": ["de-en"] * 6, "layer": [0, 0, 1, 1, 2, 2], "run": [0, 1] * 3,
                         "value": [0.1, 0.2, 0.9, 0.7, 0.5, 0.5]})
    rows = WS.best_last_rows(runs, "mBERT").set_index("layer")
    assert rows.loc["best", "our layer"] == 1 and rows.loc["best", "value"] == pytest.approx(80.0)
    assert rows.loc["best", "std"] == pytest.approx(100 * np.std([0.9, 0.7], ddof=1))
    assert rows.loc["last", "our layer"] == 2 and rows.loc["last", "value"] == pytest.approx(50.0)
    assert "first" not in rows.index
    assert "first" in WS.best_last_rows(runs, "mBERT", keep_first=True)["layer"].values


def toy_world(rng, n=60, dim=64):
    src_words = [f"s{i}" for i in range(n)]
    tgt_words = [f"t{i}" for i in range(n)]
    vecs = rng.normal(size=(n, dim)).astype(np.float32)
    src = StaticVectors(src_words, vecs)
    tgt = StaticVectors(tgt_words[:-5], vecs[:-5])  # five target words unknown
    pairs = [PR.WordPair(i, i, Token(src_words[i], 0, 2), Token(tgt_words[i], 0, 2), 0, 0) for i in range(n)]
    tokens = ([[Token(src_words[i], 0, 2)] for i in range(n)], [[Token(tgt_words[i], 0, 2)] for i in range(n)])
    return pairs, tokens, src, tgt


def test_static_baseline_on_identical_vectors_is_perfect(rng):
    pairs, tokens, src, tgt = toy_world(rng)
    known, U, _V = WS.static_pair_vectors(pairs, src, tgt)
    assert len(known) == 55 and U.shape == (55, 1, 64)
    rows = WS.static_baseline_rows({"xx-yy": pairs}, {"xx-yy": tokens}, {"xx": src, "yy": tgt},
                                   k=5, n_pairs=40, n_sentences=40, runs=3, seed=0)
    assert rows["table3"]["value"].item() == pytest.approx(100.0)
    assert rows["table4"]["value"].item() == pytest.approx(100.0)
    assert rows["table1"]["pooling"].item() == "avg"
    assert WS.static_baseline_rows({"xx-zz": pairs}, {"xx-zz": tokens}, {"xx": src}, 5, 40, 40, 3, 0)["table3"].empty


def test_retrieval_errors_name_the_retrieved_pair(rng):
    pairs, _, _, _ = toy_world(rng, n=20)
    U = rng.normal(size=(20, 64))
    V = U.copy()
    V[[3, 7]] = V[[7, 3]]  # swap two translations
    errors = WS.retrieval_errors(pairs, U, V, k=3)
    assert {(a.src.text, b.tgt.text) for a, b in errors} == {("s3", "t7"), ("s7", "t3")}
