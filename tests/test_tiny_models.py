"""Tiny random models of the papers' families load and encode through the same code paths as the hub models."""


import numpy as np
import pytest

from xalign.core.loading import load_encoder
from xalign.testing.tiny import build_tiny_model


@pytest.mark.parametrize("family", ["mbert", "xlmr", "mbart"])
def test_tiny_family_encodes_sentences_and_words(tiny_models, family):
    enc = load_encoder(str(tiny_models[family]), progress=False, device="cpu")
    assert enc.n_layers == 3 and enc.dim == 32 and enc.prefix == ""
    text = ["Das ist ein Haus.", "这是房子。"]
    v = enc.encode_sentences(text)
    w = enc.encode_words(text[:1], [[(0, 3), (12, 16)]])
    assert v.shape == (2, 3, 32) and w.shape == (2, 3, 32) and np.isfinite(v).all()
    assert not np.allclose(w[0], w[1])  # two different words, two different vectors
    assert enc.max_length == 512
    assert enc.encode_sentences(["lang " * 600]).shape == (1, 3, 32)  # truncated to the model's positions


def test_tiny_labse_is_a_sentence_transformers_model(tiny_models):
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(tiny_models["labse"]), device="cpu")
    out = st.encode(["Das ist ein Haus.", "这是房子。"])
    assert out.shape == (2, 24) and np.allclose(np.linalg.norm(out, axis=1), 1, atol=1e-5)


def test_unknown_family_is_named(tmp_path):
    with pytest.raises(ValueError, match="family must be one of"):
        build_tiny_model("gpt", tmp_path, ["x"] * 60)


def test_tiny_labse_builds_without_deprecated_sentence_transformers_imports(tmp_path):
    """sentence-transformers 6 deprecates ``sentence_transformers.models`` (it warns once per process,
    so the build runs in a fresh interpreter that turns that warning into an error)."""
    import subprocess
    import sys

    code = ("import warnings; warnings.filterwarnings('error', message='Importing from', category=DeprecationWarning)\n"
            "from xalign.testing.tiny import build_tiny_model\n"
            f"build_tiny_model('labse', {str(tmp_path / 'labse')!r}, ['Das ist ein Haus.', 'the cat sat'] * 40, "
            "vocab_size=200)")
    got = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, got.stderr[-2000:]
