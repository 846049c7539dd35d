"""The reference run and ``xalign check``: same numbers pass, a tampered number fails."""

import json
import os
import shutil

import pandas as pd
import pytest

from xalign.book import check as K
from xalign.book.cli import main
from xalign.book.results import ChapterRun, load_results
from xalign.core.paths import cache_root

CHAPTER = "01_weak_strong_alignment"


def save_run(model="multilingual-e5-small", value=93.0, profile="default", precision=None):
    run = ChapterRun(CHAPTER, "gaschi2022", profile, {"model": model})
    run.precision = precision
    run.compare("table2", pd.DataFrame({"method": ["dictionary"], "pair": ["en-de"], "value": [value]}),
                keys=["method", "pair"])
    run.figure("Fig. 6", pd.DataFrame({"pair": ["de-en", "de-en"], "layer": [0, 1], "mean": [40.0, 60.0],
                                       "ci95": [1.5, 2.0]}))
    return run.save()


@pytest.fixture
def reference(tmp_path, monkeypatch):
    results, ref = tmp_path / "results", tmp_path / "reference"
    monkeypatch.setenv("XALIGN_RESULTS", str(results))
    save_run()
    assert K.make_reference("default", results, ref) == [ref / f"{CHAPTER}.json"]
    return results, ref


def tamper(results, edit):
    path = results / CHAPTER / "default" / "multilingual-e5-small.json"
    data = json.loads(path.read_text())
    edit(data["tables"])
    path.write_text(json.dumps(data))


def test_identical_results_pass(reference, capsys):
    results, ref = reference
    assert K.check(None, results, ref)
    assert main(["check", "01", "--results", str(results), "--reference", str(ref)]) == 0
    out = capsys.readouterr().out
    assert "2/2 tables agree" in out and "Fig. 6" in out


def test_a_tampered_number_fails(reference, capsys):
    results, ref = reference
    tamper(results, lambda t: t["table2"]["rows"][0].update(ours=93.01))
    assert main(["check", "--results", str(results), "--reference", str(ref)]) == 1
    assert "FAIL table2" in capsys.readouterr().out


def test_figures_are_checked_within_their_interval(reference):
    results, ref = reference
    tamper(results, lambda t: t["Fig. 6"]["rows"][1].update(mean=61.5))  # inside its ci95 (2.0)
    assert K.check(None, results, ref)
    tamper(results, lambda t: t["Fig. 6"]["rows"][1].update(mean=62.5))  # outside
    checks = K.check_result(json.loads((ref / f"{CHAPTER}.json").read_text()),
                            load_results(CHAPTER, "default", results)[0])
    assert [c.ok for c in checks] == [True, False] and "mean" in checks[1].problems[0]


def test_missing_rows_and_tables_fail(reference):
    results, ref = reference
    tamper(results, lambda t: t.pop("table2"))
    assert not K.check(None, results, ref)
    tamper(results, lambda t: t["Fig. 6"]["rows"].pop())
    assert not K.check(None, results, ref)


def test_a_second_model_does_not_overwrite_the_first(reference):
    results, ref = reference
    save_run(model="sentence-transformers/LaBSE", value=10.0)
    assert len(load_results(CHAPTER, "default", results)) == 2
    assert K.check(None, results, ref)  # the reference's own model is found and still agrees


def test_reference_command_copies_the_profile_model(tmp_path, monkeypatch, capsys):
    results, ref = tmp_path / "results", tmp_path / "ref"
    monkeypatch.setenv("XALIGN_RESULTS", str(results))
    save_run()
    save_run(model="sentence-transformers/LaBSE", value=10.0)  # newer, but not the default profile's model
    assert main(["reference", "--results", str(results), "--reference", str(ref)]) == 0
    assert [p.name for p in ref.iterdir()] == [f"{CHAPTER}.json"]
    assert json.loads((ref / f"{CHAPTER}.json").read_text())["model"] == "multilingual-e5-small"
    assert main(["reference", "--profile", "paper", "--results", str(results), "--reference", str(ref)]) == 1
    # naming chapters copies only theirs
    assert main(["reference", "02", "--results", str(results), "--reference", str(tmp_path / "only02")]) == 1
    assert main(["reference", "01", "--results", str(results), "--reference", str(tmp_path / "only01")]) == 0


def test_no_reference_is_a_failure(tmp_path):
    assert main(["check", "--reference", str(tmp_path), "--results", str(tmp_path)]) == 1


