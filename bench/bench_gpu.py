"""Benchmark on a CUDA GPU: encoding and CSLS, ratios measured side by side in one process.

The same comparisons as ``bench_encode_retrieval.py`` (which times the CPU), on ``cuda``:

Encoding (the embedded model, WMT19 sentences, every contender warmed up once, then the best of
``--repeats`` interleaved runs):
  - `sentence-transformers` `encode` (last layer, mean pooling) in float32 with its default batch
    of 32 (the reference), and with float16 weights at batch 32 and at batch 512 (its fastest
    here: like with like for xalign's GPU default);
  - xalign `Encoder.encode`, empty cache, all 13 layers, `load_encoder`'s GPU batches and chunks
    (`default_batch_tokens`, `default_chunk_size`): float16 weights (its GPU default), float32 weights,
    float32 weights under bf16 autocast, and float16 in the CPU's chunks of 256 texts.
CSLS (random unit vectors, d = 384, top-1, k = 10), each N run whole on the GPU:
  - the floor: three N x N x d products in the library's GPU blocks (float32 and bf16);
  - `csls.csls_topk` (float32 and bf16), with the
    GPU memory each one allocated beyond its inputs.
The CPU targets of issue 15 (>= 2x, <= 1.3x) are printed for comparison; nothing in CI runs this.

    python bench/bench_gpu.py                      # 4,000 sentences; N = 20,000 and 200,000
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_encode_retrieval import (
    CSLS_TARGET,
    ENCODE_TARGET,
    bench_parser,
    interleaved,
    random_pairs,
    sentence_transformer,
    uncached_encode,
    wmt_sentences,
)


def synced(fn):
    """``fn`` followed by a device synchronisation, so a timer sees the GPU's work."""
    import torch

    def run():
        fn()
        torch.cuda.synchronize()
    return run


def best_times(contenders: dict, repeats: int) -> dict[str, float]:
    """One warm-up call each (CUDA contexts, kernels, allocator), then :func:`interleaved`'s best times."""
    for fn in contenders.values():
        fn()
    return interleaved(contenders, repeats)


def bench_encode(n: int, repeats: int) -> None:
    from xalign.core.devices import CPU_CHUNK_TEXTS
    from xalign.core.loading import load_encoder

    texts = wmt_sentences(n)
    prefixed = ["passage: " + x for x in texts]
    st32, st16 = sentence_transformer("cuda"), sentence_transformer("cuda").half()
    encoders = {"float16 weights": load_encoder(progress=False, device="cuda"),
                "float32 weights": load_encoder(progress=False, device="cuda", half=False),
                "float16, CPU chunks": load_encoder(progress=False, device="cuda", chunk_size=CPU_CHUNK_TEXTS)}
    n_tokens = sum(len(x) for x in encoders["float16 weights"]._tokenize(texts)[0])

    ref, ref16 = "sentence-transformers encode, fp32 (reference)", "sentence-transformers encode, fp16, batch 512"
    contenders = {ref: synced(lambda: st32.encode(prefixed, batch_size=32)),
                  "sentence-transformers encode, fp16": synced(lambda: st16.encode(prefixed, batch_size=32)),
                  ref16: synced(lambda: st16.encode(prefixed, batch_size=512)),
                  "xalign encode, fp16 (GPU default), 13 layers": synced(uncached_encode(encoders["float16 weights"], texts, None)),
                  f"xalign encode, fp16, chunks of {CPU_CHUNK_TEXTS} texts": synced(uncached_encode(encoders["float16, CPU chunks"], texts, None)),
                  "xalign encode, fp32, 13 layers": synced(uncached_encode(encoders["float32 weights"], texts, None)),
                  "xalign encode, bf16 autocast, 13 layers": synced(uncached_encode(encoders["float32 weights"], texts, "bfloat16"))}
    best = best_times(contenders, repeats)
    print(f"\n## Encoding {n} WMT19 sentences ({n_tokens} tokens) on the GPU, multilingual-e5-small, "
          f"best of {repeats} interleaved runs after a warm-up\n")
    print(f"{'method':48s} {'seconds':>8s} {'tokens/s':>9s} {'x fp32 ref':>11s} {'x fp16 b512':>11s}")
    for name, sec in best.items():
        print(f"{name:48s} {sec:8.3f} {n_tokens / sec:9.0f} {best[ref] / sec:10.2f}x {best[ref16] / sec:10.2f}x")
    ours = "xalign encode, fp16 (GPU default), 13 layers"
    print(f"\n{ours} vs sentence-transformers fp32: {best[ref] / best[ours]:.2f}x, vs its fp16: "
          f"{best[ref16] / best[ours]:.2f}x at batch 512 (the CPU target is >= {ENCODE_TARGET:.1f}x)")


