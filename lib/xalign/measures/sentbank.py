"""Sentence vectors held in memory for a fixed set of texts, served as SentEval batchers.

A :class:`SentenceBank` runs the encoder once over its texts (every layer;
the encoder caches on disk) and keeps the layers and poolings asked for, so
pooling and layer studies cost one model pass per text set. ``bank.batcher(
pooling, layer)`` is the ``texts -> (n, dim)`` function :mod:`xalign.measures.probe`
evaluates.

:func:`cbow_bank` is the bag-of-words baseline: the mean of the model's input
(sub-word) embedding rows over a text's tokens, with no position or
token-type embeddings, no LayerNorm, no special tokens and no input prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from xalign.core.hashing import text_hash
from xalign.core.layers import parse_layers
from xalign.core.memo import cached
from xalign.core.precision import precision_of
from xalign.measures.probe import Batcher


def unique(texts: Sequence[str]) -> list[str]:
    """Texts without repeats, in first-occurrence order.

    Args:
        texts: any sequence of strings.

    Returns:
        The distinct texts.
    """
    return list(dict.fromkeys(texts))


def encoder_identity(enc) -> dict:
    """What an encoder's vectors depend on: its cache keys' fields and its batching (a memo key part).

    Args:
        enc: an :class:`~xalign.core.encoders.Encoder`.

    Returns:
        A JSON-able dict.
    """
    return {"model": enc.name, "revision": enc.revision, "prefix": enc.prefix, "max_length": enc.max_length,
            "precision": precision_of(enc), "chunk_size": enc.chunk_size,
            "batch_tokens": enc.batch_tokens}


def memo_bank(name: str, enc, texts: Sequence[str], key: dict, compute, code=()):
    """``compute()`` memoised in the encoder's cache under the encoder, the texts and ``key``.

    A warm rerun then reads the bank (only the layers kept) instead of every all-layer cache chunk.

    Args:
        name: what is computed (``"sentbank.from_encoder"``).
        enc: the encoder (its identity and class enter the key; its cache stores the value).
        texts: the texts the bank holds.
        key: the other parameters (JSON-able).
        compute: () -> the value; its code and what it calls enter the key.
        code: further functions or classes it calls through objects.

    Returns:
        The value, computed or read back.
    """
    full = {**encoder_identity(enc), "texts": text_hash(texts), **key}
    return cached(name, full, compute, code=[type(enc), *code], store=enc.cache)


@dataclass
class SentenceBank:
    """``vectors[name]``: (n_texts, n_layers_kept, dim) with ``layers[name]`` the layer numbers kept."""

    texts: list[str]
    vectors: dict[str, np.ndarray]
    layers: dict[str, list[int]]
    index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self):
        self.index = {t: i for i, t in enumerate(self.texts)}
        if len(self.index) != len(self.texts):
            raise ValueError("a SentenceBank's texts must be distinct")
        for name, v in self.vectors.items():
            if v.shape[0] != len(self.texts) or v.shape[1] != len(self.layers[name]):
                raise ValueError(f"{name}: vectors {v.shape} do not fit {len(self.texts)} texts "
                                 f"x {len(self.layers[name])} layers")

    @classmethod
    def from_encoder(cls, enc, texts: Sequence[str], poolings: Sequence[str] = ("mean", "first"),
                     keep_layers: Sequence[int] | None = None, block: int = 4096,
                     desc: str | None = None, dtype=np.float32, memo: bool = True) -> SentenceBank:
        """Encode ``texts`` (all layers, one pass, cached) and keep ``keep_layers``.

        The encoder is called on blocks of ``block`` texts (a multiple of its cache chunk) so memory
        stays bounded and cache entries are the same as for one call.

        Args:
            enc: the encoder.
            texts: the texts (repeats dropped).
            poolings: sentence poolings kept.
            keep_layers: layers kept (any :func:`xalign.core.layers.parse_layers` spec; default all).
            block: texts per encoder call.
            desc: progress bar label.
            dtype: ``np.float16`` halves the memory of a large bank (batchers still return float32).
            memo: keep the bank itself in the encoder's cache (:func:`memo_bank`).

        Returns:
            The bank: ``vectors[pooling]`` (n_texts, n_layers_kept, dim).
        """
        texts = unique(texts)
        keep = parse_layers(keep_layers, enc.n_layers)
        if memo:
            key = {"poolings": list(poolings), "keep": keep, "dtype": np.dtype(dtype).str}
            return memo_bank("sentbank.from_encoder", enc, texts, key, lambda: cls.from_encoder(
                enc, texts, poolings, keep, block, desc, dtype, memo=False))
        block = max(enc.chunk_size, block - block % enc.chunk_size)
        parts: dict[str, list[np.ndarray]] = {p: [] for p in poolings}
        for s in range(0, len(texts), block):
            out = enc.encode(texts[s : s + block], poolings=tuple(poolings), layers=None, desc=desc)
            for p in poolings:
                parts[p].append(out[p][:, keep, :].astype(dtype))
        empty = np.zeros((0, len(keep), enc.dim), np.float32)
        vectors = {p: (np.concatenate(v) if v else empty) for p, v in parts.items()}
        return cls(texts, vectors, {p: list(keep) for p in poolings})

    def merge(self, other: SentenceBank) -> SentenceBank:
        """A bank with both banks' texts (same poolings and layers required).

        Args:
            other: another bank.

        Returns:
            A new bank: this one's texts, then ``other``'s new ones.
        """
        if set(self.vectors) != set(other.vectors) or self.layers != other.layers:
            raise ValueError("merge needs banks with the same poolings and layers")
        new = [t for t in other.texts if t not in self.index]
        rows = [other.index[t] for t in new]
        vec = {k: np.concatenate([v, other.vectors[k][rows]]) for k, v in self.vectors.items()}
        return SentenceBank(self.texts + new, vec, dict(self.layers))

    def array(self, name: str, layer: int, texts: Sequence[str]) -> np.ndarray:
        """Vectors of one pooling and layer.

        Args:
            name: the pooling.
            layer: a kept layer (negative: from the last kept).
            texts: texts of the bank.

        Returns:
            (len(texts), dim) float32.
        """
        if name not in self.vectors:
            raise KeyError(f"no pooling {name!r} in this bank (has {sorted(self.vectors)})")
        layers = self.layers[name]
        if layer < 0:
            layer = max(layers) + 1 + layer if layers else layer
        if layer not in layers:
            raise KeyError(f"layer {layer} of {name!r} not kept (kept: {layers})")
        missing = [t for t in texts if t not in self.index]
        if missing:
            raise KeyError(f"{len(missing)} texts are not in the bank, e.g. {missing[0][:60]!r}")
        rows = [self.index[t] for t in texts]
        return self.vectors[name][rows, layers.index(layer), :].astype(np.float32)

    def batcher(self, name: str, layer: int = -1) -> Batcher:
        """A SentEval-style batcher serving one pooling and layer.

        Args:
            name: the pooling.
            layer: a kept layer (``-1``: the last kept).

        Returns:
            texts -> (n, dim) float32.
        """
        def batch(texts: list[str]) -> np.ndarray:
            return self.array(name, layer, texts)
        batch.__name__ = f"{name}@{layer}"
        return batch


def cbow_vectors(enc, texts: Sequence[str]) -> np.ndarray:
    """Mean of the input embedding rows of each text's sub-word tokens.

    Tokens come from the model's tokenizer on the raw text (no input prefix, no special tokens).

    Args:
        enc: the encoder (its model's input embeddings).
        texts: the n texts.

    Returns:
        (n, dim) float32; a text with no token gets a zero vector.
    """
    emb = enc.model.get_input_embeddings().weight.detach().float().cpu().numpy()
    ids = enc.tokenizer(list(texts), add_special_tokens=False)["input_ids"]
    out = np.zeros((len(ids), emb.shape[1]), np.float32)
    for i, seq in enumerate(ids):
        if seq:
            out[i] = emb[seq].mean(0)
    return out


def cbow_bank(enc, texts: Sequence[str], memo: bool = True) -> SentenceBank:
    """A bank with one pooling, ``"cbow"`` (layer 0): see :func:`cbow_vectors`.

    Args:
        enc: the encoder.
        texts: the texts (repeats dropped).
        memo: keep the bank in the encoder's cache.

    Returns:
        The bank: ``vectors["cbow"]`` (n_texts, 1, dim).
    """
    texts = unique(texts)
    compute = lambda: SentenceBank(texts, {"cbow": cbow_vectors(enc, texts)[:, None, :]}, {"cbow": [0]})
    return memo_bank("sentbank.cbow_bank", enc, texts, {}, compute) if memo else compute()


def union_batcher(banks: Sequence[SentenceBank], name: str, layer: int = -1) -> Batcher:
    """A batcher over several banks (e.g. one per language): each text from the first bank holding it.

    Args:
        banks: the banks, searched in order.
        name: the pooling.
        layer: a kept layer (``-1``: the last kept).

    Returns:
        texts -> (n, dim) float32.
    """
    banks = list(banks)

    def batch(texts: list[str]) -> np.ndarray:
        out = None
        for i, t in enumerate(texts):
            for b in banks:
                if t in b.index:
                    v = b.array(name, layer, [t])[0]
                    break
            else:
                raise KeyError(f"text not in any bank: {t[:60]!r}")
            if out is None:
                out = np.zeros((len(texts), v.shape[0]), np.float32)
            out[i] = v
        return out if out is not None else np.zeros((0, 0), np.float32)

    batch.__name__ = f"{name}@{layer}"
    return batch
