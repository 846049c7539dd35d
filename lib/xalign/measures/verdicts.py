"""The book's one verdict rule: whether a change is real, and whether a paper's claim held.

Every generated sentence that says "raises", "lowers", "held" or "did not hold" decides it here, from
intervals and a noise margin, never from the wording of a sentence. The rule, as the book's *How to
read* page states it:

- **A change** (a paired difference with its 95% bootstrap interval, or two values with their own
  intervals) is *up* when the whole interval lies above zero by more than the margin (for two values:
  the lower bound of the larger lies above the upper bound of the smaller by more than the margin),
  *down* symmetrically, and *unresolved* otherwise. The margin is the noise a rerun on another machine
  makes in that number (the table's measured tolerance); a bound within :data:`ZERO` of zero is zero.
- **A classifier's run** (one training seed) has *collapsed* when it gives one class to (nearly) every
  test item: its majority-prediction share reaches the bar; it *learns* when the share lies below the bar
  by more than the margin (the noise a rerun makes in that share); *unresolved* in between.
- **A claim** (the paper says the change goes one way) *held* when our change goes that way; *did not
  hold* when it goes the other way, or when the interval's bound on the paper's side lies beyond zero on
  the other side by more than the margin (the interval rules out any effect the paper's way, on any
  machine); *not testable* otherwise: when the interval is too wide to tell, when it ends at zero within
  the margin (unstable), when seeds disagree, when there is no interval, or when the model or data cannot
  test it (the reason is always given). A large margin never makes a verdict more decisive.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: an interval bound this close to zero is zero (rounding: e.g. -8.8e-16 from a bootstrap of equal values)
ZERO = 1e-9

UP, DOWN, UNRESOLVED, NONE = "up", "down", "unresolved", "none"
COLLAPSED, LEARNS = "collapsed", "learns"
HELD, NOT_HELD, NOT_TESTABLE = "held", "did not hold", "not testable"


def finite(*values) -> bool:
    """Whether every value is a finite number (None, NaN, infinity and what is not a number are not)."""
    try:
        return all(v is not None and math.isfinite(float(v)) for v in values)
    except (TypeError, ValueError):
        return False


def at_zero(x):
    """``x``, or exactly 0.0 when it lies within :data:`ZERO` of zero (an interval bound of -8.8e-16 is 0)."""
    return 0.0 if finite(x) and abs(float(x)) <= ZERO else x


def _check_margin(margin: float) -> float:
    if not finite(margin) or float(margin) < 0:
        raise ValueError(f"margin = {margin!r}: the noise margin must be a finite number >= 0")
    return max(float(margin), ZERO)


def direction(lo, hi, margin: float = 0.0) -> str:
    """Which way a change goes, from its 95% interval.

    Args:
        lo, hi: the interval's bounds (same unit as the change, e.g. points).
        margin: the noise a rerun on another machine makes in this number (same unit, >= 0).

    Returns:
        ``"up"`` when ``lo`` exceeds the margin, ``"down"`` when ``hi`` lies below minus the margin,
        ``"unresolved"`` otherwise, ``"none"`` when a bound is missing or not finite.
    """
    m = _check_margin(margin)
    if not finite(lo, hi):
        return NONE
    if float(lo) > m:
        return UP
    if float(hi) < -m:
        return DOWN
    return UNRESOLVED


def collapse(share, bar: float, margin: float = 0.0) -> str:
    """Whether one classifier run collapsed, from its majority-prediction share (% of test items given
    its most frequent class).

    Args:
        share: the run's majority-prediction share (%).
        bar: the share (%) at which a run counts as predicting one class, e.g. 99.
        margin: the noise a rerun makes in the share (points, >= 0).

    Returns:
        ``"collapsed"`` when ``share >= bar``, ``"learns"`` when ``share < bar - margin``, ``"unresolved"``
        in between (a rerun could put it on either side), ``"none"`` when the share is missing.
    """
    m = _check_margin(margin)
    if not finite(bar) or not 0 < float(bar) <= 100:
        raise ValueError(f"bar = {bar!r}: the collapse bar is a share in (0, 100] %")
    if not finite(share):
        return NONE
    if float(share) >= float(bar) - ZERO:
        return COLLAPSED
    return LEARNS if float(share) < float(bar) - m else UNRESOLVED


def separated(a_lo, a_hi, b_lo, b_hi, margin: float = 0.0) -> str:
    """Which way ``a`` lies from ``b`` when each has only its own interval (no paired difference).

    Returns ``"up"`` when a's lower bound lies above b's upper bound by more than the margin, ``"down"``
    symmetrically, ``"unresolved"`` when the intervals overlap (or nearly), ``"none"`` when a bound is
    missing. Conservative: separate intervals are stricter than a paired interval of the difference.
    """
    m = _check_margin(margin)
    if not finite(a_lo, a_hi, b_lo, b_hi):
        return NONE
    if float(a_lo) - float(b_hi) > m:
        return UP
    if float(b_lo) - float(a_hi) > m:
        return DOWN
    return UNRESOLVED


@dataclass(frozen=True)
class Verdict:
    """A claim's verdict (``held`` / ``did not hold`` / ``not testable``) and why, in words for the page."""

    verdict: str
    reason: str

    def __str__(self) -> str:
        return f"{self.verdict} ({self.reason})" if self.reason else self.verdict


