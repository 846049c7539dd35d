"""Stemmers (Snowball, sinling's splitter re-implemented in batch) and BLI vocabularies."""

from collections import Counter

import numpy as np
import pytest

from conftest import mirror_available
from xalign.data.static import StaticVectors
from xalign.data.stemming import SinhalaSplitter, get_stemmer
from xalign.data.wordvectors import (
    clean_words,
    dictionary_vocabulary,
    frequency_vocabulary,
    subset,
)


def test_snowball_stemmers():
    assert get_stemmer("en").stem_many(["running", "cats", "walked"]) == ["run", "cat", "walk"]
    assert get_stemmer("es").stem("gatos") == "gat"
    assert get_stemmer("zh", "identity").stem("猫") == "猫"
    with pytest.raises(ValueError):
        get_stemmer("zh")
    with pytest.raises(ValueError):
        get_stemmer("si", "snowball")


def test_sinhala_splitter_on_a_hand_made_corpus():
    # corpus: the base 'ab' is frequent; words ending in 'c' and 'bc' are counted from the word list
    data = {"dist": Counter({"ab": 50, "a": 3, "abc": 1, "x\u0dca": 9, "x": 1}),
            "words": {"", "abc", "xbc", "ybc", "zc", "ab"}}
    s = SinhalaSplitter(data)
    # 'abc': split a|bc -> hm(3+1, 3+1) = 4; split ab|c -> hm(50+1, 4+1) = 9.1 -> base 'ab'
    # 'xbc': split x|bc: 'x' + virama is more frequent than 'x' -> base 'x\u0dca', hm(10, 4) = 5.7;
    #        split xb|c -> hm(1, 5) = 1.7 -> base 'x\u0dca'
    assert s.stem_many(["abc", "xbc", "q"]) == ["ab", "x\u0dca", "q"]
    assert s.stem("abc") == "ab"  # cached path


@pytest.mark.slow
def test_sinhala_splitter_equals_sinling():
    from sinling import word_splitter

    words = ["උපක්‍රමයක්", "ගෙදරට", "පොතක්", "ළමයින්ට"]
    assert get_stemmer("si").stem_many(words) == [word_splitter.split(w)["base"] for w in words]


def test_clean_words_and_dictionary_vocabulary():
    assert clean_words(["The", "the", " cat ", "two words", "", "x\u200dy", "a\x00b", "\u200c"]) == [
        "the", "cat", "x\u200dy"]
    pairs_a = [("cat", "ගෙදර"), ("dog", "බල්ලා")]
    pairs_b = [("ගෙදර", "house"), ("පොත", "book")]
    assert dictionary_vocabulary([pairs_a, pairs_b], [1, 0]) == ["ගෙදර", "බල්ලා", "පොත"]
    assert dictionary_vocabulary([pairs_a, pairs_b], [1, 0], n=2) == ["ගෙදර", "බල්ලා"]
    with pytest.raises(ValueError):
        dictionary_vocabulary([pairs_a], [2])


def test_frequency_vocabulary():
    words = frequency_vocabulary("en", 50)
    assert len(words) == 50 and words[0] == "the" and len(set(words)) == 50
    with pytest.raises(ValueError, match="no 'best' list for 'si'"):
        frequency_vocabulary("si", 10)  # wordfreq would silently answer with English


def test_subset_keeps_order():
    v = StaticVectors(["a", "b", "c"], np.eye(3, dtype=np.float32))
    s = subset(v, np.array([True, False, True]))
    assert s.words == ["a", "c"] and np.array_equal(s.lookup(["c"]), [[0, 0, 1]])
    with pytest.raises(ValueError):
        subset(v, np.array([True]))


