"""BLI evaluation: P@k (NN, CSLS) against a brute-force reference, coverage, Algorithm 1, pruning."""

import numpy as np
import pytest

from xalign.data.scripts import authors_ascii_keep, in_script, script_mask, scripts_of
from xalign.data.static import StaticVectors
from xalign.measures.bli import build_lexicon, evaluate_bli, exact_hits, query_hits, stem_hits
from xalign.measures.bli_grid import evaluate_directions


def _unit(x):
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def _brute_force_precision(S, T, src_words, tgt_words, pairs, k_at, retrieval, csls_k=10):
    """P@k by explicit loops over full similarity matrices (the reference)."""
    Su, Tu = _unit(S.astype(np.float64)), _unit(T.astype(np.float64))
    cos = Su @ Tu.T
    if retrieval == "csls":
        r_t = np.array([np.sort(Tu[j] @ Su.T)[::-1][:csls_k].mean() for j in range(len(Tu))])
        r_s = np.array([np.sort(cos[i])[::-1][:csls_k].mean() for i in range(len(Su))])
        score = 2 * cos - r_s[:, None] - r_t[None, :]
    else:
        score = cos
    gold = {}
    for s, t in pairs:
        gold.setdefault(s, set())
        if s in src_words and t in tgt_words:
            gold[s].add(t)
    hits = []
    for s, g in gold.items():
        if not g:
            continue
        i = src_words.index(s)
        order = sorted(range(len(tgt_words)), key=lambda j: -score[i, j])[:k_at]
        hits.append(any(tgt_words[j] in g for j in order))
    return 100.0 * np.mean(hits), 100.0 * len(hits) / len(gold)


@pytest.fixture
def toy_spaces():
    rng = np.random.default_rng(0)
    src_words = [f"s{i}" for i in range(60)]
    tgt_words = [f"t{i}" for i in range(80)]
    T = rng.normal(size=(80, 8)).astype(np.float32)
    # source word i is a noisy copy of target word i: some retrievals succeed, some do not
    S = (T[:60] + rng.normal(scale=0.9, size=(60, 8))).astype(np.float32)
    pairs = [(f"s{i}", f"t{i}") for i in range(40)] + [("s3", "t50"), ("s4", "t61"), ("s77", "t1"),
                                                       ("s5", "t999")]
    return StaticVectors(src_words, S), StaticVectors(tgt_words, T), pairs


@pytest.mark.parametrize("retrieval", ["nn", "csls"])
def test_precision_at_k_matches_brute_force(toy_spaces, retrieval):
    src, tgt, pairs = toy_spaces
    df = evaluate_bli(src, tgt, pairs, ks=(1, 5, 10), retrievals=(retrieval,), csls_k=5, block=7)
    for k in (1, 5, 10):
        ref, cov = _brute_force_precision(src.vectors, tgt.vectors, src.words, tgt.words, pairs, k, retrieval,
                                          csls_k=5)
        row = df[(df.k == k) & (df.retrieval == retrieval)].iloc[0]
        assert row.precision == pytest.approx(ref)
        assert row.coverage == pytest.approx(cov)
    # the test is informative: precision is neither 0 nor 100 and grows with k
    p = df.set_index("k").precision
    assert 0 < p[1] < p[10] < 100


@pytest.mark.parametrize("k", [1, 5])
def test_query_hits_are_the_items_of_precision_at_k(toy_spaces, k):
    """Per-query hits (what the card keeps to compare models on the same queries) average to evaluate_bli's P@k."""
    src, tgt, pairs = toy_spaces
    hits = query_hits(src, tgt, pairs, ("nn", "csls"), csls_k=5, k=k)
    df = evaluate_bli(src, tgt, pairs, ks=(k,), csls_k=5)
    for retrieval, h in hits.items():
        assert h.dtype == bool and len(h) == len(build_lexicon(pairs, src.index, tgt.index).sources)
        assert 100 * h.mean() == pytest.approx(df[df.retrieval == retrieval].precision.item())
    assert query_hits(src, tgt, [("nope", "t1")])["nn"].shape == (0,)


def test_lexicon_coverage_counts_source_words():
    pairs = [("cat", "gato"), ("cat", "gata"), ("dog", "perro"), ("fish", "pez"), ("bird", "ave")]
    lex = build_lexicon(pairs, {"cat", "dog", "bird"}, {"gata", "perro", "pez"})
    assert lex.sources == ["cat", "dog"]
    assert lex.gold == [frozenset({"gata"}), frozenset({"perro"})]
    assert lex.n_total == 4
    assert lex.coverage == pytest.approx(50.0)
    with pytest.raises(ValueError):
        build_lexicon([], {"a"}, {"b"})


def test_exact_hits_any_gold_counts():
    preds = [["a", "b", "c"], ["x", "y", "z"], ["q", "r", "g"]]
    gold = [frozenset({"b"}), frozenset({"nope"}), frozenset({"g", "h"})]
    assert exact_hits(preds, gold, 1).tolist() == [False, False, False]
    assert exact_hits(preds, gold, 2).tolist() == [True, False, False]
    assert exact_hits(preds, gold, 3).tolist() == [True, False, True]


