"""Chapters side by side: how many at once, threads each, the quickest order, failures reported together."""

import json
from itertools import combinations

import pytest

from xalign.book import parallel as PL
from xalign.book import runner as RN
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
    walls = {"01_a": 600.0, "02_b": 100.0, "05_e": 900.0}
    reference = {"03_c": 1150.0, "04_d": 1461.0}.get          # 03 and 04 have no run of their own
    order = PL.quickest_order(["01_a", "02_b", "03_c", "04_d", "05_e"], walls.get, jobs=2, reference=reference)
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


CHAPTERS = ["01_weak_strong_alignment", "02_btsr_contextual_alignment", "03_calibrated_retrieval_transfer_rate",
            "04_bli_pruning_stemming", "05_feature_based_transfer"]


def test_a_fresh_clone_orders_the_chapters_by_their_reference_runs(tmp_path):
    """No run of its own (a fresh clone): the CPU times of the committed reference runs decide, whatever they
    are. (A table of cold times fixed in the code put chapter 3 first on the second core, then 1 and 2, after
    chapter 2 had grown to chapter 1's size: 51:36 where 49:40 was possible.)"""
    minutes = {"01": 11.6, "02": 11.3, "03": 28.7, "04": 26.8, "05": 14.1}
    for ch in CHAPTERS:
        (tmp_path / f"{ch}.json").write_text(json.dumps({"chapter": ch, "cpu_time_s": 60 * minutes[ch[:2]]}))
    cpu = {ch: RN.reference_cpu_time(ch, tmp_path) for ch in CHAPTERS}
    assert cpu["03_calibrated_retrieval_transfer_rate"] == 60 * 28.7
    order = PL.quickest_order(CHAPTERS, lambda ch: None, jobs=2, reference=lambda ch: RN.reference_cpu_time(ch, tmp_path))
    best = min(max(sum(cpu[c] for c in part), sum(cpu.values()) - sum(cpu[c] for c in part))
               for n in range(6) for part in combinations(CHAPTERS, n))
    assert PL.makespan(order, cpu, 2) == pytest.approx(best) == pytest.approx(60 * 49.7)  # {03, 05} / {04, 01, 02}
    old_order = ["04_bli_pruning_stemming", "03_calibrated_retrieval_transfer_rate", "05_feature_based_transfer",
                 "01_weak_strong_alignment", "02_btsr_contextual_alignment"]   # what the fixed table chose
    assert PL.makespan(old_order, cpu, 2) == pytest.approx(60 * 51.6)
    # other reference times, another order
    minutes["02"] = 2.0
    for ch in CHAPTERS:
        (tmp_path / f"{ch}.json").write_text(json.dumps({"chapter": ch, "cpu_time_s": 60 * minutes[ch[:2]]}))
    other = PL.quickest_order(CHAPTERS, lambda ch: None, jobs=2, reference=lambda ch: RN.reference_cpu_time(ch, tmp_path))
    assert other != order


def test_a_missing_or_unreadable_reference_gives_no_time(tmp_path):
    assert RN.reference_cpu_time("01_weak_strong_alignment", tmp_path) is None
    (tmp_path / "01_weak_strong_alignment.json").write_text("{not json")
    assert RN.reference_cpu_time("01_weak_strong_alignment", tmp_path) is None
    (tmp_path / "01_weak_strong_alignment.json").write_text(json.dumps({"cpu_time_s": None}))
    assert RN.reference_cpu_time("01_weak_strong_alignment", tmp_path) is None


def test_a_cold_book_record_outranks_a_reference_made_warm(tmp_path):
    """issue 46: reference/05 was made on a warm cache (21 s of CPU where the chapter takes 31 minutes cold), and
    the order chosen on it would run chapter 5 last and alone."""
    (tmp_path / "05_feature_based_transfer.json").write_text(json.dumps({"cpu_time_s": 20.7}))
    assert RN.reference_cpu_time("05_feature_based_transfer", tmp_path) == 20.7
    (tmp_path / "timings").mkdir()
    books = [{"chapter_seconds": {"05_feature_based_transfer": {"wall": 900.0, "cpu": 880.0}}},
             {"chapter_seconds": {"05_feature_based_transfer": {"wall": 1849.4, "cpu": 1831.4}}},
             {"chapter_seconds": {"01_weak_strong_alignment": {"wall": 10.0, "cpu": 9.0}}}]
    (tmp_path / "timings" / "book.json").write_text(json.dumps(books))
    assert RN.reference_cpu_time("05_feature_based_transfer", tmp_path) == 1831.4  # the newest record holding it
    (tmp_path / "timings" / "book.json").write_text("{broken")
    assert RN.reference_cpu_time("05_feature_based_transfer", tmp_path) == 20.7


def test_the_committed_cold_times_put_chapter_5_among_the_long_chapters():
    cpu = {ch: RN.reference_cpu_time(ch) for ch in CHAPTERS}
    assert cpu["05_feature_based_transfer"] > cpu["02_btsr_contextual_alignment"], cpu


def test_the_committed_references_give_every_chapter_a_time():
    assert all(RN.reference_cpu_time(ch) for ch in CHAPTERS)


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
