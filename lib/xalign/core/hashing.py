"""Content hashes: sha256 of files (streamed) and of JSON-able keys."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes, read in ``chunk``-byte pieces."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def key_sha256(obj, length: int | None = None) -> str:
    """Hex sha256 of ``obj`` as canonical JSON (sorted keys, UTF-8); ``length`` truncates."""
    digest = hashlib.sha256(json.dumps(obj, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return digest[:length] if length else digest
