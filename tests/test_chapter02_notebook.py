"""The chapter's smoke profile runs end to end through papermill (slow: runs the encoder)."""

import json

import pytest


@pytest.mark.slow
def test_chapter02_smoke_runs(tmp_path, monkeypatch):
    from xalign.runner import run_chapter

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    out = run_chapter("02_btsr_contextual_alignment", {"profile": "smoke"}, tmp_path / "02.ipynb", progress=False)
    assert out.exists()
    res = json.loads((tmp_path / "results" / "02_btsr_contextual_alignment" / "smoke.json").read_text())
    assert res["tables"]["table3"]["n_matched"] > 0 and res["tables"]["table4"]["n_matched"] > 0
    assert res["tables"]["btsr_set"]["rows"][0]["test_pairs"] > 0
