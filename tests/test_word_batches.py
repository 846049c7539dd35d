"""Word vectors: no word is padded, and a word in several lists is encoded once."""

import numpy as np
import pytest

from xalign.core.cache import EmbeddingCache
from xalign.data.wordvectors import WordEncoder, encoder_word_vectors

# token counts after e5's "query: " prefix differ: one batch of these in list order would pad the short ones
WORDS = ["cat", "internationalisation", "gato", "猫", "unbelievably", "perro", "ශ්‍රී", "Donaudampfschiff", "a", "dog"]


class _Recorder:
    """Wraps the model: records each batch's attention mask and the token ids it was given."""

    def __init__(self, model):
        self.model, self.masks, self.rows = model, [], 0

    def __call__(self, input_ids, attention_mask, **kw):
        self.masks.append(attention_mask.clone())
        self.rows += len(input_ids)
        return self.model(input_ids=input_ids, attention_mask=attention_mask, **kw)

    def __getattr__(self, name):
        return getattr(self.model, name)


@pytest.fixture
def recorded(encoder, tmp_path, monkeypatch):
    rec = _Recorder(encoder.model)
    monkeypatch.setattr(encoder, "model", rec)
    monkeypatch.setattr(encoder, "cache", EmbeddingCache(tmp_path / "emb"))
    monkeypatch.setattr(encoder, "autocast", None)
    return encoder, rec


@pytest.mark.slow
def test_no_word_is_padded(recorded):
    enc, rec = recorded
    counts = np.array([len(ids) for ids in enc._tokenize(WORDS)[0]])  # as the model is fed each word
    assert len(set(counts.tolist())) == 3  # the list mixes lengths (5, 6 and 8 tokens)
    v = encoder_word_vectors(enc, WORDS)
    assert v.words == WORDS and rec.rows == len(WORDS)
    assert all(bool(m.all()) for m in rec.masks), "a batch padded a word"
    assert sorted(m.shape[1] for m in rec.masks) == sorted(set(counts.tolist()))  # one batch per token count
    none = encoder_word_vectors(enc, ["\u200c"])  # no word with a token of its own: an empty result
    assert none.words == [] and none.vectors.shape == (0, enc.dim)


@pytest.mark.slow
def test_unpadded_vectors_match_each_word_encoded_alone(recorded):
    enc, _ = recorded
    whole = encoder_word_vectors(enc, WORDS)
    alone = np.stack([enc.encode_words([w], [[(0, len(w))]], layers=[-1])[0, 0] for w in WORDS])
    # another batch size rounds the matrix products differently: equal up to float32 rounding
    np.testing.assert_allclose(whole.vectors, alone, rtol=0, atol=2e-6)
    rev = encoder_word_vectors(enc, WORDS[::-1])
    np.testing.assert_allclose(rev.lookup(WORDS), whole.vectors, rtol=0, atol=2e-6)


@pytest.mark.slow
def test_word_lists_share_one_pass_and_get_their_own_vectors(recorded):
    enc, rec = recorded
    we = WordEncoder.__new__(WordEncoder)  # the layer backend around the recorded encoder
    we.name, we.backend, we.layer, we.pooling, we.device = "multilingual-e5-small", "layer", -1, "word", None
    we.encoder, we._released, we.revision = enc, None, enc.revision
    lists = {"a": WORDS[:6], "b": WORDS[4:] + ["\u200c"], "c": ["dog", "cat"]}
    got = we.encode_lists(lists)
    assert rec.rows == len(WORDS)  # every distinct word once; "\u200c" has no token of its own
    assert got["b"].words == WORDS[4:] and got["c"].words == ["dog", "cat"]
    union = encoder_word_vectors(enc, list(dict.fromkeys(w for ws in lists.values() for w in ws)))
    for name, words in lists.items():
        alone = encoder_word_vectors(enc, words)
        assert got[name].words == alone.words, name
        assert np.array_equal(got[name].vectors, union.lookup(got[name].words)), name  # the union's own bits
        np.testing.assert_allclose(got[name].vectors, alone.vectors, rtol=0, atol=2e-6)
    with pytest.raises(ValueError, match="word list 'c'"):
        we.encode_lists({"c": ["dog", "dog"]})


@pytest.mark.slow
def test_a_word_list_is_tokenised_once(recorded, monkeypatch):
    from xalign.data import wordvectors

    enc, _ = recorded
    calls = []
    tokenize = wordvectors._tokenize_words
    monkeypatch.setattr(wordvectors, "_tokenize_words", lambda e, ws: calls.append(len(ws)) or tokenize(e, ws))
    v = encoder_word_vectors(enc, WORDS + ["\u200c"])  # one word is left out: the counts follow the kept words
    assert v.words == WORDS and calls == [len(WORDS) + 1]
    encoder_word_vectors(enc, WORDS + ["\u200c"])  # warm: the tokenisation is read back
    assert calls == [len(WORDS) + 1]