def _toy_stem(word: str) -> str:
    """A toy stemmer: strip one of the suffixes 'ing', 'ed', 's'."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            return word[: -len(suffix)]
    return word


def test_algorithm1_stem_based_soft_match():
    preds = [
        ["walk", "tree"],      # gold itself retrieved: exact hit
        ["walks", "tree"],     # stem(walks) = walk = gold -> soft hit
        ["tree", "walk"],      # gold 'walked' not retrieved; stem(gold) = walk is retrieved -> soft hit
        ["walking", "tree"],   # stem(gold walked)=walk, stem(walking)=walk -> soft hit
        ["talks", "tree"],     # stems differ -> miss
        ["tree", "walks"],     # at k=1 a miss, at k=2 a soft hit
        ["car", "walk"],       # gold 'car' retrieved exactly
    ]
    gold = [frozenset({"walk"}), frozenset({"walk"}), frozenset({"walked"}), frozenset({"walked"}),
            frozenset({"walked"}), frozenset({"walked"}), frozenset({"car"})]
    soft1 = stem_hits(preds, gold, 1, stem=_toy_stem)
    assert soft1.tolist() == [True, True, False, True, False, False, True]
    soft2 = stem_hits(preds, gold, 2, stem=_toy_stem)
    assert soft2.tolist() == [True, True, True, True, False, True, True]
    # never below the exact match, and the batch stemmer gives the same answer
    assert (soft2 >= exact_hits(preds, gold, 2)).all()
    batch = stem_hits(preds, gold, 2, stem_many=lambda ws: [_toy_stem(w) for w in ws])
    assert batch.tolist() == soft2.tolist()
    with pytest.raises(ValueError):
        stem_hits(preds, gold, 1)


def test_evaluate_bli_adds_stem_rows():
    class Toy:
        name = "toy"

        @staticmethod
        def stem_many(ws):
            return [_toy_stem(w) for w in ws]

    src = StaticVectors(["go"], np.array([[1.0, 0.0]], np.float32))
    tgt = StaticVectors(["walks", "walked"], np.array([[1.0, 0.1], [0.0, 1.0]], np.float32))
    df = evaluate_bli(src, tgt, [("go", "walked")], ks=(1,), retrievals=("nn",), stemmer=Toy())
    got = df.set_index("match").precision
    assert got["exact"] == 0.0 and got["stem"] == 100.0


# ---------------------------------------------------------------- pruning by script

VOCAB = ["猫", "the", "ねこ", "コーヒー", "кот", "2010", "උපක්‍රමය", "பூனை", "cat", "日本語abc", "ｃａｔ",
         "пёс", "ĉu", "पुस्तक", "", "—", "猫猫"]


@pytest.mark.parametrize("lang,expected", [
    ("zh", ["猫", "猫猫"]),
    ("ja", ["猫", "ねこ", "コーヒー", "猫猫"]),
    ("ru", ["кот", "пёс"]),
    ("si", ["උපක්‍රමය"]),   # with its zero-width joiner
    ("ta", ["பூனை"]),
    ("en", ["the", "cat", "ｃａｔ", "ĉu"]),  # full-width Latin letters are Latin script
])
def test_pruning_keeps_exactly_the_target_script_words(lang, expected):
    mask = script_mask(VOCAB, lang)
    assert [w for w, m in zip(VOCAB, mask) if m] == expected


def test_authors_ascii_rule_keeps_mixed_tokens_and_drops_latin1():
    """The authors' not_ASCII: a word is dropped only when every character is below U+0100."""
    mask = script_mask(["3月", "café", "cat", "日本語abc", "ĉu", "ｃａｔ", "кот", ""], rule="ascii")
    assert mask.tolist() == [True, False, False, True, True, True, True, False]
    assert authors_ascii_keep("3月") and not authors_ascii_keep("café") and not authors_ascii_keep("")
    # our rule (script) is stricter: "3月" is not written in Han only
    assert script_mask(["3月", "月"], "zh").tolist() == [False, True]


def test_script_rule_errors():
    assert in_script("ー", scripts_of("ja"))
    with pytest.raises(KeyError):
        scripts_of("xx")
    with pytest.raises(ValueError):
        in_script("a", ("NotAScript",))
    with pytest.raises(ValueError, match="authors"):
        script_mask(VOCAB, "zh", rule="bogus")


def test_evaluate_directions_prunes_only_the_named_languages():
    # English 'cat' sits in the Chinese vocabulary with the same vector as the source word:
    # unpruned, NN retrieves it; pruned to Han script, the true translation wins.
    en = StaticVectors(["cat", "dog"], np.array([[1, 0, 0], [0, 1, 0]], np.float32))
    zh = StaticVectors(["cat", "猫", "狗"], np.array([[1, 0, 0], [0.9, 0, 0.1], [0, 1, 0]], np.float32))
    test = [("cat", "猫"), ("dog", "狗")]

    def dictionary(s, t, split):
        return test

    res, fits = evaluate_directions([("en", "zh")], {"en": en, "zh": zh}, dictionary, methods=("none",),
                                    retrievals=("nn",), ks=(1,), prune_langs=("zh",), progress=False)
    got = res.set_index("pruned").precision
    assert got[False] == 50.0 and got[True] == 100.0
    assert fits.empty
    with pytest.raises(ValueError):
        evaluate_directions([("en", "zh")], {"en": en, "zh": zh}, dictionary, methods=("bogus",))
    with pytest.raises(KeyError):
        evaluate_directions([("en", "fr")], {"en": en}, dictionary, methods=("none",))
