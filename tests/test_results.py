"""Paper-vs-ours comparison tables, statuses and the front-page status table."""

import json

import pandas as pd
import pytest

from xalign.book.results import ChapterRun, code_hash, load_results, safe_name
from xalign.papers.meta import params_model


def paper():
    return pd.DataFrame({"pair": ["de-en", "ru-en", "zh-en"], "value": [90.0, 80.0, 70.0]})


def test_compare_statuses_and_differences(tmp_path):
    run = ChapterRun("01_weak_strong_alignment", "gaschi2022", "smoke", {"n": 1}, paper_setup=True)
    full = run.compare("t1", pd.DataFrame({"pair": ["de-en", "ru-en", "zh-en"], "value": [91, 75.5, 70]}),
                       keys=["pair"], paper=paper())
    assert list(full["diff"]) == [1.0, -4.5, 0.0]
    assert run.tables["t1"].status == "reproduced" and run.tables["t1"].max_abs_diff == 4.5
    other_model = ChapterRun("01_weak_strong_alignment", "gaschi2022", "smoke", {"n": 1})  # not the paper's setup
    other_model.compare("t1", pd.DataFrame({"pair": ["de-en", "ru-en", "zh-en"], "value": [91, 75.5, 70]}),
                        keys=["pair"], paper=paper())
    assert other_model.tables["t1"].status == "partly"
    part = run.compare("t2", pd.DataFrame({"pair": ["de-en", "xx-en"], "value": [85.0, 1.0]}),
                       keys=["pair"], paper=paper())
    assert run.tables["t2"].status == "partly" and run.tables["t2"].n_matched == 1
    assert len(part) == 4  # our extra row is kept
    run.compare("t3", pd.DataFrame({"pair": ["xx-en"], "value": [1.0]}), keys=["pair"], paper=paper())
    assert run.tables["t3"].status == "not run here" and run.tables["t3"].max_abs_diff is None
    with pytest.raises(KeyError, match="key columns"):
        run.compare("t4", pd.DataFrame({"lang": ["de"], "value": [1.0]}), keys=["pair"], paper=paper())


def test_save_keeps_models_apart_and_records_code(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    first = ChapterRun("01_weak_strong_alignment", "gaschi2022", "default", {"model": "multilingual-e5-small"})
    first.compare("table1", pd.DataFrame({"pair": ["de-en"], "value": [93.0]}), keys=["pair"], paper=paper(),
                  title="Table I")
    first.not_run("table9", "Table IX", "needs a GPU")
    path = first.save()
    second = ChapterRun("01_weak_strong_alignment", "gaschi2022", "default", {"model": "sentence-transformers/LaBSE"})
    second.compare("table1", pd.DataFrame({"pair": ["de-en"], "value": [50.0]}), keys=["pair"], paper=paper())
    path2 = second.save()
    assert path == tmp_path / "01_weak_strong_alignment" / "default" / "multilingual-e5-small.json"
    assert path2 == tmp_path / "01_weak_strong_alignment" / "default" / "sentence-transformers--LaBSE.json"
    saved = json.loads(path.read_text())  # the second model did not overwrite the first
    assert saved["tables"]["table1"]["rows"][0]["diff"] == 3.0
    assert saved["params"] == {"model": "multilingual-e5-small"} and "wall_time_s" in saved and "packages" in saved
    assert saved["page_faults"] > 0 and saved["system_time_s"] >= 0  # the kernel's costs, for the timing table
    assert saved["peak_rss_mib"] > 10  # the process's own peak memory, for the timing table
    assert saved["cpu_time_s"] > 0
    assert saved["code_hash"] == code_hash() and len(saved["code_hash"]) == 16 and "git_commit" in saved
    assert {r["model"] for r in load_results("01_weak_strong_alignment", "default", tmp_path)} == {
        "sentence-transformers/LaBSE", "multilingual-e5-small"}


@pytest.mark.parametrize("params, model", [({"model": "m1"}, "m1"), ({"multi_model": "m2", "mono_en_model": "bert-base-cased"}, "m2"),
                                           ({"models": ["m3", "m4"]}, "m3"), ({"models": "m5,m6"}, "m5"), ({}, None)])
def test_model_from_params(params, model):
    assert params_model(params) == model
    run = ChapterRun("02_btsr_contextual_alignment", "liu2020", "smoke", params)
    assert run.path().name == f"{safe_name(model or 'unknown-model')}.json"


def test_figure_stores_series():
    run = ChapterRun("01_weak_strong_alignment", "gaschi2022", "smoke", {"model": "m"})
    frame = run.figure("Fig. 4", {"translated": {0: 0.5, 1: 0.75}, "random": [0.1, 0.2]}, title="Fig. 4")
    assert list(frame.columns) == ["series", "x", "y"] and len(frame) == 4
    assert run.tables["Fig. 4"].kind == "figure" and run.tables["Fig. 4"].rows[1] == {
        "series": "translated", "x": 1, "y": 0.75}
    run.figure("Fig. 5", pd.DataFrame({"layer": [0, 1], "value": [1.0, 2.0]}))
    assert run.tables["Fig. 5"].rows == [{"layer": 0, "value": 1.0}, {"layer": 1, "value": 2.0}]
    with pytest.raises(TypeError, match="Fig. 6"):
        run.figure("Fig. 6", [1, 2])


def test_blank_texts_the_encoder_counted_reach_the_results(tmp_path, monkeypatch):
    """Encoder.n_blank_texts grows while the chapter encodes (after use_encoder): save() records it."""
    from types import SimpleNamespace

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    enc = SimpleNamespace(name="m", revision="r", n_blank_texts=0)
    run = ChapterRun("01_x", "gaschi2022", "smoke", {})
    run.use_encoder(enc)
    run.use_encoder(SimpleNamespace(name="m", revision="r", encoder=enc))  # a WordEncoder around the same one
    enc.n_blank_texts += 2
    saved = json.loads(run.save().read_text())
    assert saved["n_blank_texts"] == 2
    assert any("2 empty or whitespace-only texts" in n for n in saved["notes"])
    quiet = ChapterRun("01_y", "gaschi2022", "smoke", {})
    quiet.use_encoder(SimpleNamespace(name="m", revision="r", n_blank_texts=0))
    assert json.loads(quiet.save().read_text())["n_blank_texts"] == 0
