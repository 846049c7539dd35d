"""A rerun with -p overrides writes beside the profile's run, never over it; a fresh clone's
`xalign status` shows the committed reference run."""

import json

import pandas as pd

from xalign.book import ledger as L
from xalign.book.cli import main
from xalign.book.results import ChapterRun, overrides_suffix, profile_overrides
from xalign.book.runner import rerun_suffix
from xalign.book.status import status_markdown, status_text
from xalign.papers import meta

CHAPTER, PAPER = "05_feature_based_transfer", "nyholm2020"


def _run(params: dict, value: float) -> ChapterRun:
    run = ChapterRun(CHAPTER, PAPER, "default", params)
    run.compare("table2", pd.DataFrame({"split": ["dev", "test"], "value": [value, 5010]}), keys=["split"])
    return run


def test_a_rerun_with_overrides_is_saved_beside_the_profiles_run(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    profile = dict(meta.profiles(PAPER)["default"])
    own = _run(profile, 2490).save()
    seed = next(k for k in ("seed", "n_seeds", "runs") if k in profile)
    rerun = _run({**profile, seed: 7}, 1234).save()
    assert own.name == "multilingual-e5-small.json"
    assert rerun.name == f"multilingual-e5-small.{seed}-7.json" and rerun.parent == own.parent
    assert json.loads(own.read_text())["tables"]["table2"]["rows"][0]["ours"] == 2490  # not overwritten
    assert json.loads(rerun.read_text())["overrides"] == {seed: 7}
    # the book (ledger) shows the profile's own run, although the rerun is newer
    shown, every = L.pick_result(PAPER, "default", tmp_path)
    assert shown["_path"] == str(own) and len(every) == 2
    rows = {r["item"]: r for r in L.ledger("default", tmp_path) if r["paper"] == "nyholm"}
    assert rows["Table 2"]["status"] == "model-independent, reproduced"


def test_overrides_name_the_parameters_that_differ_from_the_profile():
    profile = dict(meta.profiles("gaschi2022")["smoke"])
    assert profile_overrides("gaschi2022", "smoke", profile) == {}
    # a model parameter is in the file name already; the others are named, sorted, filesystem-safe
    changed = {**profile, "model": "xlm-roberta-base", "seed": 3, "gold_pairs": "en-fr,ro-en"}
    assert profile_overrides("gaschi2022", "smoke", changed) == {"gold_pairs": "en-fr,ro-en", "seed": 3}
    assert overrides_suffix({"gold_pairs": "en-fr,ro-en", "seed": 3}) == ".gold_pairs-en-fr-ro-en.seed-3"
    long = overrides_suffix({"langs": ["x" * 30] * 5})
    assert len(long) <= 80 and long.startswith(".langs-")
    # the executed notebook of a rerun goes beside the book's page too (models count there)
    assert rerun_suffix("01_weak_strong_alignment", {"profile": "smoke"}) == ""
    assert rerun_suffix("01_weak_strong_alignment", {"profile": "smoke", "seed": 3,
                                                     "model": "xlm-roberta-base"}) == ".model-xlm-roberta-base.seed-3"


def test_status_on_a_fresh_clone_shows_the_committed_reference_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "no-results-yet"))
    assert L.shows_reference("default")
    rows = L.ledger("default")
    assert len(rows) == 41 and not [r for r in rows if r["status"] == "not run yet"]
    text = status_text("default")
    assert "committed reference run (reference/)" in text and "not run yet" not in text
    assert "committed reference run" in status_markdown("default")
    assert main(["status"]) == 0 and "committed reference run" in capsys.readouterr().out
    # a named results folder, or any result on disk, is shown as it is
    assert not L.shows_reference("default", tmp_path)
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    _run(dict(meta.profiles(PAPER)["default"]), 2490).save()
    assert not L.shows_reference("default")
    assert "committed reference run" not in status_text("default")


def test_check_compares_the_reference_with_the_profiles_run_not_a_rerun(tmp_path, monkeypatch):
    from xalign.book.check import fresh_result

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    profile = dict(meta.profiles(PAPER)["default"])
    own = _run(profile, 2490).save()
    _run({**profile, "seed": 7}, 1234).save()  # newer, beside it
    ref = json.loads(own.read_text())
    assert fresh_result(ref, tmp_path)["_path"] == str(own)
