"""Where xalign keeps things: the cache, the data mirror, results.

Environment variables (all optional):

- ``XALIGN_CACHE``: cache root (default: the user cache dir, e.g. ``~/.cache/xalign``);
  holds ``data/`` (fetched data sets), ``models/`` (the converted offline
  encoder) and ``embeddings/`` (cached representations).
- ``XALIGN_DATA_MIRROR``: a local directory laid out like the public mirror
  (``muse/``, ``wmt19_newstest2019/``, ...), tried before any download. Unset or
  empty: ``../shared/data`` beside the checkout when that folder exists (the
  Makefile's rule; the ``xalign`` command applies it, :func:`use_default_mirror`),
  else no mirror.
- ``XALIGN_RESULTS``: where chapters write machine-readable results
  (default: ``results/`` at the project root, or ``./results``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import platformdirs

PACKAGE_ROOT = Path(__file__).resolve().parents[1]
#: the source checkout (holds notebooks/ and book/); in an installed wheel it has no pyproject.toml
PROJECT_ROOT = PACKAGE_ROOT.parents[1]
#: the committed reference runs (``reference/<chapter>.json``) that ``xalign check`` compares with
REFERENCE_DIR = PROJECT_ROOT / "reference"


#: a file in the cache root saying "xalign uses this folder as its cache", listing the sub-folders it claimed
CACHE_MARKER = ".xalign-cache"
#: a file inside each sub-folder the cache created itself: only such a folder is ever removed whole
ENTRY_MARKER = ".xalign-cache-entry"


class CacheSettingError(ValueError):
    """``XALIGN_CACHE`` (or the default cache folder) cannot be the cache: set but empty, or not a folder."""


def check_cache_setting() -> Path:
    """The cache root :func:`cache_root` will use, checked (``cache_root`` calls it, so every caller is).

    Raises:
        CacheSettingError: ``XALIGN_CACHE`` is set but empty (or blanks only: it would silently mean the
            default cache, which ``xalign cache clear`` then empties), or the root is a file; the message
            names the variable.
    """
    value = os.environ.get("XALIGN_CACHE")
    if value is not None and not value.strip():
        raise CacheSettingError(f"XALIGN_CACHE is set but empty: set it to a folder, or unset it to use the "
                                f"default cache ({platformdirs.user_cache_dir('xalign')})")
    root = Path(value or platformdirs.user_cache_dir("xalign"))
    if root.exists() and not root.is_dir():
        what = f"XALIGN_CACHE={value}" if value else "the default cache folder"
        raise CacheSettingError(f"{what}: {root} is a file, not a folder; point XALIGN_CACHE at a folder")
    return root


def cache_root(create: bool = True) -> Path:
    """Root of the xalign cache (created on demand, with its marker file, unless ``create=False``).

    Raises:
        CacheSettingError: ``XALIGN_CACHE`` set but empty, or a file (:func:`check_cache_setting`), for
            every caller: the ``xalign`` command, a chapter run in Jupyter, the library.
    """
    root = check_cache_setting()
    if not create:
        return root
    root.mkdir(parents=True, exist_ok=True)
    marker = root / CACHE_MARKER
    if not marker.exists():
        marker.write_text("")
    return root


def within(root: str | Path, path: str | Path) -> bool:
    """Whether ``path`` lies in ``root`` without passing through a link: every folder between ``root``
    and ``path`` is a real folder inside ``root`` (``path`` itself may be a link: removing it removes the
    link only). ``root`` itself may be a link (the user's choice of cache)."""
    root, path = Path(root), Path(path)
    try:
        rel = path.parent.relative_to(root)
    except ValueError:
        return False
    if ".." in rel.parts:
        return False
    return path.parent.resolve() == root.resolve().joinpath(rel)


def remove_within(root: str | Path, path: str | Path) -> bool:
    """Remove ``path`` (a file, a link, or a real folder with all it holds) if it lies :func:`within`
    ``root``; a link is removed itself, never what it points at. Returns False (nothing removed) for a
    path reached through a link out of ``root``."""
    path = Path(path)
    if not within(root, path):
        return False
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)
    return True


def cache_kinds(root: Path) -> list[str]:
    """The sub-folder names listed in a cache root's marker file (as written: check them with
    :func:`owned_cache_dir` before acting on one)."""
    marker = root / CACHE_MARKER
    return [k for k in marker.read_text().split("\n") if k] if marker.exists() else []


def check_kind(kind: str) -> str:
    """``kind`` if it names one direct sub-folder of the cache root ("data", "embeddings"); else ValueError."""
    if not kind or kind in (".", "..") or "/" in kind or "\\" in kind or kind != kind.strip() or kind.startswith("."):
        raise ValueError(f"cache sub-folder {kind!r}: must be one plain folder name (no '/', '..', leading '.')")
    return kind


