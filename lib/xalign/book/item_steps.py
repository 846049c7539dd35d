"""Cells that move by whole items: a tolerance from the measured rate at which rounding flips an item.

A precision over ``n`` retrieval queries (or an accuracy over ``n`` test items) is ``100 x hits / n``: on
another machine it does not drift by a little, it jumps by ``100 / n`` when rounding changes one item's
nearest neighbour. A harness rerun that flips 15 items among 500,000 scored says how likely that is per
item, but not *which* cells it hits: a cell the rerun left alone can flip one item on a reader's machine
(chapter 4's Si-En P@5 at 7d9fd71 moved 43.46 -> 43.32, one of 764 items, on a Xeon; one harness rerun had
left that cell alone and flipped 15 items elsewhere).

So the tolerance of such a cell is counted in items: the harness measures the chapter's *item flip rate*
(items flipped / items scored over every item cell of every table, :func:`count_steps`), takes its
one-sided 95% upper bound (Clopper-Pearson), and a cell over ``n`` items may move by the number of items
that ``n`` draws at that rate exceed with probability at most :data:`CELL_LEVEL` (:func:`allowed_items`),
times ``100 / n``.

Which columns count items is read from the reference's own values (:func:`item_columns`): a percentage
column whose every value is a whole number of items of a count column of its row (``n_queries``, or
``n_queries - n_identical``), its interval ends (``lo``/``hi`` with the same suffix: a bootstrap percentile
of shares moves by at most one step when one item flips) and a column that is such a column minus an earlier one
(``diff = ours - paper``).
"""

from __future__ import annotations

from functools import lru_cache

from xalign.core.numbers import is_finite_number

#: a cell may exceed its allowance with at most this probability (per cell; a chapter has a few hundred)
CELL_LEVEL = 1e-3
#: the one-sided level of the upper bound on the chapter's item flip rate
RATE_LEVEL = 0.95
#: a value x is a whole number of items of n when |x n / 100 - round(x n / 100)| is below this
INTEGRAL = 1e-6


def count_columns(row: dict) -> list[str]:
    """Columns of ``row`` that count items: named ``n`` or ``n_...``, holding a whole number >= 1."""
    return [c for c, v in row.items() if (c == "n" or c.startswith("n_")) and is_finite_number(v) and v >= 1 and v == int(v)]


def denominators(row: dict) -> dict[str, int]:
    """Every item count a share in ``row`` may be over: each count column, and the difference of two
    (``"n_queries - n_identical"``) where it is >= 1."""
    counts = count_columns(row)
    out = {c: int(row[c]) for c in counts}
    for a in counts:
        for b in counts:
            if a != b and row[a] - row[b] >= 1:
                out[f"{a} - {b}"] = int(row[a] - row[b])
    return out


def _whole_items(value: float, n: int) -> bool:
    return 0.0 <= value <= 100.0 and abs(value * n / 100 - round(value * n / 100)) < INTEGRAL


