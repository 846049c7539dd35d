"""What an executed chapter gets before the book renders it.

The notebooks stay prose, parameters, calls and display; the published page
is shaped here, when the runner writes the executed notebook, so that no
notebook carries publishing plumbing:

- an install cell at the top (removed from the HTML page, kept in the
  ``.ipynb`` that Colab and Binder open) that installs xalign where it is not
  importable;
- every code cell folded with ``hide-input`` (the reader sees results, not plumbing),
  except the parameters cell and cells tagged ``show-input`` (the one "how to call
  the library" cell of a chapter); cells tagged ``remove-input`` or ``remove-cell``
  keep their tags (generated prose shows without the code that made it);
- warnings that libraries print on stderr (``TqdmWarning`` from
  ``tqdm.autonotebook`` and the like) taken out of the outputs and reported
  on the build's own stderr instead;
- a closing "Run it" section generated from the paper's ``profiles.yaml`` and
  the comments of the notebook's parameters cell, so it cannot drift from
  either, with a download link to the chapter's source ``.py``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

from xalign.core.markup import code
from xalign.core.param_ranges import describe
from xalign.core.paths import PROJECT_ROOT
from xalign.core.profiles import PROFILE_NAMES
from xalign.papers import meta

#: where the repository's address comes from: ``repository.url`` of the book's ``_config.yml``
CONFIG = PROJECT_ROOT / "_config.yml"
#: the address an installed wheel (no ``_config.yml``) uses; it must equal ``_config.yml``'s
DEFAULT_REPOSITORY = "https://github.com/xalign/xalign"


def book_settings(config: Path = CONFIG) -> dict:
    """The repository URL and whether it is the project's live public home, from ``_config.yml``
    (``repository.url`` and ``xalign.public``); the defaults where the file is absent (an installed wheel).

    Returns:
        ``{"repository": url without a trailing slash, "public": bool}``.
    """
    data = yaml.safe_load(Path(config).read_text(encoding="utf-8")) if Path(config).exists() else {}
    url = ((data or {}).get("repository") or {}).get("url") or DEFAULT_REPOSITORY
    public = ((data or {}).get("xalign") or {}).get("public", False)
    if not isinstance(public, bool):
        raise TypeError(f"{config}: xalign.public must be true or false, not {public!r}")
    return {"repository": url.rstrip("/"), "public": public}


_SETTINGS = book_settings()
#: the project's repository (every repository, issue and launch link and the install line derive from it)
REPOSITORY = _SETTINGS["repository"]
#: whether REPOSITORY is live: until it is, "Run it" gives the from-a-checkout route only
PUBLIC = _SETTINGS["public"]
#: what the install cell installs outside a checkout
INSTALL_SPEC = f"xalign @ git+{REPOSITORY}@main"

INSTALL_SOURCE = f'''# Outside a checkout (Colab, Binder): install xalign first; nothing happens where it is installed.
import importlib.util
import subprocess
import sys

if importlib.util.find_spec("xalign") is None:
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "{INSTALL_SPEC}"], check=True)'''

HIDDEN = "hide-input"
#: one warning as the warnings module prints it: "file:line: SomeWarning: message" and the source line under it
_WARNING = re.compile(r"^[^\n]*:\d+: [A-Za-z_]*Warning: [^\n]*\n?(?:[ \t]+[^\n]*\n?)?", re.MULTILINE)
_PARAM = re.compile(r"^(?P<name>[A-Za-z_]\w*)\s*=\s*(?P<value>[^#]*?)\s*(?:#\s*(?P<doc>.*))?$")


def _tag(cell, tag: str) -> None:
    tags = cell.setdefault("metadata", {}).setdefault("tags", [])
    if tag not in tags:
        tags.append(tag)


#: tags that already decide how a code cell's input shows
_SHOWN, _DECIDED = {"show-input"}, {"remove-input", "remove-cell", "hide-cell", "hide-input"}


def collapse_code(nb) -> int:
    """Fold every code cell's input with ``hide-input`` (the parameters cell too: the page's "Run it" section
    lists every parameter), except cells tagged ``show-input`` and cells whose tags already decide
    (``remove-input``, ``remove-cell``, ...).

    Returns:
        How many cells were folded.
    """
    n = 0
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell.cell_type != "code" or tags & (_SHOWN | _DECIDED):
            continue
        _tag(cell, HIDDEN)
        n += 1
    return n


def strip_warnings(nb, chapter: str = "", log=sys.stderr) -> int:
    """Remove printed warnings from the stderr outputs (reported on ``log``); returns how many."""
    n = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stderr":
                text = "".join(out["text"]) if isinstance(out["text"], list) else out["text"]
                found = _WARNING.findall(text)
                if found:
                    n += len(found)
                    for w in found:
                        print(f"[xalign] {chapter}: warning kept out of the page: {w.strip()}", file=log)
                    text = _WARNING.sub("", text)
                    if not text.strip():
                        continue
                    out["text"] = text
            kept.append(out)
        cell["outputs"] = kept
    return n


def add_install_cell(nb) -> None:
    """Insert the install cell after the title cell (once)."""
    import nbformat

    if any("remove-cell" in c.get("metadata", {}).get("tags", []) and INSTALL_SPEC in c.source for c in nb.cells):
        return
    cell = nbformat.v4.new_code_cell(INSTALL_SOURCE, metadata={"tags": ["remove-cell"]})
    at = 1 if nb.cells and nb.cells[0].cell_type == "markdown" else 0
    nb.cells.insert(at, cell)


def parameter_docs(source: str) -> dict[str, str]:
    """``name -> comment`` from a chapter source's papermill parameters cell (py:percent)."""
    docs, inside = {}, False
    for line in source.splitlines():
        if line.startswith("# %%"):
            inside = 'tags=["parameters"]' in line
            continue
        m = _PARAM.match(line) if inside else None
        if m:
            docs[m["name"]] = (m["doc"] or "").strip()
    return docs


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return f"`{text}`" if text else "(empty)"


