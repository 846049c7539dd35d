"""The files of a local model folder: which ones make up the model, and whether each one is whole.

A model folder is everything under it, sub-folders included: a sentence-transformers model keeps
its Dense layer in ``2_Dense/model.safetensors`` and its pooling in ``1_Pooling/config.json``, so a
model's identity (:mod:`xalign.core.model_identity`) and its integrity checks cover the whole tree.
Hidden entries (``.git``, ``.cache``, editor and notebook checkpoints) and ``__pycache__`` are not the
model. :func:`check_model_files` turns a truncated or damaged file into an error naming it before any
library reads it: a cut ``tokenizer.json`` is otherwise a bare ``JSONDecodeError`` and a cut
``model.safetensors`` a ``SafetensorError`` about "incomplete metadata", neither naming the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from xalign.core.model_errors import ModelFolderError

#: folder names that are never part of a model
SKIPPED_DIRS = ("__pycache__",)


def model_files(folder: str | Path) -> list[Path]:
    """Every file of a model folder, sub-folders included, sorted by their path relative to ``folder``.

    Links to files and folders are followed (each real folder is visited once, so a link loop ends);
    hidden names (``.git``, ``.cache``) and ``__pycache__`` are skipped.

    Returns:
        The files' paths (under ``folder``, as written there, not resolved).
    """
    folder = Path(folder)
    found: list[tuple[str, Path]] = []
    seen: set[str] = set()
    for here, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(here)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in files:
            path = Path(here) / name
            if not name.startswith(".") and path.is_file():
                found.append((path.relative_to(folder).as_posix(), path))
    return [p for _, p in sorted(found)]


def read_json(path: str | Path) -> object:
    """A model file's JSON value.

    Raises:
        ModelFolderError: naming the file when it is not UTF-8 text or not valid JSON (where, and its size).
    """
    path = Path(path)
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ModelFolderError(f"{path}: {path.name} is not UTF-8 text ({exc}); the model folder is damaged: copy "
                               f"or save it again") from None
    except json.JSONDecodeError as exc:
        raise ModelFolderError(f"{path}: {path.name} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                               f"{exc.msg}; {path.stat().st_size} bytes): the file is truncated or damaged; copy "
                               f"or save the model again") from None


def check_file_whole(path: str | Path) -> None:
    """Raise :class:`~xalign.core.model_errors.ModelFolderError` naming ``path`` when it is a ``.json`` file
    that is not valid UTF-8 JSON (:func:`read_json`) or a ``.safetensors`` file whose header or data is cut
    short (read by ``safetensors``)."""
    path = Path(path)
    if path.suffix == ".json":
        read_json(path)
    elif path.suffix == ".safetensors":
        from safetensors import SafetensorError, safe_open

        try:
            with safe_open(str(path), framework="np"):
                pass
        except (SafetensorError, OSError, ValueError) as exc:
            raise ModelFolderError(f"{path}: not a whole safetensors file ({exc}; {path.stat().st_size} bytes): "
                                        f"the weights are truncated or damaged; copy or save the model again") from None


def check_model_files(folder: str | Path) -> None:
    """Check every JSON and safetensors file of a model folder (:func:`model_files`, :func:`check_file_whole`).

    Raises:
        ModelFolderError: naming the first damaged file.
    """
    for path in model_files(folder):
        check_file_whole(path)
