"""Errata pages whose every number is read from the results, like the chapters' prose.

An errata page (``book/errata/NN.md``) is written as errata: what was wrong, what is right, and the numbers,
each number a *field* the page's build fills from a chapter's results, never typed in::

    {{01:fig7_before_after[gap<0].count}}                 rows of a table that pass a filter
    {{01:fig7_before_after.count}}                        every row
    {{01:table2[method=dictionary,pair=en-de].ours:.2f}}  the one row a filter leaves, one column, formatted
    {{03:prefix_choice.max(diff):+.1f}}                   max / min / mean / sum of a column
    {{03:prefix_choice.argmax(diff).lang}}                a column of the row where another is largest
    {{02@f333d19:btsr_set[pair=en-zh].test_pairs}}        the same, in the reference committed at f333d19

The chapter is its two-digit number; ``@commit`` reads ``reference/<chapter>.json`` as committed then (the
"before" of a before -> after note; a build without the repository's history shows "–" for it). A filter is
``column=value`` (compared as text), ``column~text`` (the value holds the text), ``column<number`` or
``column>number``, joined by commas; after the
field a Python format spec (``:,`` ``:.1f`` ``:+.1f``). A field that names a table, row or column the
results lack is an error naming it (the page would otherwise state a stale number).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
from collections.abc import Callable
from pathlib import Path

from xalign.core.paths import REFERENCE_DIR

FIELD = re.compile(r"\{\{\s*(?P<ch>\d\d)(?:@(?P<commit>[0-9a-f]{7,40}))?:(?P<table>[^\[.\s}]+)"
                   r"(?:\[(?P<where>[^\]]*)\])?\.(?P<what>[^:}]+?)(?::(?P<fmt>[^}]*))?\s*\}\}")
_AGG = re.compile(r"^(?P<fn>max|min|mean|sum|argmax|argmin)\((?P<col>[^)]+)\)(?:\.(?P<then>.+))?$")
#: a number typed in a page's text (outside its fields)
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")
#: numbers that name something rather than state a result: "Table 5", "Tables 2, 3 and 8", "Fig. 7",
#: "Figs. 1-3", "Sec. 4", "xalign 0.1", "STS 2017", "layer 12" of a model's fixed depth is *not* allowed
NAMES = re.compile(r"\b(?:Chapter|Tables?|Figs?\.|Figures?|Eqs?\.|Sec\.|xalign|version|STS)\s+\d[\d.]*"
                   r"(?:(?:\s*,\s*|\s+and\s+|\s*[-–]\s*)\d[\d.]*)*|P@\d+|\b95% (?:interval|CI|bootstrap)")


class ErrataError(ValueError):
    """A field of an errata page that the results cannot fill."""


def _match(row: dict, cond: str) -> bool:
    for op in ("=", "~", "<", ">"):  # "=" first: a value may hold "<" or ">" (``variant=multi_en->multi_zh``)
        if op in cond:
            col, want = (s.strip() for s in cond.split(op, 1))
            got = row.get(col)
            if op == "=":
                return str(got) == want
            if op == "~":  # the value holds this text (a value with a comma in it)
                return want in str(got)
            try:
                return got is not None and (float(got) < float(want) if op == "<" else float(got) > float(want))
            except (TypeError, ValueError):
                return False
    raise ErrataError(f"filter {cond!r}: write column=value, column~text, column<number or column>number")


def _rows(results: dict, ch: str, table: str, where: str | None) -> list[dict]:
    tables = (results or {}).get("tables") or {}
    if table not in tables:
        raise ErrataError(f"chapter {ch}'s results have no table {table!r}")
    rows = tables[table].get("rows") or []
    conds = [c.strip() for c in (where or "").split(",") if c.strip()]
    return [r for r in rows if all(_match(r, c) for c in conds)]


def _column(rows: list[dict], col: str, field: str) -> list[float]:
    vals = [r.get(col) for r in rows]
    nums = [float(v) for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)]
    if not nums:
        raise ErrataError(f"{field}: no number in column {col!r} of the {len(rows)} rows")
    return nums


def _value(rows: list[dict], what: str, field: str):
    if what == "count":
        return len(rows)
    agg = _AGG.match(what)
    if agg:
        fn, col, then = agg["fn"], agg["col"], agg["then"]
        nums = _column(rows, col, field)
        if fn in ("argmax", "argmin"):
            if not then:
                raise ErrataError(f"{field}: {fn}({col}) needs the column to show after it, e.g. .lang")
            pick = (max if fn == "argmax" else min)(
                (r for r in rows if isinstance(r.get(col), (int, float))), key=lambda r: r[col])
            return _one(pick, then, field)
        return {"max": max, "min": min, "sum": sum, "mean": lambda x: sum(x) / len(x)}[fn](nums)
    if len(rows) != 1:
        raise ErrataError(f"{field}: the filter leaves {len(rows)} rows; a column needs exactly one")
    return _one(rows[0], what, field)


def _one(row: dict, col: str, field: str):
    if col not in row or row[col] is None:
        raise ErrataError(f"{field}: the row has no value in column {col!r}")
    return row[col]


def reference_at(commit: str, chapter_file: str, root: Path | None = None) -> dict | None:
    """``reference/<chapter_file>`` as committed at ``commit`` (None without the repository's history)."""
    root = Path(root) if root else REFERENCE_DIR.parent
    try:
        out = subprocess.run(["git", "-C", str(root), "show", f"{commit}:reference/{chapter_file}"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return json.loads(out)


def chapter_file(ch: str, root: Path | None = None) -> str:
    """The reference file name of chapter ``ch`` (two digits)."""
    names = sorted(p.name for p in (Path(root) if root else REFERENCE_DIR).glob(f"{ch}_*.json")
                   if not p.name.endswith(".variation.json"))
    if not names:
        raise ErrataError(f"chapter {ch}: no reference/{ch}_*.json to name it")
    return names[0]


def render(template: str, results: Callable[[str, str | None], dict | None]) -> str:
    """The page with every field filled.

    Args:
        template: the page's Markdown with ``{{...}}`` fields (module notes).
        results: (chapter "NN", commit or None) -> that chapter's results (a dict with ``tables``); None
            where a commit's results cannot be read (the field shows "–"; the current run's must exist).

    Raises:
        ErrataError: a field names a chapter, table, row or column the results lack, naming the field.
    """
    def fill(m: re.Match) -> str:
        field = m.group(0)
        res = results(m["ch"], m["commit"])
        if res is None:
            if m["commit"]:
                return "–"
            raise ErrataError(f"{field}: chapter {m['ch']} has no results")
        value = _value(_rows(res, m["ch"], m["table"], m["where"]), m["what"].strip(), field)
        try:
            return format(value, m["fmt"] or "")
        except (TypeError, ValueError) as exc:
            raise ErrataError(f"{field}: format {m['fmt']!r} does not apply to {value!r}") from exc

    return FIELD.sub(fill, template)


def typed_numbers(template: str, allowed: re.Pattern | None = None) -> list[str]:
    """The numbers a page types in its text (outside its fields and code spans), less the ``allowed`` ones
    (names such as "Table 5", "Fig. 2", "xalign 0.1"): each one a number the results do not back."""
    text = re.sub(r"(?m)^#.*$", " ", FIELD.sub(" ", template))  # headings name the chapter and the paper
    text = re.sub(r"`[^`]*`", " ", text)
    if allowed is not None:
        text = allowed.sub(" ", text)
    return NUMBER.findall(text)


def results_source(chapters: dict[str, dict | None], root: Path | None = None) -> Callable:
    """A ``results`` callable for :func:`render`: the current run's results by chapter ("NN_..." keys or
    two-digit ones), and for ``@commit`` fields the committed reference (read once per commit)."""
    cache: dict = {}

    def get(ch: str, commit: str | None):
        if commit is None:
            for key, res in chapters.items():
                if str(key)[:2] == ch:
                    return res
            return None
        if (ch, commit) not in cache:
            cache[ch, commit] = reference_at(commit, chapter_file(ch, root), root.parent if root else None)
        return cache[ch, commit]

    return get
