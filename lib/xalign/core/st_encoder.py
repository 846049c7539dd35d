"""Sentence-transformers models with their own modules, and any object with ``encode(texts)``.

A sentence-transformers (ST) model is a transformer followed by modules:
Pooling (mean, CLS, ...), often Dense and Normalize. Loading only the
transformer (``AutoModel``) drops them, so the "sentence embedding" one gets
is not the model's. :class:`STEncoder` is an :class:`~xalign.core.encoders.Encoder`
(every hidden layer, word spans, cache) that also gives the model's own output:
``encode_output(texts)`` runs the transformer and then the ST modules after it,
so it equals ``SentenceTransformer.encode`` (tests check this on a tiny model).

:class:`ProtocolEncoder` wraps any object with an ``encode(texts)`` method
returning one vector per text (MTEB's encoder protocol) as a one-layer encoder:
sentence-level measures only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.devices import is_gpu
from xalign.core.encoders import Encoder
from xalign.core.hashing import text_hash
from xalign.core.model_checks import check_tokenizer, check_transformer_config, read_modules_json
from xalign.core.prefixes import documented_prefix

#: the layer label of a model's own sentence embedding (ST output, or a one-vector encoder)
OUTPUT = "out"


def st_modules():
    """sentence-transformers' module classes (``Transformer``, ``Pooling``, ``Dense``, ``Normalize``, ...):
    ``sentence_transformers.sentence_transformer.modules`` from version 6 (where importing
    ``sentence_transformers.models`` is deprecated), ``sentence_transformers.models`` before."""
    try:
        from sentence_transformers.sentence_transformer import modules
    except ImportError:  # sentence-transformers < 6
        from sentence_transformers import models as modules
    return modules


def st_model_dir(name: str) -> Path | None:
    """The local directory of a sentence-transformers model (one with ``modules.json``), else None.

    Hub ids are looked up in the Hugging Face cache only (no network).
    """
    path = Path(name).expanduser()
    if path.is_dir():
        return path if (path / "modules.json").exists() else None
    try:
        from huggingface_hub import try_to_load_from_cache

        hit = try_to_load_from_cache(name, "modules.json")
    except Exception:  # noqa: BLE001 - not a hub id, or no cache: not an ST model we can load offline
        return None
    return Path(hit).parent if isinstance(hit, str) else None


@dataclass
class STEncoder(Encoder):
    """An :class:`Encoder` over an ST model's transformer, plus the model's own output."""

    st_modules: list = field(default_factory=list)  # the modules after the transformer
    st_dim: int = 0
    st_max_length: int = 512  # the ST model's max_seq_length (its own output truncates there)

    def encode_output(self, texts: Sequence[str]) -> np.ndarray:
        """The model's own sentence embeddings (transformer + its Pooling/Dense/Normalize); (n, st_dim)."""
        texts = list(texts)
        out = []
        for s in range(0, len(texts), self.chunk_size):
            chunk = texts[s : s + self.chunk_size]
            key = self._key("st-output", [self.n_layers - 1], text_hash(chunk))
            key["st_max_length"] = self.st_max_length
            got = self.cache.get(key)
            if got is None:
                got = {"x": self._st_forward(chunk)}
                self.cache.put(key, **got)
            out.append(got["x"])
        return np.concatenate(out) if out else np.zeros((0, self.st_dim), np.float32)

    def _st_forward(self, texts: list[str]) -> np.ndarray:
        import torch

        keep, self.max_length = self.max_length, self.st_max_length
        try:
            ids, _ = self._tokenize(texts)
        finally:
            self.max_length = keep
        order = np.argsort([len(x) for x in ids], kind="stable")[::-1]
        res = np.zeros((len(ids), self.st_dim), np.float32)
        pad_id = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else 0
        pos = 0
        with torch.inference_mode():
            while pos < len(order):
                size = max(1, self.batch_tokens // max(len(ids[order[pos]]), 1))
                batch = order[pos : pos + size]
                pos += size
                T = max(len(ids[b]) for b in batch)
                input_ids = torch.full((len(batch), T), pad_id, dtype=torch.long)
                attn = torch.zeros((len(batch), T), dtype=torch.long)
                for r, b in enumerate(batch):
                    input_ids[r, : len(ids[b])] = torch.tensor(ids[b])
                    attn[r, : len(ids[b])] = 1
                input_ids, attn = input_ids.to(self.device), attn.to(self.device)
                hidden = self.model(input_ids=input_ids, attention_mask=attn).last_hidden_state
                features = {"input_ids": input_ids, "attention_mask": attn, "token_embeddings": hidden}
                for module in self.st_modules:
                    features = module(features)
                res[batch] = features["sentence_embedding"].float().cpu().numpy()
        return res


def load_st_encoder(name: str, path: Path, *, prefix: str | None, device: str, half: bool | None,
                    cache: EmbeddingCache | None, progress: bool, revision: str, allow_random_weights: bool = False,
                    **kwargs) -> STEncoder:
    """Load an ST model from its directory: the transformer as an :class:`Encoder`, the rest as modules.

    The transformer module's ``config.json`` is checked first (values in range, no code of its own:
    :func:`xalign.core.model_checks.check_transformer_config`); the load passes ``trust_remote_code=False``
    and its weights are checked (:func:`xalign.core.pretrained.load_sentence_transformer`;
    ``allow_random_weights`` for tests' random models).
    """
    from xalign.core.pretrained import load_sentence_transformer

    for module in read_modules_json(path):  # a damaged modules.json is named, with its folder
        folder = Path(path) / str(module["path"])
        if str(module["type"]).endswith("Transformer") and (folder / "config.json").is_file():
            check_transformer_config(folder)
    st = load_sentence_transformer(str(path), device=device, allow_random_weights=allow_random_weights)
    modules = list(st)
    first = modules[0]
    model = getattr(first, "auto_model", None)
    if model is None:
        raise ValueError(f"{name}: the first module of this sentence-transformers model is "
                         f"{type(first).__name__}, not a Transformer; xalign needs its hidden states")
    tokenizer = first.tokenizer
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"{name}: word pooling needs a fast tokenizer (character offsets)")
    check_tokenizer(tokenizer, name)
    if half is None:
        half = is_gpu(device)
    if half:
        st.half()
    st.eval()
    if prefix is None:
        prefix = documented_prefix(name)
    st_max_length = int(getattr(first, "max_seq_length", None) or 512)
    dim = int(st.get_embedding_dimension() if hasattr(st, "get_embedding_dimension")
              else st.get_sentence_embedding_dimension())
    return STEncoder(name=name, model=model, tokenizer=tokenizer, revision=revision, prefix=prefix, device=device,
                     cache=cache or EmbeddingCache(), progress=progress, st_max_length=st_max_length,
                     st_modules=modules[1:], st_dim=dim, **kwargs)


