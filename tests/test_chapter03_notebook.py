"""Chapter 3's smoke run (from the shared book build) fills its tables and passes its known answers."""

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
    # known answers: identical sentences retrieve each other, the paper's own arithmetic holds
    known = tables["known_answers"]["rows"]
    assert len(known) >= 3 and all(r["ok"] for r in known)
    assert any(r["got"] == 100.0 for r in known)
    # every compared number we produce carries an interval that contains it
    for name in ("table1", "table5", "table6", "table9", "table2"):
        ours = [r for r in tables[name]["rows"] if r.get("ours") is not None and r.get("ci_lo") is not None]
        assert ours, name
        assert all(r["ci_lo"] - 1e-9 <= r["ours"] <= r["ci_hi"] + 1e-9 for r in ours), name
    # the layer chosen before fine-tuning is the one every checkpoint is read at
    layers = {r["layer"] for r in tables["checkpoints"]["rows"]}
    assert len(layers) == 1
