"""Execute chapters with papermill and build the Jupyter Book.

The ``.py`` files in ``notebooks/`` (Jupytext py:percent) are the source of
truth. A run converts one to a notebook in memory, executes it with
papermill (parameters injected after its ``parameters`` cell) and writes the
executed notebook to ``<build root>/book/chapters/<chapter>.ipynb``, which the
book renders (``execute_notebooks: off``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from xalign.book.parallel import default_jobs, quickest_order, run_chapters_parallel
from xalign.book.params import check_parameters
from xalign.book.status import status_markdown
from xalign.core.atomic import write_text
from xalign.core.paths import PACKAGE_ROOT, PROJECT_ROOT
from xalign.core.progress import LOG_VARIABLE, ProgressEcho
from xalign.data.datasets import datasets_markdown
from xalign.papers import meta

#: a source checkout (the project's pyproject.toml next to notebooks/), not an installed wheel
IN_CHECKOUT = (PROJECT_ROOT / "pyproject.toml").exists() and (PROJECT_ROOT / "notebooks").is_dir()
#: chapter sources: the checkout's notebooks/, or the copy the wheel ships as package data
NOTEBOOKS = PROJECT_ROOT / "notebooks" if IN_CHECKOUT else PACKAGE_ROOT / "notebooks"
BOOK_FILES = ("_config.yml", "_toc.yml", "references.bib")
BOOK_DIRS = ("book/images", "book/_static", "book/errata")


def work_root() -> Path:
    """Where executed chapters go by default: the checkout, or the current directory outside one."""
    return PROJECT_ROOT if IN_CHECKOUT else Path.cwd()


def chapter_ids() -> list[str]:
    """Chapters in book order (the notebook stems)."""
    return [c for c in meta.chapters() if (NOTEBOOKS / f"{c}.py").exists()]


def find_chapter(name: str) -> str:
    """Resolve a chapter by id, number prefix ("01") or unique substring."""
    ids = chapter_ids()
    hits = [c for c in ids if c == name or c.startswith(name) or name in c]
    if len(hits) != 1:
        raise ValueError(f"chapter {name!r} matches {hits or 'nothing'}; chapters: {', '.join(ids)}")
    return hits[0]


def run_chapter(chapter: str, parameters: dict | None = None, output: str | Path | None = None,
                build_root: str | Path | None = None, progress: bool = True) -> Path:
    """Execute one chapter with papermill; returns the executed notebook's path.

    Without ``output``, the notebook goes to ``book/chapters/<chapter>.ipynb`` (the book's page), or,
    for a run whose parameters differ from its profile's (``-p name value``, another model), beside
    it as ``<chapter>.<name>-<value>.ipynb`` (:func:`rerun_suffix`): a rerun never replaces the page.
    """
    import jupytext

    from xalign.book.kernel import execute_notebook
    from xalign.core.paths import use_default_mirror

    chapter = find_chapter(chapter)
    check_parameters(chapter, parameters or {})  # before any work: names and types against the profile
    use_default_mirror()  # the kernel inherits the variable: ../shared/data beside the checkout when unset
    root = Path(build_root) if build_root else work_root()
    output = Path(output) if output else root / "book" / "chapters" / f"{chapter}{rerun_suffix(chapter, parameters)}.ipynb"
    check_outputs(output, chapter, (parameters or {}).get("profile") or "default")  # before any work too
    nb = jupytext.read(NOTEBOOKS / f"{chapter}.py")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.pop("jupytext", None)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"{chapter}.ipynb"
        jupytext.write(nb, source, fmt="ipynb")
        partial = output.with_name(f".{output.stem}.part.ipynb")
        log = Path(tmp) / "progress.log"
        # the kernel's bars go to a log that is echoed here: the terminal shows progress, the page none
        os.environ[LOG_VARIABLE] = str(log)
        try:
            with ProgressEcho(log, prefix=f"[{chapter[:2]}] ", every=5.0 if progress else 3600.0):
                execute_notebook(source, partial, parameters, NOTEBOOKS if IN_CHECKOUT else root, progress)
            _publish(partial, chapter, (parameters or {}).get("profile"))
            os.replace(partial, output)
        finally:
            os.environ.pop(LOG_VARIABLE, None)
            if partial.exists():  # keep the failed notebook for inspection
                os.replace(partial, output.with_name(f"{chapter}.failed.ipynb"))
    return output


def saved_results(chapter: str, profile: str, since: float, root: Path | None = None) -> list[dict]:
    """The results of ``chapter`` and ``profile`` saved at or after ``since`` (seconds since the epoch, as
    :func:`time.time` gives), newest first, each with its ``_path``: what one run wrote."""
    from xalign.book.results import load_results

    return [r for r in load_results(chapter, profile, root) if Path(r["_path"]).stat().st_mtime >= since - 1]


def run_summary(notebook: Path, results: list[dict]) -> str:
    """What ``xalign run`` prints when a chapter has run: where its notebook and results went, and the
    chapter's headline (the sentence the front page shows), one ``label: value`` line each."""
    lines = [f"notebook: {notebook}"]
    lines += [f"results:  {r['_path']}" for r in results] or ["results:  none saved (the chapter saves none)"]
    headline = next((r["headline"] for r in results if r.get("headline")), "")
    if headline:
        lines.append(f"headline: {headline}")
    return "\n".join(lines)


class OutputPathError(ValueError):
    """Where a chapter run would write (its notebook, its results) cannot be written."""


def check_outputs(output: Path, chapter: str, profile: str) -> None:
    """Fail before a chapter runs when its outputs cannot be written, not after it ran.

    Args:
        output: the executed notebook's path (``-o``); must not be a directory, its folder writable.
        chapter: the chapter id (its results go to ``<results>/<chapter>/<profile>/``).
        profile: the run's profile.

    Raises:
        OutputPathError: naming the path and why (a directory, not writable, cannot be created).
    """
    from xalign.core.paths import results_dir

    if output.is_dir():
        raise OutputPathError(f"output {output} is a directory; give the executed notebook's file path "
                              f"(e.g. -o {output / f'{chapter}.ipynb'}); nothing was run")
    _check_writable(output.parent, "the executed notebook's folder")
    try:
        results = results_dir() / chapter / profile
    except OSError as exc:
        raise OutputPathError(f"the results folder (XALIGN_RESULTS={os.environ.get('XALIGN_RESULTS', '')!r}) "
                              f"cannot be made: {exc}; nothing was run") from exc
    _check_writable(results, "the results folder")


def _check_writable(folder: Path, what: str) -> None:
    """Make ``folder`` and write (then remove) a file in it; OutputPathError naming it if that fails."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise OutputPathError(f"{what} {folder} is not writable ({exc.strerror or exc}); nothing was run") from exc


def rerun_suffix(chapter: str, parameters: dict | None) -> str:
    """``".name-value..."`` for the parameters that differ from the profile's (models included), else ``""``."""
    from xalign.book.results import overrides_suffix, profile_overrides

    parameters = parameters or {}
    paper, profile = meta.chapter_paper(chapter), parameters.get("profile", "default")
    changed = profile_overrides(paper, profile, parameters)
    declared = meta.profiles(paper).get(profile, {})
    changed.update({k: v for k, v in parameters.items()
                    if k in meta.model_parameters(paper) and k in declared and v != declared[k]})
    return overrides_suffix(dict(sorted(changed.items())))


def model_parameters(chapter: str, model: str, profile: str = "default") -> dict:
    """The papermill parameters that put ``model`` in a chapter, as its paper declares them
    (:func:`xalign.papers.meta.model_overrides`)."""
    return meta.model_overrides(meta.chapter_paper(chapter), model, profile)


def _publish(path: Path, chapter: str, profile: str | None) -> None:
    """Shape the executed notebook for the book (xalign.book.publish) and put its source next to it."""
    import nbformat

    from xalign.book.publish import publish_notebook
    from xalign.book.results import load_results

    source = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    saved = load_results(chapter, profile) if profile else []
    run = saved[0] if saved else None  # the newest result of this chapter and profile
    nb = nbformat.read(str(path), as_version=4)
    nbformat.write(publish_notebook(nb, chapter, source, run=run), str(path))
    (path.parent / f"{chapter}.py").write_text(source, encoding="utf-8")  # the page's "download the .py"


def placeholder_chapter(chapter: str, path: Path) -> None:
    """A page for a chapter that this build did not execute (with its "Run it" section)."""
    import nbformat

    from xalign.book.publish import publish_notebook

    title = meta.chapters()[chapter]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"# {title}\n\nThis chapter was not executed in this build. Run it with\n"
        f"`xalign run {chapter}` (or `make book`) to fill this page.")]
    path.parent.mkdir(parents=True, exist_ok=True)
    source = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    nbformat.write(publish_notebook(nb, chapter, source), str(path))
    (path.parent / f"{chapter}.py").write_text(source, encoding="utf-8")


