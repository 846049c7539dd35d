"""The chapter notebook's smoke profile runs end to end through papermill."""

import json

import pytest


@pytest.mark.slow
def test_smoke_profile_runs(tmp_path, monkeypatch):
    from xalign.runner import run_chapter

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    out = run_chapter("05_feature_based_transfer", {"profile": "smoke"}, tmp_path / "05.ipynb", progress=False)
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    res = json.loads((tmp_path / "results" / "05_feature_based_transfer" / "smoke.json").read_text())
    for table in ("table4", "table5", "table6", "table7"):
        assert res["tables"][table]["n_matched"] > 0
    assert res["tables"]["diagnosis"]["rows"]
