"""The encoder's edges: a bare string, an empty list, empty layers, a non-model folder, an unknown id offline."""

import time

import numpy as np
import pytest

from xalign.core.loading import load_encoder

pytestmark = pytest.mark.slow  # loads the real offline encoder (seconds once it is converted)


def test_a_bare_string_is_refused(encoder):
    with pytest.raises(TypeError, match=r"one str.*\[text\]"):
        encoder.encode_sentences("Hallo Welt")


def test_an_empty_list_gives_empty_arrays(encoder):
    out = encoder.encode_sentences([], layers=[0, 12])
    assert out.shape == (0, 2, encoder.dim)
    assert encoder.encode_words([], [], layers=[3]).shape == (0, 1, encoder.dim)


def test_empty_layers_are_named(encoder):
    with pytest.raises(ValueError, match="empty"):
        encoder.encode_sentences(["a"], layers=[])


def test_blank_sentences_warn_and_are_counted(encoder):
    before = encoder.n_blank_texts
    with pytest.warns(RuntimeWarning, match="2 of 3 texts are empty, whitespace-, control- or zero-width-only"):
        v = encoder.encode_sentences(["", "   ", "Haus"], layers=[12])
    assert encoder.n_blank_texts == before + 2
    assert np.allclose(v[0], v[1])


def test_a_folder_that_is_not_a_model_is_named(tmp_path):
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(OSError, match="not a model: it has no config.json"):
        load_encoder(str(tmp_path))


def test_an_unknown_hub_id_fails_fast_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    t0 = time.time()
    with pytest.raises(OSError, match="not reachable"):
        load_encoder("nobody/no-such-model-xyz")
    assert time.time() - t0 < 10


def test_tokens_pooling_is_the_mean_of_the_texts_own_tokens(encoder):
    """"tokens" = the mean over the text's own tokens (prefix and special tokens left out), in the same pass."""
    texts = ["Das Haus ist alt.", "这是房子。"]
    out = encoder.encode(texts, spans=[[(0, len(t))] for t in texts], poolings=("mean", "tokens"), layers=[0, 12])
    assert np.allclose(out["tokens"], out["words"], atol=1e-5)  # the whole text as one span
    assert not np.allclose(out["tokens"], out["mean"], atol=1e-3)  # the prefix and specials do count in "mean"