def owned_cache_dir(root: Path, kind: str) -> Path | None:
    """``root/kind`` when the cache itself created it (a plain folder holding its own
    :data:`ENTRY_MARKER`, inside ``root`` once resolved); None for any other name or folder
    (an absolute path, ``..``, a link, a folder that existed before the cache claimed it)."""
    try:
        check_kind(kind)
    except ValueError:
        return None
    path = root / kind
    if path.is_symlink() or not path.is_dir() or not (path / ENTRY_MARKER).is_file():
        return None
    if path.resolve().parent != root.resolve():
        return None
    return path


def cache_dir(kind: str) -> Path:
    """A sub-directory of the cache: ``data``, ``models``, ``embeddings``, ``alignments``, ...

    A folder the cache creates gets its own :data:`ENTRY_MARKER` (so ``xalign cache clear`` may
    remove it); a folder of that name that was already there is used but never marked, so it is
    never removed.
    """
    root = cache_root()
    path = root / check_kind(kind)
    if kind not in cache_kinds(root):
        with open(root / CACHE_MARKER, "a") as fh:
            fh.write(kind + "\n")
    try:
        path.mkdir(parents=False)
    except FileExistsError:
        return path
    (path / ENTRY_MARKER).write_text(f"created by xalign as {root / kind}\n")
    return path


#: the variable that names the data mirror
MIRROR_VARIABLE = "XALIGN_DATA_MIRROR"
#: where a checkout finds the data mirror when the variable is unset: this folder beside the checkout (the
#: Makefile's ``$(wildcard ../shared/data)``, from the checkout's root)
SIBLING_MIRROR = ("..", "shared", "data")


def sibling_mirror(existing: bool = True) -> Path | None:
    """``../shared/data`` beside the source checkout, absolute; None outside a checkout (an installed
    wheel) and, with ``existing``, where that folder does not exist."""
    if not (PROJECT_ROOT / "pyproject.toml").exists():
        return None
    path = PROJECT_ROOT.joinpath(*SIBLING_MIRROR).resolve()
    return path if path.is_dir() or not existing else None


def data_mirror() -> Path | None:
    """The local data mirror named by ``XALIGN_DATA_MIRROR``, if any.

    The ``xalign`` command and :func:`xalign.book.runner.run_chapter` first apply the default rule
    (:func:`use_default_mirror`): unset or empty, the variable names ``../shared/data`` beside the checkout
    when that folder exists, as the Makefile does. (This function's code is part of the memo keys of the
    steps that fetch data: the rule lives beside it, not in it.)
    """
    value = os.environ.get("XALIGN_DATA_MIRROR")
    return Path(value).expanduser() if value else None


def use_default_mirror() -> Path | None:
    """Apply the data mirror's default rule, the Makefile's: when ``XALIGN_DATA_MIRROR`` is unset or empty
    and ``../shared/data`` exists beside the checkout (:func:`sibling_mirror`), set the variable to it, for
    this process and the kernels it starts. Returns the mirror now in use (:func:`data_mirror`), or None."""
    if not os.environ.get(MIRROR_VARIABLE):
        found = sibling_mirror()
        if found is not None:
            os.environ[MIRROR_VARIABLE] = str(found)
    return data_mirror()


def mirror_words() -> str:
    """Which data mirror is used and why, in one phrase (the same words wherever a mirror is reported)."""
    value = os.environ.get(MIRROR_VARIABLE)
    candidate = sibling_mirror(existing=False)
    if value:
        path = Path(value).expanduser()
        if candidate is not None and path.resolve() == candidate:
            return f"data mirror {path} (beside the checkout)"
        return f"data mirror {path} ({MIRROR_VARIABLE})"
    if candidate is not None and candidate.is_dir():
        return f"data mirror {candidate} (beside the checkout; {MIRROR_VARIABLE} is not set)"
    where = f"and there is no {candidate}" if candidate else "outside a checkout"
    return (f"no data mirror ({MIRROR_VARIABLE} is not set {where}): set {MIRROR_VARIABLE} to a folder "
            "laid out like the mirror (data/README.md lists its folders)")


def results_dir() -> Path:
    """Directory for machine-readable chapter results."""
    value = os.environ.get("XALIGN_RESULTS")
    if value:
        path = Path(value)
    elif (PROJECT_ROOT / "pyproject.toml").exists():
        path = PROJECT_ROOT / "results"
    else:
        path = Path.cwd() / "results"
    path.mkdir(parents=True, exist_ok=True)
    return path


def paper_tables_dir(paper: str) -> Path:
    """One paper's own table values, transcribed as CSV (package data: ``xalign/papers/<paper>/tables``)."""
    return PACKAGE_ROOT / "papers" / paper / "tables"
