"""Chapters run on other models appear beside the cards (xalign.book.model_runs), committed or on disk."""

import json

from xalign.book.model_runs import COMMITTED, find_runs, model_runs_markdown


def _result(folder, chapter, model, profile="smoke", headline="h", **extra):
    path = folder / chapter / profile / f"{model}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    r = {"chapter": chapter, "profile": profile, "model": model, "params": {"model": model}, "finished": "2026-11-28T09:00:00",
         "tables": {}, "headline": headline, "precision": "torch.float32", **extra}
    path.write_text(json.dumps(r), encoding="utf-8")
    return path


def test_runs_of_other_models_are_found_and_the_newest_folder_wins(tmp_path):
    a, b = tmp_path / "committed", tmp_path / "results"
    _result(a, "01_weak_strong_alignment", "gemma-3-270m", headline="old")
    _result(b, "01_weak_strong_alignment", "gemma-3-270m", headline="new")
    _result(b, "01_weak_strong_alignment", "multilingual-e5-small")  # the chapter's default: in the chapter itself
    _result(b, "03_calibrated_retrieval_transfer_rate", "tiny", perturbation="4:1")  # a harness rerun: never shown
    (b / "01_weak_strong_alignment" / "smoke" / "broken.json").write_text("{not json")
    runs = find_runs(a, b, tmp_path / "absent")
    assert [(r["chapter"], r["model"], r["headline"]) for r in runs] == \
        [("01_weak_strong_alignment", "gemma-3-270m", "new")]


def test_the_section_shows_headline_profile_and_model_terms_as_page_text(tmp_path):
    _result(tmp_path, "01_weak_strong_alignment", "m<script>", headline="<b>93.7%</b> [93.0, 94.3]",
            model_terms={"quantisation": "Q4_K_M (GGUF), de-quantised to float32", "license": "Gemma Terms"})
    md = model_runs_markdown(find_runs(tmp_path))
    assert "## Chapters on other models" in md and "</book/chapters/01_weak_strong_alignment>" in md
    assert "<script>" not in md and "<b>" not in md and "m&lt;script&gt;" in md
    assert "Q4_K_M (GGUF), de-quantised to float32; Gemma Terms; computed in float32" in md
    assert model_runs_markdown([]) == ""


def test_gemma_runs_of_chapters_1_and_3_are_committed():
    runs = {(r["chapter"], r["model"]) for r in find_runs(COMMITTED)}
    assert {("01_weak_strong_alignment", "gemma-3-270m"), ("03_calibrated_retrieval_transfer_rate", "gemma-3-270m")} <= runs
    for r in find_runs(COMMITTED):  # each names the model's quantisation and license, as every Gemma result does
        assert "Q4_K_M" in r["model_terms"]["quantisation"] and "Gemma Terms" in r["model_terms"]["license"]
