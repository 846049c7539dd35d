"""Judgements that cannot be fooled: NaN and infinity are never agreement (ledger, check), check's
tolerance is finite and non-negative, names read from a file resolve inside their folder, compare --mteb
matches the full model name and revision, a comparison across precisions says so, a results file with
fields of the wrong type is named, not a traceback."""

import json
import math

import numpy as np
import pytest

from xalign.book import check as K
from xalign.book import ledger as L
from xalign.book.cli import main
from xalign.book.model_compare import paired_markdown, paired_page_markdown
from xalign.book.mteb_compare import MTEBFileError, model_verdict, pick_card
from xalign.book.results import code_hash, load_results, read_result
from xalign.card.items import encode_items
from xalign.core.jsonfile import JSONFileError

CHAPTER = "01_weak_strong_alignment"


def _item():
    return L.Item(paper="nyholm2020", id="Table 4", kind="table", title="t", section="s", unit="points (acc %)",
                  instead="i", why="w", key="t", paper_models=["bert-base-multilingual-cased"])


def _result(ours, status="reproduced"):
    rows = [{"k": str(i), "paper": p, "ours": o} for i, (p, o) in enumerate(zip([50.0, 60.0, 70.0], ours))]
    return {"model": "bert-base-multilingual-cased", "profile": "paper", "code_hash": code_hash(),
            "paper_setup": True, "tables": {"t": {"rows": rows, "n_paper": 3, "status": status, "note": ""}}}


@pytest.mark.parametrize("ours", [[math.nan] * 3, [math.inf, 60.0, 70.0], [50.5, math.nan, -math.inf]])
def test_the_ledger_never_counts_nan_or_inf_as_reproduced(ours):
    row = L.judge(_item(), _result(ours))
    assert row["status"] == "same setup, differs"
    assert row["n_out"] == sum(not math.isfinite(o) for o in ours)
    assert "nan" not in row["summary"].replace("NaN", "") and "not a number" in row["summary"]


def test_the_ledger_still_reproduces_finite_cells():
    row = L.judge(_item(), _result([50.5, 61.0, 69.0]))
    assert row["status"] == "reproduced" and row["summary"].startswith("median 1.0, max 1.0")


def _table(rows):
    return {"rows": rows}


def test_an_infinite_interval_does_not_accept_any_mean():
    ref = _table([{"pair": "de", "mean": 1.0, "ci95": math.inf}])
    new = _table([{"pair": "de", "mean": 1e9, "ci95": math.inf}])
    c = K.check_table("fig", ref, new)
    assert not c.ok
    assert any("mean" in p for p in c.problems) and any("ci95" in p and "not a finite" in p for p in c.problems)


def test_a_finite_interval_still_widens_the_tolerance():
    ref = _table([{"pair": "de", "mean": 1.0, "ci95": 2.0}])
    assert K.check_table("fig", ref, _table([{"pair": "de", "mean": 2.5, "ci95": 2.0}])).ok
    assert not K.check_table("fig", ref, _table([{"pair": "de", "mean": 3.5, "ci95": 2.0}])).ok


def test_nan_in_both_is_a_failure_naming_the_cell_and_null_in_both_agrees():
    c = K.check_table("t", _table([{"k": "a", "value": math.nan}]), _table([{"k": "a", "value": math.nan}]))
    assert not c.ok and c.problems == [c.problems[0]] and "row 0 value" in c.problems[0]
    assert "not a finite number" in c.problems[0]
    assert K.check_table("t", _table([{"k": "a", "value": None}]), _table([{"k": "a", "value": None}])).ok


@pytest.mark.parametrize("bad", [math.nan, -1.0, math.inf, -math.inf])
def test_a_tolerance_that_is_not_finite_and_non_negative_is_refused(bad):
    with pytest.raises(ValueError, match="--tolerance must be a finite number >= 0"):
        K.check(None, abs_tol=bad)
    with pytest.raises(ValueError, match="finite number >= 0"):
        K.check_table("t", _table([]), _table([]), abs_tol=bad)


@pytest.mark.parametrize("bad", ["nan", "-1", "inf"])
def test_the_cli_refuses_a_bad_tolerance(bad, tmp_path, capsys):
    assert main(["check", "--results", str(tmp_path), "--reference", str(tmp_path), "--tolerance", bad]) == 2
    assert "--tolerance must be a finite number >= 0" in capsys.readouterr().err


def _write(path, obj):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj))
    return path


