"""The BTSR builder: sense clusters, contextualisation (non-parallel contexts), candidates, P@k."""

from collections import Counter

import numpy as np
import pytest

from xalign.data.wordnet import Synset
from xalign.data.words import tokenize, valid_word
from xalign.measures.btsr.testset import (
    BTSRItem,
    BTSRSet,
    build_btsr,
    candidate_space,
    check_non_parallel,
    contextualize,
    precision_at_k,
    select_items,
    sense_clusters,
    translation_pairs,
)

# a toy wordnet: "bank" has 3 senses, two of which share the Spanish "banco"
SYNSETS = {
    "00000001-n": Synset("00000001-n", "n", ("bank", "depository")),
    "00000002-n": Synset("00000002-n", "n", ("bank",)),
    "00000003-n": Synset("00000003-n", "n", ("bank", "slope")),
    "00000004-n": Synset("00000004-n", "n", ("river",)),
    "00000005-v": Synset("00000005-v", "v", ("swim",)),
}
OMW = {"00000001-n": ["banco"], "00000002-n": ["banco", "banca"], "00000003-n": ["orilla"],
       "00000004-n": ["río"], "00000005-v": ["nadar", "dos palabras"]}

# a toy parallel corpus (every sentence distinct on both sides) and hand-made links
SRC = ["the bank is closed", "the bank of the river", "a bank lends money", "we swim in the river",
       "the river is long", "they swim every day", "my bank is near the river"]
TGT = ["el banco está cerrado", "la orilla del río", "un banco presta dinero", "nadamos en el río",
       "el río es largo", "ellos nadan cada día", "mi banco está cerca del río"]
LINKS = [{(1, 1)}, {(1, 1), (4, 3)}, {(1, 1)}, {(1, 0), (4, 3)}, {(1, 1)}, set(), {(1, 1), (5, 5)}]


def toks():
    return [tokenize(s, "en") for s in SRC], [tokenize(t, "es") for t in TGT]


def test_sense_clusters_merge_senses_sharing_a_translation():
    tr = {k: set(v) for k, v in OMW.items()}
    clusters = sense_clusters(["00000001-n", "00000002-n", "00000003-n"], tr)
    assert [sorted(m) for m, _ in clusters] == [["00000001-n", "00000002-n"], ["00000003-n"]]
    assert clusters[0][1] == {"banco", "banca"} and clusters[1][1] == {"orilla"}


def test_translation_pairs_and_ambiguity():
    pairs, src_amb, _tgt_amb = translation_pairs(SYNSETS, OMW, "es", query="all")
    got = {(p.src, p.tgt, p.cluster) for p in pairs}
    assert ("bank", "banco", 0) in got and ("bank", "banca", 0) in got and ("bank", "orilla", 1) in got
    assert ("swim", "nadar", 0) in got
    assert not any(p.tgt == "dos palabras" for p in pairs)  # multi-word translations are dropped
    assert src_amb["bank"] == 2 and src_amb["river"] == 1
    # "slope" is only reachable with query="all"; first_lemma keeps one word per synset
    first, _, _ = translation_pairs(SYNSETS, OMW, "es", query="first_lemma")
    assert "slope" not in {p.src for p in first} and "slope" in {p.src for p in pairs}


def test_valid_word():
    assert valid_word("banco", "es") and not valid_word("dos palabras", "es") and not valid_word("b2b", "es")
    assert valid_word("制服", "zh") and not valid_word("制服s", "zh")


def test_contextualize_uses_two_different_sentence_pairs():
    src, tgt = toks()
    pairs, _, _ = translation_pairs(SYNSETS, OMW, "es", query="all")
    for seed in range(20):
        items = contextualize(pairs, src, tgt, LINKS, seed)
        by = {(i.src_word, i.tgt_word): i for i in items}
        # bank-banco is aligned in sentence pairs 0, 2 and 6; river-río in 1, 3, 4 and 6; bank-orilla only in 1
        assert set(by) == {("bank", "banco"), ("river", "río")}
        for it in items:
            assert it.src_sent != it.tgt_sent
            assert src[it.src_sent][it.src_index].text == it.src_word
            assert tgt[it.tgt_sent][it.tgt_index].text == it.tgt_word
        assert by[("bank", "banco")].n_contexts == 3 and by[("river", "río")].n_contexts == 4
        check_non_parallel(items, SRC, TGT)


def test_non_parallel_check_catches_shared_sentences():
    bad = [BTSRItem("bank", "banco", 0, 2, 1, 2, 1, 2)]
    with pytest.raises(AssertionError, match="both contexts"):
        check_non_parallel(bad, SRC, TGT)
    dup_src = SRC + [SRC[0]]
    with pytest.raises(AssertionError, match="share a sentence"):
        check_non_parallel([BTSRItem("bank", "banco", 0, 0, 1, 7, 1, 2)], dup_src, TGT + ["otra frase"])


