"""Chapter 2's claims about two maps on the same BTSR items, each with a paired interval over the items.

For each claim and seed the per-item difference of BTSR P@k (points) is taken between the two sides on
that seed's own test items (:attr:`.seeds.SeedRun.hits`); :func:`.seeds.item_claim` pools the seeds into
one mean with a bootstrap interval over the items and states a finding only where that interval excludes
zero and every seed agrees. The claims:

- ``levels``: the mean over ``avg_type``'s maps minus the mean over the next level's maps (the other level
  with the highest mean P@1 for that seed), item by item;
- ``mim``: ``avg_type wa mim`` minus ``avg_type wa orig``;
- ``dict``: ``avg_type dict orig`` minus ``avg_type wa orig``;
- ``map``: ``avg_type wa mim`` minus the centred unmapped space.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.measures.btsr.constants import LEVELS
from xalign.papers.liu2020.seeds import item_claim

#: claim -> (side a, side b); ``levels`` is computed from every map of a level
PAIRS = {"mim": ("avg_type wa mim", "avg_type wa orig"), "dict": ("avg_type dict orig", "avg_type wa orig"),
         "map": ("avg_type wa mim", "no mapping (centred)")}
CLAIMS = ("levels", *PAIRS)


def _level_items(hits: dict, level: str, k: int) -> np.ndarray | None:
    rows = [h for (m, kk), h in hits.items() if kk == k and m.startswith(level + " ")]
    return np.mean(rows, axis=0) if rows else None


def next_level(hits: dict) -> str:
    """The level other than ``avg_type`` whose maps have the highest mean P@1 (ties: the earlier level)."""
    means = {lv: _level_items(hits, lv, 1) for lv in LEVELS if lv != "avg_type"}
    means = {lv: float(h.mean()) for lv, h in means.items() if h is not None}
    if not means:
        raise ValueError("next_level: no map of another level than avg_type was scored")
    return max(means, key=lambda lv: (means[lv], -LEVELS.index(lv)))


def item_differences(hits: dict, claim: str, k: int = 1) -> np.ndarray | None:
    """One seed's per-item difference (points) behind ``claim`` (:data:`CLAIMS`) at P@``k``; None when a
    side was not scored (a method the run did not fit)."""
    if claim == "levels":
        a, b = _level_items(hits, "avg_type", k), _level_items(hits, next_level(hits), k)
    elif claim in PAIRS:
        a, b = (hits.get((m, k)) for m in PAIRS[claim])
    else:
        raise ValueError(f"claim = {claim!r}: one of {', '.join(CLAIMS)}")
    return None if a is None or b is None else 100 * (np.asarray(a) - np.asarray(b))


def claims_table(runs: dict, variants, ks=(1, 5), margin: float = 0.0) -> pd.DataFrame:
    """Every claim of :data:`CLAIMS` for every variant and k, over the seeds that scored it per item.

    Args:
        runs: seed -> :class:`~xalign.papers.liu2020.seeds.SeedRun` with ``hits``.
        variants: the variants, in the chapter's order.
        ks: the P@k measured.
        margin: the noise margin of the verdict rule (points).

    Returns:
        one row per (variant, claim, measure): ``next level`` (for ``levels``; the seeds' choices), and
        :func:`~xalign.papers.liu2020.seeds.item_claim`'s columns; empty without per-item hits.
    """
    rows = []
    for v in variants:
        per = [r.hits[v] for r in runs.values() if v in getattr(r, "hits", {})]
        if not per:
            continue
        for claim in CLAIMS:
            for k in ks:
                diffs = [item_differences(h, claim, k) for h in per]
                if any(d is None or not len(d) for d in diffs):
                    continue
                nxt = " / ".join(dict.fromkeys(next_level(h) for h in per)) if claim == "levels" else ""
                rows.append({"variant": v, "claim": claim, "measure": f"P@{k}", "next level": nxt,
                             **item_claim(diffs, margin=margin)})
    cols = ["variant", "claim", "measure", "next level", "value", "lo", "hi", "seed min", "seed max", "n_seeds",
            "n_items", "change", "finding"]
    return pd.DataFrame(rows, columns=cols)


def map_findings(runs: dict, variants, k: int = 1, margin: float = 0.0) -> pd.DataFrame:
    """Every map against the centred unmapped space, item by item over the seeds (:func:`.seeds.item_claim`).

    Returns:
        one row per (variant, method) scored for every seed: ``variant``, ``method``, ``value``, ``lo``, ``hi``,
        ``finding`` (up / down / within noise); empty without per-item hits.
    """
    rows = []
    for v in variants:
        per = [r.hits[v] for r in runs.values() if v in getattr(r, "hits", {})]
        if not per or any(("no mapping (centred)", k) not in h for h in per):
            continue
        methods = [m for (m, kk) in per[0] if kk == k and m != "no mapping (centred)" and all((m, k) in h for h in per)]
        for m in methods:
            diffs = [100 * (h[m, k] - h["no mapping (centred)", k]) for h in per]
            row = item_claim(diffs, margin=margin)
            rows.append({"variant": v, "method": m, **{c: row[c] for c in ("value", "lo", "hi", "finding")}})
    return pd.DataFrame(rows, columns=["variant", "method", "value", "lo", "hi", "finding"])
