"""The one door through which every transformers and sentence-transformers model is loaded.

Two guarantees, for every config, tokenizer, model and sentence-transformers load in xalign:

1. **No model's own code runs.** Every load passes ``trust_remote_code=False`` explicitly (transformers
   would otherwise ask "[y/N]" on a terminal and run the folder's ``modeling_*.py`` on ``y``); a local
   folder that needs its own code is refused first, naming the folder and its ``auto_map``
   (:func:`xalign.core.model_checks.check_no_remote_code`), and transformers' own refusal of a hub
   model is re-raised as the same :class:`~xalign.core.model_checks.RemoteCodeError`.
2. **No weight is silently random.** transformers fills every weight a checkpoint lacks with random
   numbers and drops every checkpoint weight the class has no place for, and only logs a report (a
   ``model.safetensors`` whose keys all carry a prefix loads as a random model). Here a load reads
   transformers' loading report (missing, unexpected and mismatched keys) and
   :func:`weight_problems` applies one rule:

   - a weight the model has and the checkpoint lacks (*missing*) is an error, unless it belongs to
     a head in :data:`NEW_HEADS` (BERT's ``pooler``: xalign never uses its output; checkpoints saved
     without it are common) or in the ``new_heads`` the caller trains itself (a classifier);
   - a checkpoint weight the model has no place for (*unexpected*) is an error, unless it belongs to
     a head in :data:`UNUSED_HEADS`: pre-training and task heads (``cls.*``, ``lm_head.*``,
     ``pooler.*``, ``classifier.*`` ...) that a base model legitimately leaves unused;
   - a weight of another shape (*mismatched*) is always an error.

   Everything else (embeddings, every layer, final norms) must load from the checkpoint. A head is
   a key's first dotted part, or its second after the model's ``base_model_prefix`` (``bert.cls``).
   The error (:class:`ModelWeightsError`) names the keys. Test models whose weights are meant to be
   random pass ``allow_random_weights=True`` explicitly.
"""

from __future__ import annotations

import contextlib
import inspect
import threading
import warnings
from collections.abc import Iterator, Sequence

from xalign.core.model_errors import ModelWeightsError, RemoteCodeError

#: what every load passes to transformers and sentence-transformers
NO_REMOTE_CODE = {"trust_remote_code": False}
#: checkpoint heads a loaded model may leave unused (transformers only warns about them)
UNUSED_HEADS = ("cls", "lm_head", "pooler", "classifier", "pre_classifier", "score", "qa_outputs", "predictions",
                "seq_relationship", "vocab_transform", "vocab_layer_norm", "vocab_projector", "generator_predictions",
                "generator_lm_head", "discriminator_predictions", "sop_classifier", "lm_loss", "final_logits_bias")
#: model heads a checkpoint may lack (they are newly initialised and never read by xalign)
NEW_HEADS = ("pooler",)
#: the task heads a ``*ForSequenceClassification`` class adds (new when fine-tuning a base checkpoint:
#: BERT/XLM-R ``classifier``, DistilBERT ``pre_classifier``, decoders ``score``, BART/mBART ``classification_head``)
CLASSIFIER_HEADS = ("classifier", "pre_classifier", "score", "classification_head")
#: keys named in an error, per kind (the rest are counted)
SHOWN_KEYS = 8


_hook_local = threading.local()
_hook_lock = threading.Lock()


def _install_report_hook() -> bool:
    """Record transformers' loading report of each load (``log_state_dict_report``, which every
    ``from_pretrained`` calls once the weights are in place, also when it then raises); False when
    this transformers has no such function."""
    import transformers.modeling_utils as mu

    with _hook_lock:
        original = getattr(mu, "log_state_dict_report", None)
        if original is None:
            return False
        if getattr(original, "_xalign_hook", False):
            return True
        signature = inspect.signature(original)

        def hook(*args, **kwargs):
            sinks = getattr(_hook_local, "sinks", ())
            if sinks:
                bound = signature.bind(*args, **kwargs).arguments
                for sink in sinks:
                    sink.append((bound.get("model"), bound.get("loading_info")))
            return original(*args, **kwargs)

        hook._xalign_hook = True
        mu.log_state_dict_report = hook
        return True


@contextlib.contextmanager
def loading_reports() -> Iterator[list]:
    """Collect ``(model, loading_info)`` of every transformers model loaded in this block (this thread)."""
    if not _install_report_hook():  # pragma: no cover - depends on the transformers version
        warnings.warn("this transformers version has no loading report (log_state_dict_report): xalign cannot "
                      "check that a model's weights all come from its checkpoint", RuntimeWarning, stacklevel=3)
    sink: list = []
    sinks = getattr(_hook_local, "sinks", ())
    _hook_local.sinks = (*sinks, sink)
    try:
        yield sink
    finally:
        _hook_local.sinks = sinks


def _is_head(key: str, heads: Sequence[str], base_prefix: str) -> bool:
    parts = key.split(".")
    if parts[0] in heads:
        return True
    return len(parts) > 1 and bool(base_prefix) and parts[0] == base_prefix and parts[1] in heads


