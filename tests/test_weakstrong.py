"""The chapter-1 protocol pieces: best/last layer rows, static baseline, retrieval errors."""

import numpy as np
import pandas as pd
import pytest

from xalign.data import word_pairs as PR
from xalign.data.static import StaticVectors
from xalign.data.words import Token
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


def encoded_world(rng, n=50, n_layers=3, dim=16):
    """n pairs, one per sentence; word vectors stored in shuffled rows with distractor rows between them."""
    from xalign.measures import incontext as IC

    base = rng.normal(size=(n, n_layers, dim)).astype(np.float32)
    pairs = [PR.WordPair(i, i, Token(f"s{i}", 0, 2), Token(f"t{i}", 0, 2), 0, 0) for i in range(n)]
    perm = rng.permutation(2 * n)[:n]        # where pair i's word sits among 2n rows
    words_s = rng.normal(size=(2 * n, n_layers, dim)).astype(np.float32)
    words_t = rng.normal(size=(2 * n, n_layers, dim)).astype(np.float32)
    words_s[perm] = base
    words_t[perm] = base + 0.3 * rng.normal(size=base.shape).astype(np.float32)
    row = {(i, 0, 2): int(perm[i]) for i in range(n)}
    sents = {p: rng.normal(size=(n, n_layers, dim)).astype(np.float32) for p in ("first", "mean")}
    src = IC.EncodedSide(sents, words_s, row)
    tgt = IC.EncodedSide({p: v + 0.1 for p, v in sents.items()}, words_t, row)
    return {"xx-en": pairs}, {"xx-en": (src, tgt)}


def test_row_mapped_scoring_equals_gathered_vectors(rng):
    from xalign.measures import incontext as IC
    from xalign.measures import layerwise as LW
    from xalign.measures.retrieval import s_weak

    word_pairs, encoded = encoded_world(rng)
    U, V = IC.pair_vectors(word_pairs["xx-en"], *encoded["xx-en"])
    samples = LW.sample_runs(len(U), 30, 3, 0)
    gathered = LW.layerwise_scores(U, V, lambda a, b: s_weak(a, b, 5), samples)
    mapped = WS.pair_layer_scores(word_pairs, encoded, lambda a, b: s_weak(a, b, 5), 30, 3, 0, [0, 1, 2])
    by_rows = LW.layerwise_scores(encoded["xx-en"][0].words, encoded["xx-en"][1].words,
                                  lambda a, b: s_weak(a, b, 5), samples,
                                  rows=IC.pair_rows(word_pairs["xx-en"], *encoded["xx-en"]))
    pd.testing.assert_frame_equal(gathered, by_rows)
    assert mapped["value"].between(0, 1).all() and len(mapped) == 9


def test_alignment_and_sentence_scores_are_read_back_on_a_warm_rerun(rng, tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    word_pairs, encoded = encoded_world(rng)
    calls = []
    real = WS.alignment_scores
    monkeypatch.setattr(WS, "alignment_scores", lambda *a, **k: calls.append(1) or real(*a, **k))
    cold = WS.alignment_layer_scores(word_pairs, encoded, 5, 30, 2, 0, [0, 1, 2])
    n_cold = len(calls)
    assert n_cold == 3 * 2 and set(cold["metric"]) == {"S_weak", "S_strong", "S_strong_xalign01"}
    warm = WS.alignment_layer_scores(word_pairs, encoded, 5, 30, 2, 0, [0, 1, 2])
    assert len(calls) == n_cold
    pd.testing.assert_frame_equal(cold, warm)
    WS.alignment_layer_scores(word_pairs, encoded, 4, 30, 2, 0, [0, 1, 2])   # another k: recomputed
    assert len(calls) == 2 * n_cold
    encoded["xx-en"][1].words[0, 0, 0] += 1.0                                 # other vectors: recomputed
    WS.alignment_layer_scores(word_pairs, encoded, 5, 30, 2, 0, [0, 1, 2])
    assert len(calls) == 3 * n_cold

    sent = WS.sentence_layer_scores(encoded, {"CLS": "first", "avg": "mean"}, 5, 40, 2, 0, [0, 1, 2])
    assert set(sent["pooling"]) == {"CLS", "avg"} and len(sent) == 2 * 3 * 2
    monkeypatch.setattr(WS, "s_weak", lambda *a, **k: pytest.fail("warm rerun recomputed S_weak"))
    pd.testing.assert_frame_equal(sent, WS.sentence_layer_scores(encoded, {"CLS": "first", "avg": "mean"},
                                                                  5, 40, 2, 0, [0, 1, 2]))


def test_words_vs_masked_scores_are_read_back_on_a_warm_rerun(rng, tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    U = rng.normal(size=(40, 2, 8)).astype(np.float32)
    V = U + 0.2 * rng.normal(size=U.shape).astype(np.float32)
    Um, Vm = rng.normal(size=U.shape).astype(np.float32), rng.normal(size=U.shape).astype(np.float32)
    cold = WS.words_vs_masked_scores(U, V, Um, Vm, 5, 30, 3, 0, [0, 1])
    assert set(cold["input"]) == {"words", "masked"} and len(cold) == 2 * 2 * 3
    assert cold[cold["input"] == "words"]["value"].mean() > cold[cold["input"] == "masked"]["value"].mean()
    monkeypatch.setattr(WS, "s_weak", lambda *a, **k: pytest.fail("warm rerun recomputed S_weak"))
    pd.testing.assert_frame_equal(cold, WS.words_vs_masked_scores(U, V, Um, Vm, 5, 30, 3, 0, [0, 1]))
