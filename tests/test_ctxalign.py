"""Anchors for aligning contextual embeddings (token / avg_type / iso_type x wa / sa / dict) on a toy corpus."""

import numpy as np
import pytest

from xalign.data.corpora import ParallelCorpus
from xalign.data.words import tokenize
from xalign.measures.btsr.anchors import (
    PairSpaces,
    aligned_word_pairs,
    anchors,
    fit,
    identity_alignment,
)
from xalign.measures.btsr.evaluate import btsr_precision, btsr_vectors, build_spaces
from xalign.measures.btsr.pairdata import PairData
from xalign.measures.btsr.spaces import content_chunks, encode_space
from xalign.measures.btsr.testset import BTSRItem, BTSRSet
from xalign.measures.btsr.typevectors import average_types
from xalign.measures.mapping import normalize_center
from xalign.papers.liu2020.grid import original_space_scores, training_sizes

SRC = ["the cat sleeps", "the dog runs", "a cat runs", "the bird sings"]
TGT = ["le chat dort", "le chien court", "un chat court", "le oiseau chante"]
LINKS = [{(0, 0), (1, 1), (2, 2)}, {(0, 0), (1, 1), (2, 2)}, {(0, 0), (1, 1), (2, 2)}, {(1, 1)}]


class FakeEncoder:
    """Deterministic 'contextual' vectors: a word's vector is a hash of the word plus the sentence length."""

    dim, n_layers, progress = 6, 3, False

    def __init__(self):
        self.calls = 0

    def vector(self, word, text):
        rng = np.random.default_rng(abs(hash((word, len(text)))) % 2**32)
        return rng.normal(size=self.dim).astype(np.float32)

    def encode(self, texts, spans=None, poolings=(), layers=None, layer_mean=False, **kw):
        self.calls += 1
        rows = [self.vector(t[s:e], t) for t, sp in zip(texts, spans) for s, e in sp]
        return {"words": np.array(rows, np.float32).reshape(-1, 1, self.dim)}


def toy_spaces():
    enc = FakeEncoder()
    corpus = ParallelCorpus("en", "fr", SRC, TGT, ["toy"] * 4)
    st = [tokenize(s, "en") for s in SRC]
    tt = [tokenize(t, "fr") for t in TGT]
    btsr = BTSRSet("en", "fr", [BTSRItem("cat", "chat", 0, 0, 1, 2, 1, 2)], [(2, 1), (3, 2), (1, 2)])
    data = PairData(corpus, st, tt, LINKS, btsr, np.array([0, 1, 2, 3]), np.array([0, 1]),
                    [("cat", "chat"), ("dog", "chien"), ("zebra", "zèbre")])
    src = encode_space(enc, SRC, st)
    tgt = encode_space(enc, TGT, tt)
    avg_s, avg_t = average_types(src, data.train), average_types(tgt, data.train)
    return enc, PairSpaces(data, src, tgt, avg_s, avg_t, avg_s, avg_t)


def test_encode_space_rows_follow_the_tokens():
    enc, sp = toy_spaces()
    assert sp.src.vectors.shape == (12, 6) and list(sp.src.offsets) == [0, 3, 6, 9, 12]
    row = sp.src.rows([2], [1])[0]  # "cat" in "a cat runs"
    assert np.allclose(sp.src.vectors[row], enc.vector("cat", SRC[2]))


def test_token_wa_anchors_are_the_linked_words_in_context():
    enc, sp = toy_spaces()
    X, Y = anchors(sp, "token", "wa")
    assert X.shape == Y.shape == (10, 6)
    # training order is [0, 1, 2, 3]; sentence 3 has the single link bird-oiseau
    assert np.allclose(X[-1], enc.vector("bird", SRC[3])) and np.allclose(Y[-1], enc.vector("oiseau", TGT[3]))
    X2, _ = anchors(sp, "token", "wa", n_sentences=1)
    assert len(X2) == 3
    with pytest.raises(ValueError, match="parallel text"):
        anchors(sp, "token", "dict")


def test_token_sa_anchors_are_sentence_means():
    _, sp = toy_spaces()
    X, Y = anchors(sp, "token", "sa", n_sentences=2)
    assert np.allclose(X[1], sp.src.vectors[3:6].mean(0)) and np.allclose(Y[0], sp.tgt.vectors[0:3].mean(0))


def test_avg_type_is_the_mean_over_contexts_capped():
    enc, sp = toy_spaces()
    cat = sp.avg_src.lookup(["cat"])[0]
    assert np.allclose(cat, (enc.vector("cat", SRC[0]) + enc.vector("cat", SRC[2])) / 2)
    one = average_types(sp.src, [0, 2], max_contexts=1, rng=np.random.default_rng(0)).lookup(["cat"])[0]
    assert any(np.allclose(one, enc.vector("cat", SRC[k])) for k in (0, 2))
    rare = average_types(sp.src, [0, 1, 2, 3], min_count=2)
    assert "cat" in rare and "bird" not in rare


