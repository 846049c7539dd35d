"""How far a chapter's reported numbers move between two precisions (e.g. bfloat16 autocast vs float32).

Run a chapter twice with the same profile, once per precision, into two results folders, then:

    xalign run 04 -p autocast float32                                   # results/ (or XALIGN_RESULTS=...)
    XALIGN_RESULTS=results-bf16 xalign run 04 -p autocast bfloat16
    python bench/precision_diff.py results results-bf16 04 [--profile default] [--tolerance 0.5]

For every table both runs saved, the rows are matched in order (their text columns must agree) and
the reported column (``ours``, else ``value``) is compared, rows marked ``unseeded`` left out: cells,
largest and mean |difference|,
how many cells move by ``--tolerance`` or more, and the row of the largest move. ``xalign check``
answers "same numbers?" within one precision; this answers "by how much does the precision move
them?", the question behind a chapter's ``autocast`` choice (issue 15: < 0.5 points).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

VALUE_COLUMNS = ("ours", "value")
#: numeric columns that label a row rather than report a number
LABEL_NUMBERS = ("k", "layer")


def table_shift(a: list[dict], b: list[dict], tolerance: float) -> dict | None:
    """|b - a| of the reported column of one table (rows in the same order); None without one."""
    A, B = pd.DataFrame(a), pd.DataFrame(b)
    col = next((c for c in VALUE_COLUMNS if c in A and c in B), None)
    if col is None:
        return None
    if len(A) != len(B):
        raise ValueError(f"{len(A)} rows against {len(B)}: not the same profile or code")
    text = [c for c in A.columns if c in B and c not in (col, "unseeded") and (c in LABEL_NUMBERS or pd.api.types.is_bool_dtype(A[c])
                                                           or not pd.api.types.is_numeric_dtype(A[c]))]
    if text and not (A[text].fillna("").astype(str).values == B[text].fillna("").astype(str).values).all():
        raise ValueError(f"rows differ in their labels ({', '.join(text)}): not the same profile or code")
    x = pd.to_numeric(A[col], errors="coerce").to_numpy(float)
    y = pd.to_numeric(B[col], errors="coerce").to_numpy(float)
    unseeded = np.zeros(len(A), bool)  # rows of a sampler that cannot be seeded (eflomal): they differ run to run
    for F in (A, B):
        if "unseeded" in F:
            unseeded |= F["unseeded"].eq(True).to_numpy()
    both = np.isfinite(x) & np.isfinite(y) & ~unseeded
    if not both.any():
        return None
    d = np.abs(y - x)
    worst = int(np.nanargmax(np.where(both, d, -1)))
    return {"column": col, "cells": int(both.sum()), "max": float(d[both].max()), "mean": float(d[both].mean()),
            f">= {tolerance:g}": int((d[both] >= tolerance).sum()), "moved": int((d[both] > 0).sum()),
            "unseeded rows": int(unseeded.sum()), "largest move": ", ".join(f"{c}={A.at[worst, c]}" for c in text) + f": {x[worst]:.3f} -> {y[worst]:.3f}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("first", type=Path, help="results folder of the first run (e.g. float32)")
    ap.add_argument("second", type=Path, help="results folder of the second run (e.g. bfloat16)")
    ap.add_argument("chapter", help="chapter id, number (04) or part of its name")
    ap.add_argument("--profile", default="default")
    ap.add_argument("--tolerance", type=float, default=0.5, help="points (default 0.5)")
    args = ap.parse_args()

    from xalign.book.check import fresh_result
    from xalign.book.results import load_results
    from xalign.book.runner import find_chapter

    chapter = find_chapter(args.chapter)
    found = load_results(chapter, args.profile, args.first)
    if not found:
        raise SystemExit(f"{args.first}: no saved result of {chapter} ({args.profile})")
    a = found[0]
    b = fresh_result(a, args.second)  # the same chapter, profile and model
    if b is None:
        raise SystemExit(f"{args.second}: no saved result of {chapter} ({args.profile}) with model {a.get('model')}")
    print(f"{chapter} ({args.profile}): {a.get('precision')} ({args.first}) vs {b.get('precision')} ({args.second})")
    rows = []
    for name in [t for t in a["tables"] if t in b["tables"]]:
        got = table_shift(a["tables"][name]["rows"], b["tables"][name]["rows"], args.tolerance)
        if got is not None:
            rows.append({"table": name, **got})
    with pd.option_context("display.width", 250, "display.max_colwidth", 120):
        print(pd.DataFrame(rows).round(3).to_string(index=False))


if __name__ == "__main__":
    main()
