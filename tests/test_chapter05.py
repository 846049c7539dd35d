"""Chapter 5's smoke run (from the shared book build): tables filled, and known answers hold."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def check_chapter05(res: dict) -> None:
    """Known answers on a chapter-5 results file (smoke profile: 90 dev pairs for the thesis configuration)."""
    for table in ("table4", "table5", "table6", "table7"):
        assert res["tables"][table]["n_matched"] > 0, table
    assert res["tables"]["diagnosis"]["rows"]
    assert res["tables"]["layer_sweep"]["rows"] and res["tables"]["learning_curve"]["rows"]
    t4 = [r for r in res["tables"]["table4"]["rows"] if r["ours"] is not None]
    # the thesis configuration early-stopped on the dev split the profile gave it
    assert {r["thesis early stopping"] for r in t4} == {"dev split (90 items)"}
    for r in t4:
        # XNLI test sets are exactly balanced: a probe that gives every pair one label scores 1/3
        if r["majority share"] == 100.0:
            assert r["ours"] == pytest.approx(100 / 3)
        for col in ("ours", "repaired"):
            assert r[f"{col} CI lo"] <= r[col] <= r[f"{col} CI hi"], (r["lang"], col)
    # the correlation is taken over every language of the thesis' Table 4 (14; it lacks tr)
    corr = res["tables"]["unk_correlation"]["rows"]
    assert {r["n"] for r in corr if r["languages"] == "all thesis languages"} == {14}
    # Table 6 is labelled as selection on test
    assert all("selection on test" in r["selection"] for r in res["tables"]["table6"]["rows"] if r["ours"] is not None)


def test_chapter05_smoke_results(built_book):
    check_chapter05(smoke_results(built_book, "05_feature_based_transfer"))
