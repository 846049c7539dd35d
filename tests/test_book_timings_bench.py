"""bench/book_timings.py: a cold and a warm `make book` recorded for the Performance page's whole-book table."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).parents[1] / "bench"


@pytest.fixture
def bench(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCH))  # the script imports card_timings beside it, as when run
    spec = importlib.util.spec_from_file_location("book_timings", BENCH / "book_timings.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    yield mod
    sys.modules.pop("card_timings", None)


def _chapter(wall, cpu, peak, commit="abc1234"):
    return {"profile": "default", "wall_time_s": wall, "cpu_time_s": cpu, "peak_rss_mib": peak, "git_commit": commit}


def test_a_recorded_book_run_sums_the_chapters_and_keeps_the_measured_walls(bench, tmp_path):
    path = tmp_path / "book.json"
    cold = {"01_a": _chapter(700.0, 690.5, 3300.0, "abc1234def"), "02_b": _chapter(600.0, 590.0, 3800.0)}
    bench.record_run(path, cold, cold_wall=2999.94, warm_wall=75.0)
    rec = bench.record_run(path, cold, cold_wall=3100.0)
    runs = json.loads(path.read_text())
    assert len(runs) == 2 and runs[0]["seconds"] == {"cold": 2999.9, "warm": 75.0}
    assert rec["seconds"] == {"cold": 3100.0} and rec["chapter_cpu_seconds"] == 1280.5
    assert rec["peak_gib"] == 3.7 and rec["commit"] == "abc1234" and rec["cores"] >= 1 and rec["cpu"]
    assert rec["chapter_seconds"]["02_b"] == {"wall": 600.0, "cpu": 590.0}


def test_chapters_of_two_commits_are_both_named(bench, tmp_path):
    cold = {"01_a": _chapter(1.0, 1.0, 1.0, "aaa"), "02_b": _chapter(1.0, 1.0, 1.0, "bbb")}
    assert bench.record_run(tmp_path / "b.json", cold, cold_wall=5.0)["commit"] == "aaa, bbb"


def test_the_page_table_shows_each_recorded_run(tmp_path):
    from xalign.book.pages import BOOK_TIMINGS, book_timings_markdown, load_timings

    path = tmp_path / "book.json"
    assert "No book run has been timed" in book_timings_markdown(path)
    path.write_text(json.dumps([{"cpu": "AMD EPYC", "cores": 2, "commit": "abc1234", "date": "2026-11-26",
                                 "seconds": {"cold": 3000.0, "warm": 75.0}, "chapter_cpu_seconds": 5550.0,
                                 "peak_gib": 3.7}]))
    page = book_timings_markdown(path)
    assert "50:00" in page and "1:15" in page and "92:30" in page and "AMD EPYC" in page and "2026-11-26" in page
    assert "abc1234" not in page, "the commit stays in the timings file, off the page"
    assert load_timings(BOOK_TIMINGS), "reference/timings/book.json: the Performance page's runs"
