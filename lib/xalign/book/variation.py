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
from dataclasses import dataclass, replace
from pathlib import Path

from xalign.core.numbers import is_finite_number

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
            if base in row and is_finite_number(lo) and is_finite_number(hi):
                out.append((base, float(hi) - float(lo)))
    for lo_col, hi_col, base in SEED_COLUMNS:
        if base in row and is_finite_number(row.get(lo_col)) and is_finite_number(row.get(hi_col)):
            out.append((base, float(row[hi_col]) - float(row[lo_col])))
    return out


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
    write_text(path, "# Variation of this chapter's reference from its seed spreads (written by `xalign reference`; `xalign check NN --measure-variation` measures it instead).\n"
                      + yaml.safe_dump({"tables": tables}, sort_keys=True, allow_unicode=True, width=100))
    return path


#: the first line of a variation file the harness wrote (:func:`xalign.book.harness.write_measured`)
MEASURED_MARK = "# Measured variation of this chapter's reference (`xalign check"


def is_measured(path: Path) -> bool:
    """Was the variation file at ``path`` written by the harness (not from seed spreads)?"""
    path = Path(path)
    return path.exists() and path.read_text(encoding="utf-8").startswith(MEASURED_MARK)


@dataclass(frozen=True)
class TableVariation:
    """A table's measured variation: float32 cells of ``columns`` (all numeric ones if empty) may differ by
    up to ``tolerance`` (absolute, in the cell's unit); ``source`` says what was measured. With
    ``column_tolerances`` (the harness's per-column measurement), each column has its own and a column
    absent from it has none (it did not move)."""

    tolerance: float
    source: str
    columns: tuple[str, ...] = ()
    column_tolerances: tuple[tuple[str, float], ...] = ()
    #: (column, denominator) of the columns that count items, and the chapter's item flip rate (upper bound)
    item_columns: tuple[tuple[str, str], ...] = ()
    item_rate: float = 0.0

    def covers(self, column: str) -> bool:
        return not self.columns or column in self.columns

    def for_column(self, column: str) -> float:
        """The tolerance of one column (0 when the variation does not cover it)."""
        if self.column_tolerances:
            return dict(self.column_tolerances).get(column, 0.0)
        return self.tolerance if self.covers(column) else 0.0

    def for_cell(self, column: str, row: dict) -> float:
        """The tolerance of one cell: its column's, or, where the column counts items, the items the
        measured flip rate allows over that row's count (:mod:`xalign.book.item_steps`), whichever is larger."""
        from xalign.book.item_steps import row_item_tolerance

        den = dict(self.item_columns).get(column)
        by_items = row_item_tolerance(row, den, self.item_rate) if den and self.item_rate > 0 else 0.0
        return max(self.for_column(column), by_items)


def variation_path(reference_path: Path) -> Path:
    """``reference/<chapter>[.<precision>].json`` -> ``reference/<chapter>.variation.yaml``."""
    return reference_path.with_name(reference_path.name.split(".")[0] + ".variation.yaml")


ITEM_FLIP_KEYS = {"flipped", "scored", "rate_upper", "rate_level", "cell_level"}


