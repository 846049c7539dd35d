"""The chapter's smoke profile runs end to end through papermill (slow: encodes a few thousand words)."""

import json

import pytest


@pytest.mark.slow
def test_chapter04_smoke(tmp_path, monkeypatch):
    from xalign.runner import run_chapter

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    out = run_chapter("04_bli_pruning_stemming", {"profile": "smoke"}, tmp_path / "04.ipynb", progress=False)
    assert out.exists()
    res = json.loads((tmp_path / "results" / "04_bli_pruning_stemming" / "smoke.json").read_text())
    assert {"table1", "table2", "table3", "table4", "table5", "table6"} <= set(res["tables"])
    assert res["tables"]["table2"]["n_matched"] > 0
