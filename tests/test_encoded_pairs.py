"""Chapter 1's EncodedPairs: one language pair's vectors in memory at a time, the others read back from the cache."""

import dataclasses
import gc
import weakref

import numpy as np
import pandas as pd
import pytest

from xalign.core.encoders import Encoder
from xalign.data import word_pairs as PR
from xalign.data.words import Token
from xalign.measures import incontext as IC
from xalign.papers.gaschi2022 import weakstrong as WS

pytestmark = pytest.mark.slow

CORPUS = {
    "de-en": [("Die Katze schläft.", "The cat sleeps."), ("Der Hund bellt laut.", "The dog barks loudly."),
              ("Ein Haus am See.", "A house by the lake."), ("Das Auto ist rot.", "The car is red.")],
    "fr-en": [("Le chat dort.", "The cat sleeps."), ("Le chien aboie fort.", "The dog barks loudly."),
              ("Une maison au bord du lac.", "A house by the lake."), ("La voiture est rouge.", "The car is red.")],
}


def first_word_pairs(corpus):
    """Pair the first word of each source sentence with the second word of its target (enough for shapes)."""
    out = []
    for i, (s, t) in enumerate(corpus):
        a, b = s.split()[0], t.split()[1]
        out.append(PR.WordPair(i, i, Token(a, 0, len(a)), Token(b.strip("."), t.index(b), t.index(b) + len(b.strip("."))),
                               0, 1))
    return out


@pytest.fixture
def enc(encoder, fresh_cache):
    return dataclasses.replace(encoder, cache=fresh_cache)


def test_one_pair_is_held_and_the_others_are_read_back_unchanged(enc, monkeypatch):
    pairs = {lp: first_word_pairs(c) for lp, c in CORPUS.items()}
    encoded = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 6, 12])
    de = encoded["de-en"]
    direct = IC.encode_side(enc, [s for s, _ in CORPUS["de-en"]], IC.spans_needed(pairs["de-en"], "src"),
                            layers=[0, 6, 12])
    np.testing.assert_array_equal(de[0].words, direct.words)
    np.testing.assert_array_equal(de[0].sentences["mean"], direct.sentences["mean"])
    assert encoded["de-en"] is de and encoded.loads["de-en"] == 1      # held: no second read
    gone = weakref.ref(de[0].words.base if de[0].words.base is not None else de[0].words)
    kept_mean = de[0].sentences["mean"].copy()
    del de, direct
    encoded["fr-en"]                                                    # another pair: de-en is dropped
    gc.collect()
    assert gone() is None, "the first pair's word vectors are still in memory"
    calls = []
    monkeypatch.setattr(Encoder, "_forward", lambda *a, **k: calls.append(1))
    again = encoded["de-en"]                                            # read back from the cache
    assert calls == [] and encoded.loads == {"de-en": 2, "fr-en": 1}
    np.testing.assert_array_equal(again[0].sentences["mean"], kept_mean)
    assert list(encoded) == ["de-en", "fr-en"] and len(encoded) == 2
    with pytest.raises(KeyError, match="not one of the encoded pairs"):
        encoded["ru-en"]


def test_scores_through_encoded_pairs_equal_scores_on_a_plain_dict(enc, tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "memo"))
    pairs = {lp: first_word_pairs(c) for lp, c in CORPUS.items()}
    lazy = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 12])
    plain = {lp: tuple(IC.encode_side(enc, [p[i] for p in CORPUS[lp]], IC.spans_needed(pairs[lp], side),
                                      layers=[0, 12]) for i, side in enumerate(("src", "tgt"))) for lp in CORPUS}
    a = WS.alignment_layer_scores(pairs, lazy, 2, 4, 2, 0, [0, 12])
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "memo2"))  # no memo shared between the two
    b = WS.alignment_layer_scores(pairs, plain, 2, 4, 2, 0, [0, 12])
    pd.testing.assert_frame_equal(a, b)
    assert list(a["pair"].unique()) == ["de-en", "fr-en"]
    s1 = WS.sentence_layer_scores(lazy, {"avg": "mean"}, 2, 4, 2, 0, [0, 12])
    s2 = WS.sentence_layer_scores(plain, {"avg": "mean"}, 2, 4, 2, 0, [0, 12])
    pd.testing.assert_frame_equal(s1, s2)


def test_corpus_must_cover_every_pair(enc):
    with pytest.raises(KeyError, match="no corpus"):
        IC.EncodedPairs(enc, {"de-en": CORPUS["de-en"]}, {"ru-en": []})


