"""Translated-in-context pair extraction on a hand-made dictionary and sentences."""

import numpy as np
import pytest

from xalign.data import word_pairs as PR
from xalign.data.words import Token, punct_tokens, tokenize

DICT = {
    "die": {"the"}, "katze": {"cat"}, "schläft": {"sleeps"}, "der": {"the", "of the"},
    "hund": {"dog"}, "und": {"and"}, "ist": {"is"}, "groß": {"big", "tall", "large"},
    "haus": {"house", "home"}, "das": {"the", "that"},
}


def extract(src, tgt, dictionary=DICT, distinct=True):
    s, t = PR.tokenize_parallel(list(zip(src, tgt)), "de", "en", dictionary)
    return PR.extract_dictionary_pairs(s, t, dictionary, distinct=distinct)


def words(pairs):
    return [(p.src.text, p.tgt.text) for p in pairs]


def test_keeps_only_certain_pairs():
    got = extract(["Die Katze schläft und der Hund schläft"], ["The cat sleeps and the dog sleeps"])
    # "die"/"der" -> "the" occurs twice in the target: rejected; "schläft" occurs twice: its
    # translation "sleeps" occurs twice: rejected.
    assert words(got) == [("katze", "cat"), ("und", "and"), ("hund", "dog")]


def test_target_must_translate_exactly_one_source_word():
    # "the" occurs once, but both "die" and "das" translate to it
    got = extract(["Die Katze und das Haus"], ["The cat and house"])
    assert ("die", "the") not in words(got) and ("das", "the") not in words(got)
    assert ("haus", "house") in words(got)


def test_exactly_one_candidate_translation():
    # "groß" has two of its translations in the target sentence: ambiguous, rejected
    got = extract(["Der Hund ist groß"], ["The dog is big and tall"])
    assert ("groß", "big") not in words(got) and ("groß", "tall") not in words(got)
    assert words(got) == [("der", "the"), ("hund", "dog"), ("ist", "is")]


def test_char_offsets_point_at_the_words():
    src, tgt = "Gestern schläft die Katze.", "Yesterday the cat sleeps."
    got = extract([src], [tgt])
    for p in got:
        assert src[p.src.start:p.src.end].lower() == p.src.text
        assert tgt[p.tgt.start:p.tgt.end].lower() == p.tgt.text


def test_distinct_keeps_each_word_pair_once():
    src = ["Der Hund schläft", "Ein Hund bellt"]
    tgt = ["The dog sleeps", "A dog barks"]
    assert words(extract(src, tgt, distinct=True)).count(("hund", "dog")) == 1
    assert words(extract(src, tgt, distinct=False)).count(("hund", "dog")) == 2


def test_chinese_is_segmented_by_the_dictionary():
    d = {"中国": {"china"}, "国": {"country"}, "人民": {"people"}}
    s, t = PR.tokenize_parallel([("中国人民", "the people of china")], "zh", "en", d)
    assert [x.text for x in s[0]] == ["中国", "人民"]
    got = PR.extract_dictionary_pairs(s, t, d)
    assert words(got) == [("中国", "china"), ("人民", "people")]



def test_precision_against_gold_links():
    tok = lambda ws: [Token(w, 0, 0) for w in ws]
    src, tgt = [tok(["a", "b", "c"])], [tok(["x", "y", "z"])]
    links = [{(0, 0), (1, 2), (2, 1)}]
    pairs = PR.pairs_from_links(src, tgt, links)
    gold = [{(0, 0), (1, 2)}]
    assert PR.precision(pairs, gold) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="outside"):
        PR.pairs_from_links(src, tgt, [{(5, 0)}])


def test_sample_distinct_gives_distinct_types_and_varies(rng):
    tok = lambda w: Token(w, 0, len(w))
    pool = [PR.WordPair(i, i, tok(f"s{i % 7}"), tok(f"t{i % 7}"), 0, 0) for i in range(70)]
    a = PR.sample_distinct(pool, 5, np.random.default_rng(0))
    b = PR.sample_distinct(pool, 50, np.random.default_rng(1))
    assert len(a) == 5 and len(b) == 7  # only 7 distinct types exist
    assert len({(pool[i].src.text, pool[i].tgt.text) for i in b}) == 7
    c = PR.sample_distinct(pool, 7, np.random.default_rng(2))
    assert not np.array_equal(b, c)  # other occurrences represent the same types


def test_distinct_samples_draw_per_pair_one_removed_pair_moves_no_other():
    """distinct_samples (Table I's runs) with one occurrence removed from the pool: every other sampled
    occurrence stays (a shared permutation of the shorter list moved most of them)."""
    from xalign.papers.gaschi2022.weakstrong import distinct_samples

    tok = lambda w: Token(w, 0, len(w))
    pool = [PR.WordPair(i, i, tok(f"s{i % 40}"), tok(f"t{i % 40}"), i % 3, 0) for i in range(400)]
    key = lambda p: (p.src_sent, p.src.text, p.tgt.text)
    for run_a, run_b in zip(distinct_samples(pool, 30, 3, seed=0), distinct_samples(pool[1:], 30, 3, seed=0)):
        before = {key(pool[i]) for i in run_a}
        after = {key(pool[1:][i]) for i in run_b}
        assert len(before - after) <= 2  # the removed occurrence and at most one pushed out by its type's next


def test_random_pairs_same_sentence(rng):
    tok = lambda ws: [Token(w, 0, 0) for w in ws]
    src, tgt = [tok(["a", "b"]), tok(["c"])], [tok(["x"]), tok(["y", "z"])]
    for p in PR.random_pairs(src, tgt, 20, rng, same_sentence=True):
        assert p.src_sent == p.tgt_sent


def test_punct_tokens():
    assert punct_tokens("Hello, world!") == ["Hello", ",", "world", "!"]


def test_tokenize_keeps_latin_words_inside_cjk_text():
    toks = tokenize("我爱Python3和猫", "zh", {"我", "爱"})
    assert [t.text for t in toks] == ["我", "爱", "python3", "和", "猫"]
