"""Run several chapters at once: each in its own process and kernel, the cores split between them.

Much of a chapter is single-threaded Python (tokenising, pandas, scikit-learn
fits), so on a 2-core machine two chapters side by side, one thread each,
finish sooner than the same chapters one after another with two threads each.
The chapters start in the order whose queues end soonest (every order of up to
8 chapters is tried on their last recorded wall times, else on the CPU times of
their committed reference runs), so the two queues end close together.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

#: the environment variables that size a kernel's thread pools (torch, BLAS, OpenMP)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: orders tried in full up to this many chapters (8! = 40,320 simulations); beyond, longest first
MAX_SEARCHED = 8
#: what runs one chapter: run(chapter, parameters, target notebook, book root) -> the notebook written
RunChapter = Callable[[str, dict, Path, Path], Path]


def default_jobs(n_chapters: int, cores: int | None = None) -> int:
    """Chapters to run at once: one per core, at most two (each needs up to ~4 GB), at most ``n_chapters``."""
    cores = cores or os.cpu_count() or 1
    return max(1, min(2, cores, n_chapters))


def threads_per_job(jobs: int, cores: int | None = None) -> int:
    """Threads each chapter's kernel gets so that ``jobs`` kernels share the cores; >= 1."""
    cores = cores or os.cpu_count() or 1
    return max(1, cores // max(1, jobs))


def makespan(order: list[str], seconds: dict[str, float], jobs: int) -> float:
    """When the last of ``order``'s chapters ends if each starts, in that order, as soon as one of
    ``jobs`` workers is free (what :func:`run_chapters_parallel` does); seconds per chapter."""
    free = [0.0] * max(1, jobs)
    for chapter in order:
        i = min(range(len(free)), key=free.__getitem__)
        free[i] += seconds[chapter]
    return max(free)


def quickest_order(chapters: list[str], last_wall: Callable[[str], float | None], jobs: int = 2,
                   reference: Callable[[str], float | None] = lambda chapter: None) -> list[str]:
    """The order of ``chapters`` whose queues on ``jobs`` workers end soonest (:func:`makespan`).

    Durations (s): each chapter's last recorded wall time, else ``reference(chapter)`` (the book
    passes the CPU time of the chapter's committed reference run: a fresh clone has no run of its
    own), else twice the longest known one. Every order is tried up to :data:`MAX_SEARCHED`
    chapters, longest first beyond; among equally quick orders the one closest to longest-first wins.
    Longest first is not always quickest: on durations 3, 3, 2, 2, 2 it ends at 7, the order
    3, 2, 2, 3, 2 at 6.
    """
    from itertools import permutations

    known = {ch: last_wall(ch) or reference(ch) for ch in chapters}
    fallback = 2 * max([s for s in known.values() if s] or [1.0])
    seconds = {ch: s or fallback for ch, s in known.items()}
    longest = sorted(chapters, key=lambda ch: -seconds[ch])
    if len(chapters) > MAX_SEARCHED or jobs < 2:
        return longest
    return list(min(permutations(longest), key=lambda order: makespan(list(order), seconds, jobs)))


def _run_one(run: RunChapter, chapter: str, params: dict, target: str, root: str, threads: int) -> str:
    for var in THREAD_VARIABLES:   # read by the kernel this process starts
        os.environ[var] = str(threads)
    return str(run(chapter, params, Path(target), Path(root)))


def run_chapters_parallel(run: RunChapter, tasks: list[tuple[str, dict, Path]], root: Path, jobs: int,
                          threads: int | None = None) -> None:
    """Run ``run(chapter, parameters, target, root)`` for each ``(chapter, parameters, target)`` task,
    ``jobs`` at a time, in the order given, each in its own process.

    Args:
        run: the function that runs one chapter (:func:`xalign.book.runner.run_chapter`); a module-level
            function, since it is sent to the worker processes by name.
        tasks: (chapter, parameters, target notebook path) per chapter.
        root: the book's root folder.
        jobs: chapters at a time (>= 1).
        threads: CPU threads per chapter (default: :func:`threads_per_job`).

    Every chapter runs to its end even when another fails; the failures are then
    raised together (each failed notebook is kept as ``<chapter>.failed.ipynb``).
    """
    threads = threads or threads_per_job(jobs)
    failures: dict[str, BaseException] = {}
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn")) as pool:
        pending = {}
        for chapter, params, target in tasks:
            print(f"[xalign] running {chapter} (profile {params.get('profile')}, {threads} thread(s), "
                  f"{jobs} chapters at a time)", flush=True)
            pending[pool.submit(_run_one, run, chapter, params, str(target), str(root), threads)] = chapter
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                chapter = pending.pop(fut)
                exc = fut.exception()
                if exc is not None:
                    failures[chapter] = exc
                    print(f"[xalign] {chapter} FAILED: {type(exc).__name__}: {exc}", flush=True)
                else:
                    print(f"[xalign] {chapter} done", flush=True)
    if failures:
        raise RuntimeError("chapters failed: " + "; ".join(f"{c} ({type(e).__name__}: {e})"
                                                          for c, e in failures.items()))
