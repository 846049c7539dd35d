"""Type-level vectors: ``avg_type`` (mean over contexts) and ``iso_type`` (the word fed alone).

Part of the BTSR method (chapter 2, the card); see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xalign.data.static import StaticVectors
from xalign.data.words import Token
from xalign.measures.btsr.spaces import Space, resolve_layers


@dataclass
class TypeVectors(StaticVectors):
    """One vector per word type (``vectors[index[word]]``), with sentence means over the known words."""

    def sentence_means(self, tokens: list[list[Token]], sents) -> np.ndarray:
        """Average type vector of each sentence's known words (zeros if none); (n, dim)."""
        out = np.zeros((len(sents), self.vectors.shape[1]), np.float32)
        for r, k in enumerate(sents):
            idx = [self.index[t.text] for t in tokens[k] if t.text in self.index]
            if idx:
                out[r] = self.vectors[idx].mean(0)
        return out

    def lookup_or_zero(self, words: list[str]) -> np.ndarray:
        """Vectors of ``words``; a word without a vector gets the zero vector (see :meth:`coverage`)."""
        out = np.zeros((len(words), self.vectors.shape[1]), np.float32)
        known = [r for r, w in enumerate(words) if w in self.index]
        if known:
            out[known] = self.vectors[[self.index[words[r]] for r in known]]
        return out

    def coverage(self, words: list[str]) -> float:
        """Fraction of ``words`` (occurrences) that have a vector."""
        return float(np.mean([w in self.index for w in words])) if len(words) else float("nan")


def average_types(space: Space, sents, max_contexts: int = 1000, min_count: int = 1,
                  rng: np.random.Generator | None = None) -> TypeVectors:
    """``avg_type``: each word's mean contextual vector over up to ``max_contexts`` random occurrences in ``sents``."""
    import scipy.sparse as sp

    rng = rng or np.random.default_rng(0)
    sents = np.asarray(sents)
    rows = np.concatenate([np.arange(space.offsets[k], space.offsets[k + 1]) for k in sents]) \
        if len(sents) else np.zeros(0, int)
    words = [space.tokens[k][i].text for k in sents for i in range(len(space.tokens[k]))]
    if not words:
        return TypeVectors([], np.zeros((0, space.vectors.shape[1]), np.float32))
    vocab = sorted(set(words))
    wid = {w: i for i, w in enumerate(vocab)}
    ids = np.array([wid[w] for w in words])
    counts = np.bincount(ids, minlength=len(vocab))
    order = rng.permutation(len(ids))  # random occurrence order, then the first max_contexts per word
    keep = occurrence_ranks(ids, order) < max_contexts
    M = sp.csr_matrix((np.ones(int(keep.sum()), np.float32), (ids[keep], np.arange(len(ids))[keep])),
                      shape=(len(vocab), len(ids)))
    n = np.asarray(M.sum(1)).ravel()
    vec = (M @ space.vectors[rows]) / n[:, None]
    ok = counts >= min_count
    return TypeVectors([w for w, o in zip(vocab, ok) if o], vec[ok].astype(np.float32))


def occurrence_ranks(ids: np.ndarray, order: np.ndarray) -> np.ndarray:
    """For each occurrence p, how many occurrences of the same id come before it in ``order``
    (a permutation of the positions); (n,) int."""
    ids, order = np.asarray(ids), np.asarray(order)
    in_order = ids[order]
    by_id = np.argsort(in_order, kind="stable")  # grouped by id, each group in visiting order
    sorted_ids = in_order[by_id]
    rank_sorted = np.arange(len(ids)) - np.searchsorted(sorted_ids, sorted_ids, side="left")
    ranks = np.empty(len(ids), int)
    ranks[order[by_id]] = rank_sorted
    return ranks


def isolated_types(encoder, words, layers=None) -> TypeVectors:
    """``iso_type``: each word fed to the encoder alone (sub-words and layers averaged)."""
    words = sorted(set(words))
    if not words:
        return TypeVectors([], np.zeros((0, encoder.dim), np.float32))
    vec = encoder.encode_words(words, [[(0, len(w))] for w in words], layers=resolve_layers(encoder, layers),
                               layer_mean=True)[:, 0]
    return TypeVectors(words, vec)


