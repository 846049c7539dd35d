"""Chapter 2's smoke run (from the shared book build) fills its tables."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def test_chapter02_smoke_results(built_book):
    res = smoke_results(built_book, "02_btsr_contextual_alignment")
    assert res["tables"]["table3"]["n_matched"] > 0 and res["tables"]["table4"]["n_matched"] > 0
    assert res["tables"]["btsr_set"]["rows"][0]["test_pairs"] > 0
