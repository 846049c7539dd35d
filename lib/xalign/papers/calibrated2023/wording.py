"""Chapter 3's wording of numbers: signed values, intervals, and a change worded by its interval.

A change is called a rise or a fall only when its 95% interval excludes zero, "within sampling
noise" otherwise, and a number without an interval is said to have none. Shared by
:mod:`.evidence` (the chapter's prose) and :mod:`.seed_spread` (the changes over fine-tuning seeds).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _finite(*values) -> bool:
    try:
        return all(v is not None and np.isfinite(float(v)) for v in values)
    except (TypeError, ValueError):
        return False


def ci_text(lo, hi, digits: int = 1, sign: bool = True) -> str:
    """``"95% CI −0.3 to +1.1"``; ``"no interval"`` when an end is missing."""
    if not _finite(lo, hi):
        return "no interval"
    if sign:
        return f"95% CI {signed(lo, digits)} to {signed(hi, digits)}"
    return f"95% CI {float(lo):.{digits}f} to {float(hi):.{digits}f}".replace("-", "−")


def signed(value, digits: int = 1) -> str:
    """``"+0.4"`` / ``"−1.2"`` (a true minus sign); ``"0.0"`` for what rounds to zero (no "−0.0")."""
    value = float(value)
    if abs(value) < 0.5 * 10 ** -digits:
        return f"{0:.{digits}f}"
    return f"{value:+.{digits}f}".replace("-", "−")


def verdict(lo, hi) -> str:
    """``"up"`` (interval above zero), ``"down"`` (below), ``"noise"`` (it contains zero), ``"none"``
    (no interval), ``"exact"`` (a zero-width interval at zero: nothing changed in any resample)."""
    if not _finite(lo, hi):
        return "none"
    if lo == hi == 0:
        return "exact"
    return "up" if lo > 0 else ("down" if hi < 0 else "noise")


def change_phrase(value, lo, hi, unit: str = "points") -> str:
    """A change and its interval in words chosen from the numbers ("rose by 2.5 points (95% CI +1.0 to
    +4.0)", "did not move beyond sampling noise (+0.4 points, 95% CI −0.3 to +1.1)", ...)."""
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
