"""On-disk cache of representations and other derived artefacts (one store for every kind).

Every entry is one ``.npz`` file named by the sha256 of its key: a JSON
object with the model, its revision, the pooling, the layer set and a hash
of the input texts (and of the word spans, where there are any). Writes are
atomic, so an interrupted run leaves either a whole entry or none, and a
rerun picks up from the entries already there.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np

from xalign.core.atomic import save_npz, write_json
from xalign.core.hashing import key_digest
from xalign.core.paths import cache_dir, within

#: what reading a damaged entry raises: truncated or flipped bytes (zip, npy header, JSON, UTF-8), a
#: missing member, a directory or an unreadable file in its place
UNREADABLE = (zipfile.BadZipFile, EOFError, ValueError, OSError, KeyError, TypeError, IndexError)


def remove_entry(path: Path) -> None:
    """Remove a damaged entry, whatever is in its place (a file, a link, a directory)."""
    path = Path(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


class EmbeddingCache:
    """A directory of ``.npz`` entries addressed by a key dictionary."""

    def __init__(self, root: str | Path | None = None, enabled: bool = True):
        self.root = Path(root) if root is not None else cache_dir("embeddings")
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        self.damaged = 0

    def path(self, key: dict) -> Path:
        digest = key_digest(key)
        return self.root / digest[:2] / f"{digest}.npz"

    def get(self, key: dict) -> dict[str, np.ndarray] | None:
        """The arrays stored under ``key``, or None."""
        if not self.enabled:
            self.misses += 1
            return None
        path = self.path(key)
        if not path.exists():
            self.misses += 1
            return None
        try:
            with np.load(path) as z:
                out = {k: z[k] for k in z.files}
        except UNREADABLE as exc:
            return self._drop_damaged(path, exc)
        self.hits += 1
        return out

    def _drop_damaged(self, path: Path, exc: Exception) -> None:
        """A damaged entry (disk full, a copy cut short): say which, remove it; the caller recomputes."""
        warnings.warn(f"xalign cache: damaged entry {path} ({type(exc).__name__}: {exc}); "
                      "removed, it will be recomputed", RuntimeWarning, stacklevel=3)
        if not within(self.root, path):  # reached through a link out of the store: never touched
            warnings.warn(f"xalign cache: {path} is reached through a link out of {self.root}; left alone "
                          "(recomputed without it)", RuntimeWarning, stacklevel=3)
        else:
            remove_entry(path)
        self.misses += 1
        self.damaged += 1

    def put(self, key: dict, **arrays: np.ndarray) -> None:
        if self.enabled:
            save_npz(self.path(key), **arrays)

    # JSON artefacts (alignment links, BTSR sets, fitted results) live in the same store
    def json_path(self, key: dict) -> Path:
        digest = key_digest(key)
        return self.root / digest[:2] / f"{digest}.json"

    def get_json(self, key: dict):
        """The JSON value stored under ``key``, or None (a damaged entry is reported and removed)."""
        path = self.json_path(key)
        if not self.enabled or not path.exists():
            self.misses += 1
            return None
        try:
            value = json.loads(path.read_text(encoding="utf-8"))
        except UNREADABLE as exc:
            return self._drop_damaged(path, exc)
        self.hits += 1
        return value

    def put_json(self, key: dict, value) -> None:
        if self.enabled:
            write_json(self.json_path(key), value)

    def clear(self) -> int:
        """Delete every entry this store wrote; returns how many were removed.

        Only files named like an entry are removed (``<2 hex>/<64 hex>.npz|.json``, and
        ``memo/<64 hex>.<ext>``, the memo entries): anything else in the folder is left alone.
        """
        if not self.root.is_dir():
            return 0
        n = 0
        for f in self.root.glob("*/*"):
            if f.is_file() and not f.is_symlink() and is_entry_name(f.parent.name, f.name):
                f.unlink()
                n += 1
        return n


def clear_entries(root: str | Path) -> tuple[int, list[Path]]:
    """Delete every entry a store at ``root`` wrote, never following a link; ``xalign cache clear-embeddings``.

    Only files named like an entry are removed (:func:`is_entry_name`: ``<2 hex>/<64 hex>.npz|.json``,
    ``memo/<64 hex>.<ext>``), and only in real sub-folders of ``root`` (:func:`~xalign.core.paths.within`):
    a linked sub-folder (``memo -> elsewhere``, ``ab -> elsewhere``) or a linked entry is left alone,
    with whatever it points at.

    Returns:
        (how many entries were removed, the links left alone).
    """
    root = Path(root)
    removed, links = 0, []
    if not root.is_dir():
        return 0, links
    for folder in sorted(root.iterdir()):
        if folder.is_symlink():
            links.append(folder)
            continue
        if not folder.is_dir():
            continue
        for f in sorted(folder.iterdir()):
            if not is_entry_name(folder.name, f.name):
                continue
            if f.is_symlink():
                links.append(f)
            elif f.is_file() and within(root, f):
                f.unlink()
                removed += 1
    return removed, links


_DIGEST = re.compile(r"[0-9a-f]{64}")


def is_entry_name(folder: str, name: str) -> bool:
    """Whether ``folder/name`` is a name this store gives its entries (see :meth:`EmbeddingCache.clear`)."""
    stem, dot, ext = name.partition(".")
    if not dot or not _DIGEST.fullmatch(stem) or "." in ext or not ext.isalnum():
        return False
    if folder == "memo":
        return True
    return folder == stem[:2] and ext in ("npz", "json")
