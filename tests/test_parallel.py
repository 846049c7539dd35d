"""Chapters side by side: how many at once, threads each, the quickest order, failures reported together."""

from itertools import combinations

import pytest

from xalign.book import parallel as PL
from xalign.book.runner import run_chapter


def write_parameters(chapter, params, target, root):
    """A stand-in chapter run (module level: the workers receive it by name)."""
    target.write_text(f"{chapter} {params['profile']} {root.name}")
    return target


def test_jobs_and_threads_split_the_cores():
    assert PL.default_jobs(5, cores=2) == 2
    assert PL.default_jobs(5, cores=1) == 1
    assert PL.default_jobs(1, cores=16) == 1
    assert PL.default_jobs(5, cores=16) == 2          # memory: at most two chapters at once
    assert PL.threads_per_job(2, cores=2) == 1
    assert PL.threads_per_job(2, cores=16) == 8
    assert PL.threads_per_job(4, cores=2) == 1


def test_the_order_follows_the_last_wall_times_and_the_reference_for_unknown_chapters():
    walls = {"01_a": 600.0, "02_b": 100.0, "05_e": 900.0}     # 03 and 04: reference cold times (1150, 1461 s)
    order = PL.quickest_order(["01_a", "02_b", "03_c", "04_d", "05_e"], walls.get, jobs=2)
    assert order[:2] == ["04_d", "03_c"]
    seconds = {"01_a": 600.0, "02_b": 100.0, "03_c": 1150.0, "04_d": 1461.0, "05_e": 900.0}
    best_split = min(max(sum(seconds[c] for c in part), sum(seconds.values()) - sum(seconds[c] for c in part))
                     for n in range(6) for part in combinations(seconds, n))
    assert PL.makespan(order, seconds, 2) == best_split == 2150.0   # {04, 01} / {03, 05, 02}


def test_the_quickest_order_beats_longest_first_where_that_splits_badly():
    """Durations 3, 3, 2, 2, 2 on two workers: longest first ends at 7, the order 3, 2, 2, 3, 2 at 6."""
    seconds = {"a": 3.0, "b": 3.0, "c": 2.0, "d": 2.0, "e": 2.0}
    assert PL.makespan(["a", "b", "c", "d", "e"], seconds, 2) == 7.0
    order = PL.quickest_order(list(seconds), seconds.get, jobs=2)
    assert PL.makespan(order, seconds, 2) == 6.0
    assert PL.quickest_order(list(seconds), seconds.get, jobs=1) == ["a", "b", "c", "d", "e"]


def test_a_cold_book_splits_the_chapters_into_the_quickest_two_queues():
    """No recorded run (a fresh clone): the reference cold times (31faab9's quiet run). Longest first
    (04, 03, 01, 05, 02) put chapters 3, 1 and 2 on one core, 38:46; chapters 3, 5 and 2 there end at
    37:20 and chapters 4 and 1 on the other at 36:53."""
    chapters = ["01_weak_strong_alignment", "02_btsr_contextual_alignment", "03_calibrated_retrieval_transfer_rate",
                "04_bli_pruning_stemming", "05_feature_based_transfer"]
    order = PL.quickest_order(chapters, lambda ch: None, jobs=2)
    assert [c[:2] for c in order] == ["04", "03", "05", "01", "02"]
    cold = {ch: PL.REFERENCE_COLD_S[ch[:2]] for ch in chapters}
    assert PL.makespan(order, cold, 2) == 37 * 60 + 20
    assert PL.makespan(sorted(chapters, key=lambda c: -cold[c]), cold, 2) == 38 * 60 + 47


def test_a_failing_chapter_does_not_stop_the_others_and_all_failures_are_named(tmp_path):
    tasks = [("no-such-chapter", {"profile": "smoke"}, tmp_path / "a.ipynb"),
             ("neither-this-one", {"profile": "smoke"}, tmp_path / "b.ipynb")]
    with pytest.raises(RuntimeError, match="no-such-chapter.*neither-this-one|neither-this-one.*no-such-chapter"):
        PL.run_chapters_parallel(run_chapter, tasks, tmp_path, jobs=2)


def test_the_scheduler_runs_the_function_it_is_given(tmp_path):
    """run_chapters_parallel takes the chapter runner (it no longer imports book.runner: no circle)."""
    tasks = [(ch, {"profile": "smoke"}, tmp_path / f"{ch}.ipynb") for ch in ("a", "b", "c")]
    PL.run_chapters_parallel(write_parameters, tasks, tmp_path, jobs=2)
    assert [(tmp_path / f"{ch}.ipynb").read_text() for ch in "abc"] == [f"{ch} smoke {tmp_path.name}" for ch in "abc"]
