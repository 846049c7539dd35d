"""Chapters side by side: how many at once, threads each, longest first, failures reported together."""

import pytest

from xalign.book import parallel as PL


def test_jobs_and_threads_split_the_cores():
    assert PL.default_jobs(5, cores=2) == 2
    assert PL.default_jobs(5, cores=1) == 1
    assert PL.default_jobs(1, cores=16) == 1
    assert PL.default_jobs(5, cores=16) == 2          # memory: at most two chapters at once
    assert PL.threads_per_job(2, cores=2) == 1
    assert PL.threads_per_job(2, cores=16) == 8
    assert PL.threads_per_job(4, cores=2) == 1


def test_longest_first_uses_the_last_wall_time_and_puts_unknown_chapters_first():
    walls = {"01_a": 600.0, "02_b": 100.0, "05_e": 900.0}
    order = PL.longest_first(["01_a", "02_b", "03_c", "04_d", "05_e"], walls.get)
    assert order == ["04_d", "03_c", "05_e", "01_a", "02_b"]


def test_a_cold_book_starts_the_chapters_longest_first():
    """No recorded run (a fresh clone): the measured cold times' order, so that the two queues end close
    together (chapter 5, 10 min, started after chapter 2, 7 min, and ran alone at the end)."""
    chapters = ["01_weak_strong_alignment", "02_btsr_contextual_alignment", "03_calibrated_retrieval_transfer_rate",
                "04_bli_pruning_stemming", "05_feature_based_transfer"]
    order = PL.longest_first(chapters, lambda ch: None)
    assert [c[:2] for c in order] == ["04", "03", "01", "05", "02"]


def test_a_failing_chapter_does_not_stop_the_others_and_all_failures_are_named(tmp_path):
    tasks = [("no-such-chapter", {"profile": "smoke"}, tmp_path / "a.ipynb"),
             ("neither-this-one", {"profile": "smoke"}, tmp_path / "b.ipynb")]
    with pytest.raises(RuntimeError, match="no-such-chapter.*neither-this-one|neither-this-one.*no-such-chapter"):
        PL.run_chapters_parallel(tasks, tmp_path, jobs=2)
