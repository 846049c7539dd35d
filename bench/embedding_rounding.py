"""How far one model's embeddings move with the arithmetic, not the inputs: the scale of the harness's perturbation.

Another CPU kind runs other kernels (AMX or AVX-512 against AVX2), sums in another order and pads batches
otherwise; none of that changes what a sentence means, only the last bits of its vector. This script
measures that scale on this machine: it encodes the same sentences (Tatoeba, xx and en sides) with the
cache off under four arithmetics (1 or 2 torch threads, token budgets of 1,024 or 128 padded tokens per
batch, which changes padding and batch shapes) and prints, per layer and over all, the relative move of
each vector against the 1-thread, 1,024-token one, in float32 units in the last place (ulps,
2**-23 of the vector's norm):

    python bench/embedding_rounding.py [--n 400] [--lang deu]

``xalign check --measure-variation`` perturbs cached embeddings by a relative N(0, 1) * ``ulps`` * 2**-23
per element (:mod:`xalign.core.perturb`); the scale it uses by default (:data:`DEFAULT_ULPS`) comes from this
script's "all layers, 99.9th percentile" figure, rounded up.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from xalign.core.cache import EmbeddingCache
from xalign.core.loading import load_encoder
from xalign.data.sentdata import tatoeba_pairs

ULP = 2.0**-23


def encode(enc, texts, threads: int, batch_tokens: int) -> np.ndarray:
    """(n_texts, n_layers + 1, dim) float32 mean-pooled vectors of ``enc`` (its cache off)."""
    torch.set_num_threads(threads)
    enc.batch_tokens = batch_tokens
    return enc.encode_sentences(texts, "mean", layers="all")


def relative_ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per element |a - b| / ||a||_inf of its vector, in float32 ulps: (n, L, dim)."""
    scale = np.abs(a).max(axis=-1, keepdims=True)
    return np.abs(a.astype(np.float64) - b) / np.maximum(scale, 1e-30) / ULP


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400, help="sentence pairs (both sides are encoded)")
    ap.add_argument("--lang", default="deu", help="Tatoeba language (ISO 639-3)")
    args = ap.parse_args()
    pairs = tatoeba_pairs(args.lang)[: args.n]
    texts = [t for pair in pairs for t in pair]
    enc = load_encoder(cache=EmbeddingCache(enabled=False), progress=False)  # one model for every arithmetic
    t0 = time.time()
    base = encode(enc, texts, 1, 1024)
    print(f"{len(texts)} texts, {base.shape[1]} layers, dim {base.shape[2]}; base encode {time.time() - t0:.1f} s")
    print(f"{'arithmetic':<28} {'median':>8} {'p99':>8} {'p99.9':>8} {'max':>8}   (ulps of the vector's largest element)")
    for threads, budget in ((2, 1024), (1, 128), (2, 128)):
        u = relative_ulps(base, encode(enc, texts, threads, budget))
        q = np.percentile(u, [50, 99, 99.9])
        print(f"{threads} threads, {budget:>5} tokens/batch  {q[0]:8.2f} {q[1]:8.2f} {q[2]:8.2f} {u.max():8.2f}")
        per_layer = np.percentile(u.reshape(-1, u.shape[1], u.shape[2]).transpose(1, 0, 2).reshape(u.shape[1], -1),
                                  99.9, axis=1)
        print("   p99.9 per layer: " + " ".join(f"{v:.1f}" for v in per_layer))


if __name__ == "__main__":
    main()
