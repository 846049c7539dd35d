"""How far the thesis configuration's seed means move under rounding noise, for a few seed counts.

The thesis configuration (SentEval's early-stopped probes, chapter 5's Tables 4-5 and diagnosis steps A-D) is
trained on the default profile's cached features, once as they are and twice with every feature matrix
perturbed at float32 rounding scale (two noise draws, as ``bench/probe_noise.py`` perturbs). For every accuracy
cell it prints the largest move of the seed mean against a fifth of the cell's own 95 % item interval (the
target of issue 46: every cell moves by less; a cell that does not move counts as within), once per seed count.

    python bench/thesis_seed_noise.py [--counts 3,10] [--profile default]

The plain fits use the probe cache (and so warm it for the chapter); the perturbed ones bypass it. On an AMD
EPYC, one thread: about 60 s per run with 3 seeds, 190 s with 10.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from probe_noise import _fit

from xalign.core.loading import load_encoder
from xalign.measures import probe, probe_tasks
from xalign.papers.meta import checked_parameters
from xalign.papers.nyholm2020 import experiments as ex
from xalign.papers.nyholm2020 import multisent

_plain_fit = probe.fit_predict


def thesis_cells(data, feats, seeds: list[int], noise: str | None) -> pd.DataFrame:
    """Every thesis-configuration accuracy cell (acc, acc_lo, acc_hi, the seed SD acc_sd; %, and its lang),
    indexed by table, task, step and probe."""
    tx, tX = multisent.thesis_probes("xnli"), multisent.thesis_probes("xed")
    probe_tasks.fit_predict = _fit("perturbed", noise) if noise else _fit("plain")
    try:
        parts = [probe_tasks.run_grid(list(data.thesis.values()), {"thesis": feats.F["thesis"]}, tx, seeds=seeds)
                 .assign(table="table4", step=""),
                 probe_tasks.run_grid(list(data.xed.values()), {"thesis": feats.XF["thesis"]}, tX, seeds=seeds)
                 .assign(table="table5", step="")]
        steps = [row for rows in ex.thesis_steps(data, feats, seeds).values() for row in rows]
        parts.append(pd.DataFrame(steps).assign(table="diagnosis"))
    finally:
        probe_tasks.fit_predict = _plain_fit
    out = pd.concat(parts, ignore_index=True)
    return out.set_index(["table", "task", "step", "probe"])[["acc", "acc_lo", "acc_hi", "acc_sd", "lang"]]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--counts", default="3,10", help="comma-separated seed counts (seeds 0 .. n-1)")
    a = ap.parse_args(argv)
    P = checked_parameters("nyholm2020", a.profile, {})
    enc = load_encoder(P.model)
    data = ex.load_profile_data(P)
    feats = ex.encode_features(enc, data, P.layer)
    summary = []
    for n in (int(x) for x in a.counts.split(",")):
        t0, seeds = time.time(), list(range(n))
        base = thesis_cells(data, feats, seeds, None)
        fifth = (base["acc_hi"] - base["acc_lo"]) / 5
        move = pd.concat([(thesis_cells(data, feats, seeds, noise)["acc"] - base["acc"]).abs()
                          for noise in ("noise 1 ", "noise 2 ")], axis=1).max(axis=1)
        within = (move < fifth) | (move == 0)
        summary.append({"seeds": n, "cells within a fifth": f"{int(within.sum())} of {len(within)}",
                        "largest move (points)": round(float(move.max()), 2),
                        "median fifth of interval": round(float(fifth.median()), 2),
                        "seconds (3 runs)": round(time.time() - t0)})
        outside = pd.DataFrame({"acc": base["acc"], "fifth of interval": fifth, "move": move})[~within]
        print(f"\n{n} seeds: cells moving by a fifth of their interval or more"
              + (":\n" + outside.round(2).to_string() if len(outside) else ": none"), flush=True)
    print("\n" + pd.DataFrame(summary).to_string(index=False))


if __name__ == "__main__":
    main()
