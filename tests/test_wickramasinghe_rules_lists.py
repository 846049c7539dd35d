"""Chapter 4: the authors' pruning rule is the default (ours a variant), and the two Sinhala lists
are compared at one size on shared queries (known answers on hand-made vectors)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xalign.data.static import StaticVectors
from xalign.papers.meta import profiles
from xalign.papers.wickramasinghe import experiments as EX
from xalign.papers.wickramasinghe import findings as FD
from xalign.papers.wickramasinghe import report as BR


def test_every_profile_prunes_with_the_authors_rule():
    for name, prof in profiles("wickramasinghe").items():
        assert prof["prune_rule"] == "ascii", name


def labelled(rows):
    """Labelled results: pair, retrieval, pruned, P@1 (exact match, k = 1, the model alone)."""
    out = []
    for (src, tgt), retrieval, pruned, p in rows:
        out.append({"src": src, "tgt": tgt, "method": "none", "retrieval": retrieval, "k": 1, "match": "exact",
                    "pruned": pruned, "precision": p, "lo": p - 2, "hi": p + 2, "coverage": 90.0, "n_queries": 50})
    return BR.label(pd.DataFrame(out), "multilingual")


def test_rule_variant_sets_both_rules_side_by_side():
    ascii_run = labelled([(("en", "zh"), "nn", False, 40.0), (("en", "zh"), "nn", True, 45.0),
                          (("en", "es"), "nn", False, 70.0)])
    script_run = labelled([(("en", "zh"), "nn", False, 40.0), (("en", "zh"), "nn", True, 48.0)])
    got = BR.rule_variant(ascii_run, script_run, "ascii", "script")
    assert got.to_dict("records") == [{"pair": "en-zh", "retrieval": "NN", "unpruned": 40.0,
                                       "pruned, authors' rule": 45.0, "pruned, our rule": 48.0,
                                       "ours - authors' (points)": 3.0}]


def matched_frame(old_p, new_p):
    old = labelled([(("en", "si"), "nn", False, old_p[0]), (("en", "si"), "nn", True, old_p[1])])
    new = labelled([(("en", "si"), "nn", False, new_p[0]), (("en", "si"), "nn", True, new_p[1])])
    frame = BR.sinhala_list_inflation(old, new)
    frame.insert(1, "list size", 20000)
    return frame


def test_sinhala_lists_sentence_calls_a_difference_only_beyond_the_intervals():
    text = FD.sinhala_lists_sentence(matched_frame((30.0, 20.0), (24.0, 19.0)))
    assert "both cut to 20,000 words" in text
    assert "En-Si NN 30.0 vs 24.0 (50 queries), En-Si NN pruned 20.0 vs 19.0 (50 queries)" in text
    assert ("unpruned, the old list scores higher in the one cell, beyond the bootstrap intervals; "
            "pruned, the two lists are level within their bootstrap intervals in the one cell") in text
    assert "level within their bootstrap intervals in the one cell" in FD.sinhala_lists_sentence(
        matched_frame((20.0, 20.0), (21.0, 19.0)))
    assert "scores lower in the one cell" in FD.sinhala_lists_sentence(matched_frame((10.0, 10.0), (20.0, 20.0)))
    mixed = FD.sinhala_lists_sentence(pd.concat([matched_frame((30.0, 20.0), (24.0, 19.0)),
                                                 matched_frame((20.0, 20.0), (20.5, 19.0))]))
    assert "unpruned, the old list is higher in 1, level in 1 of 2 cells; pruned, the two lists are level" in mixed
    assert FD.sinhala_lists_sentence(pd.DataFrame()) == ""


def test_sinhala_lists_matched_cuts_both_lists_and_shares_the_queries(monkeypatch):
    """Old list 4 words, new list 3: both cut to 3; the test pair whose Sinhala word is only in the
    new list is dropped, so both lists answer the same 2 queries."""
    rng = np.random.default_rng(0)
    e = {w: v for w, v in zip(["a", "b", "c", "d"], np.eye(4, dtype=np.float32))}
    en = StaticVectors(list(e), np.stack(list(e.values())))
    new_si = StaticVectors(["A", "B", "C"], np.eye(4, dtype=np.float32)[:3])        # A=a, B=b, C=c
    noise = rng.normal(0, 1e-3, (4, 4)).astype(np.float32)
    old_si = StaticVectors(["A", "B", "X", "D"], np.eye(4, dtype=np.float32) + noise)
    test = [("a", "A"), ("b", "B"), ("c", "C")]
    monkeypatch.setattr(EX, "bli_dictionary", lambda s, t, split: test if (s, t) == ("en", "si")
                        else [(y, x) for x, y in test])
    recorded = {}
    run = SimpleNamespace(record=lambda name, frame, **kw: recorded.setdefault(name, frame))
    got = EX.run_sinhala_lists_matched(run, {"en": en, "si": new_si}, old_si, languages=["si"], prune_languages=[],
                                       prune_rule="ascii")
    assert set(got["list size"]) == {3}
    assert set(got["n_queries (fastText)"]) == {2} and set(got["n_queries (dictionary words)"]) == {2}
    # "X" (the old list's third word) sits where "C" would: the shared queries a->A, b->B are right in both
    assert list(got["precision (fastText)"]) == pytest.approx([100.0] * len(got))
    assert list(got["precision (dictionary words)"]) == pytest.approx([100.0] * len(got))
    assert "sinhala_lists_matched" in recorded


def test_sinhala_lists_matched_is_empty_without_shared_test_words(monkeypatch):
    en = StaticVectors(["a", "b"], np.eye(2, dtype=np.float32))
    monkeypatch.setattr(EX, "bli_dictionary", lambda s, t, split: [("a", "Z")] if s == "en" else [("Z", "a")])
    run = SimpleNamespace(record=lambda name, frame, **kw: frame)
    si = StaticVectors(["A", "B"], np.eye(2, dtype=np.float32))
    assert EX.run_sinhala_lists_matched(run, {"en": en, "si": si}, si, languages=["si"], prune_languages=[],
                                        prune_rule="ascii").empty
