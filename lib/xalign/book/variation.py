"""A reference's measured variation, from the seed spreads its own tables record.

Where a chapter trains with several seeds, its tables carry each number's spread over seeds beside
it: columns ``"<name> seed min"`` / ``"<name> seed max"`` (chapter 5's probes) or ``"<name>_min"`` /
``"<name>_max"`` next to ``"<name>"``, or ``"seed min"`` / ``"seed max"`` next to ``"ours"`` and ``"min"`` /
``"max"`` next to ``"mean"`` (chapter 2). A rerun on another CPU kind moves a float32 number by less than
training it with another seed does, so :func:`seed_variation` takes, per table, the largest seed range
of any row as that table's tolerance: the variation :mod:`xalign.book.check` compares float32 cells
within, with its source stated. :func:`write_variation` writes it next to the reference
(``reference/<chapter>.variation.yaml``).
"""

from __future__ import annotations

import math
from pathlib import Path

SEED_SUFFIXES = ((" seed min", " seed max"), ("_min", "_max"))
#: whole column names of a row's seed range (chapter 2: "seed min"/"seed max" beside "ours"; its per-seed
#: table: "min"/"max" beside "mean")
SEED_COLUMNS = (("seed min", "seed max", "ours"), ("min", "max", "mean"))


def _ranges(row: dict) -> list[tuple[str, float]]:
    """(column, max - min) for every column of ``row`` that has a seed min and max beside it."""
    out = []
    for lo_suffix, hi_suffix in SEED_SUFFIXES:
        for col, lo in row.items():
            if not col.endswith(lo_suffix):
                continue
            base = col[: -len(lo_suffix)]
            hi = row.get(base + hi_suffix)
            if base in row and _finite(lo) and _finite(hi):
                out.append((base, float(hi) - float(lo)))
    for lo_col, hi_col, base in SEED_COLUMNS:
        if base in row and _finite(row.get(lo_col)) and _finite(row.get(hi_col)):
            out.append((base, float(row[hi_col]) - float(row[lo_col])))
    return out


def _finite(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def seed_variation(result: dict) -> dict[str, dict]:
    """Per table with seed spreads: ``{"tolerance": largest seed range, "source": what it is}``.

    Args:
        result: a saved chapter result (``tables`` -> ``rows``).

    Returns:
        ``{table: {"tolerance": float >= 0, "source": str}}`` for every table with at least one seed
        range; the tolerance covers every numeric column of the table (a number, its interval ends and its
        difference from the paper all move with it). Tables without seed spreads are absent.
    """
    seeds = result.get("params", {}).get("seeds")
    out = {}
    for name, table in result.get("tables", {}).items():
        ranges = [r for row in table.get("rows", []) for r in _ranges(row)]
        if not ranges:
            continue
        column, width = max(ranges, key=lambda r: r[1])
        out[name] = {"tolerance": round(width, 6),
                     "source": f"the largest spread over the run's seeds (training or sampling){f' {seeds}' if seeds else ''} of any "
                               f"row of this table in the reference run (column {column!r}): a float32 rerun "
                               f"on another CPU moves a number by less than another seed does"}
    return out


def write_variation(result: dict, path: Path) -> Path | None:
    """Write :func:`seed_variation` of ``result`` as a variation file; remove a stale one when there is none.

    Returns the path written, or None when the result has no seed spreads.
    """
    import yaml

    from xalign.core.atomic import write_text

    tables = seed_variation(result)
    path = Path(path)
    if not tables:
        path.unlink(missing_ok=True)
        return None
    write_text(path, "# Measured variation of this chapter's reference (written by `xalign reference`).\n"
                      + yaml.safe_dump({"tables": tables}, sort_keys=True, allow_unicode=True, width=100))
    return path
