"""The reproduction ledger: every declared item has a row, statuses are honest, units are the item's own."""

import json

import pandas as pd
import pytest

from xalign.book import ledger as L
from xalign.book.cli import main
from xalign.book.results import ChapterRun, code_hash
from xalign.book.status import status_markdown, status_text
from xalign.core.paths import paper_tables_dir
from xalign.papers import meta

WANT = {"gaschi2022": ["Table I", "Table II", "Table III", "Table IV", "Table V"] + [f"Fig. {n}" for n in range(4, 9)],
        "liu2020": ["Table 3", "Table 4", "Fig. 1", "Fig. 2", "Fig. 3"],
        "calibrated2023": [f"Table {n}" for n in range(1, 11)] + ["Fig. 2"],
        "wickramasinghe": [f"Table {n}" for n in range(1, 7)] + ["Fig. 1", "Fig. 2"],
        "nyholm2020": [f"Table {n}" for n in range(1, 8)]}


def test_the_ledger_lists_the_41_items():
    assert {p: [it.id for it in L.items(p)] for p in meta.PAPERS} == WANT
    assert sum(map(len, WANT.values())) == 41


def test_every_declared_item_has_a_status_row(tmp_path):
    text = status_text("default", tmp_path)
    rows = [line.split() for line in text.splitlines()]
    for it in L.all_items():
        label = it.id.split()
        assert any(r[:3] == [L.tag(it.paper), *label] for r in rows), f"no row for {it.paper} {it.id}"
    assert len(L.ledger("default", tmp_path)) == 41


def test_every_transcribed_paper_table_is_in_the_ledger():
    for paper in meta.PAPERS:
        keys = {it.key for it in L.items(paper) if it.key}
        for csv in paper_tables_dir(paper).glob("*.csv"):
            assert csv.stem in keys, f"{paper}/tables/{csv.name} is not an item of the ledger"


def test_one_unit_per_item():
    for it in L.all_items():
        assert it.unit and it.unit_short and "," not in it.unit_short, it


def test_bad_item_names_the_file(monkeypatch):
    monkeypatch.setattr(meta, "metadata", lambda p: {"items": [{"id": "Table 1", "kind": "table"}]})
    with pytest.raises(ValueError, match="Table 1.*lacks"):
        L.items("gaschi2022")


def item(**kw):
    base = dict(paper="nyholm2020", id="Table 4", kind="table", title="t", section="s", unit="points (acc %)",
                instead="i", why="w", key="t", needs="the hub", paper_models=["bert-base-multilingual-cased"])
    return L.Item(**{**base, **kw})


def result(model, ours, profile="default", paper_std=None, status="partly", paper_setup=False, **extra):
    rows = [{"k": str(i), "paper": p, "ours": o, "diff": None if o is None else o - p,
             **({"paper_std": paper_std} if paper_std is not None else {})}
            for i, (p, o) in enumerate(zip([50.0, 60.0, 70.0], ours))]
    return {"model": model, "profile": profile, "code_hash": code_hash(), "paper_setup": paper_setup,
            "tables": {"t": {"rows": rows, "n_paper": 3, "n_matched": sum(o is not None for o in ours),
                             "status": status, "note": ""}, **extra}}


def test_statuses():
    e5, mbert = "multilingual-e5-small", "bert-base-multilingual-cased"
    row = L.judge(item(), result(e5, [51.0, 57.0, 70.5]))
    # an "other model" row says in words which model stands beside which
    assert row["status"] == "other model"
    assert row["summary"] == "e5-small vs the paper's mBERT: median 1.0, max 3.0 points apart (3/3 cells)"
    many = item(paper_models=["bert-base-multilingual-cased", "xlm-roberta-base", "xlm-roberta-large"])
    assert L.judge(many, result("my/encoder", [51.0, 57.0, 70.5]))["summary"].startswith(
        "encoder vs the paper's mBERT and 2 more: median 1.0")
    assert L.judge(item(), result(mbert, [51.0, 61.5, 70.5], "paper", status="reproduced"))["status"] == "reproduced"
    differs = L.judge(item(), result(mbert, [51.0, 57.0, 70.5], "paper", status="reproduced"))
    assert differs["status"] == "same setup, differs" and differs["n_out"] == 1
    # the paper's spread widens the band; the cells we lack are counted in the summary
    assert L.judge(item(), result(mbert, [51.0, 57.0, 70.5], "paper", paper_std=3.5,
                                  status="reproduced"))["status"] == "reproduced"
    part = L.judge(item(), result(mbert, [51.0, None, 70.5], "paper"))
    assert part["status"] == "reproduced" and part["summary"].endswith("(2/3 cells)")
    # a stand-in (stored "partly" with every cell matched) is never the paper's setup
    assert L.judge(item(), result(mbert, [51.0, 61.5, 70.5], "paper", status="partly"))["status"] == "other model"
    mi = item(model_independent=True, tolerance=0, unit="lines")
    assert L.judge(mi, result(e5, [50.0, 60.0, 70.0]))["status"] == "model-independent, reproduced"
    off = L.judge(mi, result(e5, [50.0, 61.0, 70.0]))
    assert off["status"] == "model-independent, differs" and off["summary"].endswith("max 1.0 lines (3/3 cells)")
    gone = L.judge(item(key="nothing"), result(e5, [1.0, 1.0, 1.0]))
    assert gone["status"] == "not run here" and gone["summary"] == "needs the hub"
    assert L.judge(item(), None)["status"] == "not run yet"
    fig = item(id="Fig. 2", kind="figure", key=None)
    series = {"Fig. 2": {"rows": [{"x": 1, "y": 2}], "kind": "figure", "status": "redrawn"}}
    drawn = L.judge(fig, result(e5, [1.0, 1.0, 1.0], **series))
    assert drawn["status"] == "other model" and "no numbers in the paper" in drawn["summary"]
    stale = result(e5, [51.0, 57.0, 70.5])
    stale["code_hash"] = "0" * 16
    assert L.judge(item(), stale)["stale"] and not row["stale"]
    shown = L.judge(item(shown=True), result(e5, [1.0, 2.0, 3.0]))
    assert shown["status"] == "shown"


