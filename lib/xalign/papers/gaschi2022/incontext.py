"""Representations of words in their sentences, gathered for word pairs.

One forward pass per sentence yields the sentence vectors and the vectors of
every word span a chapter needs from that sentence; pairs then index into it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xalign.data.words import Token
from xalign.papers.gaschi2022.pairs import WordPair


@dataclass
class EncodedSide:
    """One side of a corpus: sentence vectors per pooling and the needed word vectors.

    ``sentences[pooling]`` is (n_sentences, L, dim); ``words`` is (n_words, L, dim)
    with ``row[(sentence, start, end)]`` giving a word's row.
    """

    sentences: dict[str, np.ndarray]
    words: np.ndarray
    row: dict[tuple[int, int, int], int]

    def rows_of(self, items: list[tuple[int, Token]]) -> np.ndarray:
        """Rows of ``words`` holding (sentence index, token) items; (n_items,) int64."""
        return np.array([self.row[(s, t.start, t.end)] for s, t in items], dtype=np.int64)

    def gather(self, items: list[tuple[int, Token]]) -> np.ndarray:
        """Word vectors for (sentence index, token) items; (n_items, L, dim)."""
        return self.words[self.rows_of(items)]


def encode_side(encoder, sentences: list[str], needed: dict[int, set[tuple[int, int]]],
                poolings=("mean", "first", "tokens"), layers=None, desc: str = "encode") -> EncodedSide:
    """Encode every sentence once, with the word spans ``needed[sentence index]``."""
    spans = [sorted(needed.get(i, ())) for i in range(len(sentences))]
    out = encoder.encode(sentences, spans=spans, poolings=poolings, layers=layers, desc=desc)
    row, r = {}, 0
    for i, sp in enumerate(spans):
        for s, e in sp:
            row[(i, s, e)] = r
            r += 1
    return EncodedSide({p: out[p] for p in poolings}, out["words"], row)


def spans_needed(pairs: list[WordPair], side: str) -> dict[int, set[tuple[int, int]]]:
    """Sentence index -> spans of the pairs' words on ``side`` ("src" or "tgt")."""
    need: dict[int, set[tuple[int, int]]] = {}
    for p in pairs:
        sent, tok = (p.src_sent, p.src) if side == "src" else (p.tgt_sent, p.tgt)
        need.setdefault(sent, set()).add((tok.start, tok.end))
    return need


def merge_needed(*needs: dict[int, set]) -> dict[int, set]:
    out: dict[int, set] = {}
    for need in needs:
        for k, v in need.items():
            out.setdefault(k, set()).update(v)
    return out


def pair_vectors(pairs: list[WordPair], src: EncodedSide, tgt: EncodedSide) -> tuple[np.ndarray, np.ndarray]:
    """(U, V): source and target word vectors of each pair, each (n_pairs, L, dim)."""
    U = src.gather([(p.src_sent, p.src) for p in pairs])
    V = tgt.gather([(p.tgt_sent, p.tgt) for p in pairs])
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


