"""Chapter 5's smoke run (from the shared book build) fills its tables."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def test_chapter05_smoke_results(built_book):
    res = smoke_results(built_book, "05_feature_based_transfer")
    for table in ("table4", "table5", "table6", "table7"):
        assert res["tables"][table]["n_matched"] > 0, table
    assert res["tables"]["diagnosis"]["rows"]
    assert res["tables"]["layer_sweep"]["rows"] and res["tables"]["learning_curve"]["rows"]
