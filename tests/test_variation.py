"""A float32 reference's variation comes from its own seed spreads: `xalign reference` writes it, check uses it."""

import json

import pandas as pd
import pytest

from xalign.book import check as K
from xalign.book.results import ChapterRun
from xalign.book.variation import seed_variation

CHAPTER = "05_feature_based_transfer"


def _run(ours, lo, hi, precision="torch.float32"):
    run = ChapterRun(CHAPTER, "nyholm2020", "default", {"model": "multilingual-e5-small", "seeds": [0, 1, 2]})
    run.precision = precision
    run.record("table4", pd.DataFrame({"lang": ["de", "fr"], "ours": ours, "ours seed min": lo, "ours seed max": hi}))
    run.record("diagnosis", pd.DataFrame({"step": ["A"], "acc": [50.0], "acc_min": [49.0], "acc_max": [52.5]}))
    run.record("table2", pd.DataFrame({"split": ["test"], "ours": [750]}))
    return run.save()


def test_the_largest_seed_range_of_each_table_is_its_tolerance(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    result = json.loads(_run([55.0, 40.0], [54.0, 37.0], [56.0, 41.5]).read_text())
    v = seed_variation(result)
    assert set(v) == {"table4", "diagnosis"}  # table2 has no seeds: exact
    assert v["table4"]["tolerance"] == pytest.approx(4.5) and "'ours'" in v["table4"]["source"]
    assert v["diagnosis"]["tolerance"] == pytest.approx(3.5) and "[0, 1, 2]" in v["diagnosis"]["source"]


def test_reference_writes_the_variation_and_a_rerun_within_it_passes(tmp_path, monkeypatch):
    results, ref = tmp_path / "results", tmp_path / "reference"
    monkeypatch.setenv("XALIGN_RESULTS", str(results))
    _run([55.0, 40.0], [54.0, 37.0], [56.0, 41.5])
    written = K.make_reference("default", results, ref)
    assert ref / f"{CHAPTER}.variation.yaml" in written
    assert K.load_variation(ref / f"{CHAPTER}.variation.yaml")["table4"].tolerance == pytest.approx(4.5)
    _run([57.0, 40.0], [54.0, 37.0], [56.0, 41.5])  # another CPU: 2 points, within the 4.5-point seed range
    assert K.check(CHAPTER, results, ref)
    _run([60.0, 40.0], [54.0, 37.0], [56.0, 41.5])  # 5 points: beyond it
    assert not K.check(CHAPTER, results, ref)


def test_a_bfloat16_reference_gets_no_variation_file(tmp_path, monkeypatch):
    results, ref = tmp_path / "results", tmp_path / "reference"
    monkeypatch.setenv("XALIGN_RESULTS", str(results))
    _run([55.0, 40.0], [54.0, 37.0], [56.0, 41.5], precision="bfloat16")
    assert K.make_reference("default", results, ref) == [ref / f"{CHAPTER}.json"]
    assert not (ref / f"{CHAPTER}.variation.yaml").exists()


def test_chapter_2s_seed_columns_count_too():
    result = {"params": {"seeds": [0, 1, 2]}, "tables": {
        "table3": {"rows": [{"variant": "a", "ours": 30.0, "seed min": 28.0, "seed max": 33.5},
                            {"variant": "b", "ours": None, "seed min": None, "seed max": None}]},
        "table3_seeds": {"rows": [{"mean": 30.0, "min": 29.0, "max": 31.0}]}}}
    v = seed_variation(result)
    assert v["table3"]["tolerance"] == pytest.approx(5.5) and v["table3_seeds"]["tolerance"] == pytest.approx(2.0)
