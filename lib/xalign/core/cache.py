"""On-disk cache of representations.

Every entry is one ``.npz`` file named by the sha256 of its key: a JSON
object with the model, its revision, the pooling, the layer set and a hash
of the input texts (and of the word spans, where there are any). Writes are
atomic, so an interrupted run leaves either a whole entry or none, and a
rerun picks up from the entries already there.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from xalign.core.atomic import save_npz
from xalign.core.paths import cache_dir


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


class EmbeddingCache:
    """A directory of ``.npz`` entries addressed by a key dictionary."""

    def __init__(self, root: str | Path | None = None, enabled: bool = True):
        self.root = Path(root) if root is not None else cache_dir("embeddings")
        self.enabled = enabled
        self.hits = 0
        self.misses = 0

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
        with np.load(path) as z:
            out = {k: z[k] for k in z.files}
        self.hits += 1
        return out

    def put(self, key: dict, **arrays: np.ndarray) -> None:
        if self.enabled:
            save_npz(self.path(key), **arrays)

    def clear(self) -> int:
        """Delete every entry; returns how many were removed."""
        n = 0
        for f in self.root.glob("*/*.npz"):
            f.unlink()
            n += 1
        return n
