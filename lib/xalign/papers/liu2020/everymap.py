"""Chapter 2's every-map summary: each map's change of BTSR P@1 over the centred unmapped space, over the seeds.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import pandas as pd


def unmapped(original: pd.DataFrame, centred: bool = True) -> pd.DataFrame:
    """The centred (or raw) unmapped rows, indexed by variant."""
    return original[original.centred == centred].set_index("variant")


def map_changes(runs: dict) -> pd.DataFrame:
    """Every map's change of BTSR P@1 over its variant's centred unmapped space (points), for every seed.

    Args:
        runs: seed -> :class:`~xalign.papers.liu2020.seeds.SeedRun` (its ``grid``, ``original`` and ``largest``).

    Returns:
        one row per (seed, variant, method) at that seed's largest training size (``dict`` maps at n = 0):
        ``seed``, ``variant``, ``method``, ``change`` (points).
    """
    rows = []
    for seed, r in runs.items():
        cen = unmapped(r.original, True)
        for v, d in r.grid.groupby("variant", sort=False):
            d = d[d.n.isin([r.largest[v], 0])]
            rows += [{"seed": seed, "variant": v, "method": m, "change": 100 * (p - cen.loc[v, "btsr_p1"])}
                     for m, p in zip(d["method"], d["btsr_p1"])]
    return pd.DataFrame(rows, columns=["seed", "variant", "method", "change"])


def every_map_summary(every: pd.DataFrame, changes: pd.DataFrame | None = None,
                      findings: pd.DataFrame | None = None) -> str:
    """Every map's change of P@1 over the centred unmapped space, per variant: the range over the maps (each
    map's mean change over the seeds, ``changes``: :func:`map_changes`; default: ``every``'s own changes, one
    seed) and how many raise or lower it: with ``findings`` (:func:`.itemclaims.map_findings`) only those whose
    paired interval over the items excludes zero with every seed agreeing, the rest within noise; without,
    those whose change has one sign for every seed. No map is singled out: none is chosen on test."""
    if changes is None:
        m0 = every[every["method"] != "no mapping (centred)"]
        changes = pd.DataFrame({"seed": 0, "variant": m0["variant"], "method": m0["method"],
                                "change": m0["P@1 change (points)"]})
    n_seeds = changes["seed"].nunique()
    each = f"for each of the {n_seeds} seeds" if n_seeds > 1 else "for the one seed run"
    parts = []
    for v, d in every.groupby("variant", sort=False):
        m = d[d["method"] != "no mapping (centred)"]
        if not len(m):
            continue
        chd = m["P@1 change, distractor items (points)"]
        sign = changes[changes["variant"] == v].groupby("method")["change"].agg(["min", "max", "mean"])
        ch = sign["mean"]  # each map's change, the mean over the seeds
        up, down = int((sign["min"] > 0).sum()), int((sign["max"] < 0).sum())
        rest = len(sign) - up - down
        if findings is not None:
            f = findings[findings["variant"] == v]["finding"]
            up, down = int((f == "up").sum()), int((f == "down").sum())
            beyond = ", ".join(x for x in (f"{up} raise it" if up else "", f"{down} lower it" if down else "") if x)
            verdict = (f"{beyond} (paired 95% interval over the items excluding zero, every seed agreeing)"
                       if beyond else "none moves it beyond noise") + \
                (f", {len(f) - up - down} within noise" if len(f) - up - down and beyond else "")
        else:
            verdict = (", ".join(x for x in (f"{up} raise it" if up else "", f"{down} lower it" if down else "")
                                 if x) + f" {each}" if up or down else f"none moves it the same way {each}")
            verdict += f", {rest} unstable (the sign changes with the seed)" if rest and (up or down) else \
                (" (unstable)" if rest else "")
        first, mean = (", first seed", f", mean over the {n_seeds} seeds") if n_seeds > 1 else ("", "")
        dist = "" if chd.isna().all() else (f"; on the {int(m['distractor items'].iloc[0]):,} items with a same-form "
                                            f"distractor{' (first seed)' * bool(first)}, by {chd.min():+.1f} to "
                                            f"{chd.max():+.1f}")
        ref = d[d["method"] == "no mapping (centred)"].iloc[0]
        parts.append(f"*{v}*: against the centred unmapped space (P@1 {ref['P@1 (%)']:.1f} %{first}), the "
                     f"{len(sign)} maps change BTSR P@1 by {ch.min():+.1f} to {ch.max():+.1f} points{mean}: "
                     f"{verdict}{dist}")
    return ("**Every map against no map** (each map reported; none is chosen on the test items). " + "; ".join(parts)
            + ".") if parts else ""
