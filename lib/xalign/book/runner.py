"""Execute chapters with papermill and build the Jupyter Book.

The ``.py`` files in ``notebooks/`` (Jupytext py:percent) are the source of
truth. A run converts one to a notebook in memory, executes it with
papermill (parameters injected after its ``parameters`` cell) and writes the
executed notebook to ``<build root>/book/chapters/<chapter>.ipynb``, which the
book renders (``execute_notebooks: off``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from xalign.book.status import CHAPTERS, status_markdown
from xalign.core.atomic import write_text
from xalign.core.paths import PACKAGE_ROOT, PROJECT_ROOT
from xalign.data.datasets import datasets_markdown

#: a source checkout (the project's pyproject.toml next to notebooks/), not an installed wheel
IN_CHECKOUT = (PROJECT_ROOT / "pyproject.toml").exists() and (PROJECT_ROOT / "notebooks").is_dir()
#: chapter sources: the checkout's notebooks/, or the copy the wheel ships as package data
NOTEBOOKS = PROJECT_ROOT / "notebooks" if IN_CHECKOUT else PACKAGE_ROOT / "notebooks"
BOOK_FILES = ("_config.yml", "_toc.yml", "references.bib")
BOOK_DIRS = ("book/images", "book/_static")


def work_root() -> Path:
    """Where executed chapters go by default: the checkout, or the current directory outside one."""
    return PROJECT_ROOT if IN_CHECKOUT else Path.cwd()


def chapter_ids() -> list[str]:
    """Chapters in book order (the notebook stems)."""
    return [c for c in CHAPTERS if (NOTEBOOKS / f"{c}.py").exists()]


def find_chapter(name: str) -> str:
    """Resolve a chapter by id, number prefix ("01") or unique substring."""
    ids = chapter_ids()
    hits = [c for c in ids if c == name or c.startswith(name) or name in c]
    if len(hits) != 1:
        raise ValueError(f"chapter {name!r} matches {hits or 'nothing'}; chapters: {', '.join(ids)}")
    return hits[0]


def run_chapter(chapter: str, parameters: dict | None = None, output: str | Path | None = None,
                build_root: str | Path | None = None, progress: bool = True) -> Path:
    """Execute one chapter with papermill; returns the executed notebook's path."""
    import jupytext
    import papermill as pm

    chapter = find_chapter(chapter)
    root = Path(build_root) if build_root else work_root()
    output = Path(output) if output else root / "book" / "chapters" / f"{chapter}.ipynb"
    output.parent.mkdir(parents=True, exist_ok=True)
    nb = jupytext.read(NOTEBOOKS / f"{chapter}.py")
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata.pop("jupytext", None)
    os.environ.setdefault("XALIGN_PROGRESS", "0")  # executed pages carry no progress-bar debris
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / f"{chapter}.ipynb"
        jupytext.write(nb, source, fmt="ipynb")
        partial = output.with_name(f".{output.stem}.part.ipynb")
        try:
            pm.execute_notebook(str(source), str(partial), parameters=parameters or {},
                                kernel_name="python3", cwd=str(NOTEBOOKS if IN_CHECKOUT else root),
                                progress_bar=progress, log_output=False)
            _publish(partial, chapter, (parameters or {}).get("profile"))
            os.replace(partial, output)
        finally:
            if partial.exists():  # keep the failed notebook for inspection
                os.replace(partial, output.with_name(f"{chapter}.failed.ipynb"))
    return output


def _publish(path: Path, chapter: str, profile: str | None) -> None:
    """Shape the executed notebook for the book (xalign.book.publish) and put its source next to it."""
    import json

    import nbformat

    from xalign.book.publish import publish_notebook
    from xalign.core.paths import results_dir

    source = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    saved = results_dir() / chapter / f"{profile}.json"
    run = json.loads(saved.read_text()) if profile and saved.exists() else None
    nb = nbformat.read(str(path), as_version=4)
    nbformat.write(publish_notebook(nb, chapter, source, run=run), str(path))
    (path.parent / f"{chapter}.py").write_text(source, encoding="utf-8")  # the page's "download the .py"


def placeholder_chapter(chapter: str, path: Path) -> None:
    """A page for a chapter that this build did not execute (with its "Run it" section)."""
    import nbformat

    from xalign.book.publish import publish_notebook

    title = CHAPTERS[chapter]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(
        f"# {title}\n\nThis chapter was not executed in this build. Run it with\n"
        f"`xalign run {chapter}` (or `make book`) to fill this page.")]
    path.parent.mkdir(parents=True, exist_ok=True)
    source = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    nbformat.write(publish_notebook(nb, chapter, source), str(path))
    (path.parent / f"{chapter}.py").write_text(source, encoding="utf-8")


def build_book(profile: str = "default", chapters: list[str] | None = None, build_root: str | Path | None = None,
               execute: bool = True, strict: bool = True, parameters: dict | None = None) -> Path:
    """Run the chapters (unless ``execute=False``), write the status page, build the HTML book.

    ``build_root`` other than the project root gets a copy of the book sources,
    so a test build never touches the project's own ``book/chapters``.
    Returns the HTML directory.
    """
    if not IN_CHECKOUT:
        raise RuntimeError("xalign book builds the book from a source checkout (its _config.yml, _toc.yml and "
                           "book/); outside one, run chapters with `xalign run`")
    root = Path(build_root) if build_root else PROJECT_ROOT
    if root != PROJECT_ROOT:
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
    for chapter in CHAPTERS:
        target = root / "book" / "chapters" / f"{chapter}.ipynb"
        if chapter in selected and execute:
            params = {"profile": profile, **(parameters or {})}
            print(f"[xalign] running {chapter} (profile {profile})", flush=True)
            run_chapter(chapter, params, target, root)
        elif not target.exists():
            placeholder_chapter(chapter, target)
    write_text(root / "book" / "_generated" / "status.md", status_markdown(profile))
    write_text(root / "book" / "_generated" / "datasets.md", datasets_markdown())
    cmd = [sys.executable, "-m", "jupyter_book", "build", str(root), "--builder", "html"]
    if strict:
        cmd += ["-W", "--keep-going"]
    print("[xalign] " + " ".join(cmd), flush=True)
    subprocess.run(_jupyter_book_cmd(cmd), check=True)
    return root / "_build" / "html"


def _jupyter_book_cmd(cmd: list[str]) -> list[str]:
    exe = shutil.which("jupyter-book", path=str(Path(sys.executable).parent)) or shutil.which("jupyter-book")
    return [exe] + cmd[3:] if exe else cmd
