"""Argument checks at the public boundary of the measures: a bad number is an error, never a silent 0.

Each check names the argument, the range it must lie in and the value it got.
"""

from __future__ import annotations

import numbers


def positive_int(name: str, value, upper: int | None = None, upper_name: str = "") -> int:
    """``value`` as an int in ``1..upper``.

    Args:
        name: the parameter's name, for the error.
        value: what was given.
        upper: the largest valid value (None: no limit).
        upper_name: what ``upper`` is (``"the number of candidates"``).

    Returns:
        ``int(value)``.

    Raises:
        ValueError: not an integer, or outside ``1..upper`` (naming ``name`` and the range).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    value = int(value)
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value}")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be <= {upper}{f' ({upper_name})' if upper_name else ''}, got {value}")
    return value


def same_width(U, V, names: tuple[str, str] = ("U", "V")) -> None:
    """Row vectors of two spaces must have the same dimension.

    Args:
        U: (n_U, d) vectors.
        V: (n_V, d') vectors.
        names: the two spaces' names, for the error.

    Raises:
        ValueError: d != d' (both named).
    """
    import numpy as np

    du, dv = np.shape(U)[-1], np.shape(V)[-1]
    if du != dv:
        raise ValueError(f"{names[0]} has vectors of dimension {du} but {names[1]} of dimension {dv}; "
                         "map one space onto the other first")


def finite(name: str, X, dtype=None):
    """``X`` as an array (of ``dtype``, if given), checked to hold only finite numbers.

    A NaN or an infinity in a map's anchors makes the SVD fail (``SVD did not converge``) or never
    return; this check names the argument instead. The common case costs two reductions (max and
    min propagate NaN and reach an infinity) and no copy.

    Args:
        name: the argument's name, for the message.
        X: array-like of any shape.
        dtype: the dtype to convert to (None: keep X's).

    Returns:
        ``np.asarray(X, dtype)``.

    Raises:
        ValueError: naming ``name``, how many NaN and infinite values it holds and the first one's index.
    """
    import numpy as np

    X = np.asarray(X, dtype)
    if X.size == 0 or not np.issubdtype(X.dtype, np.inexact):
        return X
    if np.isfinite(X.max()) and np.isfinite(X.min()):
        return X
    bad = ~np.isfinite(X)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    raise ValueError(f"{name} holds {int(np.isnan(X).sum())} NaN and {int(np.isinf(X).sum())} infinite values "
                     f"(the first at index {first}); vectors must be finite")
