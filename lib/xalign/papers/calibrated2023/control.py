"""Intervals of the frozen-feature XNLI control (the chapter's stand-in for the paper's NER control).

The control reads one number per state (before / after English sentence-embedding fine-tuning): the
mean target-language accuracy over the English accuracy, x 100. Its test rows are the same sentences
in every language (XNLI Manual is line-parallel) and in both states, so the intervals here resample
one set of row indices for every array (a paired bootstrap, :func:`xalign.measures.intervals.paired_bootstrap_ci`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xalign.measures.intervals import paired_bootstrap_ci

#: resamples and level of the intervals
N_BOOT = 1000
LEVEL = 0.95


def ratio_to_source(hits: Sequence[np.ndarray]) -> float:
    """Mean target-language accuracy / source accuracy x 100 from per-row hits.

    Args:
        hits: the source language's test hits first, then each target language's (booleans or 0/1,
            one per test row).

    Returns:
        The ratio in percent (NaN when the source accuracy is zero).
    """
    src = float(np.mean(hits[0]))
    tgt = float(np.mean([np.mean(h) for h in hits[1:]]))
    return 100 * tgt / src if src > 0 else float("nan")


def control_intervals(before: Sequence[np.ndarray], after: Sequence[np.ndarray], seed: int = 0,
                      n_boot: int = N_BOOT, level: float = LEVEL) -> dict[str, tuple[float, float]]:
    """Paired bootstrap intervals of the control's target/source ratio before, after, and of its change.

    The test rows are the same sentences in every language (XNLI Manual is line-parallel) and before
    and after fine-tuning, so one resample of row indices is applied to every array: the change's
    interval reflects only what the fine-tuning changed, not which sentences were drawn.

    Args:
        before, after: hits per language (source first, as :func:`ratio_to_source`), each (n_rows,).
        seed, n_boot, level: of the percentile bootstrap.

    Returns:
        ``{"before": (lo, hi), "after": (lo, hi), "change": (lo, hi)}`` in percent / points.

    Raises:
        ValueError: if the arrays are not all of one length (not the same test rows).
    """
    arrays = [np.asarray(h, float) for h in (*before, *after)]
    if len(before) != len(after) or len(before) < 2:
        raise ValueError(f"before and after need the same languages, source first and >= 1 target; got "
                         f"{len(before)} and {len(after)} arrays")
    if len({len(a) for a in arrays}) != 1:
        raise ValueError(f"hits must cover the same test rows in every language and state, got lengths "
                         f"{sorted({len(a) for a in arrays})}")
    k = len(before)
    return {"before": paired_bootstrap_ci(arrays[:k], lambda *h: ratio_to_source(h), n_boot, level, seed),
            "after": paired_bootstrap_ci(arrays[k:], lambda *h: ratio_to_source(h), n_boot, level, seed),
            "change": paired_bootstrap_ci(arrays, lambda *h: ratio_to_source(h[k:]) - ratio_to_source(h[:k]),
                                          n_boot, level, seed)}
