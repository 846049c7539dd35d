"""Run one chapter's smoke profile on a (tiny) model folder and check it ran: the family tests share this."""

import json

from xalign.book.runner import chapter_ids, model_parameters, run_chapter


def run_smoke(chapter: str, model_dir, tmp_path, monkeypatch) -> dict:
    """The chapter (id or number) on ``model_dir``'s smoke profile; asserts no cell failed; returns the result."""
    chapter = next(c for c in chapter_ids() if c.startswith(chapter))
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    params = {"profile": "smoke", **model_parameters(chapter, str(model_dir), "smoke")}
    if chapter.startswith("01"):  # Fig. 5's layer 8 is beyond a 2-layer model: an error, no longer the last layer
        params["dist_layer"] = 2
    out = run_chapter(chapter, params, tmp_path / f"{chapter}.ipynb", progress=False)
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    saved = list((tmp_path / "results" / chapter / "smoke").glob("*.json"))
    assert len(saved) == 1
    result = json.loads(saved[0].read_text())
    assert result["tables"]
    return result
