"""What counts as a number in a result table: a JSON int or float, never a bool (``True`` is an int in Python)."""

from __future__ import annotations

import math


def is_number(v) -> bool:
    """``v`` is an int or float (NaN and infinities included) and not a bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_finite_number(v) -> bool:
    """``v`` is an int or float, not a bool, and finite."""
    return is_number(v) and math.isfinite(v)
