"""Chapter 3's smoke run (from the shared book build) fills its tables."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def test_chapter03_smoke_results(built_book):
    res = smoke_results(built_book, "03_calibrated_retrieval_transfer_rate")
    tables = res["tables"]
    for name in ("table1", "table5", "table6", "table9"):
        assert tables[name]["n_matched"] > 0, name
    assert tables["table7"]["status"] == "not run here"
    curves = tables["layer_curves"]["rows"]
    assert curves and all(0.0 <= r["value"] <= 100.0 for r in curves)
    assert tables["table1_changes"]["rows"]
