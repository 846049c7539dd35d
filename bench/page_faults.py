"""Page faults of chapter 4's BLI work: fresh similarity blocks against blocks kept for reuse.

    python bench/page_faults.py [--n 20000] [--dim 384] [--anchors 5000] [--negatives 10000]

Runs what one cell of chapter 4's BLI grid computes, on random unit vectors of the chapter's
sizes, inside the grid's allocator setting (``freed_memory_returned``: blocks above 8 MiB come
from ``mmap``): CSLS target densities over the whole and a pruned source vocabulary, NN and CSLS
ranking of the test queries, and an RCSLS fit (10 steps, k = 10). Twice, each in a fresh
interpreter on one thread: with every block allocated fresh (the code before ``blocks_reused``:
``scratch`` hands out new tensors) and with the blocks kept for reuse (as the library runs now).
Prints wall, user and system seconds, minor page faults and peak memory for both, and checks
that both give the same densities, rankings and map bit for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

VARIANTS = ("fresh blocks", "blocks reused")


def one_cell(n: int, dim: int, anchors: int, negatives: int, reuse: bool) -> dict:
    """The cell's work in this process; its costs and a digest of its results."""
    import contextlib
    import hashlib

    import numpy as np
    import torch

    from xalign.core import memory
    from xalign.measures.bli import rank_targets, target_densities
    from xalign.measures.rcsls import fit_rcsls

    torch.set_num_threads(1)
    if not reuse:  # the earlier code: no pool, so scratch() returns a new tensor for every block
        memory.blocks_reused = contextlib.nullcontext
    rng = np.random.default_rng(0)
    src = rng.normal(size=(n, dim)).astype(np.float32)
    tgt = (src[rng.permutation(n)] + rng.normal(scale=0.8, size=(n, dim))).astype(np.float32)
    pruned = rng.random(n) < 0.6
    queries = src[:1500]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    with memory.freed_memory_returned(), memory.blocks_reused():
        dens = target_densities(tgt, src, 10, [None, pruned])
        ranked = rank_targets(queries, tgt, 10, ("nn", "csls"), S=src, tgt_density=dens[0])
        fit = fit_rcsls(src[:anchors], tgt[:anchors], Zs=src[:negatives], Zt=tgt[:negatives], n_iter=10)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    digest = hashlib.sha256()
    for a in (*dens, ranked["nn"], ranked["csls"], fit.W):
        digest.update(np.ascontiguousarray(a).tobytes())
    return {"wall": wall, "user": after.ru_utime - usage.ru_utime, "sys": after.ru_stime - usage.ru_stime,
            "faults": after.ru_minflt - usage.ru_minflt, "peak_gb": after.ru_maxrss / 2**20,
            "digest": digest.hexdigest()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20000, help="words per vocabulary (chapter 4: 20,000)")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--anchors", type=int, default=5000, help="RCSLS training pairs")
    parser.add_argument("--negatives", type=int, default=10000, help="RCSLS negatives (chapter 4: 10,000)")
    parser.add_argument("--variant", choices=VARIANTS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = (args.n, args.dim, args.anchors, args.negatives)
    if args.variant:
        print(json.dumps(one_cell(*sizes, reuse=args.variant == "blocks reused")))
        return
    print(f"one BLI cell of chapter 4 on random vectors: {args.n:,} x {args.n:,} words, d = {args.dim}, RCSLS on "
          f"{args.anchors:,} pairs with {args.negatives:,} negatives; one thread, load average "
          f"{os.getloadavg()[0]:.1f}\n")
    print(f"{'variant':14s} {'wall s':>7s} {'user s':>7s} {'sys s':>6s} {'faults':>10s} {'peak GB':>8s}")
    rows = {}
    for variant in VARIANTS:
        out = subprocess.run([sys.executable, __file__, "--variant", variant, "--n", str(args.n), "--dim",
                              str(args.dim), "--anchors", str(args.anchors), "--negatives", str(args.negatives)],
                             capture_output=True, text=True, check=True)
        r = rows[variant] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{variant:14s} {r['wall']:7.1f} {r['user']:7.1f} {r['sys']:6.1f} {r['faults']:10,d} {r['peak_gb']:8.2f}")
    a, b = (rows[v] for v in VARIANTS)
    print(f"\nblocks reused: {a['wall'] / b['wall']:.2f}x faster, {a['faults'] / max(b['faults'], 1):.0f}x fewer page "
          f"faults; same densities, rankings and RCSLS map bit for bit: {a['digest'] == b['digest']}")
    if a["digest"] != b["digest"]:
        sys.exit("the two variants computed different numbers")


if __name__ == "__main__":
    main()
