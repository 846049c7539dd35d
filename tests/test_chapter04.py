"""Chapter 4's smoke run (from the shared book build) fills its tables."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def test_chapter04_smoke_results(built_book):
    res = smoke_results(built_book, "04_bli_pruning_stemming")
    assert {"table1", "table2", "table3", "table4", "table5", "table6"} <= set(res["tables"])
    assert res["tables"]["table2"]["n_matched"] > 0
    assert res["tables"]["table1"]["n_matched"] > 0
    assert (built_book[2] / "book" / "chapters" / "04_bli_pruning_stemming.html").exists()
