"""Atomic file writes: a reader never sees a half-written file."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it over ``path`` on success.

    On any exception the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the finished file follows the umask
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def follow_umask(path: str | Path) -> None:
    """Give ``path`` (a file, or a folder and everything in it) the modes a plain ``open``/``mkdir``
    would have: 0666/0777 less the umask. For what ``mkdtemp``/``mkstemp`` (0700/0600) or a library
    made private, before it is published in a cache other users share."""
    path = Path(path)
    mask = _umask()
    if not path.is_dir():
        os.chmod(path, 0o666 & ~mask)
        return
    for folder, dirs, files in os.walk(path):
        os.chmod(folder, 0o777 & ~mask)
        for name in files:
            if not os.path.islink(os.path.join(folder, name)):
                os.chmod(os.path.join(folder, name), 0o666 & ~mask)


def atomic_folder(out: str | Path, marker: str, build: Callable[[Path], None]) -> Path:
    """The folder ``out``, built once: ``build(tmp)`` fills a temporary sibling, which is renamed into place.

    A folder that holds ``marker`` (a file the build writes last or always) is complete and returned as it
    is; a build that leaves no ``marker``, or fails, leaves nothing behind. The modes follow the umask
    (:func:`follow_umask`), for a cache other users share. Two processes building at once: the first rename
    wins and the other's folder is dropped.

    Args:
        out: the folder to make (its parent is created).
        marker: a file name inside ``out`` that only a finished build has (e.g. ``"model.safetensors"``).
        build: fills the folder it is given.

    Returns:
        ``out``.
    """
    out = Path(out)
    if (out / marker).exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent))
    try:
        build(tmp)
        if not (tmp / marker).exists():
            raise OSError(f"building {out.name} left no {marker} in it")
        follow_umask(tmp)
        try:
            tmp.rename(out)
        except OSError:  # another process put it there first
            if not (out / marker).exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def write_json(path: str | Path, obj) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, ensure_ascii=False, default=_json_default))


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def save_npz(path: str | Path, **arrays: np.ndarray) -> None:
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **arrays)


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot serialise {type(obj).__name__}")


#: a temporary file of :func:`atomic_path` untouched this long (seconds) is an orphan whoever holds it
ORPHAN_AGE_S = 600
#: ... and one no process holds open (Linux: /proc), this long
UNHELD_AGE_S = 2


def remove_orphan_parts(folder: str | Path) -> list[Path]:
    """Remove the temporary files (``.<name>.<random>.part``) that :func:`atomic_path` writers left under
    ``folder`` when killed (SIGKILL, power loss: no ``finally`` ran); returns what was removed.

    A ``.part`` file counts as left when it was not modified for :data:`ORPHAN_AGE_S` seconds, or, where
    ``/proc`` shows every process's open files (Linux, the same user), when no process holds it open and
    it is :data:`UNHELD_AGE_S` seconds old. A writer that has not opened its file yet loses nothing: it
    creates the file again when it writes. Links are never followed or removed.
    """
    import time

    folder = Path(folder)
    if not folder.is_dir() or folder.is_symlink():
        return []
    parts = [p for p in folder.rglob(".*.part") if p.is_file() and not p.is_symlink()]
    if not parts:
        return []
    held = _held_open()
    now, removed = time.time(), []
    for p in parts:
        try:
            age = now - p.stat().st_mtime
            if age >= ORPHAN_AGE_S or (held is not None and age >= UNHELD_AGE_S and str(p.resolve()) not in held):
                p.unlink()
                removed.append(p)
        except OSError:
            continue
    return removed


def _held_open() -> set[str] | None:
    """The paths every process holds open (from ``/proc/<pid>/fd``); None where that cannot be seen whole
    (no ``/proc``, or another user's process)."""
    proc = Path("/proc")
    if not (proc / "self" / "fd").is_dir():
        return None
    held = set()
    for pid in proc.iterdir():
        if not pid.name.isdigit():
            continue
        try:
            fds = list((pid / "fd").iterdir())
        except FileNotFoundError:
            continue  # the process ended meanwhile
        except PermissionError:
            return None
        for fd in fds:
            try:
                held.add(os.readlink(fd))
            except OSError:
                continue
    return held
