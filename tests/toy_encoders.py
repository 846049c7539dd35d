"""A toy sentence encoder with MTEB's protocol (``encode(texts) -> (n, d)``) for the card's tests."""

import zlib

import numpy as np


class CharGrams:
    """Hashed character trigram counts, (n, 64) float32.

    The hash is stable across processes (crc32, not Python's salted ``hash``), and the class has no
    revision, so its vectors are never read from (or written to) the shared embedding cache.
    """

    def __init__(self, name: str = "toy-stable-chargrams"):
        self.name = name

    def encode(self, texts):
        out = np.full((len(texts), 64), 1e-3, np.float32)
        for i, t in enumerate(texts):
            for j in range(len(t) - 2):
                out[i, zlib.crc32(t[j : j + 3].encode()) % 64] += 1
        return out
