"""Does rounding noise move chapter 3's XNLI probe? (issue 46, item 3)

Another CPU computes the same float32 embeddings with other kernels: each number differs by a few units
in the last place. This script reproduces that on one machine. It encodes chapter 3's XNLI Manual sample
(profile ``default`` unless ``--profile``; the embeddings come from the user cache when they are there)
at the layer the chapter reads, then perturbs every sentence vector by ``--ulps`` float32 units of
rounding (relative noise of ``ulps x 2**-24``, fresh for each of ``--repeats`` copies), rebuilds the pair
features and trains the chapter's probe again: zero-shot from English and trained on all languages, C
chosen on validation as the chapter does. For each cell (block, language, and the average over the
target languages) it prints the largest move over the copies against a fifth of the cell's own 95%
interval (test items resampled), for the probe as it was (lbfgs stopped at ``tol=1e-4`` in float32)
and as it is (:func:`xalign.measures.sklearn_probes.make_classifier`, as chapter 3 calls it)::

    python bench/xnli_probe_noise.py                     # default profile, 3 perturbed copies
    python bench/xnli_probe_noise.py --profile smoke --repeats 2
    python bench/xnli_probe_noise.py --model usem3                 # the sentence model (its CPU moves were larger)
    python bench/xnli_probe_noise.py --set xnli_langs "[en, de, ur]"   # a profile parameter overridden (YAML)

Exit status 1 when a cell of the current probe moves by a fifth of its interval or more.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd


def legacy_classifier(kind: str = "logreg", C: float = 1.0, seed: int = 0):
    """The probe before issue 46: lbfgs stopped at a gradient of 1e-4, on the features' own dtype."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=2000, tol=1e-4))


def perturb(feats: dict, ulps: float, rng) -> dict:
    """The pair features rebuilt from sentence vectors carrying relative noise of ``ulps`` float32 roundings."""
    from xalign.measures.probe import pair_features

    out = {}
    for lang, splits in feats.items():
        out[lang] = {}
        for s, (X, y) in splits.items():
            d = X.shape[1] // 4
            u, v = (a.astype(np.float32) for a in (X[:, :d], X[:, d:2 * d]))
            noise = [1 + ulps * 2.0 ** -24 * rng.uniform(-1, 1, a.shape) for a in (u, v)]
            out[lang][s] = (pair_features((u * noise[0]).astype(np.float32), (v * noise[1]).astype(np.float32)), y)
    return out


def cells(feats, langs, factory, Cs, classifier: str, seed: int) -> pd.DataFrame:
    """Accuracy (%) and per-item hits of each cell: zero-shot from en and trained on all languages (the
    chapter's ``xnli_Cs``, ``xnli_classifier`` and ``seed``)."""
    from xalign.papers.calibrated2023 import transfer as T

    rows = []
    saved = T.make_classifier
    T.make_classifier = factory
    try:
        for block, train in (("zero_shot", ["en"]), ("translate_train_all", list(langs))):
            frame, info = T._fit_and_test(feats, *T._stack(feats, train, "train"), list(langs), list(langs),
                                          Cs, classifier, seed, True)
            targets = frame[frame.lang != "en"]
            rows += [{"block": block, "lang": r.lang, "value": r.value, "hits": r.hits, "C": info["C"]}
                     for r in frame.itertuples()]
            rows.append({"block": block, "lang": "avg", "value": targets.value.mean(),
                         "hits": np.concatenate(list(targets.hits)), "C": info["C"]})
    finally:
        T.make_classifier = saved
    return pd.DataFrame(rows)


def item_interval_width(hits: np.ndarray, seed: int = 0, n_boot: int = 1000) -> float:
    """Width (points) of the 95% percentile bootstrap interval of an accuracy over its test items."""
    rng = np.random.default_rng(seed)
    means = hits[rng.integers(0, len(hits), (n_boot, len(hits)))].mean(axis=1) * 100
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(hi - lo)