def load_variation(path: Path) -> dict[str, TableVariation]:
    """Read a variation file: ``tables: {<table>: {tolerance: >= 0, source: text, columns: [..],
    column_tolerances: {column: >= 0}, item_columns: {column: denominator}}}`` and, where tables count
    items, ``item_flips: {flipped, scored, rate_upper, rate_level, cell_level}`` (the harness's measured item
    flip rate, :mod:`xalign.book.item_steps`).

    A missing file is no variation ({}). Raises ValueError naming the file and the entry when a
    tolerance is not a finite number >= 0, a source is empty, or a key is unknown.
    """
    import yaml

    path = Path(path)
    if not path.exists():
        return {}
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    tables = raw.get("tables") if isinstance(raw, dict) else None
    if not isinstance(tables, dict):
        raise ValueError(f"{path}: expected a mapping 'tables: {{<table>: {{tolerance, source, columns}}}}'")  # noqa: TRY004 (bad file content)
    flips = raw.get("item_flips") or {}
    rate = flips.get("rate_upper", 0.0) if isinstance(flips, dict) else None
    if (not isinstance(flips, dict) or set(flips) - ITEM_FLIP_KEYS or not is_finite_number(rate) or not 0 <= rate <= 1):
        raise ValueError(f"{path}: item_flips must map {sorted(ITEM_FLIP_KEYS)} to numbers, rate_upper in [0, 1], "
                         f"got {flips!r}")
    out = {}
    for name, entry in tables.items():
        where = f"{path}: tables.{name}"
        if not isinstance(entry, dict) or set(entry) - {"tolerance", "source", "columns", "column_tolerances",
                                                        "item_columns"}:
            raise ValueError(f"{where}: expected keys tolerance, source and optionally columns, "
                             f"column_tolerances or item_columns, got {entry!r}")
        tol = entry.get("tolerance")
        if not (isinstance(tol, (int, float)) and not isinstance(tol, bool)) or not math.isfinite(tol) or tol < 0:
            raise ValueError(f"{where}.tolerance must be a finite number >= 0, got {tol!r}")
        source = entry.get("source")
        if not isinstance(source, str) or not source.strip():
            raise ValueError(f"{where}.source must say what was measured (non-empty text), got {source!r}")
        columns = entry.get("columns") or []
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise ValueError(f"{where}.columns must be a list of column names, got {columns!r}")
        per = entry.get("column_tolerances") or {}
        if not isinstance(per, dict) or not all(
                isinstance(c, str) and isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)
                and t >= 0 for c, t in per.items()):
            raise ValueError(f"{where}.column_tolerances must map column names to finite numbers >= 0, got {per!r}")
        items = entry.get("item_columns") or {}
        if not isinstance(items, dict) or not all(isinstance(c, str) and isinstance(d, str) for c, d in items.items()):
            raise ValueError(f"{where}.item_columns must map column names to their count column, got {items!r}")
        out[str(name)] = TableVariation(float(tol), source.strip(), tuple(columns),
                                        tuple((c, float(t)) for c, t in per.items()),
                                        tuple(items.items()), float(rate) if items else 0.0)
    return with_copied_cells(out, copied_tables(path.name.split(".")[0]))


def copied_tables(chapter: str) -> dict[str, str]:
    """``{table: source}`` for the chapter's tables whose cells are copies of another table's (a selection
    of its rows or columns, as chapter 5's Table 6 is of Table 4), from the ``cells_from`` of its paper's
    items (``paper.yaml``); {} for a chapter no paper declares."""
    from xalign.papers import meta

    try:
        paper = meta.chapter_paper(chapter)
    except ValueError:
        return {}
    return {it["key"]: it["cells_from"] for it in meta.metadata(paper).get("items") or []
            if it.get("cells_from") and it.get("key")}


def with_copied_cells(variation: dict[str, TableVariation], copies: dict[str, str]) -> dict[str, TableVariation]:
    """``variation`` where each table of ``copies`` (table -> the table its cells are copied from) allows every
    column at least the source table's tolerance of the same column.

    The harness measures each table on its own rows, so a table that copies a few of another's rows sees
    fewer moves than its source does for the very same numbers (chapter 5's Table 6 copies one of Table 4's two
    classifiers per language: its 'ours CI hi' had 1.33 where Table 4's has 7.12). A selection of cells moves
    no further than the cells it selects (the larger of two values moves no further than either), so the
    source's measurement applies to the copy."""
    out = dict(variation)
    for table, source in copies.items():
        src, own = variation.get(source), variation.get(table)
        if src is None:
            continue
        note = f"its cells are copies of {source}'s, so each column allows at least {source}'s tolerance"
        if own is None:  # the harness saw none of the copied cells move: the source's measurement stands
            out[table] = replace(src, source=f"no move measured in this table's own rows; {note}")
            continue
        tolerance = max(own.tolerance, src.tolerance)
        items = tuple((dict(src.item_columns) | dict(own.item_columns)).items())
        common = dict(source=f"{own.source}; {note}", item_columns=items, item_rate=max(own.item_rate, src.item_rate))
        if own.column_tolerances and src.column_tolerances:
            columns = {c for c, _ in own.column_tolerances} | {c for c, _ in src.column_tolerances}
            per = tuple(sorted((c, max(own.for_column(c), src.for_column(c))) for c in columns))
            out[table] = TableVariation(tolerance, columns=(), column_tolerances=per, **common)
        else:  # a tolerance for the whole table on either side: the larger one for every column either covers
            covered = tuple(sorted(set(own.columns) | set(src.columns))) if own.columns and src.columns else ()
            out[table] = TableVariation(tolerance, columns=covered, **common)
    return out