@pytest.mark.slow
def test_same_seed_same_numbers_with_an_empty_cache(tmp_path, monkeypatch):
    """Chapter 01 (the cheapest smoke run) twice: the second time with an empty embedding cache.
    Every cell must agree exactly (or within the row's own interval)."""
    from xalign.book.runner import run_chapter
    from xalign.core.encoders import materialize_offline_model

    materialize_offline_model()
    warm = cache_root()
    first, second, cold = tmp_path / "first", tmp_path / "second", tmp_path / "cold-cache"
    monkeypatch.setenv("XALIGN_RESULTS", str(first))
    run_chapter(CHAPTER, {"profile": "smoke"}, tmp_path / "first.ipynb", progress=False)
    cold.mkdir()
    os.symlink(warm / "models", cold / "models")  # the converted offline model, not re-converted
    # fetched data files are kept; the embeddings and the word alignments (fast_align: deterministic) are not
    for kind in ("data",):
        if (warm / kind).exists():
            shutil.copytree(warm / kind, cold / kind)
    monkeypatch.setenv("XALIGN_CACHE", str(cold))
    monkeypatch.setenv("XALIGN_RESULTS", str(second))
    run_chapter(CHAPTER, {"profile": "smoke"}, tmp_path / "second.ipynb", progress=False)
    assert any((cold / "embeddings").rglob("*")), "the second run did not fill its own cache"
    ref, new = load_results(CHAPTER, "smoke", first)[0], load_results(CHAPTER, "smoke", second)[0]
    checks = K.check_result(ref, new, abs_tol=0.0)
    assert checks and all(c.ok for c in checks), [c for c in checks if not c.ok]


def test_every_row_is_compared_none_is_exempt_as_unseeded():
    """The word aligner is deterministic: a row once marked ``unseeded`` is compared like any other."""
    ref = {"rows": [{"method": "aligner", "value": 81.7, "unseeded": True}, {"method": "dictionary", "value": 96.2}]}
    new = {"rows": [{"method": "aligner", "value": 82.1, "unseeded": True}, {"method": "dictionary", "value": 96.2}]}
    c = K.check_table("table2", ref, new)
    assert not c.ok and "row 0 value" in c.problems[0]
    new["rows"][0]["value"] = 81.7
    assert K.check_table("table2", ref, new).ok


def _variation_file(ref_dir, text):
    path = ref_dir / f"{CHAPTER}.variation.yaml"
    path.write_text(text)
    return path


def test_float32_cells_are_compared_within_the_measured_variation(reference, capsys):
    results, ref = reference
    for p in [*results.rglob("*.json"), *ref.glob("*.json")]:  # both runs in float32
        data = json.loads(p.read_text())
        data["precision"] = "torch.float32"
        p.write_text(json.dumps(data))
    tamper(results, lambda t: t["table2"]["rows"][3].update(ours=93.3, diff=3.2))  # the dictionary en-de row
    assert not K.check(None, results, ref)  # no variation measured: exact
    _variation_file(ref, "tables:\n  table2: {tolerance: 0.5, columns: [ours, diff], source: 'two CPU kinds, test data'}\n")
    capsys.readouterr()
    assert K.check(None, results, ref)
    out = capsys.readouterr().out
    assert "[tolerance 0.5 on ours, diff: two CPU kinds, test data]" in out  # stated with its source
    assert "measured variation in 01_weak_strong_alignment.variation.yaml" in out
    tamper(results, lambda t: t["table2"]["rows"][3].update(ours=93.6, diff=3.5))
    assert not K.check(None, results, ref)  # beyond the measured variation


def test_measured_variation_does_not_apply_to_bfloat16_runs(reference):
    results, ref = reference
    for p in [*results.rglob("*.json"), *ref.glob("*.json")]:
        data = json.loads(p.read_text())
        data["precision"] = "bfloat16"
        p.write_text(json.dumps(data))
    _variation_file(ref, "tables:\n  table2: {tolerance: 0.5, source: two CPU kinds}\n")
    tamper(results, lambda t: t["table2"]["rows"][3].update(ours=93.3, diff=3.2))
    assert not K.check(None, results, ref)


@pytest.mark.parametrize("text,match", [
    ("tables:\n  table2: {tolerance: -1, source: x}\n", "tables.table2.tolerance must be a finite number >= 0"),
    ("tables:\n  table2: {tolerance: 0.1}\n", "tables.table2.source must say what was measured"),
    ("tables:\n  table2: {tolerance: 0.1, source: x, cols: [a]}\n", "tables.table2: expected keys"),
    ("- 1\n", "expected a mapping"),
])
def test_a_bad_variation_file_is_named(tmp_path, text, match):
    path = _variation_file(tmp_path, text)
    with pytest.raises(ValueError, match=match) as err:
        K.load_variation(path)
    assert str(path) in str(err.value)


def test_variation_file_sits_next_to_every_precision_of_a_reference(tmp_path):
    assert K.variation_path(tmp_path / "04_bli.float32.json") == tmp_path / "04_bli.variation.yaml"
    assert K.variation_path(tmp_path / "04_bli.json") == tmp_path / "04_bli.variation.yaml"
    assert K.load_variation(tmp_path / "absent.variation.yaml") == {}


