"""bench/precision_diff.py: how far the reported numbers move between two precisions."""

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("precision_diff",
                                               Path(__file__).parents[1] / "bench" / "precision_diff.py")
precision_diff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(precision_diff)


def _rows(values, pairs=("de-en", "en-de", "ja-en")):
    return [{"pair": p, "k": 1, "ours": v, "lo": None if v is None else v - 3} for p, v in zip(pairs, values)]


def test_shift_counts_the_cells_that_move_by_the_tolerance():
    got = precision_diff.table_shift(_rows([40.0, 50.0, 35.172]), _rows([40.0, 50.25, 34.621]), 0.5)
    assert got["cells"] == 3 and got["moved"] == 2 and got[">= 0.5"] == 1
    assert got["max"] == pytest.approx(0.551) and got["mean"] == pytest.approx((0.25 + 0.551) / 3)
    assert got["largest move"] == "pair=ja-en, k=1: 35.172 -> 34.621"


def test_shift_refuses_rows_that_do_not_match():
    with pytest.raises(ValueError, match="labels"):
        precision_diff.table_shift(_rows([1.0, 2.0, 3.0]), _rows([1.0, 2.0, 3.0], ("de-en", "en-de", "zh-en")), 0.5)
    with pytest.raises(ValueError, match="rows against"):
        precision_diff.table_shift(_rows([1.0, 2.0, 3.0]), _rows([1.0, 2.0]), 0.5)


def test_tables_without_a_reported_column_or_numbers_are_skipped():
    assert precision_diff.table_shift([{"lang": "de", "n": 3}], [{"lang": "de", "n": 3}], 0.5) is None
    assert precision_diff.table_shift(_rows([None] * 3), _rows([None] * 3), 0.5) is None


def test_unseeded_rows_are_left_out():
    """Rows of a sampler that cannot be seeded (eflomal's links) differ between any two cold runs: not a
    precision effect (chapter 1's Table II aligner rows moved by 0.5 points between two bf16 runs)."""
    a = [{"method": "aligner", "ours": 73.33, "unseeded": True}, {"method": "dictionary", "ours": 96.24, "unseeded": None}]
    b = [{"method": "aligner", "ours": 72.83, "unseeded": True}, {"method": "dictionary", "ours": 96.24, "unseeded": None}]
    got = precision_diff.table_shift(a, b, 0.5)
    assert got["cells"] == 1 and got["max"] == 0 and got[">= 0.5"] == 0 and got["unseeded rows"] == 1