def _this_run(run: dict | None) -> str:
    if not run or run.get("wall_time_s") is None:
        return ""
    minutes = run["wall_time_s"] / 60
    return (f"This page was built from a run of the {code(run.get('profile', '?'))} profile that took "
            f"{minutes:.1f} min (with the caches it found: a rerun reuses the cached "
            f"representations).\n\n")


#: where the Jupyter route's executed notebooks go: a folder of the checkout that git ignores
EXECUTED_DIR = "executed"


def papermill_command(chapter: str, profile: str = "smoke") -> str:
    """The Jupyter route for one chapter, from a checkout's root: pair the ``.py`` source with an
    ``.ipynb`` (jupytext), then execute it with papermill into ``executed/<chapter>.ipynb`` (git-ignored:
    the run leaves nothing to commit; papermill does not create the folder, so the command does)."""
    return (f"jupytext --to ipynb notebooks/{chapter}.py && mkdir -p {EXECUTED_DIR} && "
            f"papermill notebooks/{chapter}.ipynb {EXECUTED_DIR}/{chapter}.ipynb -p profile {profile}")


def _python_none(doc: str) -> str:
    """A parameter's comment with Python's ``None`` (the value to pass) as code, not as a word of prose."""
    return re.sub(r"(?<!`)\bNone\b(?!`)", "`None`", doc)


def run_it_markdown(chapter: str, source: str = "", run: dict | None = None, public: bool | None = None) -> str:
    """The chapter's "Run it" section: the commands, and every parameter of every profile.

    Args:
        chapter: the chapter id (notebook stem).
        source: the chapter's ``.py`` source, whose parameters cell comments say what each parameter sets.
        run: the saved results of the run this page shows (its ``profile`` and ``wall_time_s``), if any.
        public: whether the repository is live (default: ``_config.yml``'s ``xalign.public``); until it
            is, the section gives the from-a-checkout route only (no install line that would fail).

    Returns:
        The section as Markdown (MyST).
    """
    public = PUBLIC if public is None else public
    paper = meta.chapter_paper(chapter)
    profiles = meta.profiles(paper)
    docs = parameter_docs(source)
    number = chapter.split("_", 1)[0]
    names = list(profiles[PROFILE_NAMES[0]])
    ranges = meta.ranges(paper)
    n_params = len(names)
    head = "| parameter | what it sets | " + " | ".join(PROFILE_NAMES) + " | valid values |\n"
    head += "|---|---|" + "---|" * len(PROFILE_NAMES) + "---|\n"
    rows = "".join(
        f"| `{n}` | {_python_none(docs.get(n, '')).replace('|', '/')} | "
        + " | ".join(_cell(profiles[p][n]).replace("|", "/") for p in PROFILE_NAMES)
        + f" | {describe(ranges[n]).replace('|', '/')} |\n" for n in names)
    if public:
        where = (f"Its source is [`notebooks/{chapter}.py`]({REPOSITORY}/blob/main/notebooks/{chapter}.py)\n"
                 f"({{download}}`download the .py <{chapter}.py>`); the launch buttons at the top open it in Colab "
                 f"or Binder, where its first cell installs `xalign`. From a checkout (`make env`, then\n"
                 f"`source .venv/bin/activate`) or after `pip install \"{INSTALL_SPEC}\"`:")
    else:
        where = (f"Its source is `notebooks/{chapter}.py` in the project's checkout "
                 f"({{download}}`download the .py <{chapter}.py>`). From the checkout's root, after `make env` "
                 "and `source .venv/bin/activate`:")
    return f"""## Run it

This page is the executed notebook. {where}

```bash
xalign run {number} --profile smoke      # CI-sized, a minute or two on a laptop
xalign run {number} --profile default    # what this book shows
xalign run {number} --profile paper      # the paper's own models (a GPU helps)
xalign run {number} -p model xlm-roberta-base -p seed 1   # any parameter, any Hugging Face encoder
```

A run with `-p` writes its results beside the profile's (`results/<chapter>/<profile>/<model>.<name>-<value>.json`)
and its notebook beside this page's, so it never replaces what the book shows.
In Jupyter, or with papermill directly (`make notebooks` pairs every chapter):

```bash
{papermill_command(chapter)}
```

{_this_run(run)}A parameter given with `-p` wins over the profile's value; a value outside its valid values is an
error before any work starts. The profiles and ranges (`xalign/papers/{paper}/profiles.yaml`, read when
this page was built):

````{{dropdown}} All {n_params} parameters: what each sets, its value in each profile and the values it accepts
```{{table}} The chapter's parameters: what each sets, its value in each profile and the values it accepts
:name: run-it-parameters-{number}

{head}{rows}```
````
"""


def publish_notebook(nb, chapter: str, source: str = "", log=sys.stderr, run: dict | None = None):
    """Shape an executed chapter for the book (see the module docstring); returns ``nb``."""
    import nbformat

    collapse_code(nb)
    strip_warnings(nb, chapter, log)
    add_install_cell(nb)
    nb.cells = [c for c in nb.cells if "xalign-run-it" not in c.get("metadata", {}).get("tags", [])]
    nb.cells.append(nbformat.v4.new_markdown_cell(run_it_markdown(chapter, source, run),
                                                  metadata={"tags": ["xalign-run-it"]}))
    return nb
