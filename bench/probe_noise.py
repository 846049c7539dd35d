"""How far chapter 5's probe results move under rounding noise: plain vs perturbed inputs vs 2 threads.

Trains the probes of chapter 5's Table 4, MLP-LR gap and XNLI diagnosis ladder (the default profile, the encoder's
cached embeddings) three times: plain; with every feature matrix perturbed at float32 rounding scale,
``x * (1 + 2**-23 * N(0, 1))`` rounded back to float32; and on 2 torch threads instead of 1. For every
accuracy cell it prints the largest move of the two variants against a fifth of the cell's own 95 %
item interval (the target: every cell moves by less), and how many seeds collapse in each variant.

    python bench/probe_noise.py [--langs fr] [--dtype float64|float32] [--profile default]

``--dtype float32`` measures the probes as SentEval trains them (the code before issue 46's fix).
The perturbed and 2-thread fits bypass the probe cache; the plain fits use it (and so warm it for
the chapter).
"""

from __future__ import annotations

import argparse
import hashlib
import time

import numpy as np
import pandas as pd

from xalign.core.loading import load_encoder
from xalign.measures import probe, probe_tasks
from xalign.papers.meta import checked_parameters
from xalign.papers.nyholm2020 import experiments as ex
from xalign.papers.nyholm2020 import gap

_plain_fit = probe.fit_predict


def _perturb(a, salt: str):
    a = np.asarray(a, np.float32)
    seed = int.from_bytes(hashlib.sha256(a.tobytes()[:65536] + salt.encode()).digest()[:8], "little")
    rng = np.random.default_rng(seed)
    return (a.astype(np.float64) * (1 + 2.0**-23 * rng.standard_normal(a.shape))).astype(np.float32)


def _fit(mode: str, salt: str = ""):
    """``fit_predict`` for one mode: "perturbed" perturbs every input (noise drawn from ``salt`` and the
    array), every other mode fits as is; only "plain" fits read and write the probe cache."""
    def fit(X, y, spec, n_classes, dev, seed, tests, cache=True, **kw):
        if mode == "perturbed":
            X, tests = _perturb(X, salt + "train"), [_perturb(t, salt + "test") for t in tests]
            dev = None if dev is None else (_perturb(dev[0], salt + "dev"), dev[1])
        return _plain_fit(X, y, spec, n_classes, dev, seed, tests, cache=cache and mode == "plain", **kw)
    return fit


class _Run:
    """The slice of a ChapterRun the experiments call: keeps each recorded table."""

    def __init__(self):
        self.tables, self.notes = {}, []

    def compare(self, name, df, keys, **kw):
        self.tables[name] = df
        return df

    def record(self, name, df, **kw):
        self.tables[name] = df
        return df

    figure = record


def run_once(mode: str, P, data, feats, enc) -> dict[str, pd.DataFrame]:
    fit = _fit(mode)
    probe_tasks.fit_predict, gap.fit_predict = fit, fit
    probe.PROBE_THREADS = 2 if mode == "2 threads" else 1
    run = _Run()
    ours, seeds = ex.our_probes(P.mlp_hidden, P.probe_training, P.senteval_config), ex.probe_seeds(P.seeds)
    T = ex.probe_seeds(P.thesis_seeds)
    t4 = ex.run_table4(run, data, feats, enc, ours, seeds, P.xnli_test_pairs, P.seed, T)
    ex.run_mlp_lr_gap(run, data, feats, t4.table, ours, seeds)
    best = pd.DataFrame({"task": [f"XNLI {lang}" for lang in data.study], "layer": enc.n_layers - 1})
    ex.run_diagnosis(run, data, feats, best, ours, seeds, T)
    probe.PROBE_THREADS = 1
    return run.tables


def run_quick(mode: str, P, data, enc) -> dict[str, pd.DataFrame]:
    """Steps C-E of the diagnosis and the MLP-LR gap on step E's fits, from the sentence bank alone (no
    thesis-path encodings): the thesis' probes on first-token and mean-pooled vectors, and ours."""
    from xalign.measures.sentbank import SentenceBank
    from xalign.papers.nyholm2020 import multisent

    fit = _fit(mode)
    probe_tasks.fit_predict, gap.fit_predict = fit, fit
    probe.PROBE_THREADS = 2 if mode == "2 threads" else 1
    last, (_, _, c, d, e, _) = enc.n_layers - 1, ex.STEPS
    thesis_xnli, S = multisent.thesis_probes("xnli"), ex.probe_seeds(P.seeds)
    ours = ex.our_probes(P.mlp_hidden, P.probe_training, P.senteval_config)
    steps, gaps = [], []
    for lang in data.study:
        fixed = SentenceBank.from_encoder(enc, data.thesis[lang].all_texts(), dtype=np.float16,
                                          desc=f"XNLI {lang}")
        steps += probe_tasks.run_steps(data.xnli[lang], [
            (c, fixed.batcher("first", last), thesis_xnli, data.thesis[lang]),
            (d, fixed.batcher("mean", last), thesis_xnli, data.thesis[lang]),
            (e, fixed.batcher("mean", last), ours)], seeds=S, meta={"task": f"XNLI {lang}"})
        gaps.append(gap.mlp_lr_gap([data.xnli[lang]], fixed.batcher("mean", last), ours, seeds=S))
    probe.PROBE_THREADS = 1
    return {"diagnosis": pd.DataFrame(steps), "mlp_lr_gap": pd.concat(gaps, ignore_index=True)}


