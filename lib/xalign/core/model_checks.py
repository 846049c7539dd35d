"""What a local model folder must hold before it is loaded, and what a loaded tokenizer must be.

``transformers`` turns many broken folders into a misleading error (a missing path, a file or a
folder without weights all read as "not on the Hugging Face hub"), and one broken folder into no
error at all: a folder with config and weights but no tokenizer files loads a tokenizer that knows
only its special tokens, so every word is ``[UNK]`` and the numbers are silently wrong. The checks
here name the path and what is wrong with it, before anything is loaded:

- the folder: exists, is a folder, holds ``config.json``, weights and tokenizer files;
- every JSON and safetensors file in it, sub-folders included, is whole
  (:func:`xalign.core.model_files.check_model_files`: a truncated ``tokenizer.json`` or
  ``model.safetensors`` is named, not a bare decoder error);
- ``config.json``'s sizes and probabilities are in range (:data:`CONFIG_INT_RANGES`:
  ``num_hidden_layers: 0`` is named, not an IndexError);
- the model needs no code of its own (:func:`check_no_remote_code`).

The errors are :mod:`xalign.core.model_errors` classes (``OSError``), which the command line reports
in one line.
"""

from __future__ import annotations

from pathlib import Path

from xalign.core.model_errors import ModelFolderError, RemoteCodeError
from xalign.core.model_files import check_model_files, read_json

#: files of which one holds a model's weights (a single file or a sharded index)
WEIGHT_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                "pytorch_model.bin.index.json", "tf_model.h5", "flax_model.msgpack")
#: files of which one (or the vocab.json + merges.txt pair) holds a tokenizer's vocabulary
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "sentencepiece.bpe.model", "spiece.model", "tokenizer.model",
                   "source.spm", "vocab.json")


#: integer fields of a transformer's ``config.json`` and their valid range (inclusive): a value outside it
#: (``num_hidden_layers: 0``, ``max_position_embeddings: -5``) is otherwise an IndexError or a "negative
#: dimension" from deep inside the model. Fields a config does not hold, or holds as null, are not checked.
CONFIG_INT_RANGES = {
    "num_hidden_layers": (1, 1024), "num_attention_heads": (1, 1024), "num_key_value_heads": (1, 1024),
    "hidden_size": (1, 1 << 16), "intermediate_size": (1, 1 << 20), "head_dim": (1, 1 << 12),
    "vocab_size": (1, 1 << 24), "max_position_embeddings": (1, 1 << 24), "type_vocab_size": (1, 1 << 16),
    "d_model": (1, 1 << 16), "encoder_layers": (1, 1024), "decoder_layers": (0, 1024),
    "encoder_attention_heads": (1, 1024), "decoder_attention_heads": (1, 1024),
    "encoder_ffn_dim": (1, 1 << 20), "decoder_ffn_dim": (1, 1 << 20),
    "n_layer": (1, 1024), "n_head": (1, 1024), "n_embd": (1, 1 << 16), "n_positions": (1, 1 << 24),
}
#: probability fields of a ``config.json``: a number in [0, 1]
CONFIG_PROBABILITIES = ("hidden_dropout_prob", "attention_probs_dropout_prob", "dropout", "attention_dropout",
                        "activation_dropout", "classifier_dropout")


def looks_like_path(name: str) -> bool:
    """Whether ``name`` is meant as a local path rather than a hub id (``org/name`` has one slash, no dot first)."""
    return (name.startswith(("/", ".", "~")) or "\\" in name or name.count("/") > 1
            or Path(name).expanduser().exists())


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
    check_transformer_config(path)
    if not any((path / f).exists() for f in WEIGHT_FILES):
        raise ModelFolderError(f"{path} has no weights: none of {', '.join(WEIGHT_FILES)} (save the model with "
                               f"save_pretrained, or copy its weight files)")
    check_tokenizer_files(path)
    check_model_files(path)  # a truncated tokenizer.json or model.safetensors is named now
    return path


