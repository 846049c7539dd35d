"""Two generated appendix pages: the errata (every ``book/errata/NN.md`` present) and the measured
performance (each chapter's wall time, CPU time, peak memory and precision, read from saved results)."""

from __future__ import annotations

import json
from pathlib import Path

from xalign.book.display import table_html
from xalign.core.markup import code
from xalign.papers import meta


def errata_markdown(folder: Path, chapters: dict[str, dict | None] | None = None) -> str:
    """The chapters' errata, in chapter order: every ``NN.md`` in ``folder`` (written by each chapter's
    authors; a missing file is simply not there), each number filled from the results
    (:mod:`xalign.book.errata`).

    Args:
        folder: the errata pages' folder.
        chapters: chapter -> its results (default: the committed reference runs).

    Returns:
        Markdown for the "Errata and changes" page; a sentence when there is none.
    """
    from xalign.book.errata import ErrataError, render, results_source
    from xalign.core.paths import REFERENCE_DIR

    files = sorted(Path(folder).glob("[0-9][0-9].md")) if Path(folder).is_dir() else []
    parts = [f.read_text(encoding="utf-8").strip() for f in files]
    parts = [p for p in parts if p]
    if not parts:
        return "No errata or changes have been recorded for the chapters yet.\n"
    reference = {p.stem: json.loads(p.read_text(encoding="utf-8")) for p in sorted(REFERENCE_DIR.glob("[0-9][0-9]_*.json"))}
    source, fallback = results_source({**reference, **{k: v for k, v in (chapters or {}).items() if v}}), \
        results_source(reference)
    out = []
    for page in parts:
        try:
            out.append(render(page, source))
        except ErrataError:  # this run lacks a table the page quotes (e.g. a smoke run): the reference run's numbers
            out.append(render(page, fallback) + "\n\n*(The numbers on this entry are the committed reference run's.)*")
    return "\n\n".join(out) + "\n"


def mmss(seconds) -> str | None:
    """``"33:34"`` for seconds; None for a missing value (a table shows it as "–")."""
    if not isinstance(seconds, (int, float)):
        return None
    s = round(seconds)
    return f"{s // 60}:{s % 60:02d}"


def _row(result: dict, label: str) -> dict:
    from xalign.book.check import result_precision

    peak = result.get("peak_rss_mib")
    return {"Chapter": label, "Profile": result.get("profile", ""),
            "Precision": (result_precision(result) or "").replace("torch.", "") or None,
            "Wall (min:s)": mmss(result.get("wall_time_s")), "CPU (min:s)": mmss(result.get("cpu_time_s")),
            "Peak memory (GiB)": round(peak / 1024, 1) if isinstance(peak, (int, float)) else None,
            "Finished": (result.get("finished") or "")[:10] or None}


def timing_rows(results: dict[str, list[dict]]) -> list[dict]:
    """One row per saved result: chapter -> results (each a chapter's saved JSON)."""
    rows = []
    for chapter, found in results.items():
        rows += [_row(r, f"{chapter[:2]} ({meta.metadata(r['paper'])['label']})") for r in found]
    return rows


#: the card timings bench/card_timings.py --record writes
CARD_TIMINGS = Path(__file__).resolve().parents[3] / "reference" / "timings" / "cards.json"


def load_timings(path: Path = CARD_TIMINGS) -> list[dict]:
    """The runs ``bench/card_timings.py --record`` (cards) or ``bench/book_timings.py --record`` (the book)
    wrote to ``path`` (oldest first); [] when none was recorded."""
    return json.loads(Path(path).read_text(encoding="utf-8")) if Path(path).exists() else []


def append_timing(path: Path, record: dict) -> dict:
    """Add ``record`` to the JSON list of timed runs at ``path`` (created if missing); returns it."""
    runs = load_timings(path)
    runs.append(record)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(runs, indent=1) + "\n", encoding="utf-8")
    return record


def card_timings_markdown(path: Path = CARD_TIMINGS) -> str:
    """The Performance page's card table: each recorded ``bench/card_timings.py`` run (model, profile,
    precision, the CPU or GPU it ran on) with its cold and warm wall times and the step that took longest
    cold. The targets stay with the bench (``bench/card_timings.py`` prints each time beside its own)."""
    import pandas as pd

    runs = load_timings(path)
    if not runs:
        return "No card run has been timed (`python bench/card_timings.py --record reference/timings/cards.json`)."
    rows = []
    for r in runs:
        gpu = bool(r.get("gpu"))
        cells = {"Model": r["model"], "Profile": r["profile"], "Precision": r.get("precision") or "–",
                 "Ran on": r["gpu"] if gpu else f"{r.get('cpu', '?')}, {r.get('cores', '?')} cores",
                 "Date": (r.get("date") or "")[:10] or "–"}
        for run in ("cold", "warm"):
            cells[f"{run.capitalize()} (min:s)"] = mmss(r["seconds"].get(run)) or "–"
        steps = r.get("cold_step_seconds") or {}
        cells["Longest cold step"] = (max(steps, key=steps.get) + f" {mmss(max(steps.values()))}") if steps else "–"
        rows.append(cells)
    return table_html(pd.DataFrame(rows))


