import numpy as np
import pandas as pd
import pytest

from xalign.data.taskdata import premise_groups
from xalign.data.xnli_manual import limit_groups, split_groups, xnli_manual
from xalign.measures.probe import pair_features
from xalign.papers.calibrated2023.control import control_intervals, ratio_to_source
from xalign.papers.calibrated2023.correlations import correlations, paper_correlations, pearson
from xalign.papers.calibrated2023.transfer import frozen_transfer, transfer_gap, transfer_rate

# The paper's Table 8 (four models, French column and 14-language average)
MODELS = ["mBERT", "XLM-R_Base", "XLM-R", "LaBSE"]
FR = {"zs": [73.4, 79.7, 84.1, 81.0], "tta": [77.8, 81.4, 85.1, 81.9], "cal": [70.9, 87.0, 91.8, 96.0]}
AVG = {"zs": [64.3, 75.5, 80.3, 76.5], "tta": [74.6, 78.7, 83.2, 79.1], "cal": [50.0, 79.4, 86.5, 95.8]}


def test_transfer_rate_arithmetic_reproduces_table_8_french():
    zs = pd.DataFrame({"model": MODELS, "lang": "fr", "value": FR["zs"]})
    tta = pd.DataFrame({"model": MODELS, "lang": "fr", "value": FR["tta"]})
    tr = transfer_rate(zs, tta, keys=["model", "lang"])
    assert list(tr["value"].round(1)) == [94.3, 97.9, 98.8, 98.9]  # the paper's transfer-rate row
    assert transfer_rate(pd.DataFrame({"lang": ["x"], "value": [40.0]}),
                         pd.DataFrame({"lang": ["x"], "value": [80.0]}))["value"].item() == 50.0
    with pytest.raises(ValueError):
        transfer_rate(zs, tta.iloc[:2], keys=["model", "lang"])


def test_pearson_reproduces_table_8_correlations():
    assert round(pearson(FR["zs"], FR["cal"]), 1) == 90.4
    assert round(pearson(FR["zs"], FR["tta"]), 1) == 98.5
    assert round(pearson(AVG["zs"], AVG["cal"]), 1) == 91.0
    assert round(pearson(AVG["zs"], AVG["tta"]), 1) == 95.1
    tr = 100 * np.array(AVG["zs"]) / np.array(AVG["tta"])
    assert round(pearson(tr, AVG["cal"]), 0) == 96  # paper 95.7 from rounded transfer rates
    assert np.isnan(pearson([1, 2], [3, 4]))
    assert np.isnan(pearson([1, 1, 1], [3, 4, 5]))
    frame = pd.DataFrame({"model": MODELS * 2, "lang": ["fr"] * 4 + ["avg"] * 4,
                          "zs": FR["zs"] + AVG["zs"], "cal": FR["cal"] + AVG["cal"]})
    c = correlations(frame, "zs", "cal", over="model", by="lang")
    assert list(c["value"].round(1)) == [90.4, 91.0]
    assert list(c["n"]) == [4, 4]
    wide = pd.DataFrame({"model": MODELS, "lang": ["fr"] * 4, "zero_shot": FR["zs"],
                         "calibrated_retrieval": FR["cal"], "translate_train_all": FR["tta"]})
    wide["transfer_rate"] = 100 * wide.zero_shot / wide.translate_train_all
    three = paper_correlations(wide, over="model", by="lang").set_index("block")["value"].round(1)
    assert three["corr_zero_shot_calibrated"] == 90.4 and three["corr_zero_shot_translate_train_all"] == 98.5
    # #45 finding 8: the set-up trained on every language's human translations is named as such
    labels = paper_correlations(wide, over="model", by="lang").set_index("block")["pair"]
    assert labels["corr_zero_shot_translate_train_all"] == "zero-shot ~ trained on all languages (human translations)"
    assert not labels.str.contains("translate-train").any()