def test_a_reference_in_another_precision_is_reported_not_failed_cell_by_cell(tmp_path, monkeypatch, capsys):
    """bf16 and fp32 numbers differ by up to half a point: each precision is checked against its own reference."""
    results, ref = tmp_path / "results", tmp_path / "reference"
    monkeypatch.setenv("XALIGN_RESULTS", str(results))
    save_run(value=93.0, precision="bfloat16")
    K.make_reference("default", results, ref)
    save_run(value=93.2, precision="torch.float32")  # the same chapter on a CPU without native bf16
    assert not K.check(None, results, ref)  # no float32 reference yet: says so and fails
    out = capsys.readouterr().out
    assert "in bfloat16, this run in float32" in out and "no reference in float32" in out
    assert K.make_reference("default", results, ref) == [ref / f"{CHAPTER}.float32.json"]
    assert (ref / f"{CHAPTER}.json").exists()  # the bf16 reference stays
    assert K.check(None, results, ref)  # checked against the float32 one; the bf16 one is reported
    tamper(results, lambda t: t["table2"]["rows"][0].update(ours=93.21))
    assert not K.check(None, results, ref)


def test_precision_of_results_saved_before_the_field():
    assert K.result_precision({"params": {"autocast": "bfloat16"}}) == "bfloat16"
    assert K.result_precision({"params": {"autocast": None}}) == "torch.float32"
    assert K.result_precision({"params": {"autocast": "auto"}}) is None
    assert K.result_precision({"precision": "torch.float32", "params": {"autocast": "auto"}}) == "torch.float32"


def test_a_truncated_reference_is_named_and_fails(reference, capsys):
    results, ref = reference
    path = ref / f"{CHAPTER}.json"
    path.write_text(path.read_text()[:200])
    assert main(["check", "--results", str(results), "--reference", str(ref)]) == 1
    out = capsys.readouterr().out
    assert str(path) in out and "line" in out


def test_a_reference_without_tables_is_a_failure(reference, capsys):
    results, ref = reference
    path = ref / f"{CHAPTER}.json"
    data = json.loads(path.read_text())
    data["tables"] = {}
    path.write_text(json.dumps(data))
    assert main(["check", "--results", str(results), "--reference", str(ref)]) == 1
    assert "no tables" in capsys.readouterr().out


@pytest.mark.parametrize("damage", ["cut", "list"])
def test_a_damaged_results_file_of_another_model_is_named_and_skipped(reference, capsys, damage):
    """Status, check and the end of a chapter run (which reads the chapter's results) go on without it."""
    results, ref = reference
    other = results / CHAPTER / "default" / "other-model.json"
    good = (results / CHAPTER / "default" / "multilingual-e5-small.json").read_text()
    other.write_text(good[:300] if damage == "cut" else "[1, 2]")
    with pytest.warns(RuntimeWarning, match="other-model.json"):
        found = load_results(CHAPTER, "default", results)
    assert [r["model"] for r in found] == ["multilingual-e5-small"]
    with pytest.warns(RuntimeWarning, match="other-model.json"):
        assert main(["check", "--results", str(results), "--reference", str(ref)]) == 0
    with pytest.warns(RuntimeWarning, match="other-model.json"):
        assert main(["status", "--results", str(results)]) == 0


@pytest.mark.parametrize("damage", ['{"model": "x", "measures"', "[]"])
def test_compare_names_a_damaged_card_and_shows_the_others(tmp_path, capsys, damage):
    (tmp_path / "bad.json").write_text(damage)
    with pytest.warns(RuntimeWarning, match="bad.json"):
        assert main(["compare", "--out", str(tmp_path)]) == 0
    assert "No model cards yet" in capsys.readouterr().out


def test_reference_command_names_a_damaged_reference_and_replaces_nothing(reference, capsys):
    results, ref = reference
    path = ref / f"{CHAPTER}.json"
    path.write_text("[]")
    assert main(["reference", "--results", str(results), "--reference", str(ref)]) == 1
    assert str(path) in capsys.readouterr().err and path.read_text() == "[]"


def test_one_rule_says_what_a_number_is_for_check_harness_variation_and_item_steps():
    from xalign.book import check, harness, item_steps, variation
    from xalign.core.numbers import is_finite_number, is_number

    assert is_number(1) and is_number(2.5) and is_number(float("nan")) and not is_number(True)
    assert not is_number("1") and not is_number(None)
    assert is_finite_number(0) and not is_finite_number(float("inf")) and not is_finite_number(float("nan"))
    assert not is_finite_number(False)
    for module in (check, harness, item_steps, variation):  # no private copy of the rule left behind
        assert not {"_number", "_finite", "_num"} & set(vars(module)), module.__name__
