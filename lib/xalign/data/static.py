"""Static word vectors in fastText ``.vec`` format (e.g. aligned fastText + RCSLS).

Aligned fastText vectors cannot be downloaded here; readers who have them
pass the ``.vec`` paths and the static-baseline rows run.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xalign.data.readers import DataFormatError


@dataclass
class StaticVectors:
    """Words and their vectors: ``vectors`` is (n_words, dim) float32, rows follow ``words``."""

    words: list[str]
    vectors: np.ndarray

    def __post_init__(self):
        self.index = {w: i for i, w in enumerate(self.words)}

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def lookup(self, words: list[str]) -> np.ndarray:
        """Vectors of ``words`` (KeyError names the first unknown word)."""
        try:
            return self.vectors[[self.index[w] for w in words]]
        except KeyError as exc:
            raise KeyError(f"word {exc.args[0]!r} has no vector") from None

    def sentence(self, words: list[str]) -> np.ndarray:
        """Mean vector of the known words (zeros if none is known)."""
        idx = [self.index[w] for w in words if w in self.index]
        return self.vectors[idx].mean(0) if idx else np.zeros(self.vectors.shape[1], np.float32)


def read_vec(path: str | Path, max_words: int | None = None, lowercase: bool = True) -> StaticVectors:
    """Read a ``.vec`` file: a ``count dim`` header, then ``word v1 ... vdim`` per line.

    Keeps the first occurrence of each (lower-cased) word, in file order
    (fastText files are sorted by frequency), up to ``max_words``.
    """
    path = Path(path)
    words, rows = [], []
    seen = set()
    with open(path, encoding="utf-8", errors="replace") as fh:
        header = fh.readline().split()
        if len(header) != 2 or not all(h.isdigit() for h in header):
            raise DataFormatError(f"{path}:1: expected a '<count> <dim>' header, got {' '.join(header)!r}")
        dim = int(header[1])
        for n, line in enumerate(fh, 2):
            parts = line.rstrip("\n").rstrip(" ").split(" ")
            if len(parts) != dim + 1:
                raise DataFormatError(f"{path}:{n}: expected a word and {dim} numbers, got {len(parts) - 1}")
            word = parts[0].lower() if lowercase else parts[0]
            if word in seen:
                continue
            seen.add(word)
            words.append(word)
            rows.append(np.asarray(parts[1:], dtype=np.float32))
            if max_words and len(words) >= max_words:
                break
    if not words:
        raise DataFormatError(f"{path}: no vectors")
    return StaticVectors(words, np.vstack(rows))
