"""The GPU path: what the library computes on a CUDA device agrees with the CPU.

Runs only where torch sees a CUDA device (the lent device machine); CI has none, so there every
test here is skipped with that reason. Each test compares the device's result with the CPU's on the
same inputs: the encoder (float16 weights, the GPU default; float32; bf16 autocast), the CSLS and
nearest-neighbour searches, the RCSLS fit, and CSLS memory at N = 200,000.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (none here)")

SENTENCES = [
    "The committee approved the budget after a long debate.",
    "Der Ausschuss genehmigte den Haushalt nach einer langen Debatte.",
    "Le comité a approuvé le budget après un long débat.",
    "Комитет утвердил бюджет после долгих дебатов.",
    "委员会经过长时间辩论后批准了预算。",
    "She reads a book every evening before going to sleep.",
    "Sie liest jeden Abend ein Buch, bevor sie schlafen geht.",
    "Elle lit un livre chaque soir avant de dormir.",
    "Rain is expected in the north tomorrow.",
    "Morgen wird im Norden Regen erwartet.",
    ("The old bridge over the river was closed for repairs last spring, and traffic has been "
     "diverted through the town centre ever since, much to the annoyance of local shop owners."),
    "Die alte Brücke über den Fluss wurde im letzten Frühjahr für Reparaturen gesperrt.",
]


def word_spans(texts):
    """Character spans of every whitespace-separated word."""
    out = []
    for t in texts:
        spans, pos = [], 0
        for w in t.split():
            s = t.index(w, pos)
            spans.append((s, s + len(w)))
            pos = s + len(w)
        out.append(spans)
    return out


def row_cosines(A, B):
    """Cosine of each row of A with the same row of B, over the last axis: shape A.shape[:-1]."""
    A, B = np.asarray(A, np.float64), np.asarray(B, np.float64)
    return (A * B).sum(-1) / (np.linalg.norm(A, axis=-1) * np.linalg.norm(B, axis=-1))


@pytest.fixture(scope="module")
def encoded(tmp_path_factory):
    """Every layer's mean-pooled sentence vectors and word vectors, per (device, precision) set-up."""
    from xalign.core.cache import EmbeddingCache
    from xalign.core.loading import load_encoder
    from xalign.core.precision import precision_of

    spans = word_spans(SENTENCES)
    setups = {"cpu float32": dict(device="cpu"), "cuda float16": dict(device="cuda"),
              "cuda float32": dict(device="cuda", half=False),
              "cuda bf16 autocast": dict(device="cuda", half=False, autocast="auto")}
    out = {}
    for name, kw in setups.items():
        autocast = kw.pop("autocast", None)
        enc = load_encoder(progress=False, cache=EmbeddingCache(tmp_path_factory.mktemp("emb")), **kw)
        enc.autocast = autocast
        res = enc.encode(SENTENCES, spans=spans, poolings=("mean",))
        out[name] = {"mean": res["mean"], "words": res["words"], "precision": precision_of(enc),
                     "key": enc._key("mean", enc._layers(None), "x")}
    return out


def test_gpu_encoders_record_their_precision_so_caches_never_mix(encoded):
    assert encoded["cpu float32"]["precision"] == "torch.float32"
    assert encoded["cuda float16"]["precision"] == "torch.float16"
    assert encoded["cuda float32"]["precision"] == "torch.float32"
    assert encoded["cuda bf16 autocast"]["precision"] == "bfloat16"  # H100/H200: native bf16
    assert encoded["cuda float16"]["key"] != encoded["cpu float32"]["key"]
    assert encoded["cuda bf16 autocast"]["key"] != encoded["cpu float32"]["key"]


@pytest.mark.parametrize("setup, floor", [("cuda float32", 0.99999), ("cuda float16", 0.999),
                                          ("cuda bf16 autocast", 0.99)])
def test_gpu_vectors_agree_with_cpu_float32(encoded, setup, floor):
    ref = encoded["cpu float32"]
    for kind in ("mean", "words"):
        assert encoded[setup][kind].shape == ref[kind].shape == ref[kind].shape[:1] + (13, 384)
        cos = row_cosines(encoded[setup][kind], ref[kind])
        print(f"{setup} vs cpu float32, {kind}: min cosine {cos.min():.6f}, mean {cos.mean():.6f}")
        assert np.isfinite(cos).all()
        assert cos.min() >= floor, (setup, kind, float(cos.min()))


