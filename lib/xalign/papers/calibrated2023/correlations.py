"""Pearson correlations between the chapter's measures (zero-shot, translate-train-all, transfer rate,
calibrated retrieval), across models (the paper's Tables 3, 4, 8) or across languages (one model), with
a percentile-bootstrap interval over the values correlated across.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.measures.intervals import paired_bootstrap_ci

#: resamples and level of the intervals
N_BOOT = 1000
LEVEL = 0.95


def pearson(x, y) -> float:
    """Pearson's r x 100 (NaN if either side is constant or there are fewer than 3 points)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) != len(y):
        raise ValueError(f"{len(x)} vs {len(y)} values")
    if len(x) < 3 or np.std(x) == 0 or np.std(y) == 0:
        return float("nan")
    return float(100 * np.corrcoef(x, y)[0, 1])


def correlations(frame: pd.DataFrame, x: str, y: str, over: str, by: str, seed: int = 0,
                 n_boot: int = N_BOOT, level: float = LEVEL, intervals: bool = True) -> pd.DataFrame:
    """Pearson x 100 between columns ``x`` and ``y`` across the values of ``over``, for each ``by``,
    with a percentile-bootstrap interval resampling those values (e.g. the 14 target languages).

    The paper's Tables 3, 4, 8 correlate across models (``over="model"``)
    for each language (``by="lang"``); with a single model one can only
    correlate across languages (``over="lang"``, ``by="model"``).

    Returns:
        ``by``, ``value`` (r x 100), ``n`` (values of ``over``), ``ci_lo``, ``ci_hi`` (r x 100; NaN
        when r is undefined, when fewer than half of the resamples give a defined r, or without
        ``intervals``: four models, as in the paper's rows, are too few to resample).
    """
    rows = []
    for key, sub in frame.groupby(by, sort=False):
        sub = sub.dropna(subset=[x, y])
        r = pearson(sub[x], sub[y])
        lo, hi = (paired_bootstrap_ci([sub[x].to_numpy(float), sub[y].to_numpy(float)], pearson, n_boot, level,
                                      seed) if intervals and np.isfinite(r) else (np.nan, np.nan))
        rows.append({by: key, "value": r, "n": int(sub[over].nunique()), "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows)


#: The paper's three correlations (Tables 3, 4, 8): (x, y, block name in its tables, readable label). The label
#: names what this book runs: its "translate-train-all" trains on XNLI Manual's human translations, not on
#: machine-translated training sets as the paper's, so the label says so.
PAPER_CORRELATIONS = (
    ("zero_shot", "calibrated_retrieval", "corr_zero_shot_calibrated", "zero-shot ~ calibrated retrieval"),
    ("zero_shot", "translate_train_all", "corr_zero_shot_translate_train_all",
     "zero-shot ~ trained on all languages (human translations)"),
    ("transfer_rate", "calibrated_retrieval", "corr_transfer_rate_calibrated",
     "transfer rate ~ calibrated retrieval"),
)


def paper_correlations(frame: pd.DataFrame, over: str, by: str, seed: int = 0,
                       intervals: bool = True) -> pd.DataFrame:
    """The three correlations of :data:`PAPER_CORRELATIONS` (see :func:`correlations`, with their
    intervals), stacked, with ``block`` (the paper's row name) and ``pair`` (a readable label)."""
    return pd.concat([correlations(frame, x, y, over, by, seed=seed, intervals=intervals).assign(block=block, pair=label)
                      for x, y, block, label in PAPER_CORRELATIONS], ignore_index=True)
