"""Chapter 1's report helpers and the Table II protocol variants, on toy inputs with known answers."""

import re

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
    assert RP.avg_convention(Enc("multilingual-e5-small", "query: ")) == RP.AVG_WHOLE
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


def compare_frame(rows, keys=("model", "layer", "pair")):
    """A run.compare-shaped frame: keys, paper, paper_std, ours, ours_std, our layer, diff."""
    out = pd.DataFrame(rows, columns=[*keys, "paper", "paper_std", "ours", "ours_std", "our layer"])
    out["diff"] = out["ours"] - out["paper"]
    return out


def toy_tables(weak_best=95.0, strong_best=60.0):
    t1 = compare_frame([("mBERT", "CLS", "best", "de-en", 77.9, 0.4, 50.0, 1.0, 6),
                        ("mBERT", "avg", "best", "de-en", 90.1, 0.2, 99.0, 0.5, 8)],
                       keys=("model", "pooling", "layer", "pair"))
    t2 = pd.DataFrame([{"method": "dictionary", "pair": "en-fr", "paper": 95.2, "ours": 94.4, "n pairs": 1200.0},
                       {"method": "aligner", "pair": "en-fr", "paper": 80.0, "ours": 88.4, "n pairs": 6302.0}])
    t3 = compare_frame([("FastText", "-", "de-en", 86.8, 0.67, None, None, None),
                        ("mBERT", "best", "de-en", 94.1, 0.47, weak_best, 0.3, 8),
                        ("mBERT", "last", "de-en", 90.0, 0.5, weak_best - 5, 0.3, 12)])
    t4 = compare_frame([("mBERT", "best", "de-en", 90.3, 0.47, strong_best, 0.4, 9),
                        ("mBERT", "last", "de-en", 81.5, 0.63, strong_best - 3, 0.4, 12)])
    return t1, t2, t3, t4


def fig8_frame(words=97.7, masked=95.3, runs=3):
    rows = []
    for layer in (0, 12):
        for r in range(runs):
            rows += [{"layer": layer, "run": r, "input": "words", "value": words / 100 + 0.001 * r},
                     {"layer": layer, "run": r, "input": "masked", "value": masked / 100 + 0.001 * r}]
    return pd.DataFrame(rows)


def test_evidence_wording_follows_the_numbers():
    t1, t2, t3, t4 = toy_tables(weak_best=95.0, strong_best=60.0)
    text = RP.evidence(t1, t2, t3, t4, fig8_frame(), "e5-small", "mBERT", runs=10)
    assert "Dictionary pairs are more precise than the aligner's on every gold set" in text
    assert "e5-small vs the paper's mBERT" in text
    assert "**Table IV, best layer, S_strong** (e5-small vs the paper's mBERT; de-en 60.0 vs 90.3): " \
           "e5-small is below the paper's mBERT for every pair" in text
    assert "Table III, best layer, S_weak" in text and "e5-small is above the paper's mBERT" in text
    assert "S_strong is below S_weak at the best layer for every pair (by 35.0 points)" in text
    assert "mask token alone retrieves the translation 95.4% of the time, 2.4 points below" in text
    assert "mostly identify the sentence" in text
    # the other way round: strong above the paper, level S_weak, S_strong not below S_weak
    t1, t2, t3, t4 = toy_tables(weak_best=94.1, strong_best=96.0)
    text = RP.evidence(t1, t2, t3, t4, None, "e5-small", "mBERT", runs=10)
    assert "e5-small is level with the paper's mBERT within the runs' spread" in text
    assert "e5-small is above the paper's mBERT for every pair" in text
    assert "S_strong is not below S_weak for every pair" in text
    assert "Fig. 8" not in text
    assert not re.search(r"by 0\.0 (to 0\.0 )?points", text)