def st_module_names(path: str | Path) -> list[str]:
    """The module types an ST directory declares (``modules.json``), e.g. ['Transformer', 'Pooling', 'Dense']."""
    spec = read_modules_json(Path(path))
    return [m["type"].rsplit(".", 1)[-1] for m in spec]


@dataclass
class ProtocolEncoder:
    """Any object with ``encode(texts) -> (n, d)`` as a one-layer sentence encoder (MTEB's protocol).

    Vectors are cached only when the object names itself (``name``) and its
    version (``revision``); otherwise every call runs the object.
    """

    obj: object
    name: str = ""
    cache: EmbeddingCache = field(default_factory=EmbeddingCache)
    n_layers: int = 1
    prefix: str = ""

    def __post_init__(self):
        if not callable(getattr(self.obj, "encode", None)):
            raise TypeError(f"{type(self.obj).__name__} has no encode(texts) method")
        self.name = self.name or str(getattr(self.obj, "name", "") or type(self.obj).__name__)
        self.revision = str(getattr(self.obj, "revision", "") or "unknown")
        self._cacheable = hasattr(self.obj, "name") and hasattr(self.obj, "revision")
        self.dim = 0

    def encode_output(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        key = {"model": self.name, "revision": self.revision, "pooling": "protocol", "inputs": text_hash(texts)}
        got = self.cache.get(key) if self._cacheable else None
        if got is None:
            x = self.obj.encode(texts)
            if hasattr(x, "detach"):
                x = x.detach().cpu().numpy()
            x = np.asarray(x, np.float32)
            if x.ndim != 2 or len(x) != len(texts):
                raise ValueError(f"{self.name}.encode returned shape {x.shape} for {len(texts)} texts; "
                                 f"expected (n_texts, dim)")
            got = {"x": x}
            if self._cacheable:
                self.cache.put(key, **got)
        self.dim = got["x"].shape[1]
        return got["x"]

    def encode_sentences(self, texts: Sequence[str], pooling: str = "mean", layers=None) -> np.ndarray:
        if layers not in (None, 0, -1, [0], [-1], (0,), (-1,)):
            raise ValueError(f"{self.name} has a single output; got layers={layers!r}")
        return self.encode_output(texts)[:, None, :]
