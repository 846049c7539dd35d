"""Chapter 2 over several seeds: each number's mean and spread over the seeds, and verdicts that hold for every seed.

A seed draws the BTSR set (the two contexts of every pair, the item sample, the candidate fillers), the
training order, the avg_type context sample and the BCWS / SCWS samples; the word aligner (fast_align)
draws nothing, so it contributes no spread. A number is reported as its mean over the seeds with the
spread (max - min over the seeds, and the sample SD); a claim is stated as a finding only when it has
the same sign for every seed, and is labelled unstable otherwise.

Part of the chapter-2 method; see :mod:`xalign.papers.liu2020` for the vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.core.profiles import as_list


def seeds_of(P) -> list[int]:
    """The run's seeds (``seeds``, a list or a comma string) as integers, in the given order; the first
    seed's run is the one the chapter shows in full (the set, the samples, the audit)."""
    seeds = [int(s) for s in as_list(P.seeds)]
    if not seeds:
        raise ValueError("liu2020: `seeds` names no seed (e.g. 0,1,2: integers >= 0)")
    if len(set(seeds)) != len(seeds):
        raise ValueError(f"liu2020: `seeds` = {seeds} repeats a seed (each seed must differ)")
    return seeds


def seed_summary(frame: pd.DataFrame, keys: list[str], value: str = "value", seed: str = "seed") -> pd.DataFrame:
    """Mean and spread of ``value`` over the seeds, one row per ``keys``.

    Args:
        frame: one row per (keys, seed), with the number in ``value``.
        keys: the columns that name a number (e.g. variant, level, signal, technique).
        value: the column holding the number (any unit; the outputs keep it).
        seed: the column naming the seed.

    Returns:
        ``keys``, ``mean``, ``sd`` (sample SD, ddof 1; 0 with one seed), ``min``, ``max``, ``spread``
        (max - min), ``n_seeds`` and one column ``seed <s>`` per seed, in the frame's seed order.
    """
    if frame.duplicated(keys + [seed]).any():
        raise ValueError(f"seed_summary: more than one row per {keys + [seed]}")
    wide = frame.pivot_table(index=keys, columns=seed, values=value, aggfunc="first", sort=False)
    order = list(dict.fromkeys(frame[seed]))
    wide = wide[order]
    out = pd.DataFrame({"mean": wide.mean(axis=1), "sd": wide.std(axis=1, ddof=1).fillna(0.0),
                        "min": wide.min(axis=1), "max": wide.max(axis=1), "n_seeds": wide.notna().sum(axis=1)})
    out["spread"] = out["max"] - out["min"]
    for s in order:
        out[f"seed {s}"] = wide[s]
    return out.reset_index()[keys + ["mean", "sd", "min", "max", "spread", "n_seeds"] + [f"seed {s}" for s in order]]


def across_seeds(values: Sequence[float], up: str, down: str, what: str, tie: float = 0.05) -> str:
    """A difference (points), one per seed, worded as a finding only when every seed gives it the same sign.

    Args:
        values: the difference for each seed (points; NaN where a seed could not score it).
        up / down: the finding when every seed's difference is positive / negative.
        what: what is compared, for the unstable and the equal wording.
        tie: below this (points) for every seed, the two are reported as equal.

    Returns:
        the verdict with the mean over the seeds and the per-seed range, e.g.
        ``"it helps (+3.1 points, from +1.2 to +4.0 over 3 seeds)"``, or ``"unstable: ..."`` when the
        seeds disagree in sign (or any seed lacks the number).
    """
    v = np.asarray(values, dtype=float)
    if not len(v):
        raise ValueError("across_seeds: no seed's value given")
    n = len(v)
    if not np.isfinite(v).all():
        return f"unstable: {what} could not be scored for every seed"
    if n == 1:
        rng = "one seed"
    elif f"{v.min():+.1f}" == f"{v.max():+.1f}":
        rng = f"the same for each of the {n} seeds"
    else:
        rng = f"from {v.min():+.1f} to {v.max():+.1f} over {n} seeds"
    if (np.abs(v) < tie).all():
        return f"no difference: {what} score the same ({rng})"
    if (v > 0).all():
        return f"{up} ({v.mean():+.1f} points, {rng})"
    if (v < 0).all():
        return f"{down} ({v.mean():+.1f} points, {rng})"
    return f"unstable: {what} differ by {rng}, a sign that changes with the seed (mean {v.mean():+.1f})"


@dataclass
class SeedRun:
    """One seed's scored tables, for the claims judged across seeds.

    Attributes:
        grid: every method at the seed's training sizes (:func:`.grid.evaluate_grid`, with ``variant`` and
            ``method`` columns; scores as fractions).
        original: the unmapped space's scores, raw and centred (:func:`.report.original_table`).
        base: the BTSR baselines (:func:`.report.baselines_table`; at least the covered ``BL(word)`` rows).
        largest: variant -> the seed's largest training size (sentence pairs; it moves a little with the
            seed, since each seed's test items block other sentence pairs from training).
    """

    grid: pd.DataFrame
    original: pd.DataFrame
    base: pd.DataFrame
    largest: pd.Series


def seed_columns(summary: pd.DataFrame) -> pd.DataFrame:
    """A :func:`seed_summary` as the columns of a compared table: ``value`` (the mean over the seeds), ``seed SD``,
    ``seed min``, ``seed max`` (the unit of the summary), the per-seed columns dropped."""
    keep = [c for c in summary.columns if not c.startswith("seed ") and c not in ("spread", "n_seeds")]
    return summary[keep].rename(columns={"mean": "value", "sd": "seed SD", "min": "seed min", "max": "seed max"})