def csls_contenders(U, V, t32, t16, rows: int) -> dict:
    """name -> callable: the two floors (three blocked products on the GPU tensors) and the library's CSLS."""
    from xalign.measures.csls import csls_topk

    def floor(t):
        def run():
            u, v = t
            for a, b in ((u, v), (v, u), (u, v)):
                for s in range(0, a.shape[0], rows):
                    a[s : s + rows] @ b.T
        return run

    return {"floor: 3 products, fp32": floor(t32),
            "floor: 3 products, bf16": floor(t16),
            "csls.csls_topk, fp32": lambda: csls_topk(U, V, device="cuda"),
            "csls.csls_topk, bf16": lambda: csls_topk(U, V, device="cuda", precision="bfloat16")}


def bench_csls(sizes: list[int], repeats: int) -> None:
    import torch

    from xalign.measures.neighbours import block_rows

    print(f"\n## CSLS top-1 (k = 10) on the GPU: N queries x N candidates, d = 384, best of {repeats} "
          f"interleaved runs after a warm-up, inputs as NumPy arrays (the copy to the GPU is timed)\n")
    print(f"{'N':>8s} {'method':42s} {'seconds':>9s} {'x floor':>8s} {'GPU MiB beyond inputs':>22s}")
    for n in sizes:
        U, V = random_pairs(n)
        rows = block_rows(n, None, "cuda")  # the library's GPU blocks (neighbours.block_bytes)
        t32 = (torch.from_numpy(U).cuda(), torch.from_numpy(V).cuda())
        t16 = tuple(x.bfloat16() for x in t32)

        fns = {name: synced(fn) for name, fn in csls_contenders(U, V, t32, t16, rows).items()}
        extra = {}
        for name, fn in fns.items():
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            base = torch.cuda.memory_allocated()
            fn()
            extra[name] = (torch.cuda.max_memory_allocated() - base) / 2**20
        best = best_times(fns, repeats)
        floors = {p: best[f"floor: 3 products, {p}"] for p in ("fp32", "bf16")}
        for name, sec in best.items():
            p = "bf16" if "bf16" in name else "fp32"
            print(f"{n:8d} {name:42s} {sec:9.3f} {sec / floors[p]:7.2f}x {extra[name]:22.0f}", flush=True)
        for p in ("fp32", "bf16"):
            ratio = best[f"csls.csls_topk, {p}"] / floors[p]
            print(f"{n:8d} csls_topk {p} vs its floor: {ratio:.2f}x in blocks of {rows} queries "
                  f"(the CPU target is <= {CSLS_TARGET}x)")
        del t32, t16
        torch.cuda.empty_cache()
        print()


def main() -> None:
    args = bench_parser(__doc__, sentences=4000).parse_args()
    import torch

    if not torch.cuda.is_available():
        sys.exit("bench_gpu.py needs a CUDA device; bench_encode_retrieval.py times the CPU")
    print(f"GPU: {torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"TF32 matmul: {torch.backends.cuda.matmul.allow_tf32}, {os.cpu_count()} CPU cores")
    if not args.skip_encode:
        bench_encode(args.sentences, args.repeats)
    if not args.skip_csls:
        bench_csls([int(x) for x in args.sizes.split(",")], args.repeats)


if __name__ == "__main__":
    main()
