"""`xalign run` says where the notebook and the results went, the chapter's headline and the data mirror."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pandas as pd

from xalign.book import runner as R
from xalign.book.cli import main
from xalign.book.results import ChapterRun
from xalign.core.paths import mirror_words

CHAPTER = "05_feature_based_transfer"
HEADLINE = "Frozen e5 features transfer 71.2% (95% CI 69.0-73.4) of the English XNLI accuracy."


def _save(model: str = "multilingual-e5-small", headline: str = HEADLINE) -> Path:
    run = ChapterRun(CHAPTER, "nyholm2020", "smoke", {"model": model})
    run.compare("table2", pd.DataFrame({"split": ["dev"], "value": [2490]}), keys=["split"])
    run.set_headline(headline)
    return run.save()


def test_the_run_prints_its_notebook_results_headline_and_mirror(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    older = _save("older-model", "an earlier run")
    past = time.time() - 3600
    os.utime(older, (past, past))  # a result from before this run is not this run's
    seen = {}

    def fake_run(chapter, params, output=None):
        seen.update(chapter=chapter, params=params)
        _save()
        return tmp_path / "nb.ipynb"

    monkeypatch.setattr(R, "run_chapter", fake_run)
    assert main(["run", "05", "--profile", "smoke"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert seen == {"chapter": "05", "params": {"profile": "smoke"}}
    saved = tmp_path / "results" / CHAPTER / "smoke" / "multilingual-e5-small.json"
    assert out == [f"[xalign] {mirror_words()}", f"notebook: {tmp_path / 'nb.ipynb'}", f"results:  {saved}",
                   f"headline: {HEADLINE}"]


def test_a_run_that_saved_nothing_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    assert R.saved_results(CHAPTER, "smoke", time.time()) == []
    text = R.run_summary(tmp_path / "nb.ipynb", [])
    assert text == f"notebook: {tmp_path / 'nb.ipynb'}\nresults:  none saved (the chapter saves none)"
