"""Data sets: declared once, fetched into the cache, mirror first.

Declarations live in ``xalign/data/datasets.yaml`` (official URL, license, citation)
and ``xalign/data/registry.txt`` (sha256 of every file, by its path in the mirror).
:func:`fetch` returns a local path for one file of a data set:

1. the cache (``$XALIGN_CACHE/data/<mirror path>``) if the file is there;
2. the local mirror (``XALIGN_DATA_MIRROR``, or ``mirror=``), checked against
   the registry's sha256 and copied into the cache atomically;
3. the official source (pooch for plain files and zip archives, sacrebleu
   for WMT test sets).

Every file handed out is recorded with its sha256 and origin, so results can
name the exact data they were computed from (:func:`provenance`). The sha256 is the
file's identity; the origin (``cache``, ``mirror``, ``download``) is provenance, which
depends on the cache's warmth: comparisons of results leave it out
(:func:`xalign.core.provenance.result_identity`).
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import shutil
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from xalign.core.atomic import atomic_path
from xalign.core.hashing import file_sha256
from xalign.core.paths import cache_dir, data_mirror

DECLARATIONS = Path(__file__).with_name("datasets.yaml")  # package data
REGISTRY = Path(__file__).with_name("registry.txt")
MIRROR_VARIABLE = "XALIGN_DATA_MIRROR"

_FETCHED: dict[str, dict] = {}
_RECORDERS: list[dict[str, dict]] = []  # open files_used() blocks


class DataNotFoundError(FileNotFoundError):
    """A data file is neither cached, nor in the mirror, nor downloadable."""


class CachedPathError(DataNotFoundError):
    """The cache's place for a data file holds a folder the cache never made (nothing there is replaced or
    removed; a link out of the cache is refused by :func:`_file_in`)."""


class ChecksumError(ValueError):
    """A data file does not have the sha256 the registry declares."""


@dataclass(frozen=True)
class Dataset:
    """One declared data set (see ``data/datasets.yaml`` for the fields)."""

    name: str
    title: str
    mirror: str
    license: str
    citation: str
    homepage: str = ""
    base_url: str | None = None
    verified: bool = False
    fetch: str = "files"
    archives: tuple[str, ...] = ()
    sacrebleu_set: str | None = None
    note: str = ""
    obtain: str = ""
    checksums: dict = field(default_factory=dict, compare=False, hash=False)

    def files(self, pattern: str = "*") -> list[str]:
        """Declared files (paths relative to the data set) matching a glob pattern."""
        return sorted(f for f in self.checksums if fnmatch.fnmatch(f, pattern))

    def url(self, relpath: str) -> str | None:
        return self.base_url + relpath if self.base_url else None


@functools.lru_cache(maxsize=1)
def _registry() -> dict[str, str]:
    out = {}
    for n, line in enumerate(REGISTRY.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.rsplit(" ", 1)
        if len(parts) != 2 or len(parts[1]) != 64:
            raise ValueError(f"{REGISTRY}:{n}: expected '<path> <sha256>', got {line!r}")
        out[parts[0]] = parts[1]
    return out


@functools.lru_cache(maxsize=1)
def datasets() -> dict[str, Dataset]:
    """All declared data sets by name."""
    raw = yaml.safe_load(DECLARATIONS.read_text(encoding="utf-8"))
    reg = _registry()
    out = {}
    for name, d in raw.items():
        prefix = d["mirror"].rstrip("/") + "/"
        sums = {p[len(prefix):]: h for p, h in reg.items() if p.startswith(prefix)}
        kw = {k: v for k, v in d.items() if k in Dataset.__dataclass_fields__}
        if "archives" in kw:
            kw["archives"] = tuple(kw["archives"])
        out[name] = Dataset(name=name, checksums=sums, **kw)
    return out


def get(name: str) -> Dataset:
    """The declaration of data set ``name``."""
    table = datasets()
    if name not in table:
        raise KeyError(f"unknown data set {name!r}; declared: {', '.join(sorted(table))}")
    return table[name]


def fetch(name: str, relpath: str, mirror: str | Path | None = None) -> Path:
    """Local path of file ``relpath`` of data set ``name`` (cache, then mirror, then network).

    ``relpath`` must be one of the data set's declared files (``registry.txt``): any other name
    is refused (no file without a declared sha256 is handed out, and no name reaches outside the
    mirror or the cache). A cached copy is used only while its sha256 is the registry's.
    """
    ds = get(name)
    expected = ds.checksums.get(relpath)
    if expected is None:
        raise DataNotFoundError(
            f"data set {name!r} declares no file {relpath!r} (declared: {', '.join(ds.files()[:8])}"
            f"{', ...' if len(ds.checksums) > 8 else ''}); only the files in {REGISTRY.name} are fetched")
    data_root = cache_dir("data")
    target = _file_in(data_root, ds, relpath, "cache")
    if target.is_dir():
        raise CachedPathError(f"{target} is a folder where the cache keeps file {relpath!r} of data set {name!r}; "
                              "xalign did not make it: move or remove it and fetch again")
    if target.exists():
        if _cached_copy_intact(ds, target, expected):
            return _record(ds, relpath, target, "cache")
        target.unlink()  # damaged or altered since it was fetched: fetch it again below
    mirror_root = Path(mirror) if mirror else data_mirror()
    if mirror_root is not None:
        candidate = _file_in(mirror_root, ds, relpath, "mirror")
        if candidate.exists():
            actual = file_sha256(candidate)
            if actual != expected:
                raise ChecksumError(f"{candidate}: sha256 {actual} differs from the declared {expected} "
                                    f"(data set {name!r}); the mirror copy is not the declared file")
            with atomic_path(target) as tmp:
                shutil.copyfile(candidate, tmp)
            return _record(ds, relpath, target, "mirror")
    try:
        _download(ds, relpath, target, expected)
    except Exception as exc:  # network down, 404, checksum mismatch, ...
        where = f"{mirror_root}/{ds.mirror}/{relpath}" if mirror_root else f"<mirror>/{ds.mirror}/{relpath}"
        how = ds.url(relpath) or ds.obtain or ds.homepage
        raise DataNotFoundError(
            f"data set {name!r} ({ds.title}): file {relpath!r} is not cached, not in the mirror "
            f"({where}), and could not be downloaded ({how}): {exc}. Set {MIRROR_VARIABLE} "
            f"(or `xalign --data-mirror DIR`) to a folder laid out like the mirror.") from exc
    return _record(ds, relpath, target, "download")


def _file_in(root: Path, ds: Dataset, relpath: str, where: str) -> Path:
    """``root/<ds.mirror>/<relpath>``, refused unless it stays inside the data set's folder under ``root``.

    Args:
        root: the mirror root or the cache's ``data/`` folder.
        ds: the data set (its ``mirror`` names its folder).
        relpath: a declared file name of the data set.
        where: "mirror" or "cache", for the error message.

    Returns:
        The joined (unresolved) path.

    Raises:
        DataNotFoundError: a part is absolute, or the resolved path leaves ``root/<ds.mirror>``
            (``..`` in a name, a link pointing elsewhere).
    """
    root = Path(root)
    folder, path = root / ds.mirror, root / ds.mirror / relpath
    if (Path(ds.mirror).is_absolute() or Path(relpath).is_absolute()
            or not folder.resolve().is_relative_to(root.resolve())
            or not path.resolve().is_relative_to(folder.resolve()) or path.resolve() == folder.resolve()):
        raise DataNotFoundError(f"data set {ds.name!r} file {relpath!r}: {path} is outside the data set's folder "
                                f"{folder} in the {where}; refused")
    return path


def _cached_copy_intact(ds: Dataset, target: Path, expected: str) -> bool:
    """True when a cached file has the registry's sha256 (nothing the cache holds is trusted for it).

    A copy downloaded from a source that serves other bytes than the registry's (a data set with
    ``verified: false``) is fetched again without a warning; any other difference is reported.
    """
    import warnings

    actual = file_sha256(target)
    if actual == expected:
        return True
    if ds.verified or data_mirror() is not None:
        warnings.warn(f"xalign data: cached copy {target} has sha256 {actual}, the registry declares {expected}; "
                      "removed and fetched again", RuntimeWarning, stacklevel=3)
    return False


def fetch_many(name: str, pattern: str = "*", mirror: str | Path | None = None) -> list[Path]:
    """Fetch every declared file of ``name`` matching a glob pattern."""
    files = get(name).files(pattern)
    if not files:
        raise DataNotFoundError(f"data set {name!r} declares no file matching {pattern!r}")
    return [fetch(name, f, mirror) for f in files]


def _record(ds: Dataset, relpath: str, path: Path, origin: str) -> Path:
    key = f"{ds.name}/{relpath}"
    if key not in _FETCHED:
        _FETCHED[key] = {"dataset": ds.name, "file": relpath, "sha256": file_sha256(path),
                         "declared_sha256": ds.checksums.get(relpath), "origin": origin,
                         "license": ds.license}
    for seen in _RECORDERS:
        seen[key] = dict(_FETCHED[key])
    return path


def provenance() -> list[dict]:
    """Every data file handed out in this process: data set, file, sha256, origin, license."""
    return [dict(v) for _, v in sorted(_FETCHED.items())]


@contextlib.contextmanager
def files_used():
    """The data files handed out inside a ``with`` block, cache hits and repeats included.

    Yields:
        A dict filled while the block runs: ``"<data set>/<file>"`` -> the file's record (data set,
        file, sha256, declared sha256, origin, license), as in :func:`provenance`. Blocks may nest;
        each sees every file handed out while it is open.
    """
    seen: dict[str, dict] = {}
    _RECORDERS.append(seen)
    try:
        yield seen
    finally:  # by identity: two blocks may hold equal dicts
        del _RECORDERS[next(i for i, r in enumerate(_RECORDERS) if r is seen)]


def _download(ds: Dataset, relpath: str, target: Path, expected: str | None) -> None:
    import pooch

    if ds.fetch == "sacrebleu":
        _download_sacrebleu(ds, relpath, target)
        return
    if ds.base_url is None:
        raise DataNotFoundError(f"no direct download. {ds.obtain}")
    if ds.fetch == "zip":
        _download_from_zips(ds, relpath, target)
    else:
        known = f"sha256:{expected}" if (ds.verified and expected) else None
        target.parent.mkdir(parents=True, exist_ok=True)
        pooch.retrieve(ds.url(relpath), known_hash=known, fname=target.name,
                       path=target.parent, progressbar=False)
    if ds.verified and expected and file_sha256(target) != expected:
        target.unlink()
        raise ChecksumError(f"download of {relpath!r} has an unexpected sha256")


def _download_from_zips(ds: Dataset, relpath: str, target: Path) -> None:
    import pooch

    archive_dir = cache_dir("data") / "_archives" / ds.name
    for archive in ds.archives:
        local = pooch.retrieve(ds.base_url + archive, known_hash=None, fname=archive,
                               path=archive_dir, progressbar=False)
        with zipfile.ZipFile(local) as zf:
            members = [m for m in zf.namelist() if m.endswith(relpath) or relpath.endswith(m)]
            if members:
                with zf.open(members[0]) as src, atomic_path(target) as tmp:
                    tmp.write_bytes(src.read())
                return
    raise DataNotFoundError(f"{relpath!r} is in none of {list(ds.archives)}")


def _download_sacrebleu(ds: Dataset, relpath: str, target: Path) -> None:
    """WMT test sets through sacrebleu: ``<src>-<tgt>/newstestYYYY.<lang>``."""
    from sacrebleu.dataset import DATASETS

    pair, fname = relpath.split("/", 1)
    lang = fname.rsplit(".", 1)[1]
    src, _tgt = pair.split("-")
    test_set = DATASETS[ds.sacrebleu_set]
    test_set.process_to_text(pair)
    path = test_set.get_source_file(pair) if lang == src else test_set.get_reference_files(pair)[0]
    with atomic_path(target) as tmp:
        shutil.copyfile(path, tmp)


def datasets_markdown() -> str:
    """A Markdown table of every declared data set: title, license, citation, source."""
    lines = ["| Data set | License | Citation | Official source |", "|---|---|---|---|"]
    for ds in datasets().values():
        src = ds.homepage or ds.base_url or ""
        lines.append(f"| **{ds.name}**: {ds.title} | {ds.license} | {ds.citation} | {src} |")
    return "\n".join(lines) + "\n"


def data_readme() -> str:
    """``data/README.md``: every declared data set with its official URL, license and file count
    (generated from ``datasets.yaml`` and ``registry.txt``; ``tests/test_datasets.py`` keeps it current)."""
    lines = ["# Data", "",
             "The data sets the book uses, declared once: `datasets.yaml` (official URL, license, citation) and",
             "`registry.txt` (the sha256 of every file, by its path in the data mirror). Both live in the",
             "package (`lib/xalign/data/`, so the wheel ships them); the two files here are links to them.",
             "No data file is part of this repository: `xalign fetch NAME` copies a set into the cache",
             "(`~/.cache/xalign/data`), trying the local mirror (`XALIGN_DATA_MIRROR`) first and the",
             "official URL second, and checks every file against the registry.", "",
             ("This file is generated: `python -c \"from xalign.data.datasets import data_readme; "
             "print(data_readme(), end='')\" > data/README.md`."), "",
             "| Data set | Files | License | Official source |", "|---|---|---|---|"]
    for ds in datasets().values():
        src = ds.homepage or ds.base_url or (ds.obtain.split(". ")[0] if ds.obtain else "")
        lines.append(f"| **{ds.name}**: {ds.title} | {len(ds.checksums)} | {ds.license} | {src.replace('|', '/')} |")
    return "\n".join(lines) + "\n"