def measure(profile: str = "default", repeats: int = 3, ulps: float = 2.0, seed: int = 0, log=print,
            overrides: dict | None = None, model: str | None = None) -> pd.DataFrame:
    """One row per cell: ``block, lang, value``, ``move_before`` / ``move_after`` (largest move over the
    perturbed copies, points, for the old and the current probe), ``fifth`` (a fifth of the item interval)."""
    from transformers.utils import logging as hf_logging

    from xalign.core.loading import load_encoder
    from xalign.data.xnli_manual import xnli_manual
    from xalign.papers.calibrated2023 import calibrated as cal
    from xalign.papers.calibrated2023 import transfer as T
    from xalign.papers.meta import parameters

    hf_logging.set_verbosity_error()
    P = parameters("calibrated2023", profile, dict(overrides or {}))
    from xalign.core.profiles import as_list
    from xalign.core.sentvec import load_sentence_encoder

    model = model or as_list(P.models)[0]
    if model in as_list(P.sentence_models):  # a sentence-level model (usem3): no layers to choose
        enc, layer = load_sentence_encoder(model), -1
    else:
        enc = load_encoder(model, progress=False)
        pairs = [tuple(p.split("-")) for p in as_list(P.val_pairs)]
        layer = cal.validation_best_layer(cal.validation_retrieval(enc, pairs, n=P.val_n, seed=P.seed,
                                                                   method=P.method))
    data = xnli_manual(list(P.xnli_langs), seed=P.seed, n_train=P.xnli_n_train, n_val=P.xnli_n_val,
                         n_test=P.xnli_n_test)
    feats = T.encode_pair_features(enc, data, layer=layer)
    log(f"{model}, layer {layer}, {len(data.langs)} languages; {repeats} copies at {ulps} float32 roundings")
    rng = np.random.default_rng(seed)
    copies = [perturb(feats, ulps, rng) for _ in range(repeats)]
    out = None
    for name, factory in (("before", legacy_classifier), ("after", T.make_classifier)):
        base = cells(feats, data.langs, factory, P.xnli_Cs, P.xnli_classifier, P.seed)
        moves = np.max([np.abs(cells(c, data.langs, factory, P.xnli_Cs, P.xnli_classifier, P.seed).value.to_numpy()
                               - base.value.to_numpy()) for c in copies], axis=0)
        if out is None:
            out = base[["block", "lang", "value"]].copy()
            out["fifth"] = [item_interval_width(h, seed) / 5 for h in base.hits]
        out[f"move_{name}"] = moves
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--repeats", type=int, default=3, help="perturbed copies of the embeddings (>= 1)")
    ap.add_argument("--ulps", type=float, default=2.0, help="relative noise in float32 roundings (> 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--model", default=None, help="the chapter's model or sentence model (default: its first model)")
    ap.add_argument("--set", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"),
                    help="a chapter parameter overridden (YAML value), e.g. --set xnli_n_test 150")
    a = ap.parse_args(argv)
    if a.repeats < 1:
        ap.error(f"--repeats must be >= 1, got {a.repeats}")
    if not a.ulps > 0:
        ap.error(f"--ulps must be > 0, got {a.ulps}")
    import yaml

    out = measure(a.profile, a.repeats, a.ulps, a.seed, overrides={k: yaml.safe_load(v) for k, v in a.set},
                  model=a.model)
    with pd.option_context("display.max_rows", None, "display.width", 120):
        print(out.round(3).to_string(index=False))
    for name in ("before", "after"):
        bad = out[out[f"move_{name}"] >= out["fifth"]]
        print(f"{name}: largest move {out[f'move_{name}'].max():.3f} points; "
              f"{len(bad)} of {len(out)} cells move by a fifth of their interval or more")
    return int(bool((out["move_after"] >= out["fifth"]).any()))


if __name__ == "__main__":
    sys.exit(main())
