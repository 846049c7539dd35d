"""What BTSR can see of senses (issue 34, findings 8-10): the word-form ceiling, the items with a
same-form distractor, every map against no map, and BL(word) without zero vectors."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from xalign.measures.btsr.testset import BTSRItem, BTSRSet, precision_at_k
from xalign.papers.liu2020 import report, senses


def test_word_form_ceiling_known_answers():
    # gold forms: a (3 candidates share it), b (alone), c (2): b = 3, 1, 2
    forms = ["a", "b", "a", "c", "a", "c", "d"]
    gold = np.array([0, 1, 3])
    counts = senses.same_form_counts(forms, gold)
    assert counts.tolist() == [3, 1, 2]
    ceil = senses.word_form_ceiling(counts, ks=(1, 2, 5))
    assert ceil[1] == pytest.approx((1 / 3 + 1 + 1 / 2) / 3)
    assert ceil[2] == pytest.approx((2 / 3 + 1 + 1) / 3)
    assert ceil[5] == 1.0  # no gold shares its form with more than 5 candidates: P@5 cannot see senses
    # it is exactly what precision_at_k gives a retriever whose vectors are the word forms (one-hot)
    onehot = {f: np.eye(4)[i] for i, f in enumerate("abcd")}
    C = np.stack([onehot[f] for f in forms])
    assert precision_at_k(C[gold], C, gold, (1, 2, 5)) == pytest.approx(ceil)
    with pytest.raises(ValueError, match=">= 1"):
        senses.word_form_ceiling(np.array([0, 2]))


class _Identity:
    def transform_src(self, X):
        return np.asarray(X, float)

    def transform_tgt(self, X):
        return np.asarray(X, float)


def _tok(words):
    return [SimpleNamespace(text=w) for w in words]


def _fake_space(monkeypatch, type_vecs, token_vecs, src_known, tgt_known):
    """Three test items (query words q0 q1 q2, golds in candidate rows 0, 1, 2) and four candidates
    (words g0 g1 g2 x3); ``*_known``: the words with a training type vector."""
    items = [BTSRItem(f"q{i}", f"g{i}", 0, 0, i, i, 0, 2) for i in range(3)]
    b = BTSRSet("en", "zh", items, [(i, 0) for i in range(4)], {}, [0, 1, 2])
    data = SimpleNamespace(btsr=b, src_tokens=[_tok(["q0", "q1", "q2"])],
                           tgt_tokens=[_tok(["g0"]), _tok(["g1"]), _tok(["g2"]), _tok(["x3"])])
    sp = SimpleNamespace(data=data, avg_src=SimpleNamespace(index={w: 0 for w in src_known}),
                         avg_tgt=SimpleNamespace(index={w: 0 for w in tgt_known}))
    monkeypatch.setattr(senses, "btsr_vectors", lambda sp, kind: type_vecs if kind == "type" else token_vecs)
    monkeypatch.setattr(senses, "fit", lambda *a, **k: _Identity())
    return sp


def test_bl_word_never_scores_a_zero_vector_as_real(monkeypatch):
    e = np.eye(4)
    # type vectors: q1 has none (zero row), g2 and x3 have none; q0 -> g0, q2 points at g2
    Qt = np.stack([e[0], np.zeros(4), e[2]])
    Ct = np.stack([e[0], e[1], np.zeros(4), np.zeros(4)])
    Qk, Ck = np.stack([e[0], e[1], e[2]]), np.stack([e[0], e[1], e[2], e[3]])
    sp = _fake_space(monkeypatch, (Qt, Ct), (Qk, Ck), {"q0", "q2"}, {"g0", "g1"})
    # the old scoring: q1's zero vector ties with every candidate, so P@5 over 4 candidates counts it a hit
    old = precision_at_k(Qt, Ct, np.array([0, 1, 2]), (1, 5))
    assert old[5] == pytest.approx(1.0)
    rows = senses.word_baseline(sp, n=None).set_index("baseline")
    miss = rows.loc[report.BL_WORD_MISS]
    # only q0 (query and gold covered) can be right: 1 of 3 items
    assert (miss.btsr_p1, miss.btsr_p5, miss.n_items) == (pytest.approx(1 / 3), pytest.approx(1 / 3), 3)
    cov = rows.loc[report.BL_WORD_COVERED]
    assert (cov.btsr_p1, cov.btsr_p5, cov.n_items) == (1.0, 1.0, 1)
    tok = rows.loc[report.MIM_COVERED]
    assert tok.n_items == 1 and tok.btsr_p1 == 1.0
    assert int(cov["queries without a vector"]) == 1 and int(cov["candidates without a vector"]) == 2


def test_every_map_is_scored_on_all_items_and_on_the_distractor_items(monkeypatch):
    e = np.eye(4)
    # candidate 3 shares gold 0's form: item 0 is the only one with a same-form distractor
    Qk = np.stack([e[3], e[1], e[2]])  # item 0's query is closest to the distractor, not its gold
    Ck = np.stack([e[0], e[1], e[2], e[3]])
    sp = _fake_space(monkeypatch, None, (Qk, Ck), set(), set())
    sp.data.tgt_tokens[3] = _tok(["g0"])
    monkeypatch.setattr(senses, "unmapped_alignment", lambda *a, **k: _Identity())
    monkeypatch.setattr(senses, "grid_fits", lambda sp, level, signal, size, techniques: [_Identity()] * len(techniques))
    scores = senses.map_scores(sp, 10, [("avg_type", "wa"), ("avg_type", "dict")], techniques=("orig",))
    assert scores["method"].tolist() == ["no mapping (centred)", "avg_type wa orig", "avg_type dict orig"]
    assert scores["n"].tolist() == [0, 10, 0]
    assert scores["btsr_p1"].iloc[0] == pytest.approx(2 / 3)
    assert scores["btsr_p1_distractor"].iloc[0] == 0.0 and scores["n_distractor_items"].iloc[0] == 1
    every = report.every_map_table(scores.assign(variant="v"))
    assert every["P@1 change (points)"].tolist() == [0.0, 0.0, 0.0]
    text = report.every_map_summary(every)
    assert "the 2 maps change BTSR P@1 by +0.0 to +0.0 points: none moves it the same way for the one seed run " \
           "(unstable)" in text
    assert "best" not in text


def test_word_form_note_and_every_map_summary_follow_the_numbers():
    wf = pd.DataFrame([{"variant": "multi_en->multi_zh", "test items": 349, "items with a same-form distractor": 119,
                        "most candidates sharing a gold's form": 4, "word-form ceiling P@1 (%)": 81.3,
                        "word-form ceiling P@5 (%)": 100.0, "word-form ceiling P@1, distractor items (%)": 45.2,
                        "word-form ceiling P@5, distractor items (%)": 100.0}])
    note = report.word_form_note(wf)
    assert "119 of 349 test items" in note and "P@5 = 100.0 % and P@1 = 81.3 %" in note
    assert "P@5 cannot tell senses apart" in note
    assert "can tell senses apart only below" in report.word_form_note(wf.assign(**{"word-form ceiling P@5 (%)": 97.0}))
    assert report.ceiling_of(wf) == {"multi_en->multi_zh": 100.0}
    rows = [{"variant": "v", "method": m, "n": 10, "P@1 (%)": 40 + d, "P@5 (%)": 90.0, "P@1, distractor items (%)": 20.0,
             "P@5, distractor items (%)": 90.0, "P@1 change (points)": d, "P@5 change (points)": 0.0,
             "P@1 change, distractor items (points)": d / 2, "distractor items": 119}
            for m, d in (("no mapping (centred)", 0.0), ("a", 7.0), ("b", -6.0), ("c", 1.0))]
    text = report.every_map_summary(pd.DataFrame(rows))
    assert "the 3 maps change BTSR P@1 by -6.0 to +7.0 points: 2 raise it, 1 lower it for the one seed run" in text
    # over seeds: a map whose change flips sign with the seed is unstable, not counted either way
    changes = pd.DataFrame([{"seed": s, "variant": "v", "method": m, "change": d + (s == 1) * shift}
                            for s in (0, 1, 2) for m, d, shift in (("a", 7.0, 0.0), ("b", -6.0, 0.0), ("c", 1.0, -2.0))])
    text = report.every_map_summary(pd.DataFrame(rows), changes)
    assert "1 raise it, 1 lower it for each of the 3 seeds, 1 unstable (the sign changes with the seed)" in text
    assert "on the 119 items with a same-form distractor (first seed), by -3.0 to +3.5" in text
    # #45 finding 6: the range over the maps is the mean over the seeds, not the first seed's (c: +1.0, -1.0, +1.0)
    changes.loc[(changes.method == "b") & (changes.seed == 2), "change"] = -9.0
    text = report.every_map_summary(pd.DataFrame(rows), changes)
    assert "change BTSR P@1 by -7.0 to +7.0 points, mean over the 3 seeds" in text
    assert "P@1 40.0 %, first seed" in text
