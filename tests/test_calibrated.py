import hashlib

import numpy as np
import pandas as pd
import pytest

from xalign.core.sentvec import sentence_vectors
from xalign.papers.calibrated2023 import calibrated as cal
from xalign.papers.calibrated2023.transfer import control_before_after, head_features


class FakeEncoder:
    """Layer 0: noise; layer 1: the sentence's meaning id (texts look like 'de:7' / 'en:7')."""

    name = "fake"
    n_layers = 2
    dim = 8

    def __init__(self):
        self.calls = 0

    def encode_sentences(self, texts, pooling="mean", layers=None):
        self.calls += 1
        out = []
        for t in texts:
            meaning = int(t.split(":")[1])
            lang_seed = int(hashlib.md5(t.encode()).hexdigest()[:8], 16)
            noise = np.random.default_rng(lang_seed).normal(size=self.dim)
            clean = np.random.default_rng(meaning).normal(size=self.dim)
            out.append(np.stack([noise, clean]))
        x = np.array(out, np.float32)
        return x if layers is None else x[:, layers]


def tatoeba_loader(lang):
    return [(f"{lang}:{i}", f"en:{i}") for i in range(30)]


def test_tatoeba_retrieval_and_best_layer():
    enc = FakeEncoder()
    df = cal.tatoeba_retrieval(enc, ["de", "fr"], n=20, loader=tatoeba_loader)
    assert set(df.direction) == {"xx->en", "en->xx", "mean"}
    assert (df.n_pairs == 20).all()
    layer1 = cal.at_layer(df, 1)
    assert (layer1["value"] == 100).all()
    assert cal.at_layer(df, 0)["value"].max() < 50
    one = cal.tatoeba_retrieval(enc, ["de"], loader=tatoeba_loader, layers=[1])
    assert set(one.layer) == {1} and (one["value"] == 100).all()


def test_validation_orients_pairs_and_picks_layer():
    def wmt(src, tgt):
        return [(f"{src}:{i}", f"{tgt}:{i}") for i in range(25)]
    val = cal.validation_retrieval(FakeEncoder(), [("en", "de")], n=10, loader=wmt)
    assert set(val.pair) == {"en-de"}
    assert cal.validation_best_layer(val) == 1


def test_sts_scores_with_loader():
    def loader(track):
        return [(f"a:{i}", f"b:{i if i % 2 else i + 100}", 5.0 if i % 2 else 0.0) for i in range(12)]
    df = cal.sts_scores(FakeEncoder(), ["en-en"], loader=loader, n=10)
    assert list(df.layer) == [0, 1]
    assert df.loc[df.layer == 1, "value"].item() > 80  # identical meanings score high


def test_sentence_vectors_encodes_each_text_once():
    class Counting(FakeEncoder):
        def encode_sentences(self, texts, pooling="mean", layers=None):
            assert len(texts) == len(set(texts))
            return super().encode_sentences(texts, pooling, layers)
    enc = Counting()
    v = sentence_vectors(enc, ["a:1", "a:2", "a:1"], layers=[1])
    assert v.shape == (3, 1, 8) and np.allclose(v[0], v[2])


def test_sample_rows_and_helpers():
    assert list(cal.sample_rows(5, None)) == [0, 1, 2, 3, 4]
    s = cal.sample_rows(100, 10, seed=1)
    assert len(s) == 10 and list(s) == sorted(s)
    f = pd.DataFrame({"lang": ["a", "b"], "value": [1.0, 3.0]})
    assert cal.with_average(f, "lang")["value"].tolist() == [1.0, 3.0, 2.0]
    ev = pd.DataFrame({"fraction": [0.5, 0.25, 1.0], "validation": [2.0, 1.0, 2.0], "sts": [5.0, 4.0, 7.0]})
    assert cal.choose_checkpoint(ev)["fraction"] == 0.5
    rel = cal.relative_to_first(ev, ["sts"])
    assert rel["value"].tolist() == [0.0, 1.0, 3.0]


def test_counterparts():
    assert cal.counterparts(["multilingual-e5-small"]) == {"multilingual-e5-small": "LaBSE"}
    both = cal.counterparts(["xlm-roberta-base", "multilingual-e5-small"])
    assert both == {"xlm-roberta-base": "XLM-R_Base", "multilingual-e5-small": "LaBSE"}
    assert cal.counterparts(["sentence-transformers/LaBSE", "x"]) == {"sentence-transformers/LaBSE": "LaBSE"}


def test_compare_counterparts_marks_stand_ins_partly():
    from xalign.book.results import ChapterRun
    run = ChapterRun("03_calibrated_retrieval_transfer_rate", "calibrated2023", "test", {}, paper_setup=True)
    paper = pd.DataFrame({"model": ["LaBSE", "LaBSE", "mBERT"], "lang": ["de", "fr", "de"], "value": [99.0, 96.0, 75.0]})
    ours = pd.DataFrame({"model": ["e5", "e5"], "lang": ["de", "fr"], "value": [98.0, 97.0]})
    merged = cal.compare_counterparts(run, "t", ours, ["lang"], {"e5": "LaBSE"}, paper=paper)
    assert merged["diff"].tolist() == [-1.0, 1.0]
    assert set(merged["ours_model"]) == {"e5"}
    assert run.tables["t"].status == "partly"
    merged = cal.compare_counterparts(run, "u", ours.assign(model="xlm-roberta-base"), ["lang"],
                                      {"xlm-roberta-base": "XLM-R_Base"},
                                      paper=paper.assign(model="XLM-R_Base"))
    assert run.tables["u"].status == "reproduced"


