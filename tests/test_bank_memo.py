"""Chapter 5's sentence banks are memoised: a warm rerun reads each bank, not every all-layer cache chunk."""

import numpy as np
import pytest

from xalign.measures import sentbank
from xalign.measures.sentbank import SentenceBank, cbow_bank
from xalign.papers.nyholm2020 import multisent

TEXTS = ["A man plays the guitar.", "Ein Mann spielt Gitarre.", "Un homme joue de la guitare.", "Đàn ông chơi đàn."]


@pytest.fixture
def enc(encoder, fresh_cache, monkeypatch):
    monkeypatch.setattr(encoder, "cache", fresh_cache)
    return encoder


def _forbid_encoding(monkeypatch, enc):
    fail = lambda *a, **k: pytest.fail("a warm memo encoded again")
    monkeypatch.setattr(type(enc), "encode", fail)
    monkeypatch.setattr(type(enc), "forward_ids", fail)
    monkeypatch.setattr(sentbank, "cbow_vectors", fail)


def test_bank_is_memoised_with_the_values_of_a_fresh_encoding(enc, monkeypatch):
    cold = SentenceBank.from_encoder(enc, TEXTS, keep_layers=[0, -1], dtype=np.float16)
    plain = SentenceBank.from_encoder(enc, TEXTS, keep_layers=[0, -1], dtype=np.float16, memo=False)
    thesis, unk = multisent.thesis_bank(enc, TEXTS, latin1=True, poolings=("first",), keep_layers=[-1])
    cbow = cbow_bank(enc, TEXTS)
    _forbid_encoding(monkeypatch, enc)
    warm = SentenceBank.from_encoder(enc, TEXTS, keep_layers=[0, -1], dtype=np.float16)
    thesis2, unk2 = multisent.thesis_bank(enc, TEXTS, latin1=True, poolings=("first",), keep_layers=[-1])
    cbow2 = cbow_bank(enc, TEXTS)
    for a, b in ((cold, warm), (cold, plain), (thesis, thesis2), (cbow, cbow2)):
        assert a.texts == b.texts and a.layers == b.layers
        assert all(np.array_equal(a.vectors[k], b.vectors[k]) and a.vectors[k].dtype == b.vectors[k].dtype
                   for k in a.vectors)
    assert warm.layers == {"mean": [0, enc.n_layers - 1], "first": [0, enc.n_layers - 1]}
    assert unk2 == unk and 0 < unk < 1


def test_bank_memo_key_holds_what_changes_the_vectors(enc, monkeypatch):
    SentenceBank.from_encoder(enc, TEXTS, keep_layers=[-1])
    multisent.thesis_bank(enc, TEXTS, latin1=True, poolings=("first",), keep_layers=[-1])
    _forbid_encoding(monkeypatch, enc)
    for other in (lambda: SentenceBank.from_encoder(enc, TEXTS, keep_layers=[0]),
                  lambda: SentenceBank.from_encoder(enc, TEXTS[:3], keep_layers=[-1]),
                  lambda: SentenceBank.from_encoder(enc, TEXTS, keep_layers=[-1], dtype=np.float16),
                  lambda: multisent.thesis_bank(enc, TEXTS, latin1=False, poolings=("first",), keep_layers=[-1])):
        with pytest.raises(pytest.fail.Exception, match="encoded again"):
            other()
    monkeypatch.setattr(enc, "autocast", "bfloat16" if enc.autocast is None else None)
    with pytest.raises(pytest.fail.Exception, match="encoded again"):
        SentenceBank.from_encoder(enc, TEXTS, keep_layers=[-1])


def test_bank_layers_are_parsed_by_core_layers():
    """keep_layers out of range is an error naming the range (it was wrapped: 99 -> layer 8)."""
    from types import SimpleNamespace

    with pytest.raises(ValueError, match=r"layers \[99\] out of range \(0\.\.12"):
        SentenceBank.from_encoder(SimpleNamespace(n_layers=13), ["a text"], keep_layers=[99])
