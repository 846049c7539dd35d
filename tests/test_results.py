"""Paper-vs-ours comparison tables, statuses and the front-page status table."""

import json

import pandas as pd
import pytest

from xalign.book.results import ChapterRun
from xalign.book.status import status_markdown, status_table


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


def test_save_and_status_table(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("01_weak_strong_alignment", "gaschi2022", "default", {"n": 1})
    run.compare("table1", pd.DataFrame({"pair": ["de-en"], "value": [93.0]}), keys=["pair"], paper=paper(),
                title="Table I")
    run.not_run("table9", "Table IX", "needs a GPU")
    path = run.save()
    saved = json.loads(path.read_text())
    assert saved["tables"]["table1"]["rows"][0]["diff"] == 3.0
    assert saved["params"] == {"n": 1} and "wall_time_s" in saved and "packages" in saved
    table = status_table("default", tmp_path)
    mine = table[table["table"].isin(["Table I", "Table IX"])]
    assert list(mine["status"]) == ["partly", "not run here"]
    assert "| Table I | partly | 3.0 |" in status_markdown("default", tmp_path)
    others = table[~table["chapter"].str.startswith("Gaschi")]
    assert set(others["status"]) == {"not run here"}