def build_book(profile: str = "default", chapters: list[str] | None = None, build_root: str | Path | None = None,
               execute: bool = True, strict: bool = True, parameters: dict | None = None,
               model: str | None = None, jobs: int | None = None) -> Path:
    """Run the chapters (unless ``execute=False``), write the status page, build the HTML book.

    ``build_root`` other than the project root gets a copy of the book sources,
    so a test build never touches the project's own ``book/chapters``. ``model``
    puts one encoder in every chapter (:func:`model_parameters`). ``jobs``:
    chapters run at once (default: one per core, at most two; 1 runs them one
    after another in this process), in the order whose two queues end soonest
    (:func:`~xalign.book.parallel.quickest_order`).
    Returns the HTML directory.
    """
    if not IN_CHECKOUT:
        raise RuntimeError("xalign book builds the book from a source checkout (its _config.yml, _toc.yml and "
                           "book/); outside one, run chapters with `xalign run`")
    root = Path(build_root) if build_root else PROJECT_ROOT
    if root.resolve() != PROJECT_ROOT.resolve():
        claim_build_dir(root)  # before any chapter runs: a folder of the user's is never written into
        for name in BOOK_FILES:
            if (PROJECT_ROOT / name).exists():
                shutil.copy(PROJECT_ROOT / name, root / name)
        (root / "book").mkdir(parents=True, exist_ok=True)
        for f in (PROJECT_ROOT / "book").glob("*.md"):
            shutil.copy(f, root / "book" / f.name)
        for sub in BOOK_DIRS:
            if (PROJECT_ROOT / sub).exists():
                shutil.copytree(PROJECT_ROOT / sub, root / sub, dirs_exist_ok=True)
    selected = [find_chapter(c) for c in chapters] if chapters else chapter_ids()
    tasks = []
    for chapter in meta.chapters():
        target = root / "book" / "chapters" / f"{chapter}.ipynb"
        if chapter in selected and execute:
            params = {"profile": profile, **(model_parameters(chapter, model, profile) if model else {}),
                      **(parameters or {})}
            check_parameters(chapter, params)  # every chapter's parameters before any chapter runs
            tasks.append((chapter, params, target))
        elif not target.exists():
            placeholder_chapter(chapter, target)
    jobs = default_jobs(len(tasks)) if jobs is None else jobs
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if jobs == 1 or len(tasks) <= 1:
        for chapter, params, target in tasks:
            print(f"[xalign] running {chapter} (profile {params['profile']})", flush=True)
            run_chapter(chapter, params, target, root)
    else:
        order = quickest_order([t[0] for t in tasks], lambda ch: _last_wall_time(ch, profile), jobs,
                               reference=reference_cpu_time)
        run_chapters_parallel(run_chapter, sorted(tasks, key=lambda t: order.index(t[0])), root, jobs)
    write_pages(root, profile)
    cmd = [sys.executable, "-m", "jupyter_book", "build", str(root), "--builder", "html"]
    if strict:
        cmd += ["-W", "--keep-going"]
    print("[xalign] " + " ".join(cmd), flush=True)
    subprocess.run(_jupyter_book_cmd(cmd), check=True)
    return root / "_build" / "html"


