"""Content hashes: sha256 of files (streamed) and of JSON-able keys."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes, read in ``chunk``-byte pieces."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


