"""Chapter 2 over several seeds: each number's mean and spread over the seeds, and verdicts that hold for every seed.

A seed draws the BTSR set (the two contexts of every pair, the item sample, the candidate fillers), the
training order, the avg_type context sample and the BCWS / SCWS samples; the word aligner (fast_align)
draws nothing, so it contributes no spread. A number is reported as its mean over the seeds with the
spread (max - min over the seeds, and the sample SD). A claim about two maps scored on the same items is
stated as a finding only when its paired 95 % interval over the items (:func:`paired_over_seeds`: each
seed's items resampled, the per-item difference averaged) excludes zero by the book's rule
(:func:`xalign.measures.verdicts.direction`) *and* every seed's difference has that sign
(:func:`item_claim`); otherwise the sentence says the difference is within noise. Three seeds alone
share a sign one time in four without any effect, so a sign test over the seeds is no finding.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from xalign.core.profiles import as_list
from xalign.measures.interval_text import interval
from xalign.measures.verdicts import DOWN, UP, direction


def seeds_of(seeds: Sequence[int] | str) -> list[int]:
    """The run's seeds (the profile's ``seeds``, a list or a comma string) as integers, in the given order; the
    first seed's run is the one the chapter shows in full (the set, the samples, the audit)."""
    seeds = [int(s) for s in as_list(seeds)]
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
        hits: variant -> (method, k) -> BTSR P@k per test item of the seed's set at its largest size
            (:func:`.senses.item_hits`; empty when not scored), for the paired intervals of the claims.
    """

    grid: pd.DataFrame
    original: pd.DataFrame
    base: pd.DataFrame
    largest: pd.Series
    hits: dict = field(default_factory=dict)


def seed_columns(summary: pd.DataFrame) -> pd.DataFrame:
    """A :func:`seed_summary` as the columns of a compared table: ``value`` (the mean over the seeds), ``seed SD``,
    ``seed min``, ``seed max`` (the unit of the summary), the per-seed columns dropped."""
    keep = [c for c in summary.columns if not c.startswith("seed ") and c not in ("spread", "n_seeds")]
    return summary[keep].rename(columns={"mean": "value", "sd": "seed SD", "min": "seed min", "max": "seed max"})


def paired_over_seeds(diffs: Sequence, n_boot: int = 2000, level: float = 0.95, seed: int = 0
                      ) -> tuple[float, float, float]:
    """The mean over the seeds of each seed's mean per-item difference, with a bootstrap interval over items.

    Each resample draws every seed's items with replacement (its own n items; the seeds' sets differ) and
    averages the seeds' mean differences: a paired interval (both maps on the same items) that also pools
    the seeds.

    Args:
        diffs: one array per seed of per-item differences a - b (any unit; NaN not allowed).
        n_boot: resamples, >= 1; ``level``: coverage in (0, 1); ``seed``: the generator's seed.

    Returns:
        (mean, lo, hi) in the unit of ``diffs``.
    """
    arrays = [np.asarray(d, dtype=float) for d in diffs]
    if not arrays or any(a.ndim != 1 or not len(a) for a in arrays):
        raise ValueError("paired_over_seeds: `diffs` needs one non-empty 1-d array of per-item differences per seed")
    if any(not np.isfinite(a).all() for a in arrays):
        raise ValueError("paired_over_seeds: a per-item difference is NaN or infinite")
    if int(n_boot) < 1:
        raise ValueError(f"n_boot = {n_boot}: the number of resamples must be >= 1")
    if not 0 < float(level) < 1:
        raise ValueError(f"level = {level}: the interval's coverage must lie in (0, 1)")
    rng = np.random.default_rng(seed)
    boot = np.zeros(int(n_boot))
    for a in arrays:
        boot += a[rng.integers(0, len(a), size=(int(n_boot), len(a)))].mean(1)
    boot /= len(arrays)
    tail = (1 - float(level)) / 2
    mean = float(np.mean([a.mean() for a in arrays]))
    return mean, float(np.quantile(boot, tail)), float(np.quantile(boot, 1 - tail))


def item_claim(diffs: Sequence, margin: float = 0.0, n_boot: int = 2000, seed: int = 0) -> dict:
    """A claim's evidence from per-item differences (points), one array per seed.

    Returns:
        ``value`` (mean over the seeds), ``lo`` / ``hi`` (:func:`paired_over_seeds`), ``seed min`` / ``seed
        max`` (the seeds' mean differences), ``n_seeds``, ``n_items`` (over the seeds), ``change`` (the book's
        rule on the interval: up / down / unresolved) and ``finding`` (up or down only when the interval
        resolves it *and* every seed's difference has its sign; else ``"within noise"``).
    """
    value, lo, hi = paired_over_seeds(diffs, n_boot=n_boot, seed=seed)
    per = [float(np.mean(d)) for d in diffs]
    change = direction(lo, hi, margin)
    agree = all(p > 0 for p in per) if change == UP else all(p < 0 for p in per) if change == DOWN else False
    return {"value": value, "lo": lo, "hi": hi, "seed min": min(per), "seed max": max(per), "n_seeds": len(per),
            "n_items": int(sum(len(d) for d in diffs)), "change": change,
            "finding": change if agree else "within noise"}


def item_claim_text(row: dict, up: str, down: str, what: str) -> str:
    """An :func:`item_claim` in words: the finding only where it is one, else "within noise", with the mean,
    the 95 % interval over the items and the seeds' range (points)."""
    n = int(row["n_seeds"])
    seeds = ("one seed" if n == 1 else f"seeds {row['seed min']:+.1f} to {row['seed max']:+.1f}")
    ev = f"{row['value']:+.1f} points, 95% CI over the items {interval(row['lo'], row['hi'], signed=True)}, {seeds}"
    if row["finding"] == UP:
        return f"{up} ({ev})"
    if row["finding"] == DOWN:
        return f"{down} ({ev})"
    why = ("the interval over the items holds zero" if row["change"] not in (UP, DOWN)
           else "the interval excludes zero, but the seeds disagree on the sign")
    return f"within noise: {what} differ by {ev} ({why})"
