"""Every content hash of xalign, one module: sha256 of files (streamed), of texts, of JSON-able keys and of
arrays. (Code is hashed by :func:`xalign.core.code_closure.code_digest`; an item's draw by
:func:`xalign.core.draws.stable_hash`, a seed, not a key.)"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np


def file_sha256(path: str | Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file's bytes, read in ``chunk``-byte pieces."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def text_hash(texts) -> str:
    """sha256 over a sequence of strings (length-prefixed, so boundaries count)."""
    h = hashlib.sha256()
    for t in texts:
        b = t.encode("utf-8")
        h.update(len(b).to_bytes(8, "little"))
        h.update(b)
    return h.hexdigest()


def key_digest(key: dict) -> str:
    """sha256 of a JSON-able key (sorted keys; a value JSON cannot hold is written as its ``str``)."""
    return hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()


def array_digest(*arrays) -> str:
    """sha256 over the dtype, shape and bytes of each array (numpy or torch); a hex string."""
    h = hashlib.sha256()
    for a in arrays:
        if hasattr(a, "detach"):
            a = a.detach().cpu().numpy()
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(memoryview(a).cast("B"))
    return h.hexdigest()
