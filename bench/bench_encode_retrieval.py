"""Benchmark: encoding and CSLS retrieval, as ratios measured side by side in one process.

Timings on a shared machine are noisy, so every comparison interleaves its
contenders (A, B, C, A, B, C, ...), repeats, and keeps each one's best time;
the ratios next to their targets are what to read.

Encoding (the embedded model, the same WMT19 sentences for every contender):
  - `sentence-transformers` `encode` (Transformer + mean Pooling, batch 32,
    float32, last layer only): the reference;
  - xalign `Encoder.encode`, empty cache, all 13 layers kept (what the
    chapters need), float32 and bf16 autocast; target: >= 2x the reference for
    xalign in the precision `autocast="auto"` picks on this machine;
  - `sentence-transformers` under the same bf16 autocast (for information).
  Where the CPU has no native bf16 (no AVX512-BF16/AMX) xalign's bf16 row shows the
  emulation's cost (why `autocast="auto"` picks fp32 there) and the other bf16
  contenders (CSLS included) are not run.
CSLS (random unit vectors, d = 384, N queries against N candidates, top-1, k = 10):
  - the floor: three blocked N x N x d matrix products (what the textbook
    CSLS needs: r_V, r_U, the scores), in float32 and in bf16, each with
    256 MiB blocks and with cache-sized blocks, each product written into one
    reused block (a fresh block per product would add the kernel's page faults);
    the faster of the two is the floor;
  - xalign `csls.csls_topk` (two products: r_U, then r_V and the scores from
    the same product), float32 and bf16; target: <= 1.3x the floor of the same precision;
  - faiss `IndexFlatIP` plain nearest-neighbour search: ONE product, no CSLS,
    so it is compared with one third of the floor, not with CSLS.
Every N up to --full-max (default 200,000) runs whole, in a child process whose
peak memory is reported; above 20,000 rows only csls_topk runs whole,
--large-repeats times, and its floors (pure products, linear in the rows) are timed
on two blocks of rows and extrapolated (N = 200,000 whole: about 35 minutes on 2
Zen 4 cores; `--full-max 20000` times it on row samples instead, in about 2 minutes). Above
--full-max the same kernels run on --sample-blocks blocks of rows of each pass and
the times are extrapolated to N rows (labelled so).

    python bench/bench_encode_retrieval.py                       # 300 sentences; N = 20,000 and 200,000
    python bench/bench_encode_retrieval.py --sentences 1000 --sizes 5000,20000 --repeats 5
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CACHE_BLOCK_BYTES = 16 * 2**20  # the floor's other block size: 16 MiB of float32 per block
ENCODE_TARGET = 2.0  # xalign (13 layers) vs sentence-transformers encode
CSLS_TARGET = 1.3    # CSLS vs its three-product floor


def peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo)."""
    try:
        with open("/proc/cpuinfo") as fh:
            return next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), "CPU")
    except OSError:
        return "CPU"


def interleaved(contenders: dict, repeats: int) -> dict[str, float]:
    """Best wall time of each contender, run in turn ``repeats`` times."""
    best = {name: float("inf") for name in contenders}
    for _ in range(repeats):
        for name, fn in contenders.items():
            t = time.perf_counter()
            fn()
            best[name] = min(best[name], time.perf_counter() - t)
    return best


# ------------------------------------------------------------------ encoding
def wmt_sentences(n: int) -> list[str]:
    from xalign.data.corpora import wmt_newstest

    pairs = wmt_newstest("wmt19", "de-en") + wmt_newstest("wmt19", "ru-en")
    return [s for s, _ in pairs][:n]


def sentence_transformer(device: str):
    """sentence-transformers on the embedded model: last layer, mean pooling (the reference contender)."""
    from sentence_transformers import SentenceTransformer

    from xalign.core.encoders import materialize_offline_model
    from xalign.core.pretrained import st_transformer_kwargs
    from xalign.core.st_encoder import st_modules

    models, path = st_modules(), str(materialize_offline_model())
    kwargs = st_transformer_kwargs()
    kwargs["model_kwargs"]["add_pooling_layer"] = False
    return SentenceTransformer(modules=[models.Transformer(path, **kwargs), models.Pooling(384, "mean")], device=device)


