"""A probe's test scores over several training seeds: mean, seed spread, interval, collapse.

A SentEval-style probe (:mod:`xalign.measures.probe`) draws its initial
weights, its mini-batch order and its early-stopping hold-out from one seed,
so one trained number hangs on that seed. :func:`seed_scores` scores one
probe's test predictions from each of several seeds:

- ``acc``: the mean over seeds of the test accuracy (%), with the seed spread
  beside it (``acc_min``, ``acc_max``, ``acc_sd``: sample SD, 0 for one seed)
  and every seed's own accuracy (``acc_by_seed``);
- ``acc_lo`` / ``acc_hi``: the 95 % bootstrap interval over test items of that
  mean (each item scored by the share of seeds that get it right), so it is
  the item-sampling uncertainty of the number shown, not of one seed;
- collapse, judged per seed by :func:`xalign.measures.verdicts.collapse`: a
  seed's classifier has collapsed when it gives one class to (nearly) every
  test item (majority-prediction share >= :data:`COLLAPSED_SHARE`), learns when
  its share lies below that by more than :data:`COLLAPSE_MARGIN`, and is
  unresolved in between. ``collapsed_seeds`` / ``learning_seeds`` count them;
  ``collapsed`` is True only when every seed collapsed (the run then says
  nothing about the features and is kept out of any agreement with a paper);
  ``acc_learning`` is the mean accuracy of the seeds that learn.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from xalign.measures import verdicts
from xalign.measures.intervals import bootstrap_ci

#: a probe that gives (nearly) one label to every test item: its majority-prediction share (%)
COLLAPSED_SHARE = 99.0
#: points of majority share between "collapsed" and "learns", beyond what a rerun moves a share (a float32
#: rounding perturbation or another thread count: bench/probe_noise.py); 9 of 450 test items
COLLAPSE_MARGIN = 2.0


def majority_share(pred, n_classes: int) -> float:
    """Share (%) of the test items given the most frequent predicted class: 100 for a collapsed probe."""
    pred = np.asarray(pred)
    if pred.size == 0:
        raise ValueError("majority_share needs at least one prediction")
    return 100.0 * float(np.bincount(pred, minlength=n_classes).max() / len(pred))


def seed_scores(y_true, preds: Sequence, n_classes: int, seeds: Sequence[int], ci_seed: int = 0,
                n_boot: int = 1000) -> dict:
    """Scores of one probe trained with each of ``seeds``; percent.

    Args:
        y_true: (n,) test labels.
        preds: one (n,) array of predicted classes per seed, in the order of ``seeds``.
        n_classes: number of classes (for the majority share).
        seeds: the training seeds (at least one).
        ci_seed: the bootstrap's seed.
        n_boot: bootstrap resamples.

    Returns:
        ``acc`` (mean over seeds), ``acc_lo`` / ``acc_hi`` (95 % bootstrap over test items of the
        seed-averaged correctness), ``acc_min`` / ``acc_max`` / ``acc_sd`` (seed spread; SD with
        ddof 1, 0 for one seed), ``acc_by_seed``, ``macro_f1`` (mean over seeds), ``macro_f1_by_seed``,
        ``pred_majority_share`` (the largest over seeds), ``collapsed_seeds`` / ``learning_seeds`` (how
        many seeds collapse / learn), ``collapsed`` (every seed does), ``acc_learning`` (mean accuracy of
        the seeds that learn, NaN when none does), ``seeds`` and ``n_seeds``.
    """
    from sklearn.metrics import f1_score

    y = np.asarray(y_true)
    seeds = [int(s) for s in seeds]
    if not seeds or len(preds) != len(seeds):
        raise ValueError(f"seed_scores needs one prediction array per seed: {len(preds)} arrays, seeds {seeds}")
    P = np.stack([np.asarray(p) for p in preds])
    if P.shape[1] != len(y):
        raise ValueError(f"predictions have {P.shape[1]} items but y_true has {len(y)}")
    hits = P == y[None, :]
    accs = 100.0 * hits.mean(1)
    f1s = [100.0 * f1_score(y, p, average="macro", zero_division=0) for p in P]
    shares = [majority_share(p, n_classes) for p in P]
    lo, hi = bootstrap_ci(hits.mean(0), np.mean, n_boot, 0.95, ci_seed)
    states = [verdicts.collapse(s, COLLAPSED_SHARE, COLLAPSE_MARGIN) for s in shares]
    n_coll, learning = states.count(verdicts.COLLAPSED), [i for i, st in enumerate(states) if st == verdicts.LEARNS]
    return {"acc": float(accs.mean()), "acc_lo": 100 * lo, "acc_hi": 100 * hi,
            "acc_min": float(accs.min()), "acc_max": float(accs.max()),
            "acc_sd": float(accs.std(ddof=1)) if len(accs) > 1 else 0.0,
            "acc_by_seed": [float(a) for a in accs], "macro_f1": float(np.mean(f1s)),
            "macro_f1_by_seed": [float(f) for f in f1s], "pred_majority_share": float(max(shares)),
            "collapsed_seeds": int(n_coll), "learning_seeds": len(learning), "collapsed": n_coll == len(seeds),
            "acc_learning": float(accs[learning].mean()) if learning else float("nan"),
            "seeds": seeds, "n_seeds": len(seeds)}
