"""How every page writes a number with its 95% interval: one style, one function.

- a value with its interval: ``"45.3 [40.1, 50.2]"``;
- a change (signed): ``"+1.1 [+0.5, +1.7]"``, ``"-3.3 [-6.3, -0.3]"``;
- an interval alone: ``"[40.1, 50.2]"``; in prose, where the value stands elsewhere in the sentence:
  ``"95% CI [40.1, 50.2]"`` (:func:`ci`).

Numbers use the ASCII minus (what a reader can paste into code), a bound that is zero up to rounding
is zero (:func:`xalign.measures.verdicts.at_zero`: no ``"-0.0"``), and a missing or non-finite end gives
None (a table shows it as "–"; prose says "no interval").
"""

from __future__ import annotations

from xalign.measures.verdicts import finite


def number(value, digits: int = 1, signed: bool = False) -> str:
    """``value`` with ``digits`` decimals (``"+1.5"`` when ``signed``); what rounds to zero is ``"0.0"``."""
    v = float(value)
    if abs(v) < 0.5 * 10**-digits:
        return f"{0:.{digits}f}"
    return f"{v:+.{digits}f}" if signed else f"{v:.{digits}f}"


def interval(lo, hi, digits: int = 1, signed: bool = False) -> str | None:
    """``"[40.1, 50.2]"`` (``"[+0.5, +1.7]"`` when ``signed``); None when an end is missing or not finite."""
    if not finite(lo, hi):
        return None
    return f"[{number(lo, digits, signed)}, {number(hi, digits, signed)}]"


def with_interval(value, lo, hi, digits: int = 1, signed: bool = False) -> str | None:
    """``"45.3 [40.1, 50.2]"``; the value alone when the interval is missing; None without a value."""
    if not finite(value):
        return None
    iv = interval(lo, hi, digits, signed)
    return number(value, digits, signed) + (f" {iv}" if iv else "")


def ci(lo, hi, digits: int = 1, signed: bool = False) -> str:
    """``"95% CI [40.1, 50.2]"`` for prose; ``"no interval"`` when an end is missing."""
    iv = interval(lo, hi, digits, signed)
    return f"95% CI {iv}" if iv else "no interval"
