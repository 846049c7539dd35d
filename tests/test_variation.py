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


# --------------------------------------------------------------------------- a table that copies another's cells
def _measured(path, tables: dict) -> None:
    import yaml

    from xalign.book.variation import MEASURED_MARK

    path.write_text(f"{MEASURED_MARK} (test)\n" + yaml.safe_dump({"tables": tables}), encoding="utf-8")


def test_a_table_that_copies_another_s_cells_allows_the_source_s_tolerance(tmp_path):
    """Chapter 5's Table 6 copies Table 4's cells of one classifier per language; the harness saw its 'ours CI hi'
    move by 0.665 (tolerance 1.33) where Table 4's moved by 3.56 (7.12), and a Xeon rerun moved the copied
    en LR cell by 1.333: the same number passed in Table 4 and failed in Table 6."""
    from xalign.book.variation import load_variation

    path = tmp_path / "05_feature_based_transfer.variation.yaml"
    _measured(path, {"table4": {"tolerance": 7.12, "source": "harness", "column_tolerances": {"ours CI hi": 7.12,
                                                                                              "ours": 4.0}},
                     "table6": {"tolerance": 1.33, "source": "harness", "column_tolerances": {"ours CI hi": 1.33,
                                                                                              "diff": 0.889}},
                     "table5": {"tolerance": 9.21, "source": "harness"}})
    v = load_variation(path)
    assert v["table6"].for_column("ours CI hi") == 7.12 and v["table6"].for_column("ours") == 4.0
    assert v["table6"].for_column("diff") == 0.889 and "copies of table4's" in v["table6"].source
    assert v["table4"].for_column("ours CI hi") == 7.12  # the source itself is unchanged
    assert v["table7"].for_column("ours") == 9.21  # a copy the harness saw no move in takes its source's
    ref = {"precision": "torch.float32", "tables": {"table6": {"rows": [{"lang": "en", "ours CI hi": 40.867}]}}}
    new = {"precision": "torch.float32", "tables": {"table6": {"rows": [{"lang": "en", "ours CI hi": 42.2}]}}}
    assert all(c.ok for c in K.check_result(ref, new, variation=v))
    from xalign.book.variation import TableVariation, with_copied_cells

    whole = with_copied_cells({"t4": TableVariation(3.0, "harness", column_tolerances=(("ours", 3.0),)),
                               "t6": TableVariation(1.0, "harness")}, {"t6": "t4"})["t6"]
    assert whole.for_column("ours") == 3.0 and whole.for_column("n") == 3.0  # one tolerance for the whole copy
    other = tmp_path / "other.variation.yaml"  # a file no chapter declares: tables stay as measured
    _measured(other, {"table4": {"tolerance": 7.12, "source": "harness"},
                      "table6": {"tolerance": 1.33, "source": "harness"}})
    assert load_variation(other)["table6"].tolerance == 1.33


def test_every_declared_copy_is_a_copy_of_its_source_s_cells_in_the_reference():
    """``cells_from`` in a paper.yaml is a claim about the results: each copied column of each row of the table
    equals that column of some row of the source table in the committed reference."""
    from xalign.book.variation import copied_tables
    from xalign.core.paths import REFERENCE_DIR
    from xalign.papers import meta

    declared = 0
    for chapter in meta.chapters():
        tables = json.loads((REFERENCE_DIR / f"{chapter}.json").read_text(encoding="utf-8"))["tables"]
        for table, source in copied_tables(chapter).items():
            declared += 1
            rows, src = tables[table]["rows"], pd.DataFrame(tables[source]["rows"])
            shared = [c for c in rows[0] if c in src.columns and pd.api.types.is_numeric_dtype(src[c])
                      and c not in ("paper", "diff")]
            assert len(shared) >= 3, (chapter, table, shared)
            for row in rows:
                matches = src[[c for c in shared if row.get(c) is not None]].eq(
                    pd.Series({c: row[c] for c in shared if row.get(c) is not None})).all(axis=1)
                assert matches.any(), (chapter, table, row)
    assert declared >= 2
