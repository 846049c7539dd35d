"""Benchmark: encoding throughput and CSLS retrieval, with figures printed.

Encoding (the embedded model, the same WMT19 sentences for every contender):
  - xalign `Encoder.encode`, cold (empty cache) and cached (second call),
    all 13 layers kept (what the chapters need);
  - a plain `transformers` loop: fixed batches in input order, last layer;
  - `sentence-transformers` `encode` (Transformer + mean Pooling modules).
Retrieval (random unit vectors, d = 384, N queries against N candidates):
  - xalign `csls_topk` (k = 10, blocked), time and peak memory;
  - faiss-cpu exact inner-product top-k (`IndexFlatIP`), time and peak memory.
Each retrieval configuration runs in its own process so its peak RSS is its own.

    python bench/bench_encode_retrieval.py                  # everything (N = 200,000 takes long on 2 cores)
    python bench/bench_encode_retrieval.py --sizes 5000,50000 --sentences 500
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np


def peak_rss_mib() -> float:
    """This process's peak resident memory (VmHWM: unlike ru_maxrss it does not carry the parent's peak)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def wmt_sentences(n: int) -> list[str]:
    from xalign.data.corpora import wmt_newstest

    pairs = wmt_newstest("wmt19", "de-en") + wmt_newstest("wmt19", "ru-en")
    return [s for s, _ in pairs][:n]


def bench_encode(n: int, batch: int = 32) -> list[dict]:
    import torch
    from transformers import AutoModel, AutoTokenizer

    from xalign.core.cache import EmbeddingCache
    from xalign.core.encoders import load_encoder, materialize_offline_model

    texts = wmt_sentences(n)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        enc = load_encoder(progress=False, cache=EmbeddingCache(tmp))
        n_tokens = sum(len(x) for x in enc._tokenize(texts)[0])
        for label in ("xalign encode, cold (13 layers)", "xalign encode, cached"):
            t = time.perf_counter()
            enc.encode(texts, poolings=("mean",))
            rows.append({"method": label, "seconds": time.perf_counter() - t})
    path = materialize_offline_model()
    tok = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path, add_pooling_layer=False).eval()
    t = time.perf_counter()
    with torch.inference_mode():
        for i in range(0, len(texts), batch):
            b = tok(["passage: " + x for x in texts[i : i + batch]], padding=True, truncation=True,
                    return_tensors="pt")
            h = model(**b).last_hidden_state
            (h * b["attention_mask"][..., None]).sum(1) / b["attention_mask"].sum(1, keepdim=True)
    rows.append({"method": f"plain transformers loop (batch {batch}, last layer)",
                 "seconds": time.perf_counter() - t})
    from sentence_transformers import SentenceTransformer, models

    st = SentenceTransformer(modules=[models.Transformer(str(path), model_args={"add_pooling_layer": False}), models.Pooling(384, "mean")])
    t = time.perf_counter()
    st.encode(["passage: " + x for x in texts], batch_size=batch)
    rows.append({"method": f"sentence-transformers encode (batch {batch})", "seconds": time.perf_counter() - t})
    for r in rows:
        r["sentences/s"] = n / r["seconds"]
        r["tokens/s"] = n_tokens / r["seconds"]
    return rows


def one_retrieval(method: str, n: int, dim: int = 384, k: int = 10) -> dict:
    rng = np.random.default_rng(0)
    U = rng.standard_normal((n, dim), dtype=np.float32)
    V = U + rng.standard_normal((n, dim), dtype=np.float32)
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    if method == "csls":
        from xalign.measures.retrieval import csls_topk
    else:
        import faiss
    base = peak_rss_mib()  # after the imports: the search's own memory is what we compare
    t = time.perf_counter()
    if method == "csls":
        idx, _ = csls_topk(U, V, k=k, topn=1)
    else:
        index = faiss.IndexFlatIP(dim)
        index.add(V)
        _, idx = index.search(U, 1)
    seconds = time.perf_counter() - t
    return {"method": method, "N": n, "seconds": seconds, "peak_rss_mib": peak_rss_mib(),
            "extra_mib": peak_rss_mib() - base, "top1": float(np.mean(idx[:, 0] == np.arange(n)))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sentences", type=int, default=1000)
    parser.add_argument("--sizes", default="5000,50000,200000")
    parser.add_argument("--skip-encode", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_retrieval(args.one[0], int(args.one[1]))))
        return
    import torch

    print(f"machine: {os.cpu_count()} CPU cores, torch {torch.__version__}, "
          f"{torch.get_num_threads()} threads, GPU: {torch.cuda.is_available()}")
    if not args.skip_encode:
        print(f"\n## Encoding {args.sentences} WMT19 sentences (multilingual-e5-small)\n")
        print(f"{'method':48s} {'seconds':>9s} {'sent/s':>9s} {'tokens/s':>10s}")
        for r in bench_encode(args.sentences):
            print(f"{r['method']:48s} {r['seconds']:9.2f} {r['sentences/s']:9.1f} {r['tokens/s']:10.0f}")
    print("\n## Retrieval: N queries x N candidates, d = 384, top-1\n")
    print(f"{'method':28s} {'N':>8s} {'seconds':>9s} {'peak RSS MiB':>13s} {'of which search':>16s} {'top-1':>6s}")
    for n in [int(x) for x in args.sizes.split(",")]:
        for method, label in (("csls", "xalign csls_topk (k=10)"), ("faiss", "faiss IndexFlatIP (cosine)")):
            out = subprocess.run([sys.executable, __file__, "--one", method, str(n)], capture_output=True,
                                 text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{label:28s} {n:8d} {r['seconds']:9.2f} {r['peak_rss_mib']:13.0f} {r['extra_mib']:16.0f} "
                  f"{r['top1']:6.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