def item_columns(rows: list[dict]) -> dict[str, str]:
    """``{column: denominator}`` for the columns of a table whose values are whole numbers of items.

    A column counts items over a denominator (:func:`denominators`) when each of its finite values is a
    percentage that is a whole number of items of that row's denominator, and at least one value lies
    strictly between 0 and 100 (0 and 100 are whole numbers of anything). A column equal, row by row, to
    such a column minus another, both to its left (``diff = ours - paper``), moves with it and gets its
    denominator.
    """
    if not rows:
        return {}
    counts = {c for r in rows for c in count_columns(r)}
    columns = [c for c in rows[0] if c not in counts and not (c == "n" or c.startswith("n_"))]
    found: dict[str, str] = {}
    for col in columns:
        values = [(r, r.get(col)) for r in rows if is_finite_number(r.get(col))]
        if not values or not any(0 < v < 100 for _, v in values):
            continue
        names = set(denominators(values[0][0]))
        for r, v in values:
            dens = denominators(r)
            names &= {d for d, n in dens.items() if _whole_items(v, n)}
        if names:
            found[col] = min(names, key=lambda d: (" - " in d, d))
    for col in columns:  # interval ends: "lo"/"hi" + a suffix, over the item column with that suffix
        end = _interval_end(col)
        if col in found or end is None:
            continue
        bases = [b for b in found if _interval_end(b) is None and b.endswith(end)]
        if bases:
            found[col] = found[bases[0]]
    for col in columns:  # differences: col = item column - other column in every row
        if col in found:
            continue
        before = columns[: columns.index(col)]  # a difference comes after its terms (paper = ours - diff is no item)
        for base, den in list(found.items()):
            if base not in before:
                continue
            others = [o for o in before if o != base]
            for other in others:
                pairs = [(r[col], r[base], r.get(other)) for r in rows if is_finite_number(r.get(col))]
                if pairs and all(is_finite_number(b) and is_finite_number(o) and abs(v - (b - o)) < 1e-9 for v, b, o in pairs):
                    found[col] = den
                    break
            if col in found:
                break
    return found


def _interval_end(column: str) -> str | None:
    """The suffix of an interval-end column ("lo", "hi_no_identical", "lo (fastText)"), else None."""
    for prefix in ("lo", "hi"):
        if column == prefix or column.startswith((prefix + "_", prefix + " ")):
            return column[len(prefix):]
    return None


def _denominator(row: dict, name: str) -> int | None:
    n = denominators(row).get(name)
    return n if n and n >= 1 else None


def count_steps(ref: dict, new: dict) -> tuple[int, int]:
    """(items flipped, items scored) over every item cell of every table of ``ref`` against ``new``.

    A cell over ``n`` items that moved by ``d`` points flipped ``round(d n / 100)`` items; it scored ``n``.
    Tables or rows whose shape changed are left out (the harness names them as flips).
    """
    flipped = scored = 0
    tables = new.get("tables", {})
    for name, t in ref.get("tables", {}).items():
        rows, other = t.get("rows", []), (tables.get(name) or {}).get("rows")
        if other is None or len(other) != len(rows):
            continue
        for col, den in item_columns(rows).items():
            for ra, rb in zip(rows, other):
                n, va, vb = _denominator(ra, den), ra.get(col), rb.get(col)
                if n and is_finite_number(va) and is_finite_number(vb):
                    scored += n
                    flipped += round(abs(va - vb) * n / 100)
    return flipped, scored


def rate_upper(flipped: int, scored: int, level: float = RATE_LEVEL) -> float:
    """The one-sided ``level`` upper bound (Clopper-Pearson) on the per-item flip rate."""
    from scipy.stats import beta

    if scored < 1 or not 0 <= flipped <= scored:
        raise ValueError(f"need 0 <= items flipped <= items scored and items scored >= 1, got {flipped} of {scored}")
    return 1.0 if flipped == scored else float(beta.ppf(level, flipped + 1, scored - flipped))


@lru_cache(maxsize=4096)
def allowed_items(n: int, rate: float, level: float = CELL_LEVEL) -> int:
    """The fewest items ``m`` such that ``n`` items flipping independently at ``rate`` flip more than ``m``
    with probability at most ``level`` (0 when ``rate`` is 0)."""
    from scipy.stats import binom

    if rate <= 0:
        return 0
    return int(binom.isf(level, n, rate))


def item_tolerance(n: int, rate: float) -> float:
    """The points a cell over ``n`` items may move: :func:`allowed_items` x 100 / n (a hair over, so that
    the step itself compares as inside)."""
    m = allowed_items(int(n), float(rate))
    return m * 100.0 / n * (1 + 1e-9) if m else 0.0


def row_item_tolerance(row: dict, denominator: str, rate: float) -> float:
    """:func:`item_tolerance` of one cell whose column counts items over ``denominator`` in ``row``."""
    n = _denominator(row, denominator)
    return item_tolerance(n, rate) if n else 0.0