#: a file the book build writes into a ``--build-dir`` it claimed: only a new or empty folder, or one
#: holding this file, is built into (the build replaces ``_config.yml``, ``book/*.md``, ... there)
BUILD_MARKER = ".xalign-book-build"


#: what a build writes at the top of its folder (the book sources it copies, the chapters, the HTML)
BUILD_OWNS = (*BOOK_FILES, "book", "_build")


def claim_build_dir(root: Path) -> None:
    """Make ``root`` the book's build folder, or refuse it before anything is written.

    Args:
        root: the ``--build-dir``: a new folder (created, parents included), one an earlier build claimed
            (it holds :data:`BUILD_MARKER`), or any folder holding none of the names a build writes
            (:data:`BUILD_OWNS`): other files there (a log, notes) are left as they are.

    Raises:
        OutputPathError: ``root`` is a file, or an unclaimed folder that holds a name the build writes (it
            would replace a user's ``_config.yml``, ``references.bib``, ``book/intro.md``, ...); the message
            names the folder and those names.
    """
    if root.exists() and not root.is_dir():
        raise OutputPathError(f"--build-dir {root}: a file, not a folder")
    if root.is_dir() and not (root / BUILD_MARKER).is_file():
        theirs = sorted(n for n in BUILD_OWNS if (root / n).exists())
        if theirs:
            raise OutputPathError(
                f"--build-dir {root} holds files the book build did not write and would replace "
                f"({', '.join(theirs)}; no {BUILD_MARKER} file). Give a new or empty folder")
    try:
        root.mkdir(parents=True, exist_ok=True)
        (root / BUILD_MARKER).write_text("a book build folder of xalign: its files are replaced by each build\n")
    except OSError as exc:
        raise OutputPathError(f"--build-dir {root}: cannot be written ({type(exc).__name__}: {exc})") from exc


