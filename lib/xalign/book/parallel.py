"""Run several chapters at once: each in its own process and kernel, the cores split between them.

Much of a chapter is single-threaded Python (tokenising, pandas, scikit-learn
fits), so on a 2-core machine two chapters side by side, one thread each,
finish sooner than the same chapters one after another with two threads each.
The longest chapters start first (their last recorded wall time, else the
reference order), so the two queues end close together.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from multiprocessing import get_context
from pathlib import Path

#: the environment variables that size a kernel's thread pools (torch, BLAS, OpenMP)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
#: cold-run order when no earlier run says otherwise: longest first, by the cold times measured on the
#: 2-core AMX machine (README, Timings: 24, 18, 13, 10 and 7 minutes). Chapter 5 before chapter 2: the
#: other way round the 10-minute chapter 5 started last and ran alone on one of the two cores (40:37)
DEFAULT_ORDER = ("04", "03", "01", "05", "02")


def default_jobs(n_chapters: int, cores: int | None = None) -> int:
    """Chapters to run at once: one per core, at most two (each needs up to ~4 GB), at most ``n_chapters``."""
    cores = cores or os.cpu_count() or 1
    return max(1, min(2, cores, n_chapters))


def threads_per_job(jobs: int, cores: int | None = None) -> int:
    """Threads each chapter's kernel gets so that ``jobs`` kernels share the cores; >= 1."""
    cores = cores or os.cpu_count() or 1
    return max(1, cores // max(1, jobs))


def longest_first(chapters: list[str], last_wall: Callable[[str], float | None]) -> list[str]:
    """Chapters ordered by their last recorded wall time (s), longest first; unknown ones by
    :data:`DEFAULT_ORDER`, before the known ones (a cold start has no record)."""
    def rank(ch: str):
        wall = last_wall(ch)
        pos = DEFAULT_ORDER.index(ch[:2]) if ch[:2] in DEFAULT_ORDER else len(DEFAULT_ORDER)
        return (0, pos, 0.0) if wall is None else (1, 0, -wall)
    return sorted(chapters, key=rank)


def _run_one(chapter: str, params: dict, target: str, root: str, threads: int) -> str:
    for var in THREAD_VARIABLES:   # read by the kernel this process starts
        os.environ[var] = str(threads)
    from xalign.book.runner import run_chapter

    return str(run_chapter(chapter, params, Path(target), Path(root)))


def run_chapters_parallel(tasks: list[tuple[str, dict, Path]], root: Path, jobs: int,
                          threads: int | None = None) -> None:
    """Run ``(chapter, parameters, target)`` tasks, ``jobs`` at a time, in the order given.

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
            pending[pool.submit(_run_one, chapter, params, str(target), str(root), threads)] = chapter
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