#: the whole-book runs bench/book_timings.py --record writes
BOOK_TIMINGS = CARD_TIMINGS.with_name("book.json")


def book_timings_markdown(path: Path = BOOK_TIMINGS) -> str:
    """The Performance page's whole-book table: each recorded ``make book`` run on an empty cache (its CPU
    kind and cores, its date) with its cold and warm wall times, the chapters' CPU time and the largest peak
    memory. The commit a run was made at stays in ``reference/timings/book.json``, off the page."""
    import pandas as pd

    runs = load_timings(path)
    if not runs:
        return "No book run has been timed (`python bench/book_timings.py --record reference/timings/book.json`)."
    rows = [{"CPU": f"{r['cpu']}, {r['cores']} cores", "Date": r["date"],
             "Cold": mmss(r["seconds"].get("cold")), "Warm": mmss(r["seconds"].get("warm")),
             "CPU (chapters)": mmss(r.get("chapter_cpu_seconds")), "Peak (GiB)": r.get("peak_gib")} for r in runs]
    return table_html(pd.DataFrame(rows))


def _about_minutes(seconds: float) -> str:
    minutes = round(seconds / 60)
    return "about a minute" if minutes <= 1 else f"about {minutes} minutes"


def book_build_time(path: Path = BOOK_TIMINGS) -> dict[str, str]:
    """How long ``make book`` takes, in words, from the newest recorded run (``reference/timings/book.json``):
    the one source of the number on the front page and in the README.

    Returns:
        ``{"cold": "about 49 minutes", "warm": "about 2 minutes", "on": "2 cores, AMD EPYC", "date": "2026-11-26"}``
        (``warm``: "" when the run recorded none).

    Raises:
        ValueError: no run recorded at ``path``, or its newest run has no cold time.
    """
    runs = load_timings(path)
    if not runs:
        raise ValueError(f"{path}: no recorded book run (python bench/book_timings.py --record {path})")
    newest = max(enumerate(runs), key=lambda ir: (str(ir[1].get("date") or ""), ir[0]))[1]
    seconds = newest.get("seconds") or {}
    if seconds.get("cold") is None:
        raise ValueError(f"{path}: the newest run ({newest.get('date')}) has no cold time (seconds.cold)")
    warm = seconds.get("warm")
    return {"cold": _about_minutes(float(seconds["cold"])), "warm": _about_minutes(warm) if isinstance(warm, (int, float)) else "",
            "on": f"{newest['cores']} cores, {newest['cpu']}", "date": str(newest["date"])}


def build_time_markdown(path: Path = BOOK_TIMINGS) -> str:
    """The front page's sentence on how long the book takes (:func:`book_build_time`)."""
    t = book_build_time(path)
    warm = f", {t['warm']} when the cache is warm" if t["warm"] else ""
    return (f"`make book` takes {t['cold']} with an empty cache ({t['on']}, measured {t['date']}){warm}; "
            "{doc}`performance` has every measured run.\n")


def performance_markdown(profile: str = "default", reference: Path | None = None) -> str:
    """The measured costs of each chapter: the committed reference run (``reference/``) and this build's
    own runs of ``profile`` (each chapter's newest result), as HTML tables that fit the page.

    Returns:
        Markdown for the "Performance" page (the part generated from measurements).
    """
    import pandas as pd

    from xalign.book.check import REFERENCE_DIR
    from xalign.book.ledger import pick_result

    ref_dir = Path(reference) if reference else REFERENCE_DIR
    ref = {}
    for path in sorted(ref_dir.glob("*.json")):
        res = json.loads(path.read_text(encoding="utf-8"))
        ref.setdefault(res["chapter"], []).append(res)
    out = ["### The reference run", "",
           ("Each chapter's committed reference result (`reference/`), one row per precision it was run in "
           "(one chapter at a time or two side by side, one thread each; CPU time and peak memory are the "
           "chapter kernel's own, recorded since they were added):"), "",
           table_html(pd.DataFrame(timing_rows(ref))) if ref else "No reference results.", ""]
    built = {}
    for paper in meta.PAPERS:
        result, _ = pick_result(paper, profile)
        if result is not None:
            built[result["chapter"]] = [result]
    out += [f"### This build (profile {code(profile)})", ""]
    out += [table_html(pd.DataFrame(timing_rows(built))) if built else
            f"No chapter of this build ran with the {code(profile)} profile.", ""]
    return "\n".join(out)