def write_pages(root: Path, profile: str) -> None:
    """Write the book's generated pages under ``root/book/_generated``: the front page's chapter blocks,
    the thumbnails of the chapters' key figures and its "Cite this book" block (from CITATION.cff), the ledger (each item linked to its section), the
    data sets, the models side by side with every card, the errata and the performance tables."""
    from xalign.book.card_page import book_cards, cards_markdown, compare_page_markdown, full_cards_markdown
    from xalign.book.citation import cite_markdown
    from xalign.book.landing import book_labels, chapter_results, landing_markdown, write_thumbnails
    from xalign.book.model_compare import paired_page_markdown
    from xalign.book.model_runs import COMMITTED as COMMITTED_RUNS
    from xalign.book.model_runs import find_runs, model_runs_markdown
    from xalign.book.pages import (
        book_timings_markdown,
        build_time_markdown,
        card_timings_markdown,
        errata_markdown,
        performance_markdown,
    )
    from xalign.book.publish import PUBLIC
    from xalign.book.relative_depth import relative_depth_markdown
    from xalign.book.word_sample import CHAPTER as WORD_CHAPTER
    from xalign.book.word_sample import word_sample_note
    from xalign.card.precision import precision_markdown
    from xalign.core.paths import results_dir

    gen = root / "book" / "_generated"
    chapters_dir = root / "book" / "chapters"
    results = chapter_results(profile)  # read once: the thumbnails, the word-sample note and the errata use it
    thumbs = write_thumbnails(chapters_dir, gen / "thumbs", results)
    write_text(gen / "landing.md", landing_markdown(profile, thumbnails=thumbs, public=PUBLIC))
    write_text(gen / "cite.md", cite_markdown(public=PUBLIC))
    write_text(gen / "status.md", status_markdown(profile, labels=book_labels(chapters_dir)))
    write_text(gen / "datasets.md", datasets_markdown())
    cards = book_cards()
    chapter1 = results.get(WORD_CHAPTER)
    write_text(gen / "compare.md", compare_page_markdown(cards) + "\n" + word_sample_note(cards, chapter1) + "\n"
               + precision_markdown(cards) + "\n"
               + relative_depth_markdown(cards, gen / "cards", "/book/_generated/cards") + "\n"
               + model_runs_markdown(find_runs(COMMITTED_RUNS, results_dir())) + "\n"
               + paired_page_markdown(cards) + "\n" + cards_markdown(cards, gen / "cards", "/book/_generated/cards"))
    write_text(gen / "full_cards.md", full_cards_markdown(gen / "full_cards", "/book/_generated/full_cards",
                                                          note=lambda c: word_sample_note(c, chapter1)))
    write_text(gen / "errata.md", errata_markdown(root / "book" / "errata", results))
    write_text(gen / "performance.md", performance_markdown(profile))
    write_text(gen / "card_timings.md", card_timings_markdown())
    write_text(gen / "book_timings.md", book_timings_markdown())
    write_text(gen / "build_time.md", build_time_markdown())


def _last_wall_time(chapter: str, profile: str) -> float | None:
    """Wall time (s) of the chapter's newest saved run with ``profile``, if any."""
    from xalign.book.results import load_results

    try:
        runs = load_results(chapter, profile)
    except (OSError, ValueError):
        return None
    return next((r["wall_time_s"] for r in runs if r.get("wall_time_s")), None)


def reference_cpu_time(chapter: str, reference: Path | None = None) -> float | None:
    """CPU time (s) the chapter takes cold on one core, where this machine has no run of its own: from the
    newest cold `make book` recorded in ``reference/timings/book.json`` (its ``chapter_seconds``), else from the
    chapter's committed reference run (``reference/<chapter>.json``). A reference run may have been made on a
    warm cache (chapter 5's: 21 s, where it takes 31 minutes cold), and a chapter scheduled on that time ran
    last and alone."""
    from xalign.book.check import REFERENCE_DIR

    root = Path(reference or REFERENCE_DIR)
    positive = lambda v: float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None
    try:
        books = json.loads((root / "timings" / "book.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        books = []
    for book in reversed(books if isinstance(books, list) else []):
        entry = ((book or {}).get("chapter_seconds") or {}).get(chapter) if isinstance(book, dict) else None
        if isinstance(entry, dict) and positive(entry.get("cpu")):
            return positive(entry["cpu"])
    try:
        return positive(json.loads((root / f"{chapter}.json").read_text(encoding="utf-8")).get("cpu_time_s"))
    except (OSError, ValueError, AttributeError):
        return None


def _jupyter_book_cmd(cmd: list[str]) -> list[str]:
    exe = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    return [exe] + cmd[3:] if exe else cmd