def test_a_part_reads_only_what_it_names_and_equals_the_whole(enc, monkeypatch):
    pairs = {lp: first_word_pairs(c) for lp, c in CORPUS.items()}
    encoded = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 12])
    whole = [(side.sentences["mean"].copy(), side.words.copy()) for side in encoded["de-en"]]
    encoded["fr-en"]
    calls = []
    monkeypatch.setattr(Encoder, "_forward", lambda *a, **k: calls.append(1))
    words = encoded.part("de-en", "words")                          # read back: word vectors only
    assert all(side.sentences == {} for side in words)
    for side, (_, w) in zip(words, whole):
        np.testing.assert_array_equal(side.words, w)
    assert encoded.part("de-en", "words") is words                  # held: not read again
    sentences = IC.sides_of(encoded, "de-en", "sentences")          # another part: read again, no words
    assert all(side.words is None and side.row == {} for side in sentences)
    for side, (m, _) in zip(sentences, whole):
        np.testing.assert_array_equal(side.sentences["mean"], m)
    assert encoded.part("de-en", "sentences") is encoded.part("de-en", "sentences")
    assert calls == [] and encoded.loads["de-en"] == 3
    everything = encoded["de-en"]                                   # the whole pair serves every part
    assert encoded.part("de-en", "words") is everything and encoded.part("de-en", "sentences") is everything
    encoded.release()
    assert encoded.part("de-en", "words") is not everything and encoded.loads["de-en"] == 5
    with pytest.raises(ValueError, match="part must be one of"):
        encoded.part("de-en", "tokens")
    plain = {"de-en": everything}
    assert IC.sides_of(plain, "de-en", "words") is everything       # a plain mapping is read as it is


def test_encode_all_on_a_warm_cache_reads_nothing(enc, monkeypatch):
    pairs = {lp: first_word_pairs(c) for lp, c in CORPUS.items()}
    cold = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 12])
    assert not cold.cached("de-en")
    cold.encode_all()
    assert cold.loads == {"de-en": 1, "fr-en": 1} and cold.cached("de-en") and cold.cached("fr-en")
    calls = []
    monkeypatch.setattr(Encoder, "_forward", lambda *a, **k: calls.append(1))
    hits = enc.cache.hits
    warm = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 12])
    warm.encode_all()                                                   # everything cached: nothing read
    assert calls == [] and enc.cache.hits == hits and warm.loads == {"de-en": 0, "fr-en": 0}
    assert not IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 6]).cached("de-en")  # other layers: not cached
    warm["de-en"]                                                       # read when asked for
    assert calls == [] and enc.cache.hits > hits and warm.loads["de-en"] == 1


def test_encode_all_holds_at_most_one_side_in_memory(enc, monkeypatch):
    """A cold encode_all only fills the cache: each side is dropped before the next is encoded, and
    nothing is held after it (it held both sides of the last pair, the chapter's peak memory)."""
    pairs = {lp: first_word_pairs(c) for lp, c in CORPUS.items()}
    encode_side, alive_at_call = IC.encode_side, []
    sides = []

    def tracked(*args, **kwargs):
        gc.collect()
        alive_at_call.append(sum(ref() is not None for ref in sides))
        out = encode_side(*args, **kwargs)
        sides.append(weakref.ref(out))
        return out

    monkeypatch.setattr(IC, "encode_side", tracked)
    encoded = IC.EncodedPairs(enc, CORPUS, pairs, layers=[0, 12])
    encoded.encode_all()
    gc.collect()
    assert alive_at_call == [0, 0, 0, 0] and all(ref() is None for ref in sides)
    assert encoded.loads == {"de-en": 1, "fr-en": 1} and encoded.cached("de-en") and encoded.cached("fr-en")


def test_encoder_cache_probe_matches_what_encode_stores(enc):
    texts = [s for s, _ in CORPUS["de-en"]]
    spans = [[(0, 3)], [], [(0, 3), (4, 9)], [(0, 3)]]
    assert not enc.cached(texts, spans, ("mean",), [0, 12])
    enc.encode(texts, spans=spans, poolings=("mean",), layers=[0, 12])
    assert enc.cached(texts, spans, ("mean",), [0, 12])
    assert enc.cached(texts, None, ("mean",), [0, 12])                  # the sentence vectors alone
    assert not enc.cached(texts, spans, ("mean", "first"), [0, 12])     # a pooling not encoded
    assert not enc.cached(texts, spans, ("mean",), [0, 12], mask=True)
    assert not enc.cached(texts, [[(0, 3)], [], [(0, 3)], [(0, 3)]], ("mean",), [0, 12])  # other spans
    assert not dataclasses.replace(enc, cache=type(enc.cache)(enc.cache.root, enabled=False)).cached(
        texts, spans, ("mean",), [0, 12])
