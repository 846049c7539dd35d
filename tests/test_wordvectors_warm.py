"""A warm rerun of the word vectors does not tokenise the vocabulary again (the encodable mask is cached)."""

import numpy as np

from xalign.data.wordvectors import encodable


class _CountingTokenizer:
    """Offsets of "<prefix><word>": one token per character, except that "\u200c" maps to no token."""

    def __init__(self):
        self.calls = 0

    def __call__(self, texts, **kw):
        self.calls += 1
        offsets = [[(0, 0)] + [(i, i + 1) for i, c in enumerate(t) if c != "\u200c"] + [(0, 0)] for t in texts]
        return {"offset_mapping": offsets}


class _FakeEncoder:
    def __init__(self, cache, revision="r1"):
        self.name, self.revision, self.prefix, self.max_length = "fake", revision, "p: ", 16
        self.tokenizer, self.cache = _CountingTokenizer(), cache

    def _tokenize(self, texts):  # as xalign.core.encoders.Encoder._tokenize: (ids, offsets)
        offsets = self.tokenizer([self.prefix + t for t in texts])["offset_mapping"]
        return [list(range(len(o))) for o in offsets], offsets


def test_encodable_mask_is_cached_per_word_list_and_model(fresh_cache):
    enc = _FakeEncoder(fresh_cache)
    words = ["cat", "\u200c", "dog"]
    first = encodable(enc, words)
    np.testing.assert_array_equal(first, [True, False, True])
    assert enc.tokenizer.calls == 1
    np.testing.assert_array_equal(encodable(enc, words), first)
    assert enc.tokenizer.calls == 1                 # warm: read back, no tokenisation
    encodable(enc, words[:2])
    assert enc.tokenizer.calls == 2                 # another word list is another entry
    other = _FakeEncoder(fresh_cache, revision="r2")
    encodable(other, words)
    assert other.tokenizer.calls == 1               # another model revision too


def test_clean_words_looks_at_a_repeated_entry_once():
    from xalign.data.wordvectors import clean_words

    class Counted(str):
        calls = 0

        def strip(self, *a):
            Counted.calls += 1
            return str.strip(self, *a)

    words = [Counted(" Gato"), Counted("perro")] * 500 + [Counted("gato")]
    assert clean_words(words) == ["gato", "perro"]
    assert Counted.calls == 3  # one look per distinct raw entry (dictionaries repeat a word once per pair)


def test_sinhala_splitter_reads_its_corpus_only_when_a_word_is_stemmed(monkeypatch):
    from collections import Counter

    from xalign.data import stemming

    reads = []
    data = {"dist": Counter({"ab": 50, "a": 3, "abc": 1}), "words": {"abc", "xbc", "ab"}}
    monkeypatch.setattr(stemming, "_sinling_split_data", lambda: reads.append(1) or data)
    s = stemming.get_stemmer("si", "sinling-splitter")
    assert reads == []                          # a warm rerun (every BLI cell cached) stems nothing
    assert s.stem_many([]) == [] and reads == []
    assert s.stem_many(["abc", "q"]) == ["ab", "q"]
    assert s.stem("abc") == "ab" and reads == [1]


def test_harmonic_mean2_is_the_library_value_to_the_last_bit():
    import random
    import statistics

    from xalign.data.stemming import harmonic_mean2

    rng = random.Random(0)
    pairs = [(rng.randint(1, 10 ** rng.randint(1, 7)), rng.randint(1, 10 ** rng.randint(1, 7))) for _ in range(20000)]
    for a, b in pairs + [(1, 1), (1, 2), (3, 7), (10**7, 1)]:
        assert harmonic_mean2(a, b) == statistics.harmonic_mean([a, b])