def uncached_encode(enc, texts: list[str], autocast: str | None):
    """A call that encodes ``texts`` (every layer, mean pooling) under ``autocast`` on an empty cache each
    time, so the model runs on every call."""
    from xalign.core.cache import EmbeddingCache

    tmp, calls = tempfile.mkdtemp(), itertools.count()

    def run():
        enc.autocast = autocast
        enc.cache = EmbeddingCache(os.path.join(tmp, str(next(calls))))
        enc.encode(texts, poolings=("mean",))
    return run


def bench_encode(n: int, repeats: int) -> None:
    import torch

    from xalign.core.loading import load_encoder

    texts = wmt_sentences(n)
    prefixed = ["passage: " + x for x in texts]
    st = sentence_transformer("cpu")
    enc = load_encoder(progress=False, device="cpu")
    n_tokens = sum(len(x) for x in enc._tokenize(texts)[0])

    def st_encode(autocast):
        def run():
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                st.encode(prefixed, batch_size=32)
        return run

    ref = "sentence-transformers encode, fp32 (reference)"
    from xalign.core.precision import native_bf16, resolve_autocast

    contenders = {ref: st_encode(False), "xalign encode, fp32, 13 layers": uncached_encode(enc, texts, None),
                  "xalign encode, bf16 autocast, 13 layers": uncached_encode(enc, texts, "bfloat16")}  # emulated without native bf16
    if native_bf16("cpu"):
        contenders["sentence-transformers encode, bf16 autocast"] = st_encode(True)
    ours = "xalign encode, bf16 autocast, 13 layers" if resolve_autocast("auto") else "xalign encode, fp32, 13 layers"
    best = interleaved(contenders, repeats)
    t = time.perf_counter()
    enc.encode(texts, poolings=("mean",))  # the last bf16 call's cache: served from disk
    best["xalign encode, cached (second call)"] = time.perf_counter() - t
    print(f"\n## Encoding {n} WMT19 sentences ({n_tokens} tokens), multilingual-e5-small, "
          f"best of {repeats} interleaved runs\n")
    print(f"{'method':48s} {'seconds':>8s} {'tokens/s':>9s} {'x reference':>12s}")
    for name, sec in best.items():
        print(f"{name:48s} {sec:8.2f} {n_tokens / sec:9.0f} {best[ref] / sec:11.2f}x")
    if not native_bf16("cpu"):
        print("\n(this CPU has no native bf16: bf16 autocast is emulated, hence autocast='auto' computes in fp32; "
              "sentence-transformers in bf16 not run)")
    ratio = best[ref] / best[ours]
    print(f"\n{ours} (autocast='auto' here) vs sentence-transformers (fp32, last layer): {ratio:.2f}x, "
          f"target >= {ENCODE_TARGET:.1f}x: {'met' if ratio >= ENCODE_TARGET else 'NOT met'}")


# ---------------------------------------------------------------------- CSLS
def random_pairs(n: int, dim: int = 384):
    rng = np.random.default_rng(0)
    U = rng.standard_normal((n, dim), dtype=np.float32)
    V = U + rng.standard_normal((n, dim), dtype=np.float32)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    return U, V


