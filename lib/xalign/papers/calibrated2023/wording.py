"""Chapter 3's wording of numbers: signed values, intervals, and a change worded by its interval.

A change is called a rise or a fall only when its 95% interval excludes zero, "within sampling
noise" otherwise, and a number without an interval is said to have none. Shared by
:mod:`.evidence` (the chapter's prose) and :mod:`.seed_spread` (the changes over fine-tuning seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

from xalign.measures import interval_text, verdicts
from xalign.measures.verdicts import finite


def ci_text(lo, hi, digits: int = 1, sign: bool = True) -> str:
    """``"95% CI [-0.3, +1.1]"`` (the book's one style, :func:`xalign.measures.interval_text.ci`); ``"no
    interval"`` when an end is missing."""
    return interval_text.ci(lo, hi, digits, signed=sign)


def signed(value, digits: int = 1) -> str:
    """``"+0.4"`` / ``"-1.2"``; ``"0.0"`` for what rounds to zero (no "-0.0")."""
    return interval_text.number(value, digits, signed=True)


def verdict(lo, hi) -> str:
    """``"up"`` / ``"down"`` / ``"noise"`` by the book's one rule (:func:`xalign.measures.verdicts.direction`:
    the interval beyond zero; a bound zero up to rounding is zero), ``"none"`` (no interval), ``"exact"``
    (a zero-width interval at zero: nothing changed in any resample)."""
    if not finite(lo, hi):
        return "none"
    if lo == hi == 0:
        return "exact"
    return {verdicts.UP: "up", verdicts.DOWN: "down"}.get(verdicts.direction(lo, hi), "noise")


def change_phrase(value, lo, hi, unit: str = "points") -> str:
    """A change and its interval in words chosen from the numbers ("rose by 2.5 points (95% CI [+1.0,
    +4.0])", "did not move beyond sampling noise (+0.4 points, 95% CI [-0.3, +1.1])", ...)."""
    v = verdict(lo, hi)
    if v == "exact":
        return "did not change at all (every resample gives 0)"
    if v == "up":
        return f"rose by {abs(float(value)):.1f} {unit} ({ci_text(lo, hi)})"
    if v == "down":
        return f"fell by {abs(float(value)):.1f} {unit} ({ci_text(lo, hi)})"
    if v == "noise":
        return f"did not move beyond sampling noise ({signed(value)} {unit}, {ci_text(lo, hi)})"
    return f"changed by {signed(value)} {unit} (no interval computed, so no conclusion is drawn)"


def _list(items: Sequence[str]) -> str:
    items = list(items)
    return ", ".join(items[:-1]) + (" and " if len(items) > 1 else "") + (items[-1] if items else "")