def claim_verdict(expected: str, change: str, *, far_bound=None, margin: float = 0.0,
                  seeds_agree: bool | None = None, untestable: str = "") -> Verdict:
    """The verdict on a paper's claim that a change goes ``expected`` ("up" or "down").

    Args:
        expected: the paper's direction, ``"up"`` or ``"down"``.
        change: our change's direction (:func:`direction` or :func:`separated`).
        far_bound: the interval's bound on the paper's side (``hi`` for "up", ``lo`` for "down"), when
            known: beyond zero on the other side by more than the margin, the interval rules the paper's
            effect out; within the margin of zero, the verdict is unstable (not testable).
        margin: the noise margin used for ``change`` (same unit as ``far_bound``).
        seeds_agree: whether every seed's change goes the same way (``None``: one seed, not asked).
        untestable: a reason the model or data cannot test the claim (then nothing else is looked at).
    """
    if expected not in (UP, DOWN):
        raise ValueError(f"expected = {expected!r}: a claim's direction is 'up' or 'down'")
    if untestable:
        return Verdict(NOT_TESTABLE, untestable)
    if change == NONE:
        return Verdict(NOT_TESTABLE, "no interval was computed")
    other = DOWN if expected == UP else UP
    if change == other:
        return Verdict(NOT_HELD, "our interval lies on the other side of zero")
    if change == expected:
        if seeds_agree is False:
            return Verdict(NOT_TESTABLE, "the seeds disagree on the direction")
        return Verdict(HELD, "our interval excludes zero in the paper's direction")
    m = _check_margin(margin)
    if finite(far_bound):
        toward = float(far_bound) if expected == UP else -float(far_bound)  # > 0: reaches the paper's side
        if toward < -m:
            return Verdict(NOT_HELD, "our interval rules out an effect in the paper's direction, beyond the noise")
        if toward <= m:  # the bound could fall on either side of zero on another machine
            return Verdict(NOT_TESTABLE, "our interval's bound on the paper's side lies within a rerun's noise of "
                                         "zero (unstable)")
    return Verdict(NOT_TESTABLE, "our interval holds both no change and a change in the paper's direction")


def change_verb(change: str, up: str = "raises", down: str = "lowers", neither: str = "does not move") -> str:
    """The verb a sentence may use for a change: "raises"/"lowers" only for a resolved direction."""
    return {UP: up, DOWN: down}.get(change, neither)
