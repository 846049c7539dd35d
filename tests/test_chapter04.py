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
    # known answer: a space mapped onto itself translates every word to itself
    checks = res["tables"]["known_answers"]["rows"]
    assert checks and all(r["value"] == r["expected"] == 100.0 for r in checks)
    # every P@k of ours carries an interval that contains it, and its coverage
    for row in res["tables"]["table2"]["rows"]:
        if row["ours"] is not None:
            assert row["lo"] <= row["ours"] <= row["hi"] and row["coverage"] is not None
    # the old Sinhala list is measured against fastText's, and X->En has source-pruned rows
    assert res["tables"]["sinhala_list_inflation"]["rows"]
    t1 = res["tables"]["table1"]["rows"]
    assert any(r["direction"] == "X-En" and r["lang"] == "zh" and r["pruned"] for r in t1)