def test_correlations_carry_a_bootstrap_interval_over_languages():
    """Finding 15 of #34: r across 14 languages gets an interval from resampling the languages."""
    from xalign.measures.intervals import paired_bootstrap_ci

    rng = np.random.default_rng(3)
    x = rng.normal(size=14)
    frame = pd.DataFrame({"model": "m", "lang": [f"l{i}" for i in range(14)], "a": x,
                          "b": x + rng.normal(scale=1.0, size=14), "c": 2 * x + 1})
    c = correlations(frame, "a", "b", over="lang", by="model").iloc[0]
    lo, hi = paired_bootstrap_ci([frame.a.to_numpy(), frame.b.to_numpy()], pearson, 1000, 0.95, 0)
    assert (c.ci_lo, c.ci_hi) == (lo, hi) and c.ci_lo < c.value < c.ci_hi and c.ci_hi - c.ci_lo > 10
    exact = correlations(frame, "a", "c", over="lang", by="model").iloc[0]
    assert exact.value == pytest.approx(100) and exact.ci_lo == pytest.approx(100) and exact.ci_hi == pytest.approx(100)
    two = correlations(frame.head(2), "a", "b", over="lang", by="model").iloc[0]
    assert np.isnan(two.value) and np.isnan(two.ci_lo) and np.isnan(two.ci_hi)
    off = correlations(frame, "a", "b", over="lang", by="model", intervals=False).iloc[0]
    assert off.value == c.value and np.isnan(off.ci_lo)


def test_control_intervals_are_paired_over_rows_languages_and_states():
    """Finding 14 of #34: the control's ratio and its change get a paired bootstrap interval."""
    from xalign.measures.intervals import bootstrap_ci

    rng = np.random.default_rng(0)
    src, tgt = np.ones(300, bool), rng.random(300) < 0.6
    assert ratio_to_source([src, tgt]) == 100 * tgt.mean()
    ci = control_intervals([src, tgt], [src, tgt], seed=0)
    assert ci["change"] == (0.0, 0.0)  # the same rows before and after: no change in any resample
    lo, hi = bootstrap_ci(tgt.astype(float), np.mean, 1000, 0.95, 0)  # source always right: ratio = target acc
    assert ci["before"] == pytest.approx((100 * lo, 100 * hi)) and ci["after"] == ci["before"]
    better = tgt | (rng.random(300) < 0.3)  # only gains, row by row
    up = control_intervals([src, tgt], [src, better], seed=0)["change"]
    assert up[0] > 0 and up[0] <= 100 * (better.mean() - tgt.mean()) <= up[1]
    with pytest.raises(ValueError, match="same test rows"):
        control_intervals([src, tgt], [src, tgt[:10]])


def test_transfer_gap_matches_table_2_urdu_source():
    # mBERT, XNLI Manual block of Table 2: ur 54.5, 15-language average 56.1, gap -1.7
    langs = ["ur", "x"]
    scores = pd.DataFrame({"lang": langs, "value": [54.5, 56.1 * 15 / 14 - 54.5 / 14]})
    assert transfer_gap(scores, "ur") == pytest.approx(-1.71, abs=0.01)
    with pytest.raises(KeyError):
        transfer_gap(scores, "de")


def _toy_rows(lang, n_groups=20):
    rows = []
    for g in range(n_groups):
        for lab in ("entailment", "neutral", "contradiction"):
            rows.append((f"{lang} premise {g}", f"{lang} hyp {g} {lab}", lab))
    return rows


def test_premise_groups_and_split_are_disjoint_and_parallel():
    rows = _toy_rows("en")
    groups = premise_groups(rows)
    assert list(groups[:6]) == [0, 0, 0, 1, 1, 1]
    idx = split_groups(groups, seed=3)
    assert [len(idx[s]) for s in ("train", "val", "test")] == [48, 6, 6]  # 16/2/2 groups
    all_idx = np.concatenate(list(idx.values()))
    assert sorted(all_idx) == list(range(60))
    for a in idx:
        for b in idx:
            if a != b:
                assert not set(groups[idx[a]]) & set(groups[idx[b]])  # no premise in two splits
    few = limit_groups(idx["train"], groups, 10, seed=0)
    assert len(few) == 9 and len(set(groups[few])) == 3

    data = xnli_manual(["en", "de"], seed=1, n_train=12, loader=_toy_rows)
    assert data.sizes().set_index("lang").loc["de"].tolist() == [12, 6, 6]
    for s in ("train", "val", "test"):
        en = [r[0].split()[-1] for r in data.rows["en"][s]]
        de = [r[0].split()[-1] for r in data.rows["de"][s]]
        assert en == de  # same rows in every language


def test_xnli_manual_refuses_non_parallel_files():
    def loader(lang):
        rows = _toy_rows(lang)
        return rows if lang == "en" else rows[1:] + rows[:1]
    with pytest.raises(ValueError, match="not line-parallel|labels differ"):
        xnli_manual(["en", "de"], loader=loader)