def test_select_items_by_frequency_or_ambiguity():
    items = [BTSRItem(s, t, 0, 0, 0, 1, 0, 2) for s, t in [("a", "x"), ("b", "y"), ("c", "z")]]
    kept = select_items(items, Counter({"a": 5, "b": 1, "c": 1}), Counter(), {"c": 3}, {}, top=1)
    assert [i.src_word for i in kept] == ["a", "c"]
    assert len(select_items(items, Counter(), Counter(), {}, {}, top=0)) == 3
    assert len(select_items(items, Counter(), Counter(), {}, {}, top=0, n_max=2)) == 2


def test_candidate_space_first_reading_excludes_test_words_and_test_sentences():
    _src, tgt = toks()
    items = [BTSRItem("bank", "banco", 0, 0, 1, 2, 1, 3)]
    cands, gold, counts = candidate_space(items, tgt, 100, "es", 0)
    assert cands[0] == (2, 1) and list(gold) == [0]
    fillers = cands[1:]
    assert len(fillers) == counts["filler_words_available"]
    words = [tgt[k][j].text for k, j in fillers]
    assert len(set(words)) == len(words) and "banco" not in words
    assert not {k for k, _ in fillers} & {0, 2}
    assert counts["same_form_distractors"] == 0
    few, _, _ = candidate_space(items, tgt, 3, "es", 0)
    assert len(few) == 3


def test_candidate_space_holds_every_contextualised_target():
    _src, tgt = toks()
    items = [BTSRItem("bank", "banco", 0, 0, 1, 2, 1, 3)]
    others = [BTSRItem("depository", "banco", 0, 5, 1, 6, 1, 2), BTSRItem("river", "río", 0, 3, 4, 4, 1, 4),
              BTSRItem("bank", "banco", 0, 0, 1, 2, 1, 3)]  # the test item itself: one row, not two
    cands, gold, counts = candidate_space(items, tgt, 100, "es", 0, items + others)
    assert cands[gold[0]] == (2, 1)
    assert (6, 1) in cands and (4, 1) in cands and len(set(cands)) == len(cands)
    assert counts["same_form_distractors"] == 1 and counts["items_with_same_form_distractor"] == 1
    two = [items[0], BTSRItem("depository", "banco", 0, 5, 1, 6, 1, 2)]  # two test pairs, one form
    _, _, c2 = candidate_space(two, tgt, 100, "es", 0, two)
    assert c2["same_form_distractors"] == 2 and c2["items_with_same_form_distractor"] == 2
    fillers = {tgt[k][j].text for k, j in cands if (k, j) not in {(2, 1), (6, 1), (4, 1)}}
    assert not fillers & {"banco", "río"}  # other words only


# "bench" is also "banco": two source words give one Spanish form in two senses
BENCH_SYNSETS = {**SYNSETS, "00000006-n": Synset("00000006-n", "n", ("bench",))}
BENCH_OMW = {**OMW, "00000006-n": ["banco"]}
BENCH_SRC = SRC + ["the bench is old", "a bench in the park"]
BENCH_TGT = TGT + ["el banco es viejo", "un banco en el parque"]
BENCH_LINKS = LINKS + [{(1, 1)}, {(1, 1)}]


def test_btsr_set_contains_a_same_form_distractor():
    """A test pair's target word also appears among the candidates in another pair's sense (paper Sec. 4)."""
    src, tgt = [tokenize(s, "en") for s in BENCH_SRC], [tokenize(t, "es") for t in BENCH_TGT]
    pairs, sa, ta = translation_pairs(BENCH_SYNSETS, BENCH_OMW, "es", query="all")
    pairs = [p for p in pairs if p.tgt == "banco"]
    for seed in range(6):
        b = build_btsr(pairs, sa, ta, BENCH_SRC, BENCH_TGT, src, tgt, BENCH_LINKS, "es", seed=seed, top=0,
                       n_test=1, n_candidates=50)
        assert len(b.items) == 1
        it = b.items[0]
        forms = [tgt[k][j].text for k, j in b.candidates]
        gold = int(np.asarray(b.gold)[0])
        assert forms[gold] == it.tgt_word == "banco"
        distractors = [r for r, f in enumerate(forms) if f == "banco" and r != gold]
        assert distractors, f"seed {seed}: no same-form distractor among {len(forms)} candidates"


def test_selection_ranks_frequency_in_the_corpus_not_among_the_items():
    items = [BTSRItem("bank", "banco", 0, 0, 1, 2, 1, 2), BTSRItem("river", "río", 0, 1, 4, 3, 3, 2)]
    freq = Counter({"the": 10, "a": 5, "bank": 2, "river": 1})  # "bank" is frequent only among the items
    assert select_items(items, freq, Counter(), {}, {}, top=1) == []
    assert [i.src_word for i in select_items(items, freq, Counter(), {}, {}, top=3)] == ["bank"]
    # ambiguity is ranked over the whole lexicon too
    amb = {"bank": 2, "run": 9, "river": 1}
    assert select_items(items, Counter(), Counter(), amb, {}, top=1) == []
    with pytest.raises(ValueError, match="rank_among"):
        select_items(items, freq, Counter(), {}, {}, top=1, rank_among="mine")


