"""Names made from a model's name (file names, page labels): one per model, and never too long.

A cleaned name (``sentence-transformers/LaBSE`` -> ``sentence-transformers__LaBSE``) is kept as it is
when it is *faithful*, i.e. the model's name can be read back from it; otherwise two names could clean
alike (``c/m a`` and ``c/m_a``; ``Tiny`` and ``tiny`` for a lower-case label), so the cleaned name gets
a short hash of the full name. A name over :data:`MAX_NAME` characters is shortened and gets the hash
too (a path over 255 bytes is no file name). Ordinary names (``multilingual-e5-small``,
``all-MiniLM-L6-v2``) are faithful and keep their names.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: the longest name returned (characters; a file system allows 255 bytes per name, with room for suffixes)
MAX_NAME = 100
HASH_LEN = 8


def short_hash(name: str) -> str:
    """The first :data:`HASH_LEN` hex digits of the sha256 of ``name`` (UTF-8)."""
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:HASH_LEN]


def unique_name(name: str, cleaned: str, faithful: bool, max_len: int = MAX_NAME) -> str:
    """``cleaned`` when it is ``faithful`` (``name`` can be read back from it) and at most ``max_len``
    characters; else its first characters, ``-`` and :func:`short_hash` of the full ``name``, at most
    ``max_len`` characters in all."""
    if faithful and len(cleaned) <= max_len:
        return cleaned
    return f"{cleaned[:max_len - HASH_LEN - 1]}-{short_hash(name)}"


def case_safe(folder: str | Path, stem: str, name: str, suffix: str = ".json") -> str:
    """``stem``, unless ``folder`` already holds an entry whose name differs from ``stem + suffix`` only in
    case (``Tiny.json`` beside ``tiny.json``: one file on a case-insensitive file system, so one model's
    output would replace the other's): then ``stem`` with :func:`short_hash` of the full ``name``."""
    folder, want = Path(folder), f"{stem}{suffix}"
    if folder.is_dir() and any(p.name != want and p.name.lower() == want.lower() for p in folder.iterdir()):
        return unique_name(name, stem, False)
    return stem