def cache_block_rows(n_cols: int) -> int:
    """Rows of a cache-sized block (:data:`CACHE_BLOCK_BYTES` of float32), 64 to 8192."""
    return max(64, min(8192, CACHE_BLOCK_BYTES // (4 * max(n_cols, 1))))


def csls_contenders(U, V, k: int = 10, large: bool = False) -> tuple[dict, dict]:
    """Whole-N contenders (name -> callable) and, per name, its precision.

    ``large``: only ``csls_topk`` (its floors are timed on a sample of rows, :func:`sampled_csls`);
    bf16 only where native.
    """
    import faiss
    import torch

    from xalign.measures.csls import csls_topk
    from xalign.measures.neighbours import block_rows

    t32 = {"u": torch.from_numpy(U), "v": torch.from_numpy(V)}
    t16 = {name: x.bfloat16() for name, x in t32.items()}
    sizes = {"256 MiB blocks": block_rows(len(V)), "cache blocks": cache_block_rows(len(V))}

    def floor(t, rows):
        out = torch.empty(rows, len(V), dtype=t["u"].dtype)  # one block, reused (no page faults per block)

        def run():
            for a, b in ((t["u"], t["v"]), (t["v"], t["u"]), (t["u"], t["v"])):
                for s in range(0, a.shape[0], rows):
                    q = a[s : s + rows]
                    torch.mm(q, b.T, out=out[: len(q)])
        return run

    from xalign.core.precision import native_bf16

    fns = {} if large else {f"floor: 3 products, fp32, {label}": floor(t32, rows) for label, rows in sizes.items()}
    fns["csls.csls_topk, fp32"] = lambda: csls_topk(U, V, k=k)
    if not large:
        index = faiss.IndexFlatIP(U.shape[1])
        index.add(V)
        fns["faiss IndexFlatIP plain NN (1 product)"] = lambda: index.search(U, 1)
    if native_bf16("cpu"):
        if not large:
            fns.update({f"floor: 3 products, bf16, {label}": floor(t16, rows) for label, rows in sizes.items()})
        fns["csls.csls_topk, bf16"] = lambda: csls_topk(U, V, k=k, precision="bfloat16")
    return fns, {name: ("bf16" if "bf16" in name else "fp32") for name in fns}


def whole_csls(n: int, repeats: int) -> dict:
    """Child process: every contender on the whole N x N problem; best seconds and peak memory."""
    U, V = random_pairs(n)
    base = peak_rss_mib()
    large = n > 20000
    fns, _ = csls_contenders(U, V, large=large)
    best = interleaved(fns, repeats)
    out = {"seconds": best, "peak_rss_mib": peak_rss_mib(), "extra_mib": peak_rss_mib() - base}
    if large:  # the floors are pure products, linear in the rows: timed on a sample, extrapolated
        floors = sampled_csls(n, 2, max(repeats, 2), floors_only=True, pairs=(U, V))
        out["seconds"].update(floors["seconds"])
        out["floor_rows"] = floors["rows"]
    return out


def sampled_csls(n: int, blocks: int, repeats: int, k: int = 10, floors_only: bool = False, pairs=None) -> dict:
    """Per-row times of each contender's passes on ``blocks`` row blocks, extrapolated to n rows.

    ``floors_only``: the floors alone; ``pairs``: (U, V) already drawn."""
    import torch

    from xalign.measures import neighbours
    from xalign.measures.csls import block_rows, csls_block, score_layout
    from xalign.measures.neighbours import density_block, product_block

    U, V = pairs if pairs is not None else random_pairs(n)
    base = peak_rss_mib()
    rows, sub_cache = neighbours.block_rows(n), cache_block_rows(n)
    starts = np.linspace(0, n - rows, blocks).astype(int)
    # csls_topk's own blocks (block_rows), about as many rows in all as the floors' sample
    fast_rows = block_rows(n)
    fast_starts = np.linspace(0, n - fast_rows, max(blocks, round(blocks * rows / fast_rows))).astype(int)
    from xalign.core.precision import native_bf16

    out = {}
    kinds = (("fp32", torch.float32), ("bf16", torch.bfloat16)) if native_bf16("cpu") else (("fp32", torch.float32),)
    for label, dtype in kinds:
        u, v = torch.from_numpy(U).to(dtype), torch.from_numpy(V).to(dtype)
        layout = score_layout(v, torch.zeros(n))  # as csls_topk lays the candidates out
        buf = torch.empty(fast_rows, n, dtype=dtype)

        def floor(sub, u=u, v=v):
            out = torch.empty(sub, n, dtype=u.dtype)  # one block, reused (no page faults per block)

            def run():
                for s in starts:
                    for t in range(s, s + rows, sub):
                        for a, b in ((u, v), (v, u), (u, v)):
                            q = a[t : min(t + sub, s + rows)]
                            torch.mm(q, b.T, out=out[: len(q)])
            return run

        def fast(u=u, v=v, layout=layout, buf=buf):
            for s in fast_starts:
                density_block(v[s : s + fast_rows], u, k, buf)
                csls_block(product_block(u[s : s + fast_rows], layout.keys, buf), layout, k, 1)

        fns = {f"floor: 3 products, {label}, 256 MiB blocks": floor(rows),
               f"floor: 3 products, {label}, cache blocks": floor(sub_cache)}
        if not floors_only:
            fns[f"csls.csls_topk, {label}"] = fast
        best = interleaved(fns, repeats)
        sampled = {name: (len(fast_starts) * fast_rows if name.startswith("csls.") else len(starts) * rows)
                   for name in best}
        out.update({name: sec * n / sampled[name] for name, sec in best.items()})
    return {"seconds": out, "rows": int(len(starts) * rows), "block_rows": rows,
            "fast_rows": int(len(fast_starts) * fast_rows), "fast_block_rows": fast_rows,
            "peak_rss_mib": peak_rss_mib(), "extra_mib": peak_rss_mib() - base}


def bench_csls(sizes: list[int], full_max: int, blocks: int, repeats: int, large_repeats: int) -> None:
    print(f"\n## CSLS top-1 (k = 10): N queries x N candidates, d = 384, best of {repeats} interleaved runs "
          f"({large_repeats} above N = 20,000)\n")
    print(f"{'N':>8s} {'method':42s} {'seconds':>9s} {'x floor':>8s}   notes")
    for n in sizes:
        if n <= full_max:
            reps = repeats if n <= 20000 else large_repeats
            out = subprocess.run([sys.executable, __file__, "--whole", str(n), str(reps)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            best, prec = r["seconds"], {name: ("bf16" if "bf16" in name else "fp32") for name in r["seconds"]}
            note = (f"whole N, measured; peak RSS {r['peak_rss_mib']:.0f} MiB, "
                    f"{r['extra_mib']:.0f} beyond the inputs")
            if "floor_rows" in r:
                note += f"; the floors extrapolated from {r['floor_rows']} of {n} rows per product"
        else:
            out = subprocess.run([sys.executable, __file__, "--sampled", str(n), str(blocks), str(repeats)],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            best, prec = r["seconds"], {name: ("bf16" if "bf16" in name else "fp32") for name in r["seconds"]}
            note = (f"extrapolated from {r['fast_rows']} of {n} rows per pass ({r['fast_block_rows']}-row blocks; "
                    f"the floors from {r['rows']} rows, {r['block_rows']}-row blocks); "
                    f"peak RSS {r['peak_rss_mib']:.0f} MiB, {r['extra_mib']:.0f} beyond the inputs")
        floors = {p: min(sec for name, sec in best.items() if name.startswith(f"floor: 3 products, {p}"))
                  for p in set(prec.values())}  # the floor: the faster of the two block sizes
        for name, sec in best.items():
            fl = floors[prec[name]]
            if name.startswith("faiss"):
                rel = f"{sec / (fl / 3):7.2f}x of ONE product (fp32); not CSLS"
            else:
                rel = f"{sec / fl:7.2f}x"
            print(f"{n:8d} {name:42s} {sec:9.2f} {rel}", flush=True)
        for p in sorted({prec[name] for name in best}, reverse=True):
            ratio = best[f"csls.csls_topk, {p}"] / floors[p]
            print(f"{n:8d} csls_topk {p} vs its floor: {ratio:.2f}x, target <= {CSLS_TARGET}x: "
                  f"{'met' if ratio <= CSLS_TARGET else 'NOT met'}  [{note}]")
        print()


def bench_parser(doc: str, sentences: int) -> argparse.ArgumentParser:
    """The options every benchmark takes: sentences to encode, CSLS sizes, repeats, parts to skip."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=sentences)
    parser.add_argument("--sizes", default="20000,200000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-encode", action="store_true")
    parser.add_argument("--skip-csls", action="store_true")
    return parser


def main() -> None:
    parser = bench_parser(__doc__, sentences=300)
    parser.add_argument("--full-max", type=int, default=200000, help="largest N run whole (default 200000)")
    parser.add_argument("--large-repeats", type=int, default=1, help="repeats above N = 20,000 (default 1)")
    parser.add_argument("--sample-blocks", type=int, default=2, help="row blocks per pass above --full-max")
    parser.add_argument("--sampled", nargs=3, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--whole", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sampled:
        print(json.dumps(sampled_csls(*args.sampled)))
        return
    if args.whole:
        print(json.dumps(whole_csls(*args.whole)))
        return
    import torch

    from xalign.core.precision import native_bf16

    print(f"machine: {cpu_model()}, {os.cpu_count()} CPU cores, native bf16: {native_bf16('cpu')}, load average "
          f"{os.getloadavg()[0]:.1f}, torch {torch.__version__}, {torch.get_num_threads()} threads, "
          f"GPU: {torch.cuda.is_available()} (run on the CPU)")
    if not args.skip_encode:
        bench_encode(args.sentences, args.repeats)
    if not args.skip_csls:
        bench_csls([int(x) for x in args.sizes.split(",")], args.full_max, args.sample_blocks, args.repeats,
                   args.large_repeats)


if __name__ == "__main__":
    main()
