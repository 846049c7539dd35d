"""On-disk cache of representations and other derived artefacts (one store for every kind).

Every entry is one ``.npz`` file named by the sha256 of its key: a JSON
object with the model, its revision, the pooling, the layer set and a hash
of the input texts (and of the word spans, where there are any). Writes are
atomic, so an interrupted run leaves either a whole entry or none, and a
rerun picks up from the entries already there.
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
import zipfile
from pathlib import Path

import numpy as np

from xalign.core.atomic import save_npz, write_json
from xalign.core.paths import cache_dir, remove_within, within


def text_hash(texts) -> str:
    """sha256 over a sequence of strings (length-prefixed, so boundaries count)."""
    h = hashlib.sha256()
    for t in texts:
        b = t.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def key_digest(key: dict) -> str:
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


#: what reading a damaged entry raises: truncated or flipped bytes (zip, npy header, JSON, UTF-8), a
#: missing member, a directory or an unreadable file in its place
UNREADABLE = (zipfile.BadZipFile, EOFError, ValueError, OSError, KeyError, TypeError, IndexError)


def remove_entry(path: Path, root: Path) -> str:
    """Remove a damaged entry of the store at ``root``, whatever is in its place (a file, a link, a
    directory), but never through a link out of the store (a linked ``ab/`` or ``memo/`` folder: left
    where it is). Returns what was done, for the caller's warning."""
    if remove_within(root, path):
        return "removed, it will be recomputed"
    return (f"left alone: it is reached through a link out of the cache {root} (remove the link by hand); "
            "the value is recomputed")


class EmbeddingCache:
    """A directory of ``.npz`` entries addressed by a key dictionary."""

    def __init__(self, root: str | Path | None = None, enabled: bool = True):
        self.root = Path(root) if root is not None else cache_dir("embeddings")
        self.enabled = enabled
        self.hits = 0
        self.misses = 0
        self.damaged = 0
        #: links met by the last :meth:`clear` (never followed, never removed)
        self.links_left: list[Path] = []

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
        done = remove_entry(path, self.root)
        warnings.warn(f"xalign cache: damaged entry {path} ({type(exc).__name__}: {exc}); {done}",
                      RuntimeWarning, stacklevel=3)
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
        ``memo/<64 hex>.<ext>``, the memo entries): anything else in the folder is left alone. Links
        are never followed: a linked sub-folder (``ab -> elsewhere``) or entry is left alone and listed
        in :attr:`links_left`.
        """
        self.links_left = []
        if not self.root.is_dir():
            return 0
        n = 0
        for folder in sorted(self.root.iterdir()):
            if folder.is_symlink():
                self.links_left.append(folder)
                continue
            if not folder.is_dir():
                continue
            for f in sorted(folder.iterdir()):
                if not is_entry_name(folder.name, f.name):
                    continue
                if f.is_symlink():
                    self.links_left.append(f)
                elif f.is_file() and within(self.root, f):
                    f.unlink()
                    n += 1
        return n


_DIGEST = re.compile(r"[0-9a-f]{64}")


def is_entry_name(folder: str, name: str) -> bool:
    """Whether ``folder/name`` is a name this store gives its entries (see :meth:`EmbeddingCache.clear`)."""
    stem, dot, ext = name.partition(".")
    if not dot or not _DIGEST.fullmatch(stem) or "." in ext or not ext.isalnum():
        return False
    if folder == "memo":
        return True
    return folder == stem[:2] and ext in ("npz", "json")
