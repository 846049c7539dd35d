"""Representations of words in their sentences, gathered for word pairs.

One forward pass per sentence yields the sentence vectors and the vectors of
every word span a chapter needs from that sentence; pairs then index into it.
:class:`EncodedPairs` holds one language pair's sides at a time (every layer of
a pair's words and sentences is about 2 GB for the default profile), reading
the others back from the embedding cache when they are asked for again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from xalign.core.memory import freed_memory_returned, return_freed_memory
from xalign.data.word_pairs import WordPair
from xalign.data.words import Token


@dataclass
class EncodedSide:
    """One side of a corpus: sentence vectors per pooling and the needed word vectors.

    ``sentences[pooling]`` is (n_sentences, L, dim); ``words`` is (n_words, L, dim)
    with ``row[(sentence, start, end)]`` giving a word's row (None and {} for a side
    read without its words, see :meth:`EncodedPairs.part`).
    """

    sentences: dict[str, np.ndarray]
    words: np.ndarray | None
    row: dict[tuple[int, int, int], int]

    def rows_of(self, items: list[tuple[int, Token]]) -> np.ndarray:
        """Rows of ``words`` holding (sentence index, token) items; (n_items,) int64."""
        return np.array([self.row[(s, t.start, t.end)] for s, t in items], dtype=np.int64)

    def gather(self, items: list[tuple[int, Token]], layer: int | None = None) -> np.ndarray:
        """Word vectors for (sentence index, token) items; (n_items, L, dim), or (n_items, dim) at
        the ``layer``-th stored layer (an index into the stored layers, no copy of the others)."""
        rows = self.rows_of(items)
        return self.words[rows] if layer is None else self.words[rows, layer]


def encode_side(encoder, sentences: list[str], needed: dict[int, set[tuple[int, int]]] | None,
                poolings=("mean", "first", "tokens"), layers=None, desc: str = "encode") -> EncodedSide:
    """Encode every sentence once, with the word spans ``needed[sentence index]`` (None: no words)."""
    spans = None if needed is None else spans_of(needed, len(sentences))
    out = encoder.encode(sentences, spans=spans, poolings=poolings, layers=layers, desc=desc)
    row, r = {}, 0
    for i, sp in enumerate(spans or ()):
        for s, e in sp:
            row[(i, s, e)] = r
            r += 1
    return EncodedSide({p: out[p] for p in poolings}, out.get("words"), row)


PARTS = ("all", "sentences", "words")


class EncodedPairs(Mapping):
    """Language pair -> (source side, target side), encoded when first asked for; one pair in memory.

    ``corpus[lp]`` is the pair's list of (source, target) sentences and ``pairs[lp]`` the word
    pairs whose words are needed. The first access encodes the pair (every layer of ``layers``);
    asking for another pair drops the one held, and a later access reads it back from the
    encoder's embedding cache (the same arrays, no forward pass). Peak memory is therefore one
    pair's vectors, not every pair's: keep no reference to a side beyond the cell that uses it.
    :meth:`part` reads only the sentence vectors or only the word vectors of a pair (the word
    vectors are about three quarters of it), which is all a scoring needs.
    """

    def __init__(self, encoder, corpus: Mapping[str, list[tuple[str, str]]],
                 pairs: Mapping[str, list[WordPair]], layers=None,
                 poolings=("mean", "first", "tokens")):
        missing = sorted(set(pairs) - set(corpus))
        if missing:
            raise KeyError(f"word pairs given for {missing}, but no corpus")
        self.encoder, self.corpus, self.pairs = encoder, corpus, pairs
        self.layers, self.poolings = layers, tuple(poolings)
        self._held: tuple[str, str, tuple[EncodedSide, EncodedSide]] | None = None  # (pair, part, sides)
        self.loads: dict[str, int] = dict.fromkeys(pairs, 0)  # encodings or cache reads per pair

    def __getitem__(self, lp: str) -> tuple[EncodedSide, EncodedSide]:
        return self.part(lp, "all")

    def part(self, lp: str, part: str = "all") -> tuple[EncodedSide, EncodedSide]:
        """(source, target) of ``lp`` with its sentence vectors and word vectors (``"all"``), only
        its sentence vectors (``"sentences"``) or only its word vectors (``"words"``)."""
        if part not in PARTS:
            raise ValueError(f"part must be one of {PARTS}, got {part!r}")
        if lp not in self.pairs:
            raise KeyError(f"{lp!r}: not one of the encoded pairs {list(self.pairs)}")
        if self._held is not None and self._held[0] == lp and self._held[1] in ("all", part):
            return self._held[2]
        self.release()  # drop the pair held before the next one is read (else both are in memory)
        with freed_memory_returned():  # encoding chunks of changing sizes would otherwise fragment the heap
            sides = tuple(encode_side(self.encoder, texts, needed, poolings, self.layers, desc=f"{lp} {name}")
                          for name, texts, needed, poolings in self._inputs(lp, part))
        self.loads[lp] += 1
        self._held = (lp, part, sides)
        return sides

    def release(self) -> None:
        """Drop the pair held (its memory goes back to the system); a later access reads it back."""
        self._held = None
        return_freed_memory()

    def encode_all(self) -> None:
        """Encode every pair not yet in the encoder's cache (the cold run's forward passes); a pair
        already cached is not read (a warm run reads nothing here).

        Only the cache is filled: each side's vectors are dropped as soon as they are encoded, so at
        most one side is in memory (holding both sides of the last pair made this chapter's peak).
        """
        self.release()
        for lp in self.pairs:
            if self.cached(lp):
                continue
            with freed_memory_returned():
                for name, texts, needed, poolings in self._inputs(lp, "all"):
                    encode_side(self.encoder, texts, needed, poolings, self.layers, desc=f"{lp} {name}")
            self.loads[lp] += 1

    def cached(self, lp: str) -> bool:
        """True when both sides of ``lp`` (sentence and word vectors) are in the encoder's cache;
        False for an encoder without a cache probe (``cached``)."""
        probe = getattr(self.encoder, "cached", None)
        return probe is not None and all(probe(texts, spans_of(needed, len(texts)), poolings, self.layers)
                                         for _, texts, needed, poolings in self._inputs(lp, "all"))

    def _inputs(self, lp: str, part: str):
        """(side name, texts, word spans needed or None, poolings) of each side of ``lp`` for ``part``."""
        for i, (side, name) in enumerate((("src", "source"), ("tgt", "target"))):
            yield (name, [p[i] for p in self.corpus[lp]],
                   None if part == "sentences" else spans_needed(self.pairs[lp], side),
                   () if part == "words" else self.poolings)

    def __iter__(self) -> Iterator[str]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)


def sides_of(encoded: Mapping[str, tuple], lp: str, part: str = "all") -> tuple[EncodedSide, EncodedSide]:
    """(source, target) of ``lp``: only ``part`` of it (see :meth:`EncodedPairs.part`) when
    ``encoded`` is an :class:`EncodedPairs`, else ``encoded[lp]`` as it is."""
    return encoded.part(lp, part) if isinstance(encoded, EncodedPairs) else encoded[lp]


def spans_needed(pairs: list[WordPair], side: str) -> dict[int, set[tuple[int, int]]]:
    """Sentence index -> spans of the pairs' words on ``side`` ("src" or "tgt")."""
    need: dict[int, set[tuple[int, int]]] = {}
    for p in pairs:
        sent, tok = (p.src_sent, p.src) if side == "src" else (p.tgt_sent, p.tgt)
        need.setdefault(sent, set()).add((tok.start, tok.end))
    return need


def spans_of(needed: dict[int, set[tuple[int, int]]], n_sentences: int) -> list[list[tuple[int, int]]]:
    """Sorted character spans of each of ``n_sentences`` sentences (what :func:`encode_side` encodes)."""
    return [sorted(needed.get(i, ())) for i in range(n_sentences)]


def pair_vectors(pairs: list[WordPair], src: EncodedSide, tgt: EncodedSide,
                 layer: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(U, V): source and target word vectors of each pair, each (n_pairs, L, dim), or (n_pairs, dim)
    at the ``layer``-th stored layer."""
    U = src.gather([(p.src_sent, p.src) for p in pairs], layer)
    V = tgt.gather([(p.tgt_sent, p.tgt) for p in pairs], layer)
    return U, V


def pair_rows(pairs: list[WordPair], src: EncodedSide, tgt: EncodedSide) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``src.words`` and ``tgt.words`` holding each pair's two words; two (n_pairs,) int64."""
    return src.rows_of([(p.src_sent, p.src) for p in pairs]), tgt.rows_of([(p.tgt_sent, p.tgt) for p in pairs])


def masked_pair_vectors(encoder, pairs: list[WordPair], src_sentences: list[str], tgt_sentences: list[str],
                        layers=None) -> tuple[np.ndarray, np.ndarray]:
    """Vectors of the mask token put in place of each pair's words, one pair per forward pass."""
    U = encoder.encode([src_sentences[p.src_sent] for p in pairs],
                       spans=[[(p.src.start, p.src.end)] for p in pairs], poolings=(),
                       layers=layers, mask=True, desc="encode masked (source)")["words"]
    V = encoder.encode([tgt_sentences[p.tgt_sent] for p in pairs],
                       spans=[[(p.tgt.start, p.tgt.end)] for p in pairs], poolings=(),
                       layers=layers, mask=True, desc="encode masked (target)")["words"]
    return U, V


def cosine_rows(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Row-wise cosine of paired vectors; works on (n, dim) or (n, L, dim)."""
    num = (U * V).sum(-1)
    den = np.linalg.norm(U, axis=-1) * np.linalg.norm(V, axis=-1)
    return num / np.maximum(den, 1e-12)