def test_frozen_classifier_learns_a_separable_task_and_transfers():
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 5)) * 4

    def make(n, shift):
        y = rng.integers(0, 3, n)
        return centers[y] + rng.normal(size=(n, 5)) + shift, y

    feats = {lang: {s: make(90, shift) for s in ("train", "val", "test")}
             for lang, shift in (("en", 0.0), ("xx", 0.3))}
    frame, info = frozen_transfer(feats, ["en"], Cs=(0.01, 1.0))
    assert set(frame["lang"]) == {"en", "xx"}
    assert (frame["value"] > 90).all()
    assert info["C"] in (0.01, 1.0) and info["n_train"] == 90


def test_pair_features():
    u = np.array([[1.0, 2.0]])
    v = np.array([[3.0, -1.0]])
    assert pair_features(u, v).tolist() == [[1, 2, 3, -1, 2, 3, 3, -2]]


def _separable(seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(3, 5)) * 4

    def make(n, shift):
        y = rng.integers(0, 3, n)
        return (centers[y] + rng.normal(size=(n, 5)) + shift).astype(np.float32), y

    return {lang: {s: make(60, shift) for s in ("train", "val", "test")} for lang, shift in (("en", 0.0), ("xx", 1.0))}


def test_frozen_transfer_is_memoised_on_its_features(tmp_path, monkeypatch):
    """A warm rerun fits nothing; other features or another C grid are fitted again."""
    from xalign.core.cache import EmbeddingCache
    from xalign.papers.calibrated2023 import transfer

    fits = []
    make = transfer.make_classifier
    monkeypatch.setattr(transfer, "make_classifier", lambda *a, **k: fits.append(a) or make(*a, **k))
    store = EmbeddingCache(tmp_path)
    feats = _separable()
    first = frozen_transfer(feats, ["en"], Cs=(0.1, 1.0), keep_hits=True, store=store)
    assert len(fits) == 2
    again = frozen_transfer(feats, ["en"], Cs=(0.1, 1.0), keep_hits=True, store=store)
    assert len(fits) == 2 and again[1] == first[1]
    pd.testing.assert_frame_equal(again[0].drop(columns="hits"), first[0].drop(columns="hits"))
    assert all((a == b).all() for a, b in zip(again[0]["hits"], first[0]["hits"]))
    frozen_transfer(feats, ["en"], Cs=(0.1,), keep_hits=True, store=store)
    feats["xx"]["test"][0][0, 0] += 1.0
    frozen_transfer(feats, ["en"], Cs=(0.1, 1.0), keep_hits=True, store=store)
    assert len(fits) == 5


class _CountingEncoder:
    """Texts -> a fixed random vector each (one layer); counts the texts it is asked to encode."""

    n_layers, dim, name, prefix = 1, 4, "counting", ""

    def __init__(self):
        self.n_texts = 0

    def encode_sentences(self, texts, pooling="mean", layers=None):
        self.n_texts += len(texts)
        return np.stack([np.random.default_rng(sum(map(ord, t))).normal(size=(1, 4)) for t in texts]).astype(np.float32)


def test_control_features_encode_only_what_the_control_reads(tmp_path):
    from xalign.core.cache import EmbeddingCache
    from xalign.papers.calibrated2023.transfer import control_before_after, control_features, encode_pair_features

    data = xnli_manual(["en", "de", "fr"], seed=1, loader=_toy_rows)
    full_enc, lean_enc = _CountingEncoder(), _CountingEncoder()
    full = encode_pair_features(full_enc, data, splits=("train", "test"))
    lean = control_features(lean_enc, data, "en")
    assert list(lean) == ["en", "de", "fr"] and set(lean["en"]) == {"train", "test"} and set(lean["de"]) == {"test"}
    assert lean_enc.n_texts < 0.5 * full_enc.n_texts
    before = encode_pair_features(_CountingEncoder(), data)
    pd.testing.assert_frame_equal(control_before_after(before, full, Cs=(0.1, 1.0), store=EmbeddingCache(tmp_path / "a")),
                                  control_before_after(before, lean, Cs=(0.1, 1.0), store=EmbeddingCache(tmp_path / "b")))
    with pytest.raises(ValueError, match="source language"):
        control_features(lean_enc, data, "sw")