def test_type_anchors_from_alignments_and_dictionary():
    _, sp = toy_spaces()
    assert aligned_word_pairs(sp.data, [0, 3]) == [("the", "le"), ("cat", "chat"), ("sleeps", "dort"),
                                                   ("bird", "oiseau")]
    X, _Y = anchors(sp, "avg_type", "wa")
    assert len(X) == len(aligned_word_pairs(sp.data, sp.data.train))
    Xd, Yd = anchors(sp, "avg_type", "dict")  # "zebra" has no vector and is skipped
    assert np.allclose(Xd, sp.avg_src.lookup(["cat", "dog"])) and np.allclose(Yd, sp.avg_tgt.lookup(["chat", "chien"]))
    Xs, _ = anchors(sp, "avg_type", "sa", n_sentences=1)
    assert np.allclose(Xs[0], sp.avg_src.lookup(["the", "cat", "sleeps"]).mean(0))


def test_fit_and_btsr_on_identical_spaces_is_perfect():
    _, sp = toy_spaces()
    sp.tgt = sp.src  # a target space equal to the source: queries find themselves
    sp.data.btsr.candidates = [(0, 1), (2, 1), (1, 2)]  # the gold is the query word itself
    Q, C = btsr_vectors(sp, "token")
    assert btsr_precision(identity_alignment(6), Q, C)[1] == 1.0
    al = fit(sp, "token", "sa")
    assert al.W.shape == (6, 6)


# a toy pool whose BTSR test pair uses sentence pairs 0 (query) and 2 (gold); training is 1, 3, 4, 5
POOL_SRC = ["the cat sleeps", "the dog runs", "a cat runs", "the bird sings", "a cat sings", "the dog sleeps"]
POOL_TGT = ["le chat dort", "le chien court", "un chat court", "le oiseau chante", "un chat chante",
            "le chien dort"]
POOL_LINKS = [{(0, 0), (1, 1), (2, 2)}] * 6


def pool_data(src_texts, tgt_texts):
    corpus = ParallelCorpus("en", "fr", src_texts, tgt_texts, ["toy"] * len(src_texts))
    st, tt = [tokenize(s, "en") for s in POOL_SRC], [tokenize(t, "fr") for t in POOL_TGT]
    btsr = BTSRSet("en", "fr", [BTSRItem("cat", "chat", 0, 0, 1, 2, 1, 2)], [(2, 1), (4, 1), (5, 1), (3, 2)])
    return PairData(corpus, st, tt, POOL_LINKS, btsr, np.array([1, 3, 4, 5]), np.array([1, 3]), [])


def test_type_vectors_do_not_depend_on_the_test_sentences():
    """BL(word) / avg_type vectors come from training text: changing the test sentences changes nothing."""
    enc = FakeEncoder()  # a word's vector depends on its sentence's length: padding a sentence changes it
    sp = build_spaces(enc, enc, pool_data(POOL_SRC, POOL_TGT), iso=False)
    pad = lambda texts: [t + "   " if k in (0, 2) else t for k, t in enumerate(texts)]
    sp2 = build_spaces(enc, enc, pool_data(pad(POOL_SRC), pad(POOL_TGT)), iso=False)
    for kind in ("type", "context_type", "word+context"):
        for a, b in zip(btsr_vectors(sp, kind), btsr_vectors(sp2, kind)):
            assert np.allclose(a, b), kind
    # "cat"'s type vector is its mean over the training sentences only (4: "a cat sings")
    Q, _ = btsr_vectors(sp, "type")
    assert np.allclose(Q[0], enc.vector("cat", POOL_SRC[4]))


def test_unmapped_baseline_is_centred_like_every_map():
    from xalign.measures.btsr.anchors import unmapped_alignment

    _, sp = toy_spaces()
    sp.tgt.vectors = sp.tgt.vectors + 3.0  # a language offset: centring matters
    X, Y = anchors(sp, "token", "wa")
    al = unmapped_alignment(sp)
    assert np.allclose(al.transform_src(X), normalize_center(X)[0], atol=1e-6)
    assert np.allclose(al.transform_tgt(Y), normalize_center(Y)[0], atol=1e-6)
    assert np.allclose(al.transform_tgt(Y), fit(sp, "token", "wa").transform_tgt(Y), atol=1e-6)
    assert np.linalg.norm(al.transform_tgt(Y).mean(0)) < 0.5 * np.linalg.norm(
        normalize_center(Y, np.zeros(Y.shape[1]))[0].mean(0))
    Q, C = btsr_vectors(sp, "token")
    scores = original_space_scores(sp)
    assert scores["btsr_p1"] == btsr_precision(al, Q, C, (1,))[1]
    raw = original_space_scores(sp, centred=False)
    assert raw["btsr_p1"] == btsr_precision(identity_alignment(6), Q, C, (1,))[1]


def test_training_sizes():
    assert training_sizes([100, 1000, "all"], 500) == [100, 500]
    assert training_sizes([10, 20], 15) == [10, 15]


def test_content_chunks_resynchronise_after_a_change():
    texts = [f"sentence number {i}" for i in range(3000)]
    a = content_chunks(texts)
    b = content_chunks(texts[:1500] + texts[1501:])  # one sentence dropped
    assert sum(len(c) for c in a) == 3000 and max(len(c) for c in a) <= 256
    words_a = [tuple(texts[k] for k in c) for c in a]
    other = texts[:1500] + texts[1501:]
    words_b = [tuple(other[k] for k in c) for c in b]
    shared = len(set(words_a) & set(words_b))
    assert shared >= len(words_a) - 2  # only the chunk holding the dropped sentence differs
