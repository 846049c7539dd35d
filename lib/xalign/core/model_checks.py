"""What a local model folder must hold before it is loaded, and what a loaded tokenizer must be.

``transformers`` turns many broken folders into a misleading error (a missing path, a file or a
folder without weights all read as "not on the Hugging Face hub"), and one broken folder into no
error at all: a folder with config and weights but no tokenizer files loads a tokenizer that knows
only its special tokens, so every word is ``[UNK]`` and the numbers are silently wrong. The checks
here name the path and what is wrong with it.
"""

from __future__ import annotations

import json
from pathlib import Path

#: files of which one holds a model's weights (a single file or a sharded index)
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack")
#: files of which one (or the vocab.json + merges.txt pair) holds a tokenizer's vocabulary
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "sentencepiece.bpe.model", "spiece.model", "tokenizer.model",
                   "source.spm", "vocab.json")


class ModelFolderError(OSError):
    """A model given as a local path that is missing, not a folder, or lacks what a model needs."""


def looks_like_path(name: str) -> bool:
    """Whether ``name`` is meant as a local path rather than a hub id (``org/name`` has one slash, no dot first)."""
    return (name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1
            or Path(name).expanduser().exists())


def _read_json(path: Path, what: str) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise ModelFolderError(f"{path}: {what} is not UTF-8 text ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ModelFolderError(f"{path}: {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                               f"{exc.msg}); the model folder is damaged: copy or save it again") from None


def check_model_folder(name: str) -> Path | None:
    """Check a model given as a local path; None when ``name`` is a hub id (nothing local to check).

    Args:
        name: a hub id or a local folder (config.json, weights, tokenizer files).

    Returns:
        The folder, when ``name`` is a local path that holds a loadable model.

    Raises:
        ModelFolderError: naming the path: it does not exist, is a file, or its folder has no or a broken
            ``config.json``, no weights or no tokenizer files.
    """
    if not looks_like_path(name):
        return None
    path = Path(name).expanduser()
    if not path.exists():
        raise ModelFolderError(f"model path {name!r} does not exist (a local model is a folder with config.json, "
                               f"weights and tokenizer files; a hub id looks like 'org/name')")
    if not path.is_dir():
        raise ModelFolderError(f"model path {name!r} is a file, not a model folder (expected a folder with "
                               f"config.json, weights such as model.safetensors, and tokenizer files)")
    config = path / "config.json"
    if not config.exists():
        raise ModelFolderError(f"{path} is a directory but not a model: it has no config.json (expected a saved "
                               f"Hugging Face model: config.json, weights, tokenizer files)")
    if not isinstance(_read_json(config, "config.json"), dict):
        raise ModelFolderError(f"{config}: config.json must hold a JSON object (the model's configuration)")
    if not any((path / f).exists() for f in WEIGHT_FILES):
        raise ModelFolderError(f"{path} has no weights: none of {', '.join(WEIGHT_FILES)} (save the model with "
                               f"save_pretrained, or copy its weight files)")
    check_tokenizer_files(path)
    return path


def check_tokenizer_files(path: Path) -> None:
    """Raise :class:`ModelFolderError` when ``path`` has no tokenizer vocabulary file."""
    if not any((path / f).exists() for f in TOKENIZER_FILES):
        raise ModelFolderError(f"{path} has no tokenizer files: none of {', '.join(TOKENIZER_FILES)}. Without them "
                               f"the tokenizer knows only its special tokens and every word becomes unknown; "
                               f"save the tokenizer too (tokenizer.save_pretrained)")


def check_tokenizer(tokenizer, name: str) -> None:
    """Refuse a tokenizer whose vocabulary is only its special tokens (every word would be ``[UNK]``)."""
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    if len(tokenizer) <= len(special) + 1:
        raise ModelFolderError(f"{name}: its tokenizer has {len(tokenizer)} tokens, only the special ones: every "
                               f"word would be unknown. The model's tokenizer files are missing or empty")


def read_modules_json(folder: Path) -> list[dict]:
    """A sentence-transformers folder's ``modules.json``: a list of ``{"path", "type"}`` objects.

    Raises:
        ModelFolderError: naming the file when it is not JSON or not such a list.
    """
    path = Path(folder) / "modules.json"
    modules = _read_json(path, "modules.json")
    if not isinstance(modules, list) or not all(isinstance(m, dict) and "type" in m and "path" in m
                                                for m in modules):
        raise ModelFolderError(f"{path}: modules.json must be a list of {{\"path\": ..., \"type\": ...}} objects "
                               f"(a sentence-transformers model's modules); the folder {folder} is damaged")
    return modules


def layer_count(name: str) -> int | None:
    """A model's hidden-state count (embedding layer included) from its ``config.json`` alone; None if not on disk.

    Looks in a local folder, the converted offline model and the Hugging Face cache; never downloads.
    """
    from xalign.core.offline_model import _OFFLINE_ALIASES, offline_model_dir

    try:
        if name in _OFFLINE_ALIASES:
            from xalign.core.paths import cache_root

            folder = offline_model_dir(cache_root(create=False) / "models")
        elif looks_like_path(name):
            folder = Path(name).expanduser()
        else:
            from huggingface_hub import try_to_load_from_cache

            hit = try_to_load_from_cache(name, "config.json")
            folder = Path(hit).parent if isinstance(hit, str) else None
        if folder is None or not (folder / "config.json").is_file():
            return None
        from transformers import AutoConfig

        config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
        return int(config.num_hidden_layers) + 1
    except Exception:  # noqa: BLE001 - unknown here; the notebook checks once the model is loaded
        return None
