"""Encoded contextual spaces: every sentence of a corpus side encoded once with the spans of its words.

Part of the BTSR method (chapter 2, the card); see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from xalign.core.layers import parse_layers
from xalign.data.words import Token


@dataclass
class Space:
    """Contextual vectors of every word of a corpus side: ``vectors[offsets[k] + i]`` is word i of sentence k."""

    tokens: list[list[Token]]
    vectors: np.ndarray  # (n_words, dim) float32
    offsets: np.ndarray  # (n_sentences + 1,)

    def rows(self, sents, index) -> np.ndarray:
        return self.offsets[np.asarray(sents)] + np.asarray(index)

    def sentence_means(self, sents) -> np.ndarray:
        """Mean word vector of each sentence (zeros for a sentence without words); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, k in enumerate(sents):
            a, b = self.offsets[k], self.offsets[k + 1]
            if b > a:
                out[r] = self.vectors[a:b].mean(0)
        return out

    def context_means(self, sents, index) -> np.ndarray:
        """Mean vector of the *other* words of each sentence (the word itself left out); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, (k, i) in enumerate(zip(sents, index)):
            a, b = self.offsets[k], self.offsets[k + 1]
            if b - a > 1:
                out[r] = (self.vectors[a:b].sum(0) - self.vectors[a + i]) / (b - a - 1)
        return out


def resolve_layers(encoder, layers) -> list[int]:
    """``"all"``/None: every Transformer layer 1..L (the paper's average, footnote 1); else any layer spec."""
    return parse_layers("transformer" if layers in (None, "all") else layers, encoder.n_layers)


def content_chunks(texts: list[str], mean_size: int = 128, max_size: int = 256) -> list[list[int]]:
    """Split indices of ``texts`` into chunks whose boundaries depend on content only.

    A chunk ends after a text whose hash is 0 modulo ``mean_size`` (or at
    ``max_size``), as in content-defined chunking: a corpus that adds, drops
    or truncates a few sentences still shares every other chunk with the
    original, so the encoder's per-chunk cache is reused across language
    pairs (the English side of XNLI) and across profiles (prefixes).
    """
    chunks, cur = [], []
    for k, t in enumerate(texts):
        cur.append(k)
        h = int(hashlib.sha1(t.encode()).hexdigest()[:8], 16)
        if h % mean_size == 0 or len(cur) >= max_size:
            chunks.append(cur)
            cur = []
    if cur:
        chunks.append(cur)
    return chunks


def encode_space(encoder, texts: list[str], tokens: list[list[Token]], layers=None,
                 desc: str = "encode") -> Space:
    """Encode every sentence once with the spans of all its words (layer-averaged vectors).

    Unique texts, in corpus order, are encoded in content-defined chunks
    (:func:`content_chunks`), each cached by the encoder on its own.
    """
    from xalign.core.progress import bar as progress_bar

    layers = resolve_layers(encoder, layers)
    first: dict[str, int] = {}
    for k, t in enumerate(texts):
        first.setdefault(t, k)
    unique = list(first.values())
    per_text: dict[str, np.ndarray] = {}
    bar = progress_bar(total=len(unique), desc=desc, unit="sent", disable=not encoder.progress, mininterval=30)
    progress, encoder.progress = encoder.progress, False
    try:
        for chunk in content_chunks([texts[k] for k in unique]):
            ks = [unique[c] for c in chunk]
            spans = [[(w.start, w.end) for w in tokens[k]] for k in ks]
            vec = encoder.encode([texts[k] for k in ks], spans=spans, poolings=(), layers=layers,
                                 layer_mean=True)["words"][:, 0]
            pos = 0
            for k, sp in zip(ks, spans):
                per_text[texts[k]] = vec[pos : pos + len(sp)]
                pos += len(sp)
            bar.update(len(ks))
    finally:
        encoder.progress = progress
        bar.close()
    offsets = np.cumsum([0] + [len(t) for t in tokens])
    dim = encoder.dim
    vectors = np.concatenate([per_text[t] for t in texts]) if offsets[-1] else np.zeros((0, dim), np.float32)
    return Space(tokens, vectors.astype(np.float32, copy=False), offsets)