def test_span_and_direction_never_read_degenerate():
    assert RP.span([2.0, 5.14]) == "by 2.0 to 5.1 points"
    assert RP.span([3.21, 3.19]) == "by 3.2 points"        # equal when rounded: one number, not "3.2 to 3.2"
    assert RP.direction(50.0, 1.0, 51.5, 1.0) == "level with"
    assert RP.direction(50.0, 0.5, 52.0, 0.5) == "below"
    assert RP.masked_sentence(fig8_frame(words=97.7, masked=40.0), "m").endswith(
        "lose about 15 points under masking, m loses 57.7: the word itself still carries much of the last-layer score.")
    framed = fig8_frame(words=97.7, masked=40.0)
    framed.attrs.update(pairs_per_run=2000, pair="de-en")
    # the sentence names its own sample (the old one quoted 97.7 as if it were Table III's cell)
    assert "(Fig. 8's own sample: 2,000 de-en pairs per run, fewer than Table III's" in RP.masked_sentence(framed, "m")


def test_comparison_view_and_headline():
    _, _, t3, _ = toy_tables()
    view, short = RP.comparison_view(t3, "e5-small", runs=10)
    assert short == ["paper's model", "layer", "pair", "paper (points)", "ours: e5-small (points)", "ours 95% CI",
                     "ours - paper"]
    half = 1.96 * 0.3 / 10 ** 0.5
    assert view["ours 95% CI"].tolist() == ["–", f"[{95 - half:.1f}, {95 + half:.1f}]", f"[{90 - half:.1f}, {90 + half:.1f}]"]
    line = RP.headline(t3, "e5-small", "mBERT", runs=10)
    assert line == (f"e5-small's best layer (layer 8) retrieves the translation of 95.0% (95% CI [{95 - half:.1f}, "
                    f"{95 + half:.1f}]) of de-en words in context (weak alignment, S_weak); the paper's mBERT "
                    "scores 94.1%.")


def test_fig5_density_stays_within_cosine_range_and_legend_outside():
    import matplotlib

    matplotlib.use("Agg")
    import numpy as np

    from xalign.papers.gaschi2022 import figures as FG

    rng = np.random.default_rng(0)
    data = pd.concat([pd.DataFrame({"pairs": "dictionary pairs", "cosine": np.clip(rng.normal(0.95, 0.05, 300), -1, 1)}),
                      pd.DataFrame({"pairs": "random pairs", "cosine": rng.normal(0.3, 0.1, 300)})])
    fig = FG.plot_fig5(data, 8, "de-en", "m")
    ax = fig.axes[0]
    assert ax.get_xlim()[1] <= 1.0
    assert all(line.get_xdata().max() <= 1.0 for line in ax.get_lines())
    anchor = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
    assert anchor.x0 >= 1.0                                       # the legend sits right of the axes


def test_mixed_verdicts_and_unchanged_variants_read_as_words():
    items = [("de-en", 91.0, 81.5, 9.5, "above"), ("zh-en", 60.7, 55.5, 5.2, "level with")]
    text = RP._compare_sentence(items, "e5", "mBERT", "S_strong")
    assert text.endswith("e5 is above the paper's mBERT for de-en and level with it for zh-en.")
    variants = pd.DataFrame([{"pair": "en-fr", "variant": "ours", "value": 96.9, "change vs xalign": 0.0},
                             {"pair": "en-fr", "variant": "accents stripped", "value": 96.9, "change vs xalign": -1e-9},
                             {"pair": "en-fr", "variant": "sure only", "value": 89.4, "change vs xalign": -7.5}])
    assert RP.variant_sentence(variants) == "en-fr: ours 96.9; accents stripped 96.9 (unchanged); sure only 89.4 (-7.5)"


def test_table2_names_the_reconstructed_authors_row():
    """#45 finding 8: under "ours: xalign" the row set against the paper's dictionary row says what it is."""
    t2 = pd.DataFrame({"method": ["aligner", RP.OUR_DICTIONARY, "dictionary"], "pair": "en-de",
                       "paper": [71.3, 90.1, 90.1], "ours": [55.0, 88.0, 90.11], "diff": [-16.3, -2.1, 0.01]})
    view, _ = RP.comparison_view(RP.table2_labels(t2), "xalign", 1)
    assert list(view["method"]) == ["aligner", "dictionary (ours)", "dictionary (the authors' extraction, reconstructed)"]
    assert "dictionary" not in set(view["method"])