@pytest.mark.slow
def test_word_vectors_from_the_offline_encoder_and_sentence_transformers(tmp_path):
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer import modules as models

    from xalign.core.loading import load_encoder, materialize_offline_model
    from xalign.data.wordvectors import (
        WordEncoder,
        encoder_word_vectors,
        sentence_transformer_word_vectors,
    )

    words = ["cat", "gato", "猫"]
    enc = load_encoder(progress=False)
    v = encoder_word_vectors(enc, words, layer=-1, pooling="word")
    direct = np.stack([enc.encode_words([w], [[(0, len(w))]], layers=[12])[0, 0] for w in words])
    assert v.words == words and np.allclose(v.vectors, direct, rtol=0, atol=2e-6)
    sent = encoder_word_vectors(enc, words, layer=-1, pooling="sentence")
    assert not np.allclose(sent.vectors, v.vectors)
    with pytest.raises(ValueError):
        encoder_word_vectors(enc, ["cat", "cat"])
    # a word the tokenizer normalises away entirely has no vector of its own and is left out
    assert encoder_word_vectors(enc, ["cat", "\u200c"]).words == ["cat"]
    we = WordEncoder("multilingual-e5-small", layer=-1, autocast="float32", progress=False)
    assert np.allclose(we(words).vectors, v.vectors) and "layer 12 of 12" in we.describe()
    # release() frees the model (nothing else holds it) and keeps the description
    import weakref

    described, model = we.describe(), weakref.ref(we.encoder.model)
    we.release()
    assert model() is None and we.describe() == described and we.revision
    with pytest.raises(RuntimeError, match="released"):
        we(words)

    # the sentence-transformers path, on a local copy of the same model (mean pooling, no prefix)
    st_dir = tmp_path / "st-e5"
    st = SentenceTransformer(modules=[models.Transformer(str(materialize_offline_model())), models.Pooling(384)])
    st.save(str(st_dir))
    sv = sentence_transformer_word_vectors(str(st_dir), words)
    enc.prefix = ""
    ref = enc.encode_sentences(words, "mean", layers=[12])[:, 0]
    cos = (sv.vectors * ref).sum(1) / np.linalg.norm(sv.vectors, axis=1) / np.linalg.norm(ref, axis=1)
    assert (cos > 0.999).all()


def test_bli_dictionary_arguments_are_checked():
    from xalign.data.bli_data import bli_dictionary, sinhala_dictionary, vocabulary

    with pytest.raises(ValueError, match="split"):
        bli_dictionary("en", "es", "dev")
    with pytest.raises(ValueError, match="English"):
        bli_dictionary("es", "fr", "test")
    with pytest.raises(ValueError, match="no MUSE dictionary"):
        bli_dictionary("en", "ko", "test")
    with pytest.raises(ValueError, match="variant"):
        sinhala_dictionary("en", "si", "test", "news")
    with pytest.raises(ValueError, match="not a Sinhala pair"):
        sinhala_dictionary("en", "es", "test")
    with pytest.raises(ValueError, match="vocabulary size"):
        vocabulary("es", None)
    with pytest.raises(ValueError, match="sinhala must be"):
        vocabulary("si", 10, sinhala="wiktionary")


@pytest.mark.skipif(not mirror_available(), reason="needs XALIGN_DATA_MIRROR")
def test_sinhala_candidates_are_fasttexts_vocabulary_not_the_test_split():
    """The Sinhala candidate list is fastText's top N (the paper's), not the dictionaries' words."""
    from xalign.data.bli_data import bli_dictionary, sinhala_fasttext_vocabulary, vocabulary

    n = 20000
    cands = vocabulary("si", n)
    fasttext = sinhala_fasttext_vocabulary()
    assert len(fasttext) > 78000 and cands == fasttext[:n]
    assert "</s>" in cands[:5] and "ලෙස" in cands[:50]  # frequency order, foreign tokens kept
    # no word enters the candidates from the test split: test words outside fastText's top N stay out
    test_si = {t for _, t in bli_dictionary("en", "si", "test")} | {s for s, _ in bli_dictionary("si", "en", "test")}
    taken = (test_si - set(fasttext[:n])) & set(cands)
    assert not taken and len(test_si - set(fasttext[:n])) > 0
