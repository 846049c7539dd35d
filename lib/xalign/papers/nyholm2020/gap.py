"""The MLP-LR gap of the repaired pipeline on XNLI, with a paired bootstrap over the same test pairs.

Table 4 gives each probe's accuracy with its own 95 % interval; two such intervals set side by side
say little about the *difference* of two probes scored on the same test pairs (most pairs both get
right or both get wrong). :func:`mlp_lr_gap` recovers each probe's per-pair predictions (the same
fits as Table 4: same features, dev split, seeds and probe settings, so the probe cache returns the
fits Table 4 made) and puts a paired bootstrap interval (:func:`xalign.measures.intervals.paired_difference_ci`)
on MLP minus LR.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from xalign.data.tasks import Task
from xalign.measures import verdicts
from xalign.measures.interval_text import with_interval
from xalign.measures.intervals import paired_difference_ci
from xalign.measures.probe import Batcher, ProbeSpec, fit_predict
from xalign.measures.probe_tasks import task_arrays
from xalign.papers.nyholm2020.report import with_intervals
from xalign.papers.nyholm2020.wording import REPAIRED_NOISE_POINTS


def hits_on_test(task: Task, batcher: Batcher, spec: ProbeSpec, seed: int, use_dev: bool = True,
              cache: bool = True, select_seed: int | None = None) -> np.ndarray:
    """One boolean per test item of ``task``: did ``spec`` (fitted as :func:`xalign.measures.probe_tasks.evaluate`
    fits it: premise-grouped rows, the regulariser of ``select_seed``, the first of the seeds) predict the gold
    label?

    Returns:
        shape (n_test,), aligned with ``task.test.labels``.
    """
    A = task_arrays(task, batcher, use_dev)
    (pred,), _ = fit_predict(A.train, task.train.labels, spec, task.n_classes, A.dev, seed, [A.test], cache=cache,
                             groups=A.groups, select_seed=select_seed)
    return np.asarray(pred) == np.asarray(task.test.labels)


def mlp_lr_gap(tasks: Sequence[Task], batcher: Batcher, probes: Sequence[ProbeSpec], seed: int | None = None,
               n_boot: int = 1000, cache: bool = True, seeds: Sequence[int] | None = None) -> pd.DataFrame:
    """Per task: LR and MLP accuracy (%) on the same test pairs and MLP minus LR with its paired 95 % interval.

    With several seeds each probe is fitted once per seed (Table 4's fits) and a test pair scores the
    share of seeds that get it right, so ``LR`` / ``MLP`` are the means over seeds (Table 4's numbers) and
    the interval is that of the seed-averaged difference; ``MLP − LR seed min`` / ``seed max`` give the
    range of the per-seed differences.

    Args:
        tasks: the XNLI tasks (``task.meta["lang"]`` names the language).
        batcher: the repaired features.
        probes: the chapter's two probes, named ``"LR"`` and ``"MLP"`` (:func:`.inputs.our_probes`).
        seed: one seed (when ``seeds`` is None).
        n_boot: bootstrap resamples; cache: use the probe cache (:func:`xalign.measures.probe.fit_predict`).
        seeds: the probes' seeds (the profile's, as in Table 4).

    Returns:
        one row per task: ``lang``, ``n test pairs``, ``seeds``, ``LR``, ``MLP``, ``MLP − LR`` with its
        ``CI lo`` / ``CI hi`` and ``seed min`` / ``seed max`` (points), ``pairs only LR gets right`` /
        ``pairs only MLP gets right`` (test pairs one probe gets right and the other wrong, per seed, mean
        over seeds: a whole number for one seed; MLP − LR is their difference over ``n test pairs``).
    """
    by_name = {p.name: p for p in probes}
    missing = {"LR", "MLP"} - set(by_name)
    if missing:
        raise ValueError(f"mlp_lr_gap needs probes named LR and MLP, missing {sorted(missing)}")
    if seeds is None and seed is None:
        raise ValueError("mlp_lr_gap needs seed or seeds")
    seeds = [int(s) for s in (seeds if seeds is not None else [seed])]
    if not seeds:
        raise ValueError("mlp_lr_gap: seeds must name at least one seed")
    rows = []
    for task in tasks:
        hits = {name: np.stack([hits_on_test(task, batcher, by_name[name], s, cache=cache, select_seed=seeds[0])
                                for s in seeds]).astype(float) for name in ("LR", "MLP")}
        lr, mlp = hits["LR"], hits["MLP"]
        d, lo, hi = paired_difference_ci(mlp.mean(0), lr.mean(0), n_boot=n_boot, seed=0, scale=100)
        per_seed = 100 * (mlp.mean(1) - lr.mean(1))
        rows.append({"lang": task.meta.get("lang", task.name), "n test pairs": lr.shape[1], "seeds": len(seeds),
                     "LR": 100 * float(lr.mean()), "MLP": 100 * float(mlp.mean()), "MLP − LR": d,
                     "MLP − LR CI lo": lo, "MLP − LR CI hi": hi,
                     "MLP − LR seed min": float(per_seed.min()), "MLP − LR seed max": float(per_seed.max()),
                     "pairs only LR gets right": _mean_count(lr * (1 - mlp)),
                     "pairs only MLP gets right": _mean_count(mlp * (1 - lr))})
    return pd.DataFrame(rows)


def _mean_count(hits) -> float | int:
    """The mean over seeds (rows) of the count of items (columns) marked 1: an int when it is whole."""
    c = float(np.asarray(hits).sum(1).mean())
    return int(c) if c.is_integer() else c


def gap_summary(gap: pd.DataFrame) -> str:
    """Finding: is the MLP better than LR on the repaired features? Judged per language by
    :func:`xalign.measures.verdicts.direction` on the paired interval of the difference on the same test
    pairs and on the per-seed range, each beyond the noise margin (a bound zero up to rounding is zero)."""
    if not len(gap):
        return ""
    way = lambda lo, hi: gap.apply(lambda r: verdicts.direction(r[lo], r[hi], REPAIRED_NOISE_POINTS), axis=1)
    seeds = way("MLP − LR seed min", "MLP − LR seed max") if "MLP − LR seed min" in gap else None
    ci = way("MLP − LR CI lo", "MLP − LR CI hi")
    above = gap[(ci == verdicts.UP) & (True if seeds is None else seeds == verdicts.UP)]
    below = gap[(ci == verdicts.DOWN) & (True if seeds is None else seeds == verdicts.DOWN)]
    n = len(gap)
    margin = f"{REPAIRED_NOISE_POINTS:g}-point noise margin of a rerun"
    z = verdicts.at_zero
    nums = "; ".join(f"{r['lang']} {with_interval(z(r['MLP − LR']), z(r['MLP − LR CI lo']), z(r['MLP − LR CI hi']), signed=True)}"
                     for _, r in gap.iterrows())
    lang_list = lambda g: ", ".join(g["lang"])
    if len(above) == n:
        verdict = f"the MLP scores above LR in all {n}" if n > 1 else "the MLP scores above LR"
    elif len(below) == n:
        verdict = f"the MLP scores below LR in all {n}" if n > 1 else "the MLP scores below LR"
    elif not len(above) and not len(below):
        verdict = (f"the difference is not separated from zero by more than the {margin} in any of them, so neither "
                   "probe is shown to be better" if n > 1 else
                   f"the difference is not separated from zero by more than the {margin}, so neither probe is shown "
                   "to be better")
    else:
        parts = []
        if len(above):
            parts.append(f"above LR in {len(above)} ({lang_list(above)})")
        if len(below):
            parts.append(f"below LR in {len(below)} ({lang_list(below)})")
        rest = n - len(above) - len(below)
        verdict = f"the MLP scores {' and '.join(parts)} of {n}" + (
            f"; in the other {rest} the difference is not separated from zero by more than the {margin} or changes "
            "sign between seeds (unstable)" if rest else "")
    where = f"{n} languages" if n > 1 else "the one language run"
    k = int(gap["seeds"].iloc[0]) if "seeds" in gap else 1
    seeds = f", mean of {k} seeds, a verdict only where every seed's difference has its sign" if k > 1 else ""
    return (f"**MLP against LR** (repaired features; MLP minus LR in points on the same "
            f"{int(gap['n test pairs'].iloc[0])} test pairs, paired bootstrap 95 % interval{seeds}) in {where}: "
            f"{verdict} ({nums}).")


def shown(gap: pd.DataFrame) -> pd.DataFrame:
    """The gap table for :func:`xalign.book.display.table`: the interval folded into its column, units in
    the headers (accuracies in %, the difference in points, counts as integers)."""
    return with_intervals(gap).rename(columns={"LR": "LR (%)", "MLP": "MLP (%)",
                                               "MLP − LR [95% CI]": "MLP − LR (points) [paired 95% CI]",
                                               "MLP − LR seed range": "MLP − LR per seed, min-max (points)"})