def test_status_from_saved_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": "multilingual-e5-small"})
    run.compare("table2", pd.DataFrame({"split": ["dev", "test"], "value": [2490, 5010]}), keys=["split"])
    run.compare("table4", pd.DataFrame({"lang": ["en"], "classifier": ["MLP"], "value": [40.0]}),
                keys=["lang", "classifier"])
    run.save()
    rows = {r["item"]: r for r in L.ledger("default", tmp_path) if r["paper"] == "nyholm"}
    assert rows["Table 2"]["status"] == "model-independent, reproduced"
    assert rows["Table 4"]["status"] == "other model" and "points" in rows["Table 4"]["summary"]
    assert rows["Table 5"]["status"] == "not run here" and "hub" in rows["Table 5"]["summary"]
    page = status_markdown("default", tmp_path)
    assert "## Nyholm 2020" in page and "| Table&nbsp;2 | model-independent, reproduced |" in page
    for status in L.STATUSES:  # every status is defined on the page
        assert status in page
    assert main(["status", "--results", str(tmp_path)]) == 0


def test_differs_is_red(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": "multilingual-e5-small"})
    run.compare("table2", pd.DataFrame({"split": ["dev", "test"], "value": [2491, 5010]}), keys=["split"])
    path = run.save()
    assert json.loads(path.read_text())["tables"]["table2"]["rows"]
    page = status_markdown("default", tmp_path)
    assert '| Table&nbsp;2 | <span style="color:#b00020;font-weight:bold">model-independent, differs</span>' in page


def test_collapsed_classifiers_are_left_out_of_the_agreement(tmp_path, monkeypatch):
    """A row flagged ``collapsed`` (its classifier predicts one class for every test item) is not judged: the
    median and the largest difference are those of the other cells, and the summary says how many were left out."""
    e5, mbert = "multilingual-e5-small", "bert-base-multilingual-cased"
    res = result(e5, [51.0, 57.0, 70.5])
    res["tables"]["t"]["rows"][1]["collapsed"] = True  # the 3-point cell
    row = L.judge(item(), res)
    assert row["summary"] == ("e5-small vs the paper's mBERT: median 0.8, max 1.0 points apart (2/3 cells); "
                              "1 collapsed classifier (one class for (nearly) every test item) left out")
    # a row saved before the flag: its majority-prediction share decides
    old = result(e5, [51.0, 57.0, 70.5])
    old["tables"]["t"]["rows"][1]["majority share"] = 100.0
    old["tables"]["t"]["rows"][0]["majority share"] = 60.0
    assert L.judge(item(), old)["summary"] == row["summary"]
    # a collapsed cell far off no longer makes a paper-setup run "differ"
    off = result(mbert, [51.0, 40.0, 70.5], "paper", status="reproduced", paper_setup=True)
    assert L.judge(item(), off)["status"] == "same setup, differs"
    off["tables"]["t"]["rows"][1]["collapsed"] = True
    judged = L.judge(item(), off)
    assert judged["status"] == "reproduced" and judged["n_out"] == 0
    # compare() keeps the flag on the saved rows and leaves the row out of its largest difference
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": e5})
    t4 = pd.DataFrame({"lang": ["en", "de"], "classifier": ["MLP", "MLP"], "value": [33.3, 60.0],
                       "collapsed": [True, False]})
    frame = run.compare("table4", t4, keys=["lang", "classifier"])
    saved = run.tables["table4"]
    mlp = frame[frame["classifier"] == "MLP"].set_index("lang")
    assert saved.max_abs_diff == pytest.approx(abs(60.0 - mlp.loc["de", "paper"]))
    flags = {r["lang"]: r["collapsed"] for r in saved.rows if r["classifier"] == "MLP" and r["lang"] in ("en", "de")}
    assert flags == {"en": True, "de": False}


def test_a_fresh_clone_s_status_shows_the_reference_without_calling_it_stale(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "empty"))  # a fresh clone: no results of its own
    assert L.shows_reference("default")
    text = status_text("default")
    assert "(stale)" not in text and "committed reference run" in text and "xalign check --rerun" in text
    assert not any(r["stale"] for r in L.ledger("default"))
    assert "(stale: made by older library code)" not in status_markdown("default")


def test_a_stale_own_result_is_marked_and_explained(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": "multilingual-e5-small"})
    run.compare("table2", pd.DataFrame({"split": ["dev", "test"], "value": [2490, 5010]}), keys=["split"])
    path = run.save()
    saved = json.loads(path.read_text())
    assert "(stale)" not in status_text("default", tmp_path)
    path.write_text(json.dumps(dict(saved, code_hash="0" * 16)))
    text = status_text("default", tmp_path)
    assert "multilingual-e5-small (stale)" in text
    assert "(stale): the result was made by older library code than this checkout's" in text


def test_the_ledger_says_when_a_run_finished_as_a_reader_reads_it():
    from xalign.book.result_files import finished_text

    assert finished_text("2026-12-02T07:20:46+00:00") == "2 December 2026, 07:20 UTC"
    assert finished_text("2026-12-02T08:20:46+01:00") == "2 December 2026, 07:20 UTC"
    assert finished_text(None) == "?" and finished_text("yesterday") == "yesterday"
