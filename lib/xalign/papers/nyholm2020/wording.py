"""Words chosen from the numbers, for chapter 5's generated prose: counts ("both", "2 of 5"), changes
("raises accuracy by 7.5 to 13.8 points", never "by 0.0 to 0.0"), and whether two bootstrap intervals
separate. Kept apart so that :mod:`.report` and :mod:`.findings` share it.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from xalign.measures import verdicts
from xalign.measures.probe_seeds import COLLAPSE_MARGIN, COLLAPSED_SHARE

#: the margin (points) every accuracy verdict of the chapter needs beyond its intervals: the variation harness's
#: measured tolerance of the chapter's accuracies and differences (`xalign check 05 --measure-variation`:
#: the probes retrained on embeddings perturbed at float32 rounding scale, other threads; the MLP's mean
#: over 3 seeds moved by up to 3.6 points, the MLP-LR gap by up to 4.1, so 2 x that: 8.2). The LR cells
#: alone move by at most 0.4; the MLP's early stopping and L2 choice amplify rounding (a test keeps this
#: margin at least the measured tolerances in reference/05_feature_based_transfer.variation.yaml)
NOISE_POINTS = 8.2
#: the margin (points) of a verdict between our own probes only (the repaired features' MLP minus LR, which of
#: them Table 6's repaired column names): they train full-batch to convergence (:mod:`xalign.measures.fullbatch`).
#: Measured: on a second CPU kind (an Intel Xeon with AMX against the AMD EPYC reference) those columns did not
#: move at all; under the variation harness (embeddings perturbed by 4 float32 ulps, 2 threads) one seed flipped
#: one XNLI test item of 450, so a seed's MLP-LR difference moved by 0.22 points and a 3-seed mean by 0.07. The
#: margin is 2 x the largest move, rounded up: two test items are within the noise (a test keeps it at least the
#: measured tolerances of the columns the verdicts read)
REPAIRED_NOISE_POINTS = 0.45


def run_collapsed(r) -> bool:
    """Whether a run (a row of seed-scored results) collapsed in every seed, judged per seed by
    :func:`xalign.measures.verdicts.collapse`; a row without seed counts is judged by its majority share."""
    if "collapsed_seeds" in r and "n_seeds" in r and pd.notna(r["collapsed_seeds"]) and pd.notna(r["n_seeds"]):
        return int(r["collapsed_seeds"]) >= int(r["n_seeds"])
    return verdicts.collapse(r["pred_majority_share"], COLLAPSED_SHARE, COLLAPSE_MARGIN) == verdicts.COLLAPSED


def seeds_collapsed_note(r, step: str = "") -> str:
    """ "A: 1 of 3 seeds predict one class, the 2 that learn 38.4 %" for a run where some but not all seeds
    collapsed, with ", 1 unresolved (majority share 97-99 %)" for the seeds between the two (within the
    collapse margin); empty otherwise (or without seed counts)."""
    if "collapsed_seeds" not in r or "n_seeds" not in r or pd.isna(r["collapsed_seeds"]):
        return ""
    k, n = int(r["collapsed_seeds"]), int(r["n_seeds"])
    if k == 0 or k >= n:
        return ""
    learn = int(r["learning_seeds"]) if "learning_seeds" in r and pd.notna(r["learning_seeds"]) else n - k
    acc = r.get("acc_learning", float("nan"))
    tail = f", the {'one' if learn == 1 else learn} that learn{'s' if learn == 1 else ''} {acc:.1f} %" \
        if learn and pd.notna(acc) else ""
    between = n - k - learn
    if between > 0:
        tail += (f", {between} unresolved (majority share {COLLAPSED_SHARE - COLLAPSE_MARGIN:.0f}-"
                 f"{COLLAPSED_SHARE:.0f} %)")
    return f"{step + ': ' if step else ''}{k} of {n} seeds predict{'s' if k == 1 else ''} one class{tail}"


def some_of(k: int, n: int) -> str:
    """``"all 3"``, ``"both"``, ``"the one"``, ``"none of the 4"``, ``"2 of 5"``: a count of a total in words."""
    if n == 1:
        return "the one" if k == 1 else "none of the one"
    if k == n:
        return "both" if n == 2 else f"all {n}"
    return f"none of the {n}" if k == 0 else f"{k} of {n}"


def runs_with(k: int, n: int) -> str:
    """``"neither run has its"``, ``"2 of 5 runs have their"``, ``"every run has its"``: the subject of a
    sentence about ``k`` of ``n`` runs, worded from the counts."""
    if n == 1:
        return "the one run has its" if k == 1 else "the one run does not have its"
    if k == 0:
        return "neither run has its" if n == 2 else f"none of the {n} runs has its"
    if k == n:
        return "both runs have their" if n == 2 else f"all {n} runs have their"
    return f"{k} of {n} runs " + ("has its" if k == 1 else "have their")


def every_seed(row, a: str, b: str) -> bool:
    """Whether ``b`` beats ``a`` whichever seeds trained them: every seed's ``b`` above every seed's ``a``
    (``<b> seed min`` > ``<a> seed max``; True where the row has no seed range, i.e. one seed). Two
    set-ups trained from the same seed number share nothing, so seeds are not paired."""
    lo, hi = f"{b} seed min", f"{a} seed max"
    if lo not in row or hi not in row or pd.isna(row[lo]) or pd.isna(row[hi]):
        return True
    return verdicts.separated(row[lo], row[lo], row[hi], row[hi], NOISE_POINTS) == verdicts.UP


def held_by_seeds(sep: int, a, b) -> int:
    """``sep`` (:func:`separated` of runs ``a`` -> ``b``) where the seed ranges agree with it, else 0: a
    rise counts only if every seed of ``b`` lies above every seed of ``a`` (``acc_min`` / ``acc_max``),
    a fall likewise; runs without a seed range (one seed) keep ``sep``."""
    if sep == 0 or "acc_min" not in a or "acc_min" not in b or pd.isna(a["acc_min"]) or pd.isna(b["acc_min"]):
        return sep
    seeds = verdicts.separated(b["acc_min"], b["acc_max"], a["acc_min"], a["acc_max"], NOISE_POINTS)
    return sep if seeds == (verdicts.UP if sep > 0 else verdicts.DOWN) else 0


def verb(k: int, singular: str, plural: str) -> str:
    return singular if k == 1 else plural


def points(x: float) -> str:
    return f"{abs(x):.1f} point" + ("" if round(abs(x), 1) == 1.0 else "s")


def change_phrase(deltas: Sequence[float], what: str = "accuracy", eps: float = 0.05) -> str:
    """How a set of differences (points) moves ``what``, worded from the numbers (never "by 0 to 0").

    Returns e.g. ``"raises accuracy by 7.5 to 13.8 points"``, ``"leaves accuracy unchanged"``,
    ``"changes accuracy by -2.0 to +3.1 points (up in 2 of 3)"``.
    """
    d = [float(x) for x in deltas if pd.notna(x)]
    if not d:
        return f"has no {what} to compare"
    up, down = [x for x in d if x > eps], [x for x in d if x < -eps]
    if not up and not down:
        return f"leaves {what} unchanged" + ("" if len(d) == 1 else f" in all {len(d)} runs")
    if up and not down:
        lo, hi = min(up), max(up)
        verb, span = "raises", (points(lo) if round(lo, 1) == round(hi, 1) else f"{lo:.1f} to {points(hi)}")
        tail = "" if len(up) == len(d) else f" (unchanged in {len(d) - len(up)} of {len(d)})"
        return f"{verb} {what} by {span}{tail}"
    if down and not up:
        lo, hi = min(down, key=abs), max(down, key=abs)
        span = points(lo) if round(lo, 1) == round(hi, 1) else f"{abs(lo):.1f} to {points(hi)}"
        tail = "" if len(down) == len(d) else f" (unchanged in {len(d) - len(down)} of {len(d)})"
        return f"lowers {what} by {span}{tail}"
    return f"changes {what} by {min(d):+.1f} to {max(d):+.1f} points (up in {len(up)}, down in {len(down)} of {len(d)})"


def separated(a: tuple[float, float, float], b: tuple[float, float, float], margin: float | None = None) -> int:
    """+1 if interval ``b`` lies above ``a`` by more than ``margin`` (points; default :data:`NOISE_POINTS`), -1 if
    below, else 0 (each ``(value, lo, hi)``: a 95 % bootstrap interval); :func:`xalign.measures.verdicts.separated`
    decides."""
    m = NOISE_POINTS if margin is None else margin
    return {verdicts.UP: 1, verdicts.DOWN: -1}.get(verdicts.separated(b[1], b[2], a[1], a[2], m), 0)
