"""MEXA pools as MEXA's code does: cisnlp/MEXA ``embed_extractor.py`` ``weighted_embeddings`` weights every
non-padding token by its 1-based position, BOS included. The card's MEXA measure uses that pooling for a
decoder-only LLM (its receipt says so); the BOS-free ``"weighted"`` stays a pooling of its own.

Tiny random Llama and Gemma models (both add a BOS) are built once for the module (no data mirror needed)."""
import numpy as np
import pytest
import torch

from xalign.core.cache import EmbeddingCache
from xalign.core.decoder_pooling import sentence_weights
from xalign.testing.tiny import build_tiny_model

SUBJECTS = ["The cat", "A dog", "Das Haus", "Der Garten", "这是房子", "Un gato", "The old man", "Die Katze"]
VERBS = ["sat on the mat", "is very big", "ist sehr schön", "läuft schnell", "很大", "come pescado", "reads a book"]
SENTENCES = [f"{s} {v}." for s in SUBJECTS for v in VERBS]
TEXTS = ["The cat sat on the mat.", "Das ist ein Haus.", "这是房子。", "A dog"]  # lengths differ: padded batches


@pytest.fixture(scope="module")
def decoders(tmp_path_factory):
    from xalign.core.loading import load_encoder

    root = tmp_path_factory.mktemp("mexa_decoders")
    return {family: load_encoder(str(build_tiny_model(family, root / family, SENTENCES, vocab_size=400)),
                                 progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
            for family in ("llama", "gemma")}


def _by_hand(enc, text: str) -> np.ndarray:
    """MEXA's weighted_embeddings on one text: (layers, dim), positions 1..n over every token, BOS included."""
    ids = enc.tokenizer(text)["input_ids"]  # the tokenizer adds BOS, as MEXA's call does
    assert ids[0] == enc.tokenizer.bos_token_id
    with torch.no_grad():
        hs = enc.model(input_ids=torch.tensor([ids]), output_hidden_states=True).hidden_states
    w = np.arange(1, len(ids) + 1, dtype=np.float64)
    return np.stack([(w[:, None] * h[0].double().numpy()).sum(0) / w.sum() for h in hs])


def test_mexa_weights_count_bos_as_position_one():
    np.testing.assert_allclose(sentence_weights("mexa", 4, (1, 4)), np.array([1, 2, 3, 4]) / 10)
    np.testing.assert_allclose(sentence_weights("weighted", 4, (1, 4)), np.array([0, 1, 2, 3]) / 6)  # unchanged


@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_card_mexa_vectors_are_mexas_position_weighted_mean_with_bos(decoders, family):
    from xalign.card.battery import CardModel

    enc = decoders[family]
    m = CardModel(enc)
    assert m.mexa_pooling == "mexa"
    got = m.pooled(TEXTS, ("mean", m.mexa_pooling))
    for i, text in enumerate(TEXTS):
        want = _by_hand(enc, text)
        for layer in range(enc.n_layers):
            np.testing.assert_allclose(got["mexa"][str(layer)][i], want[layer], rtol=1e-4, atol=1e-5)
    # the BOS-free pooling is another vector (the card's other measures keep it)
    assert not np.allclose(got["mexa"]["1"], got["mean"]["1"], atol=1e-4)
    np.testing.assert_allclose(got["mean"]["1"], m.sentences(TEXTS)["1"])


def test_card_mexa_measure_uses_mexa_pooling_and_says_so(decoders, monkeypatch):
    from dataclasses import asdict

    from xalign.card.battery import CardConfig, CardModel, tatoeba
    from xalign.card.receipts import measure_receipt
    from xalign.data import sentdata
    from xalign.measures import mexa

    enc = decoders["llama"]
    pairs = list(zip(SENTENCES[:12], SENTENCES[12:24], strict=True))
    monkeypatch.setattr(sentdata, "tatoeba_pairs", lambda lang: pairs)
    seen = []
    real = mexa.mexa_hits
    monkeypatch.setattr(mexa, "mexa_hits", lambda X, Y: seen.append((X, Y)) or real(X, Y))
    m = CardModel(enc)
    cfg = CardConfig.tiny()
    tatoeba(m, cfg)
    assert len(seen) == enc.n_layers
    X, Y = seen[1]  # layer 1: each row is MEXA's vector of the sampled pair
    from xalign.core.draws import sample_rows

    rows = sample_rows(len(pairs), cfg.tatoeba_n, cfg.seed)
    np.testing.assert_allclose(X[0], _by_hand(enc, pairs[rows[0]][0])[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(Y[0], _by_hand(enc, pairs[rows[0]][1])[1], rtol=1e-4, atol=1e-5)
    rc = measure_receipt("mexa", ["0", "1", "2"], enc, "2", asdict(cfg), [])
    assert rc["pooling"] == [{"layers": ["0", "1", "2"], "pooling": enc.mexa_pooling_receipt}]
    assert "(<s>) included" in enc.mexa_pooling_receipt and "MEXA" in enc.mexa_pooling_receipt
    assert "left out" in measure_receipt("sts", ["0"], enc, "0", asdict(cfg), [])["pooling"][0]["pooling"]
