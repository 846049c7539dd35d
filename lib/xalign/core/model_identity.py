"""The identity (revision) of a local model folder: a hash of the bytes of every file it holds.

A card or a cached vector is only as fresh as the revision in its key. A revision built from the top
folder's names, sizes and times missed every sub-folder (a sentence-transformers model's
``2_Dense/model.safetensors`` could be replaced and a warm run served the old numbers), so
:func:`folder_revision` hashes the content of every file :func:`xalign.core.model_files.model_files`
lists, sub-folders included, with each file's path relative to the folder.

Hashing a large model takes seconds, so each file's sha256 is kept under its resolved path, size,
modification time and status-change time in nanoseconds (:func:`file_digest`; the status-change time
moves on every write and cannot be set back, so a file rewritten with its old size and ``touch``-ed back
to its old mtime is still hashed again): in memory for the process and in
``<cache>/models/file-sha256.json`` across processes. The converted offline model and the packaged models keep their own revisions (the image's or
the package's checksum: :mod:`xalign.core.offline_model`, :mod:`xalign.core.packaged_model`).
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

#: the file (under the cache's ``models`` folder) that keeps file hashes across processes
DIGESTS_FILE = "file-sha256.json"
#: entries kept in that file (the oldest are dropped beyond it)
MAX_ENTRIES = 20000

_memory: dict[str, str] = {}
_lock = threading.Lock()


def _stamp(path: Path) -> str:
    st = path.stat()
    return f"{os.path.realpath(path)}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}"


def _store() -> Path | None:
    try:
        from xalign.core.paths import cache_dir

        return cache_dir("models") / DIGESTS_FILE
    except OSError:  # no writable cache: hashes are kept for this process only
        return None


def _read_store(store: Path | None) -> dict[str, str]:
    if store is None or not store.is_file():
        return {}
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # a damaged store only costs hashing again
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(data, dict) else {}


def file_digests(paths: list[Path]) -> list[str]:
    """The sha256 (hex) of each file, from the store when its path, size, mtime_ns and ctime_ns are unchanged."""
    from xalign.core.hashing import file_sha256

    stamps = [_stamp(p) for p in paths]
    with _lock:
        missing = [i for i, s in enumerate(stamps) if s not in _memory]
        if missing:
            store = _store()
            _memory.update(_read_store(store))
            fresh = {stamps[i]: file_sha256(paths[i]) for i in missing if stamps[i] not in _memory}
            if fresh:
                _memory.update(fresh)
                _write_store(store, fresh)
        return [_memory[s] for s in stamps]


def _write_store(store: Path | None, fresh: dict[str, str]) -> None:
    if store is None:
        return
    from xalign.core.atomic import write_json

    data = _read_store(store)  # another process may have added entries meanwhile
    data.update(fresh)
    if len(data) > MAX_ENTRIES:
        data = dict(list(data.items())[-MAX_ENTRIES:])
    try:
        write_json(store, data)
    except OSError:  # a read-only cache: the hashes stay in memory
        pass


def file_digest(path: str | Path) -> str:
    """The sha256 (hex) of one file's bytes, hashed once per (resolved path, size, mtime_ns, ctime_ns)."""
    return file_digests([Path(path)])[0]


def folder_revision(folder: str | Path) -> str:
    """``"local:"`` and 16 hex digits of the sha256 over every file of ``folder`` (sub-folders included):
    each file's path relative to ``folder`` and the sha256 of its bytes, in path order.

    Any change of a file's bytes, a file added, removed or renamed gives a new revision; touching a
    file (a new mtime, same bytes) does not.
    """
    from xalign.core.model_files import model_files

    folder = Path(folder)
    files = model_files(folder)
    h = hashlib.sha256()
    for path, digest in zip(files, file_digests(files)):
        h.update(f"{path.relative_to(folder).as_posix()}\0{digest}\n".encode())
    return f"local:{h.hexdigest()[:16]}"
