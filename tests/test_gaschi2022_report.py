"""Chapter 1's report helpers and the Table II protocol variants, on toy inputs with known answers."""

import pandas as pd
import pytest

from xalign.data.readers import GoldAlignment
from xalign.papers.gaschi2022 import report as RP
from xalign.papers.gaschi2022.extraction_eval import dictionary_precision_variants


def toy_gold():
    # sentence 0: "a b" / "x y" with a-x sure, b-y possible only; sentence 1: "a c" / "x z", a-x sure
    return GoldAlignment(src=[["a", "b"], ["a", "c"]], tgt=[["x", "y"], ["x", "z"]],
                         sure=[{(0, 0)}, {(0, 0)}], possible=[{(0, 0), (1, 1)}, {(0, 0)}])


def test_precision_variants_known_answers():
    forward = {"a": {"x"}, "b": {"y"}, "c": {"q"}}
    backward = {"z": {"c"}}                      # the reverse file adds c -> z
    rows = {r["variant"]: r for r in dictionary_precision_variants(toy_gold(), forward, backward, flip=False)}
    base = rows["xalign: pair's own dictionary, lower-cased, sure or possible links"]
    assert base["n pairs"] == 3 and base["value"] == pytest.approx(100.0)       # a-x, b-y, a-x
    assert rows["sure links only"]["value"] == pytest.approx(200 / 3)            # b-y is only possible
    assert rows["each source and target word kept once (avoid_repetition)"]["n pairs"] == 2
    merged = rows["the authors' direction + both MUSE files merged (get_dicos)"]
    assert merged["n pairs"] == 4 and merged["value"] == pytest.approx(75.0)    # c-z is not a gold link


def test_precision_variants_flip_reads_the_gold_the_other_way():
    forward = {"a": {"x"}, "b": {"y"}}
    backward = {"x": {"a"}}                      # the other direction's file knows only x -> a
    rows = {r["variant"]: r for r in dictionary_precision_variants(toy_gold(), forward, backward, flip=True)}
    assert rows["the authors' direction (gold file's order)"]["n pairs"] == 2   # x->a in both sentences
    assert rows["the authors' direction (gold file's order)"]["value"] == pytest.approx(100.0)


def runs_frame():
    rows = []
    for layer, (old, new) in enumerate([(0.5, 0.4), (0.9, 0.8), (0.7, 0.3)]):
        for run in range(2):
            rows += [{"pair": "de-en", "layer": layer, "run": run, "metric": "S_strong_xalign01", "value": old},
                     {"pair": "de-en", "layer": layer, "run": run, "metric": "S_strong", "value": new},
                     {"pair": "de-en", "layer": layer, "run": run, "metric": "S_weak", "value": 1.0}]
    return pd.DataFrame(rows)


def test_strong_before_after_and_gap():
    ba = RP.strong_before_after(runs_frame(), "mBERT").set_index("layer")
    assert ba.loc["best", "xalign 0.1"] == pytest.approx(90.0) and ba.loc["best", "authors' definition"] == pytest.approx(80.0)
    assert ba.loc["last", "change"] == pytest.approx(-40.0)
    assert ba.loc["best", "paper (mBERT)"] == pytest.approx(90.3)             # the paper's Table IV mBERT de-en
    gap = RP.strong_gap_by_layer(runs_frame())
    assert gap["gap"].tolist() == pytest.approx([10.0, 10.0, 40.0])


def test_avg_convention_per_family():
    class Enc:
        def __init__(self, name, prefix):
            self.name, self.prefix = name, prefix
    assert RP.avg_convention(Enc("multilingual-e5-small", "passage: ")) == RP.AVG_WHOLE
    assert RP.avg_convention(Enc("bert-base-multilingual-cased", "")) == RP.AVG_TOKENS


def test_pooling_variants_and_table1_rows():
    rows = []
    for pooling, vals in ((RP.AVG_WHOLE, [0.2, 0.9, 0.8]), (RP.AVG_TOKENS, [0.3, 0.7, 0.6]), ("CLS", [0, 0.5, 0.4])):
        for layer, v in enumerate(vals):
            rows.append({"pair": "de-en", "pooling": pooling, "layer": layer, "run": 0, "value": v})
    runs = pd.DataFrame(rows)
    pv = RP.pooling_variants(runs, "mBERT").set_index("layer")
    assert pv.loc["best", "whole - tokens"] == pytest.approx(20.0)
    assert pv.loc["first", "paper (mBERT)"] == pytest.approx(56.1)
    t1 = RP.table1_ours(runs, RP.AVG_TOKENS, "mBERT", pd.DataFrame())
    assert set(t1["pooling"]) == {"CLS", "avg"}
    assert t1[(t1["pooling"] == "avg") & (t1["layer"] == "best")]["value"].item() == pytest.approx(70.0)