#: (table, row keys, value column, interval lo, interval hi, collapsed-seeds column or None)
CELLS = [("table4", ["lang", "classifier"], c, f"{c} CI lo", f"{c} CI hi", "collapsed seeds" if c == "ours" else None)
         for c in ("ours", "repaired", "CBOW")] + [
    ("mlp_lr_gap", ["lang"], "MLP − LR", "MLP − LR CI lo", "MLP − LR CI hi", None),
    ("diagnosis", ["task", "step", "probe"], "acc", "acc_lo", "acc_hi", "collapsed_seeds")]


def compare(runs: dict[str, dict]) -> pd.DataFrame:
    rows = []
    for table, keys, col, lo, hi, coll in CELLS:
        if table not in runs["plain"]:
            continue
        base = runs["plain"][table].set_index(keys)
        if col not in base:
            continue
        for key, r in base.iterrows():
            if pd.isna(r[col]):
                continue
            row = {"table": table, "row": " ".join(map(str, np.atleast_1d(key))), "column": col,
                   "value": r[col], "fifth of interval": (r[hi] - r[lo]) / 5}
            for mode in runs:
                if mode == "plain":
                    continue
                other = runs[mode][table].set_index(keys).loc[key]
                row[f"move ({mode})"] = abs(float(other[col]) - float(r[col]))
                if coll:
                    row[f"collapsed seeds (plain/{mode})"] = f"{int(r[coll])}/{int(other[coll])}"
            rows.append(row)
    out = pd.DataFrame(rows)
    moves = out.filter(like="move (").max(axis=1)
    out["within a fifth"] = moves < out["fifth of interval"]
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--langs", default="fr", help="comma-separated XNLI languages (each also a study language)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--modes", default="plain,perturbed,2 threads", help="comma-separated, plain first")
    ap.add_argument("--quick", action="store_true", help="diagnosis steps C-E and the MLP-LR gap only")
    ap.add_argument("--seeds", default=None, help="comma-separated training seeds (default: the profile's)")
    a = ap.parse_args(argv)
    langs = a.langs.split(",")
    probe.PROBE_DTYPE = np.float64 if a.dtype == "float64" else np.float32
    P = checked_parameters("nyholm2020", a.profile, {"xnli_languages": langs, "study_languages": langs,
                                                     "seeds": a.seeds and [int(x) for x in a.seeds.split(",")]})
    enc = load_encoder(P.model)
    data = ex.load_profile_data(P)
    data.xed.clear()  # XNLI only: Table 4, the MLP-LR gap and the XNLI steps of the diagnosis
    feats = None if a.quick else ex.encode_features(enc, data, P.layer)
    runs, t0 = {}, time.time()
    modes = a.modes.split(",")
    if modes[0] != "plain" or not set(modes) <= {"plain", "perturbed", "2 threads"}:
        raise SystemExit(f"--modes = {a.modes!r}: plain first, then any of perturbed, 2 threads")
    for mode in modes:
        runs[mode] = run_quick(mode, P, data, enc) if a.quick else run_once(mode, P, data, feats, enc)
        print(f"[{mode}: {time.time() - t0:.0f} s]", flush=True)
    out = compare(runs)
    with pd.option_context("display.width", 200, "display.max_rows", 500, "display.max_columns", 20):
        print(out.round(2).to_string(index=False))
    moves = out.filter(like="move (").max(axis=1)
    print(f"\nprobes in {a.dtype}, languages {', '.join(langs)}: {int(out['within a fifth'].sum())} of {len(out)} "
          f"cells move by less than a fifth of their item interval; largest move {moves.max():.2f} points "
          f"({out.loc[moves.idxmax(), 'table']} {out.loc[moves.idxmax(), 'row']})")


if __name__ == "__main__":
    main()