def weight_problems(loading_info, base_prefix: str = "", new_heads: Sequence[str] = ()) -> dict[str, list[str]]:
    """The keys of one load that break the rule of this module (see its docstring).

    Args:
        loading_info: transformers' ``LoadStateDictInfo`` (or its ``to_dict()``): ``missing_keys``,
            ``unexpected_keys``, ``mismatched_keys`` (``(key, shape, shape)``).
        base_prefix: the model's ``base_model_prefix`` (``"bert"``), under which a head may sit.
        new_heads: heads the caller initialises itself (a classification head it trains).

    Returns:
        ``{"missing": [...], "unexpected": [...], "mismatched": [...]}``, sorted; all empty when the load is sound.
    """
    get = loading_info.get if isinstance(loading_info, dict) else lambda k: getattr(loading_info, k, None)
    missing = sorted(k for k in get("missing_keys") or () if not _is_head(k, (*NEW_HEADS, *new_heads), base_prefix))
    unexpected = sorted(k for k in get("unexpected_keys") or () if not _is_head(k, UNUSED_HEADS, base_prefix))
    mismatched = sorted(f"{m[0]} (shapes {tuple(m[1])} and {tuple(m[2])})" if isinstance(m, (tuple, list))
                        else str(m) for m in get("mismatched_keys") or ())
    return {"missing": missing, "unexpected": unexpected, "mismatched": mismatched}


def _keys(keys: list[str]) -> str:
    shown = ", ".join(keys[:SHOWN_KEYS])
    return shown + (f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else "")


def check_reports(reports: list, source: str, new_heads: Sequence[str] = ()) -> None:
    """Raise :class:`ModelWeightsError` when a recorded load (:func:`loading_reports`) breaks the rule."""
    for model, info in reports:
        if info is None:
            continue
        problems = weight_problems(info, getattr(model, "base_model_prefix", "") or "", new_heads)
        said = []
        if problems["missing"]:
            said.append(f"{len(problems['missing'])} weights the checkpoint lacks would be random ({_keys(problems['missing'])})")
        if problems["unexpected"]:
            said.append(f"{len(problems['unexpected'])} checkpoint weights would be unused "
                        f"({_keys(problems['unexpected'])})")
        if problems["mismatched"]:
            said.append(f"{len(problems['mismatched'])} weights have another shape ({_keys(problems['mismatched'])})")
        if said:
            raise ModelWeightsError(
                f"{source}: the checkpoint does not fit {type(model).__name__}: " + "; ".join(said)
                + ". Its weight names do not match the model's (a prefix on every key? another model type in "
                  "config.json?): save the model again with save_pretrained. (A test model meant to be random "
                  "loads with allow_random_weights=True.)")


@contextlib.contextmanager
def _refusing_remote_code(source: str) -> Iterator[None]:
    try:
        yield
    except ValueError as exc:
        if "trust_remote_code" not in str(exc):
            raise
        raise RemoteCodeError(f"{source}: the model needs the Python code shipped with it (its config's auto_map); "
                              f"xalign never runs a model's own code (trust_remote_code=False). Use a model of a "
                              f"type transformers supports") from None


def load_config(source: str, **kwargs):
    """``AutoConfig.from_pretrained(source, trust_remote_code=False, **kwargs)``."""
    from transformers import AutoConfig

    with _refusing_remote_code(source):
        return AutoConfig.from_pretrained(source, **kwargs, **NO_REMOTE_CODE)


def load_tokenizer(source: str, **kwargs):
    """``AutoTokenizer.from_pretrained(source, trust_remote_code=False, **kwargs)``."""
    from transformers import AutoTokenizer

    with _refusing_remote_code(source):
        return AutoTokenizer.from_pretrained(source, **kwargs, **NO_REMOTE_CODE)


def load_model(source: str, model_class=None, *, allow_random_weights: bool = False, new_heads: Sequence[str] = (),
               **kwargs):
    """``model_class.from_pretrained(source, trust_remote_code=False, **kwargs)``, its weights checked.

    Args:
        source: a local folder or a hub id.
        model_class: a transformers auto class (default ``AutoModel``).
        allow_random_weights: skip the weight check (tests' tiny random models only).
        new_heads: heads the caller initialises and trains itself (e.g. ``("classifier",)``).
        **kwargs: passed to ``from_pretrained``.

    Raises:
        ModelWeightsError: weights left random or unused (named), see the module's rule.
        RemoteCodeError: the model needs its own code.
    """
    if model_class is None:
        from transformers import AutoModel as model_class
    with loading_reports() as reports:
        try:
            with _refusing_remote_code(source):
                model = model_class.from_pretrained(source, **kwargs, **NO_REMOTE_CODE)
        except RuntimeError:  # transformers raises on mismatched shapes after its report: name the keys
            if not allow_random_weights:
                check_reports(reports, source, new_heads)
            raise
    if not allow_random_weights:
        check_reports(reports, source, new_heads)
    return model


def load_sentence_transformer(path: str, *, device: str | None = None, allow_random_weights: bool = False):
    """``SentenceTransformer(path, device=device, trust_remote_code=False)``, its transformer's weights
    checked as in :func:`load_model`."""
    from sentence_transformers import SentenceTransformer

    with loading_reports() as reports, _refusing_remote_code(str(path)):
        st = SentenceTransformer(str(path), device=device, **NO_REMOTE_CODE)
    if not allow_random_weights:
        check_reports(reports, str(path))
    return st


def st_transformer_kwargs() -> dict:
    """Keyword arguments of sentence-transformers' ``Transformer`` module that pass
    ``trust_remote_code=False`` to each of its config, model and tokenizer loads."""
    return {"config_kwargs": dict(NO_REMOTE_CODE), "model_kwargs": dict(NO_REMOTE_CODE),
            "processor_kwargs": dict(NO_REMOTE_CODE)}