def check_transformer_config(folder: Path) -> dict:
    """Read and check the ``config.json`` of a transformer folder (:func:`check_config_values`,
    :func:`check_no_remote_code`); returns it.

    Raises:
        ModelFolderError: naming the file: not JSON, not an object, a field out of range.
        RemoteCodeError: the model needs its own code.
    """
    path = Path(folder) / "config.json"
    config = read_json(path)
    if not isinstance(config, dict):
        raise ModelFolderError(f"{path}: config.json must hold a JSON object (the model's configuration)")
    check_config_values(config, path)
    check_no_remote_code(config, Path(folder))
    return config


def check_config_values(config: dict, where: str | Path) -> None:
    """Refuse a configuration field out of its range (:data:`CONFIG_INT_RANGES`, :data:`CONFIG_PROBABILITIES`).

    Args:
        config: the parsed ``config.json``.
        where: the file, for the message.

    Raises:
        ModelFolderError: naming the file, the field, its value and the valid range.
    """
    for name, (lo, hi) in CONFIG_INT_RANGES.items():
        value = config.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ModelFolderError(f"{where}: {name} is {value!r}; it must be an integer from {lo} to {hi}. The "
                                   f"model's configuration is damaged or not a model this library can run")
    for name in CONFIG_PROBABILITIES:
        value = config.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ModelFolderError(f"{where}: {name} is {value!r}; it must be a probability from 0 to 1")


def check_no_remote_code(config: dict, folder: Path | str) -> None:
    """Refuse a configuration that only the model's own Python code can load.

    A ``config.json`` whose ``model_type`` transformers does not know and that has an ``auto_map``
    names classes in ``.py`` files of the model folder; loading it would run them (transformers asks
    "[y/N]" on a terminal, or fails with a bare ValueError). xalign never runs a model's code: every
    load passes ``trust_remote_code=False`` (:mod:`xalign.core.pretrained`). A known ``model_type``
    with an ``auto_map`` loads with transformers' own classes and is allowed.

    Raises:
        RemoteCodeError: naming the folder, the model type and the ``auto_map`` entries.
    """
    auto_map = config.get("auto_map")
    if not auto_map:
        return
    from transformers import CONFIG_MAPPING

    model_type = config.get("model_type")
    if isinstance(model_type, str) and model_type in CONFIG_MAPPING:
        return
    entries = "; ".join(f"{k}: {v}" for k, v in auto_map.items()) if isinstance(auto_map, dict) else repr(auto_map)
    raise RemoteCodeError(f"{folder}: config.json's model_type {model_type!r} is not one transformers knows, and its "
                          f"auto_map ({entries}) names Python code shipped in the model folder. xalign never runs a "
                          f"model's own code (trust_remote_code=False): use a model of a type transformers supports "
                          f"(bert, xlm-roberta, llama, ...) or convert this one to such a type")


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
    modules = read_json(path)
    if not isinstance(modules, list) or not all(isinstance(m, dict) and "type" in m and "path" in m
                                                for m in modules):
        raise ModelFolderError(f"{path}: modules.json must be a list of {{\"path\": ..., \"type\": ...}} objects "
                               f"(a sentence-transformers model's modules); the folder {folder} is damaged")
    return modules


def layer_count(name: str) -> int | None:
    """A model's hidden-state count (embedding layer included) from its ``config.json`` alone; None if not on disk.

    Looks in a local folder, the converted offline model and the Hugging Face cache; never downloads.
    """
    from xalign.core.gemma_model import GEMMA_ALIASES
    from xalign.core.offline_model import _OFFLINE_ALIASES, offline_model_dir

    try:
        if name in _OFFLINE_ALIASES:
            from xalign.core.paths import cache_root

            folder = offline_model_dir(cache_root(create=False) / "models")
        elif name in GEMMA_ALIASES:
            from xalign.core.gemma_model import gemma_dir
            from xalign.core.paths import cache_root

            folder = gemma_dir(cache_root(create=False) / "models")
        elif looks_like_path(name):
            folder = Path(name).expanduser()
        else:
            from huggingface_hub import try_to_load_from_cache

            hit = try_to_load_from_cache(name, "config.json")
            folder = Path(hit).parent if isinstance(hit, str) else None
        if folder is None or not (folder / "config.json").is_file():
            return None
        from xalign.core.pretrained import load_config

        config = load_config(str(folder), local_files_only=True)
        return int(config.num_hidden_layers) + 1
    except Exception:  # noqa: BLE001 - unknown here; the notebook checks once the model is loaded
        return None
