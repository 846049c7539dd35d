"""Run one chapter's smoke profile on a (tiny) model folder and check it ran: the family tests share this."""

import json

from xalign.book.runner import chapter_ids, model_parameters, run_chapter
from xalign.core.model_checks import layer_count
from xalign.papers import meta


def layers_within(chapter: str, model_dir, profile: str = "smoke") -> dict:
    """The profile's layer parameters (``layer: true`` in the chapter's ranges) that lie beyond the model's
    last hidden state, set to it: a 2-layer model has hidden states 0..2, so chapter 1's ``dist_layer`` 8
    (Fig. 5) becomes 2 (layer 8 is an error there, not the last layer). The rest of the profile is kept."""
    paper = meta.chapter_paper(chapter)
    n_layers, values = layer_count(str(model_dir)), meta.profiles(paper)[profile]
    if n_layers is None:
        return {}
    return {name: n_layers - 1 for name, entry in meta.ranges(paper).items()
            if entry.get("layer") and type(values.get(name)) is int and values[name] >= n_layers}


def run_smoke(chapter: str, model_dir, tmp_path, monkeypatch) -> dict:
    """The chapter (id or number) on ``model_dir``'s smoke profile (its layer parameters within the model:
    :func:`layers_within`); asserts no cell failed; returns the result."""
    chapter = next(c for c in chapter_ids() if c.startswith(chapter))
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    params = {"profile": "smoke", **model_parameters(chapter, str(model_dir), "smoke"),
              **layers_within(chapter, model_dir)}
    out = run_chapter(chapter, params, tmp_path / f"{chapter}.ipynb", progress=False)
    nb = json.loads(out.read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    saved = list((tmp_path / "results" / chapter / "smoke").glob("*.json"))
    assert len(saved) == 1
    result = json.loads(saved[0].read_text())
    assert result["tables"]
    return result
