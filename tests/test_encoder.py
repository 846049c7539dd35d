"""Encoder pooling, masking and the on-disk cache (real offline model, small inputs)."""

import dataclasses

import numpy as np
import pytest

from xalign.core.encoders import Encoder

pytestmark = pytest.mark.slow

TEXTS = ["The cat sits on the mat.", "Die Katze sitzt auf der Matte.", "A dog."]


@pytest.fixture
def enc(encoder, fresh_cache):
    return dataclasses.replace(encoder, cache=fresh_cache)


def test_shapes_and_layer_selection(enc):
    out = enc.encode(TEXTS, spans=[[(4, 7)], [], [(2, 5)]], poolings=("mean", "first"), layers=[0, 6, 12])
    assert out["mean"].shape == (3, 3, 384) and out["first"].shape == (3, 3, 384)
    assert out["words"].shape == (2, 3, 384)
    full = enc.encode(TEXTS, poolings=("mean",))["mean"]
    np.testing.assert_allclose(out["mean"], full[:, [0, 6, 12]], atol=1e-5)
    with pytest.raises(ValueError, match="out of range"):
        enc.encode(TEXTS, layers=[13])


def test_word_vector_is_the_mean_of_its_subwords(enc):
    import torch

    text = "Unbelievably long words"
    out = enc.encode([text], spans=[[(0, 12)]], poolings=())["words"]
    ids, offs = enc._tokenize([text])
    shift = len(enc.prefix)
    toks = [j for j, (a, b) in enumerate(offs[0]) if b > a and a < 12 + shift and b > shift]
    assert len(toks) >= 2  # several sub-words
    with torch.no_grad():
        hs = enc.model(input_ids=torch.tensor(ids, device=enc.device), output_hidden_states=True).hidden_states
    ref = torch.stack(hs)[:, 0, toks].float().mean(1).cpu().numpy()  # float32 mean, as encode pools
    np.testing.assert_allclose(out[0], ref, atol=1e-4)


def test_mask_replaces_the_word_by_one_mask_token(enc):
    plain = enc.encode(["The cat sleeps."], spans=[[(4, 7)]], poolings=())["words"]
    masked = enc.encode(["The cat sleeps."], spans=[[(4, 7)]], poolings=(), mask=True)["words"]
    ref = enc.encode(["The <mask> sleeps."], spans=[[(4, 10)]], poolings=())["words"]
    np.testing.assert_allclose(masked[:, 0], ref[:, 0], atol=1e-5)  # embedding layer: the mask token
    assert not np.allclose(masked, plain)


def test_second_call_is_served_from_the_cache(enc, monkeypatch):
    first = enc.encode(TEXTS, spans=[[(4, 7)], [(4, 9)], []], poolings=("mean",))
    calls = []
    monkeypatch.setattr(Encoder, "_forward", lambda *a, **k: calls.append(1))
    second = enc.encode(TEXTS, spans=[[(4, 7)], [(4, 9)], []], poolings=("mean",))
    assert calls == [] and enc.cache.hits >= 2
    np.testing.assert_array_equal(first["words"], second["words"])
    np.testing.assert_array_equal(first["mean"], second["mean"])


def test_interrupted_run_resumes_and_leaves_no_partial_entry(enc, monkeypatch):
    texts = [f"Sentence number {i}." for i in range(10)]
    enc = dataclasses.replace(enc, chunk_size=4)
    real = Encoder._forward
    done = []

    def flaky(self, *a, **k):
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(1)
        return real(self, *a, **k)

    monkeypatch.setattr(Encoder, "_forward", flaky)
    with pytest.raises(KeyboardInterrupt):
        enc.encode(texts)
    entries = list(enc.cache.root.rglob("*.npz"))
    assert len(entries) == 2 and not list(enc.cache.root.rglob("*.part"))
    monkeypatch.setattr(Encoder, "_forward", real)
    misses = enc.cache.misses
    out = enc.encode(texts)["mean"]
    assert enc.cache.misses - misses == 1  # only the third chunk ran
    assert out.shape == (10, 13, 384)


def test_bad_spans_are_rejected(enc):
    with pytest.raises(ValueError, match="outside the text"):
        enc.encode(["short"], spans=[[(2, 40)]])
    with pytest.raises(ValueError, match="span lists for"):
        enc.encode(["a", "b"], spans=[[]])
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        enc.encode(["a", None])


def test_bf16_forward_runs_where_autocast_can_reuse_its_weight_casts(enc):
    """Under inference_mode, autocast casts every weight to bf16 again at every call (no cast cache),
    which made the bf16 forward ~3x slower on CPU; the forward must run under no_grad instead."""
    import torch

    seen = []
    handle = enc.model.register_forward_hook(
        lambda *_: seen.append((torch.is_inference_mode_enabled(), torch.is_grad_enabled(),
                                torch.is_autocast_enabled(enc.device.split(":")[0]))))
    try:
        enc.autocast = "bfloat16"
        enc.encode(TEXTS, poolings=("mean",))
    finally:
        handle.remove()
    assert seen and all(s == (False, False, True) for s in seen)


def test_batch_tokens_default_follows_the_device(enc):
    """1,024 padded tokens per batch on the CPU (its caches), 16,384 on a GPU (kernel launches dominate
    small batches there; tests/test_gpu.py loads one); a caller's value wins."""
    from xalign.core.devices import default_batch_tokens
    from xalign.core.loading import load_encoder

    assert default_batch_tokens("cpu") == 1024
    assert default_batch_tokens("cuda") == default_batch_tokens("cuda:1") == 16384
    if enc.device == "cpu":
        assert enc.batch_tokens == 1024
    assert load_encoder(progress=False, device="cpu", batch_tokens=300).batch_tokens == 300


def test_chunk_size_default_follows_the_device(enc):
    """Cache chunks of 256 texts on the CPU, 4,096 on a GPU (a batch never spans two chunks, and a GPU's
    16,384-token batches need more than 256 sentences to fill); a caller's value wins."""
    from xalign.core.devices import default_chunk_size
    from xalign.core.loading import load_encoder

    assert default_chunk_size("cpu") == 256
    assert default_chunk_size("cuda") == default_chunk_size("cuda:1") == 4096
    if enc.device == "cpu":
        assert enc.chunk_size == 256
    assert load_encoder(progress=False, device="cpu", chunk_size=64).chunk_size == 64


def test_one_answer_to_is_this_a_gpu():
    """Names, indexed names and torch devices; None is the CPU."""
    import torch

    from xalign.core.devices import is_gpu

    assert is_gpu("cuda") and is_gpu("cuda:1") and is_gpu(torch.device("cuda", 0))
    assert not (is_gpu("cpu") or is_gpu(None) or is_gpu(torch.device("cpu")) or is_gpu("mps"))
