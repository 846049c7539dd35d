"""Every chapter runs end to end through papermill (smoke profile), and the book builds with -W."""

import json

import pytest

from xalign.book.results import load_results
from xalign.book.runner import chapter_ids

pytestmark = pytest.mark.slow


def test_there_are_chapters():
    assert "01_weak_strong_alignment" in chapter_ids()


@pytest.mark.parametrize("chapter", chapter_ids())
def test_chapter_runs_and_writes_results(built_book, chapter):
    root, results, _ = built_book
    nb = json.loads((root / "book" / "chapters" / f"{chapter}.ipynb").read_text())
    errors = [o for c in nb["cells"] for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert errors == []
    saved = load_results(chapter, "smoke", results)[0]
    assert saved["profile"] == "smoke" and saved["tables"]
    assert saved["data"], "results must name the data files they used"


def test_book_builds_with_status_page(built_book):
    _, _, html = built_book
    index = (html / "intro.html") if (html / "intro.html").exists() else (html / "book" / "intro.html")
    text = index.read_text()
    assert "Reproduction status" in text and "The five chapters" in text  # the front page: counts, chapters
    ledger = (index.parent / "ledger.html").read_text()  # every item of the five papers on its own page
    assert "The reproduction ledger" in ledger and "Table II" in ledger and "Fig. 8" in ledger
    assert (html / "book" / "chapters" / "01_weak_strong_alignment.html").exists()