def test_precision_at_k_breaks_ties_at_random():
    Q = np.array([[1.0, 0.0]])
    C = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0]])  # the gold and a same-direction twin tie
    assert precision_at_k(Q, C, np.array([0]), ks=(1, 2))[1] == pytest.approx(0.5)
    assert precision_at_k(Q, C, np.array([1]), ks=(1, 2))[2] == pytest.approx(1.0)
    assert precision_at_k(Q, C, np.array([0]), ks=(1,), ties="gold_first")[1] == 1.0


def test_build_btsr_is_deterministic_and_non_parallel():
    src, tgt = toks()
    pairs, sa, ta = translation_pairs(SYNSETS, OMW, "es", query="all")
    a = build_btsr(pairs, sa, ta, SRC, TGT, src, tgt, LINKS, "es", seed=3, top=0, n_candidates=10)
    b = build_btsr(pairs, sa, ta, SRC, TGT, src, tgt, LINKS, "es", seed=3, top=0, n_candidates=10)
    assert a.to_json() == b.to_json()
    assert a.stats["test_pairs"] == 2 and len(a.candidates) <= 10
    assert BTSRSet.from_json(a.to_json()).to_json() == a.to_json()
    check_non_parallel(a.items, SRC, TGT)


def brute_force_precision(Q, C, gold, k):
    Qn = Q / np.linalg.norm(Q, axis=1, keepdims=True)
    Cn = C / np.linalg.norm(C, axis=1, keepdims=True)
    S = Qn @ Cn.T
    hits = 0
    for i, g in enumerate(gold):
        better = (S[i] > S[i, g]).sum()  # candidates strictly closer than the gold one
        hits += better < k
    return hits / len(gold)


def test_precision_at_k_matches_brute_force():
    rng = np.random.default_rng(0)
    Q, C = rng.normal(size=(60, 8)), rng.normal(size=(300, 8))
    gold = rng.integers(0, 300, size=60)
    C[gold[:20]] = Q[:20] + 0.01 * rng.normal(size=(20, 8))  # a third are easy
    got = precision_at_k(Q, C, gold, ks=(1, 5, 10))
    for k in (1, 5, 10):
        assert got[k] == pytest.approx(brute_force_precision(Q, C, gold, k))
    assert got[1] >= 20 / 60


def test_precision_at_k_checks_lengths():
    with pytest.raises(ValueError, match="gold"):
        precision_at_k(np.ones((3, 2)), np.ones((4, 2)), np.arange(2))


def _many_pairs_corpus(n_words=12, n_sents=5):
    """Word k ("wk" / "pk") aligned in sentence pairs of its own (word 0 in two, the others in ``n_sents``)."""
    from xalign.measures.btsr.testset import TranslationPair

    src_texts, tgt_texts, links, pairs = [], [], [], []
    for k in range(n_words):
        pairs.append(TranslationPair(f"w{k}", f"p{k}", 0, (f"{k:08d}-n",)))
        for s in range(2 if k == 0 else n_sents):
            src_texts.append(f"w{k} s{k}x{s}")
            tgt_texts.append(f"p{k} t{k}x{s}")
            links.append({(0, 0)})
    return pairs, src_texts, tgt_texts, links


def test_one_changed_link_changes_only_its_own_items_draw():
    """Draws per item: removing one link of word 0 (which drops its item: one context left) leaves every
    other item's two contexts as they were (with one generator shared by all items, later draws moved)."""
    pairs, src_texts, tgt_texts, links = _many_pairs_corpus()
    src, tgt = [tokenize(s, "en") for s in src_texts], [tokenize(t, "es") for t in tgt_texts]
    changed = [set(ls) for ls in links]
    changed[0] = set()  # word 0 keeps one aligned context: no item
    moved = 0
    for seed in range(6):
        a = build_btsr(pairs, {}, {}, src_texts, tgt_texts, src, tgt, links, "es", seed=seed, top=0,
                       n_candidates=200)
        b = build_btsr(pairs, {}, {}, src_texts, tgt_texts, src, tgt, changed, "es", seed=seed, top=0,
                       n_candidates=200)
        ctx = lambda s: {(i.src_word, i.tgt_word): (i.src_sent, i.tgt_sent) for i in s.items}
        before, after = ctx(a), ctx(b)
        assert ("w0", "p0") in before and ("w0", "p0") not in after
        assert set(before) - {("w0", "p0")} == set(after)
        moved += sum(before[k] != after[k] for k in after)
    assert moved == 0, f"{moved} other items' contexts changed"


def test_a_sample_keeps_its_members_when_an_item_is_added():
    from xalign.core.draws import sample_indices

    items = [["item", k] for k in range(50)]
    base = {tuple(items[i]) for i in sample_indices(5, items, 10)}
    grown = {tuple((items + [["item", 99]])[i]) for i in sample_indices(5, items + [["item", 99]], 10)}
    assert len(base - grown) <= 1  # at most the one pushed out by the newcomer
    assert sample_indices(5, items, 10).tolist() == sample_indices(5, items, 10).tolist()
    with pytest.raises(ValueError, match="seed"):
        sample_indices(-1, items, 3)