def test_a_reference_chapter_reaching_outside_the_results_is_refused(tmp_path, capsys):
    results, ref = tmp_path / "results", tmp_path / "reference"
    outside = tmp_path / "outside" / "default"
    _write(outside / "m.json", {"chapter": "x", "profile": "default", "model": "m",
                                "tables": {"t": {"rows": [{"v": 1.0}]}}})
    (results / "a").mkdir(parents=True)
    _write(ref / "evil.json", {"chapter": "../../outside", "profile": "default", "model": "m",
                               "tables": {"t": {"rows": [{"v": 1.0}]}}})
    assert not K.check(None, results / "a", ref, echo=print)
    out = capsys.readouterr().out
    assert "FAIL" in out and "'chapter'" in out and "evil.json" in out
    assert "tables agree" not in out  # the file outside was never read as the fresh result
    with pytest.raises(ValueError, match="plain name"):
        load_results("../../outside", "default", results / "a")


@pytest.mark.parametrize("edit, match", [
    (lambda d: {**d, "finished": 12345}, "'finished' is a JSON int"),
    (lambda d: {**d, "tables": {"t": {"rows": "abc"}}}, "table 't' must be an object whose 'rows' is a list"),
    (lambda d: {**d, "tables": {"t": {"rows": ["abc"]}}}, "table 't'"),
    (lambda d: {**d, "tables": {"t": 5}}, "table 't'"),
    (lambda d: {**d, "profile": "../x"}, "'profile'"),
])
def test_a_results_file_with_wrong_types_is_named(tmp_path, edit, match):
    good = {"chapter": CHAPTER, "profile": "default", "model": "m", "finished": "2026-01-01T00:00:00+00:00",
            "tables": {"t": {"rows": [{"v": 1.0}]}}}
    assert read_result(_write(tmp_path / "good.json", good))["model"] == "m"
    path = _write(tmp_path / "bad.json", edit(good))
    with pytest.raises(JSONFileError, match=match) as exc:
        read_result(path)
    assert str(path) in str(exc.value)


@pytest.mark.parametrize("bad", [{"finished": 12345}, {"tables": {"t": {"rows": "abc", "status": "partly"}}}])
def test_status_skips_a_results_file_with_wrong_types_naming_it(tmp_path, bad, capsys):
    path = _write(tmp_path / CHAPTER / "default" / "m.json",
                  {"chapter": CHAPTER, "profile": "default", "model": "m", "finished": "2026-01-01T00:00:00",
                   "tables": {}, **bad})
    _write(tmp_path / CHAPTER / "default" / "n.json",
           {"chapter": CHAPTER, "profile": "default", "model": "n", "finished": "2026-01-02T00:00:00", "tables": {}})
    with pytest.warns(RuntimeWarning, match="skipped") as seen:
        assert main(["status", "--results", str(tmp_path)]) == 0
    assert any(str(path) in str(w.message) for w in seen)


def _mteb_card(model, revision="r1"):
    return {"model": model, "revision": revision, "measures": {}}


def test_compare_mteb_matches_the_full_name_and_revision(tmp_path):
    local = _mteb_card("/home/me/models/tiny", "local:abc")
    assert model_verdict(local, {"name": "someone-else/tiny", "revision": "abc"}) == "differs"
    assert model_verdict(_mteb_card("org/m", "abc"), {"name": "org/m", "revision": "abc"}) == "same"
    assert model_verdict(_mteb_card("org/m", "abc"), {"name": "org/m", "revision": "def"}) == "differs"
    assert model_verdict(_mteb_card("org/m", None), {"name": "org/m", "revision": "def"}) == "unknown"
    (tmp_path / "model_meta.json").write_text(json.dumps({"name": "someone-else/tiny", "revision": "abc"}))
    other = _mteb_card("/elsewhere/other")
    with pytest.raises(MTEBFileError, match="no card has that full name"):
        pick_card([local, other], tmp_path / "Tatoeba.json")
    with pytest.raises(MTEBFileError, match="last part of several"):
        pick_card([local, _mteb_card("/b/tiny")], tmp_path / "Tatoeba.json", "tiny")


def _card(model, precision):
    hits = np.random.default_rng(len(model)).random(100) < 0.7
    measures = {"tatoeba_nn_xx-en": {"best_layer": "3", "main_score": round(100 * hits.mean(), 2),
                                     "items": encode_items(hits), "layers": []}}
    card = {"model": model, "config": {"tatoeba_n": 100, "n_boot": 200, "seed": 0}, "measures": measures}
    if precision:
        card["precision"] = precision
    return card


def test_a_comparison_across_precisions_says_so():
    a, b, c = _card("a", "bfloat16"), _card("bb", "torch.float32"), _card("ccc", None)
    md = paired_markdown([a, b])
    assert "different precisions" in md and "`a` in bfloat16" in md and "`bb` in float32" in md
    assert "different precisions" not in paired_markdown([b, c])  # float32 and unrecorded (float32) alike
    assert "different precisions" in paired_page_markdown([a, b])
    assert "different precisions" not in paired_page_markdown([b, c])