def test_gpu_encoder_batches_by_the_gpu_default_unless_told(tmp_path):
    from xalign.core.cache import EmbeddingCache
    from xalign.core.devices import GPU_BATCH_TOKENS, GPU_CHUNK_TEXTS
    from xalign.core.loading import load_encoder

    enc = load_encoder(progress=False, device="cuda", cache=EmbeddingCache(tmp_path))
    assert (enc.batch_tokens, enc.chunk_size) == (GPU_BATCH_TOKENS, GPU_CHUNK_TEXTS)
    assert load_encoder(progress=False, device="cuda", batch_tokens=512, cache=EmbeddingCache(tmp_path)).batch_tokens == 512


def random_pairs(n, dim, seed=0):
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((n, dim)).astype(np.float32)
    V = U + 0.8 * rng.standard_normal((n, dim)).astype(np.float32)
    return U, V


def test_gpu_retrieval_matches_cpu():
    from csls_reference import csls_topk_three_products
    from xalign.measures.csls import csls_topk
    from xalign.measures.neighbours import cosine_topk, csls, mean_topk_similarity

    U, V = random_pairs(3000, 64)
    for fn in (csls_topk, cosine_topk):
        (i_cpu, s_cpu), (i_gpu, s_gpu) = (fn(U, V, topn=5, block=700, device=d) for d in ("cpu", "cuda"))
        assert (i_cpu == i_gpu).mean() >= 0.999, fn.__name__  # ties at float rounding may swap a pair
        np.testing.assert_allclose(s_gpu, s_cpu, atol=2e-5, err_msg=fn.__name__)
    np.testing.assert_allclose(csls(U[:500], V, device="cuda"), csls(U[:500], V, device="cpu"), atol=2e-5)
    np.testing.assert_allclose(mean_topk_similarity(U, V, exclude_self=False, device="cuda"),
                               mean_topk_similarity(U, V, exclude_self=False, device="cpu"), atol=2e-5)
    fast_bf16, _ = csls_topk(U, V, device="cuda", precision="bfloat16")
    exact, _ = csls_topk_three_products(U, V, device="cpu")
    assert (fast_bf16 == exact).mean() >= 0.98


def test_gpu_rcsls_fit_matches_cpu():
    from xalign.measures.rcsls import fit_rcsls

    rng = np.random.default_rng(3)
    X = rng.standard_normal((400, 32)).astype(np.float32)
    Q, _ = np.linalg.qr(rng.standard_normal((32, 32)))
    Y = X @ Q.astype(np.float32) + 0.1 * rng.standard_normal((400, 32)).astype(np.float32)
    cpu, gpu = (fit_rcsls(X, Y, n_iter=10, device=d) for d in ("cpu", "cuda"))
    np.testing.assert_allclose(gpu.losses, cpu.losses, rtol=1e-4)
    np.testing.assert_allclose(gpu.W, cpu.W, atol=1e-4)


def test_gpu_csls_memory_stays_blocked_at_200k():
    """N = 200,000, d = 384: CSLS holds one block of scores, not the 160 GB N x N matrix."""
    from xalign.measures.csls import csls_topk

    U, V = random_pairs(200_000, 384, seed=1)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    idx, _ = csls_topk(U, V, device="cuda")
    extra = torch.cuda.max_memory_allocated() - base
    inputs = 2 * U.nbytes
    print(f"csls_topk N = 200,000 on cuda: {extra / 2**20:.0f} MiB beyond what was allocated before "
          f"(inputs {inputs / 2**20:.0f} MiB)")
    assert extra <= inputs + 4 * 2**30  # the inputs on the device plus a few 256 MiB blocks
    assert (idx[:, 0] == np.arange(len(U))).mean() > 0.9  # V is a noisy copy of U


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_gpu_group_topk_values_equal_torch_topk(dtype):
    """The group maxima read the float bits as integers: on CUDA, as on the CPU, the k largest values are
    torch.topk's exactly, for rows of mixed sign, rows all below zero and tied rows, at a width with a tail."""
    from xalign.measures.group_topk import topk_values

    g = torch.Generator().manual_seed(0)
    S = torch.randn(600, 20_011, generator=g)
    S[100:200] -= 10.0                      # every entry below zero: bounds are 0, the fallback decides
    S[200:300] = torch.round(S[200:300])    # many ties at the k-th value
    S = S.to(getattr(torch, dtype)).cuda()
    for k in (1, 10):
        got = topk_values(S, k)
        assert torch.equal(got, S.topk(k, dim=1).values), k