def test_control_keeps_C_and_reports_ratio():
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(3, 4)) * 3

    def make(n, shift):
        y = rng.integers(0, 3, n)
        return centers[y] + rng.normal(size=(n, 4)) + shift, y

    before = {lang: {s: make(60, sh) for s in ("train", "val", "test")} for lang, sh in (("en", 0), ("de", 2.0))}
    after = {lang: {s: make(60, sh) for s in ("train", "test")} for lang, sh in (("en", 0), ("de", 0.0))}
    out = control_before_after(before, after, Cs=(0.1, 1.0))
    assert list(out.state) == ["before", "after"] and out.C.nunique() == 1
    assert out.loc[1, "targets / source x 100"] > out.loc[0, "targets / source x 100"]  # better aligned after
    small = head_features(before, "test", 10)
    assert small["de"]["test"][0].shape[0] == 10 and small["de"]["train"][0].shape[0] == 60


def test_finetuning_changes():
    paper = pd.DataFrame({"model": ["mBERT"] * 4 + ["LaBSE"] * 2,
                          "setup": ["none", "sentence_embedding"] * 3,
                          "task": ["CLSR", "CLSR", "STS", "STS", "CLSR", "CLSR"],
                          "value": [40.0, 70.0, 50.0, 75.0, 90.0, 91.0]})
    ours = pd.DataFrame({"model": ["e5"] * 3, "setup": ["none", "sentence_embedding", "none"],
                         "task": ["CLSR", "CLSR", "STS"], "value": [80.0, 85.5, 60.0]})
    out = cal.finetuning_changes(paper, ours).set_index(["model", "source"])
    assert out.loc[("mBERT", "paper"), "change in CLSR"] == 30.0
    assert out.loc[("mBERT", "paper"), "change in STS"] == 25.0
    assert out.loc[("LaBSE", "paper"), "change in CLSR"] == 1.0
    assert np.isnan(out.loc[("LaBSE", "paper"), "change in STS"])
    assert out.loc[("e5", "ours"), "change in CLSR"] == 5.5


def _patch_checkpoint_loading(monkeypatch, loaded=None):
    from xalign.core import loading

    def load(path, prefix="", progress=False):
        if loaded is not None:
            loaded.append(str(path))
        return FakeEncoder()
    monkeypatch.setattr(loading, "load_encoder", load)
    sts_layers = []

    def fake_sts(enc, tracks, layers=None, n=None, loader=None):
        sts_layers.append(list(layers))
        return pd.DataFrame({"track": ["en-en"], "layer": layers, "value": [50.0]})
    monkeypatch.setattr(cal, "sts_scores", fake_sts)
    return sts_layers


def test_evaluate_checkpoints_uses_the_validation_pairs_it_is_given(monkeypatch):
    _patch_checkpoint_loading(monkeypatch)
    asked = []

    def wmt(src, tgt):
        asked.append((src, tgt))
        return [(f"{src}:{i}", f"{tgt}:{i}") for i in range(12)]
    ev = cal.evaluate_checkpoints([(0.5, "ckpt-1"), (1.0, "ckpt-2")], val_pairs=[("en", "de")], loader=wmt)
    assert asked == [("en", "de")]  # not the three default pairs, and read once for both checkpoints
    assert list(ev.layer) == [1, 1] and (ev.validation == 100).all()


def test_evaluate_checkpoints_keeps_the_layer_chosen_before_finetuning(monkeypatch):
    sts_layers = _patch_checkpoint_loading(monkeypatch)

    def wmt(src, tgt):
        return [(f"{src}:{i}", f"{tgt}:{i}") for i in range(12)]
    # layer 1 is the fake encoder's best; the layer chosen before fine-tuning (0) must be kept
    ev = cal.evaluate_checkpoints([(1.0, "ckpt")], val_pairs=[("en", "de")], layer=0, loader=wmt)
    assert ev.layer.tolist() == [0] and sts_layers == [[0]]
    assert ev.validation.item() < 50  # read at layer 0, not at the re-chosen best layer
    free = cal.evaluate_checkpoints([(1.0, "ckpt")], val_pairs=[("en", "de")], loader=wmt)
    assert free.layer.tolist() == [1]
    with pytest.raises(ValueError, match="val_pairs"):
        cal.evaluate_checkpoints([(1.0, "ckpt")], val_pairs=[])


def test_evaluate_checkpoints_is_memoised_per_checkpoint(monkeypatch, tmp_path):
    """A rerun loads no checkpoint; a rewritten checkpoint (or another layer) is evaluated again."""
    from xalign.core.cache import EmbeddingCache

    loaded = []
    _patch_checkpoint_loading(monkeypatch, loaded)
    store = EmbeddingCache(tmp_path / "store")
    ckpts = [(0.5, tmp_path / "ckpt-01"), (1.0, tmp_path / "ckpt-02")]
    for _, path in ckpts:
        path.mkdir()
        (path / "model.safetensors").write_bytes(path.name.encode())

    def wmt(src, tgt):
        return [(f"{src}:{i}", f"{tgt}:{i}") for i in range(12)]
    first = cal.evaluate_checkpoints(ckpts, val_pairs=[("en", "de")], loader=wmt, store=store)
    assert len(loaded) == 2
    again = cal.evaluate_checkpoints(ckpts, val_pairs=[("en", "de")], loader=wmt, store=store)
    assert len(loaded) == 2  # served from the memo: no checkpoint loaded
    pd.testing.assert_frame_equal(first, again)
    (tmp_path / "ckpt-02" / "model.safetensors").write_bytes(b"retrained, new weights")
    cal.evaluate_checkpoints(ckpts, val_pairs=[("en", "de")], loader=wmt, store=store)
    assert loaded[2:] == [str(tmp_path / "ckpt-02")]
    cal.evaluate_checkpoints(ckpts, val_pairs=[("en", "de")], loader=wmt, store=store, layer=0)
    assert len(loaded) == 5
