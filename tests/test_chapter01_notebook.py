"""Chapter 1's smoke run (from the shared book build): values checked against known answers."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def independent_dictionary_pairs(src, tgt, dictionary):
    """(i, j) pairs the dictionary makes certain, written from the paper's Sec. III-A and the
    authors' three rules with plain loops (not xalign's extractor)."""
    out = []
    for i, w in enumerate(src):
        present = {x for x in dictionary.get(w, ()) if x in tgt}
        if len(present) != 1:
            continue
        (x,) = present
        if tgt.count(x) != 1:
            continue
        n_sources = sum(1 for v in src if x in dictionary.get(v, ()))
        if n_sources == 1:
            out.append((i, tgt.index(x)))
    return out


def test_chapter01_table2_dictionary_precision_is_the_known_answer(built_book):
    """Table II's dictionary row needs no model: recompute it from the gold files directly."""
    from xalign.data import corpora as C

    res = smoke_results(built_book, "01_weak_strong_alignment")
    row = next(r for r in res["tables"]["table2"]["rows"] if r["method"] == "dictionary" and r["pair"] == "en-fr")
    gold, dictionary = C.gold_alignment("en-fr"), C.muse_dictionary("en-fr")
    n = hits = 0
    for s, t, links in zip(gold.src, gold.tgt, gold.possible):
        pairs = independent_dictionary_pairs([w.lower() for w in s], [w.lower() for w in t], dictionary)
        n += len(pairs)
        hits += sum(p in links for p in pairs)
    assert row["n pairs"] == n
    assert row["ours"] == pytest.approx(100 * hits / n)
    first = next(r for r in res["tables"]["table2_variants"]["rows"] if r["pair"] == "en-fr")
    assert first["value"] == pytest.approx(100 * hits / n)   # the variants table starts from the same number


def test_chapter01_strong_alignment_tables_agree(built_book):
    """Table IV's S_strong is the 'authors' definition' column of the before/after table, and
    Table III's best S_weak is a score in [0, 100]."""
    res = smoke_results(built_book, "01_weak_strong_alignment")
    t4 = {(r["pair"], r["layer"]): r["ours"] for r in res["tables"]["table4"]["rows"] if r.get("ours") is not None
          and r["model"] != "FastText"}
    ba = {(r["pair"], r["layer"]): r["authors' definition"] for r in res["tables"]["table4_before_after"]["rows"]}
    assert t4 and set(t4) == set(ba)
    for key, v in t4.items():
        assert v == pytest.approx(ba[key])
    assert all(0 <= r["ours"] <= 100 for r in res["tables"]["table3"]["rows"] if r.get("ours") is not None)
