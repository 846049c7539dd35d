"""Which sentence-vector components of chapter 5's probes are constant up to rounding, by two rules.

A probe standardises its features; a component that is constant up to rounding becomes a unit-variance noise
column (:mod:`xalign.measures.scaling`). This script reads chapter 5's default features from the cache (the
XNLI study languages and XED en, both poolings, every layer; the training sentences) and prints, per setting,
how many components are exactly constant and how close the nearest informative one comes to each candidate
rule's threshold:

- **own**: spread <= ``--own`` x the component's largest magnitude (2 float16 steps by default: the banks
  hold float16);
- **vector**: spread <= ``--vector`` x the median vector's largest magnitude (64 float32 ulps by default:
  the harness's noise spans about 32).

Run it plain, then under the harness's noise (``XALIGN_PERTURB=4:1``); a rule is safe where no informative
component is caught plain (``real caught`` 0) and every noise component is caught perturbed:

    python bench/constant_columns.py [--own 1.95e-3] [--vector 7.6e-6]
"""

from __future__ import annotations

import argparse
import os

import numpy as np

from xalign.core.loading import load_encoder
from xalign.papers.meta import checked_parameters
from xalign.papers.nyholm2020.inputs import encode_features, load_profile_data


def component_stats(X: np.ndarray, own: float, vector: float) -> dict:
    """For (n, d) vectors: exactly constant components, components caught by each rule but not exact, and
    the nearest not-caught component's distance to each threshold (ratio; > 1 is outside)."""
    X = np.asarray(X, np.float64)
    spread = X.max(0) - X.min(0)
    exact = spread == 0
    r_own = spread / np.maximum(np.abs(X).max(0), 1e-300) / own
    r_vec = spread / np.median(np.abs(X).max(1)) / vector
    live = ~exact
    return {"exact": int(exact.sum()),
            "own caught": int((live & (r_own <= 1)).sum()), "vector caught": int((live & (r_vec <= 1)).sum()),
            "own nearest": float(r_own[live & (r_own > 1)].min(initial=np.inf)),
            "vector nearest": float(r_vec[live & (r_vec > 1)].min(initial=np.inf))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--own", type=float, default=2 * 2.0**-10, help="own-magnitude threshold (default 2 float16 steps)")
    ap.add_argument("--vector", type=float, default=64 * 2.0**-23, help="vector-scale threshold (default 64 ulps)")
    args = ap.parse_args()
    P = checked_parameters("nyholm2020", "default", {})
    enc = load_encoder(P.model)
    data = load_profile_data(P)
    feats = encode_features(enc, data, P.layer)
    sets = [(f"XNLI {lang}", feats.fixed[lang], data.xnli[lang].train.texts[0] + data.xnli[lang].train.texts[1])
            for lang in data.study]
    if "en" in data.xed:
        sets.append(("XED en", feats.xed_fixed["en"], data.xed["en"].train.texts[0]))
    print(f"harness noise: {os.environ.get('XALIGN_PERTURB') or 'none'}; own {args.own:.3g}, vector {args.vector:.3g}")
    print(f"{'setting':24s} {'exact':>5s} {'own caught':>10s} {'own nearest':>11s} {'vec caught':>10s} {'vec nearest':>11s}")
    worst = {"own": np.inf, "vector": np.inf}
    for name, bank, texts in sets:
        for pooling in ("mean", "first"):
            for layer in range(enc.n_layers):
                st = component_stats(bank.batcher(pooling, layer)(sorted(set(texts))), args.own, args.vector)
                worst = {"own": min(worst["own"], st["own nearest"]), "vector": min(worst["vector"], st["vector nearest"])}
                if st["exact"] or st["own caught"] or st["vector caught"] or min(st["own nearest"], st["vector nearest"]) < 3:
                    print(f"{name + ' ' + pooling + ' L' + str(layer):24s} {st['exact']:5d} {st['own caught']:10d} "
                          f"{st['own nearest']:11.2f} {st['vector caught']:10d} {st['vector nearest']:11.2f}")
    print(f"nearest informative component over all settings: own rule {worst['own']:.2f}x its threshold, "
          f"vector rule {worst['vector']:.2f}x (settings not printed: nothing caught, nearest >= 3x)")


if __name__ == "__main__":
    main()
