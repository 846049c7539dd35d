"""Chapter 2's smoke run (from the shared book build): tables filled, and values checked."""

import pytest

from conftest import smoke_results

pytestmark = pytest.mark.slow


def check_chapter02(res: dict) -> None:
    """Value checks on chapter 2's results (known answers and the audit's invariants)."""
    t = res["tables"]
    assert t["table3"]["n_matched"] > 0 and t["table4"]["n_matched"] > 0
    stats = t["btsr_set"]["rows"][0]
    assert 0 < stats["test_pairs"] <= stats["test_pairs_ranked_among_items"] <= stats["contextualized_pairs"]
    assert stats["same_form_candidates"] is True
    assert stats["candidates"] <= stats["candidates_requested"]
    # known answers on the run's own vectors
    checks = t["known_answers"]["rows"]
    assert checks and all(r["ok"] for r in checks)
    for r in checks:
        assert r["got"] == pytest.approx(r["expected"], abs=1e-3), r["check"]
    # the unmapped space is shown raw and centred; every P@k is a fraction
    original = t["original_space"]["rows"]
    assert sorted(r["centred"] for r in original) == [False, True]
    for r in t["grid"]["rows"] + original:
        for k in ("btsr_p1", "btsr_p5"):
            if r.get(k) is not None:
                assert 0.0 <= r[k] <= 1.0
        if r.get("btsr_p1") is not None:
            assert r["btsr_p1"] <= r["btsr_p5"] + 1e-12
    # the audit's before/after: the selection can only keep fewer pairs; coverage is a fraction
    ba = {(r["change"][:2].strip(), r["measure"]): r for r in t["before_after"]["rows"]}
    sel = ba[("8", "test pairs")]
    assert sel["after"] == stats["test_pairs"] and sel["before"] == stats["test_pairs_ranked_among_items"]
    assert 0 < ba[("6", "BTSR queries with a type vector")]["after"] <= 100


def test_chapter02_smoke_results(built_book):
    check_chapter02(smoke_results(built_book, "02_btsr_contextual_alignment"))
