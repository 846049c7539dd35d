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


class MeaningEncoder:
    """A two-layer sentence encoder for retrieval tests; texts look like ``"de:7"`` (language: meaning id).

    Layer 0 is noise seeded by the whole text; layer 1 is a vector seeded by the meaning id alone, so a
    sentence and its translation coincide there, except for the meaning ids in ``broken`` (noise at both
    layers: those sentences cannot be retrieved). ``prefix`` is only recorded. (n, 2, 8) float32.
    """

    name, n_layers, dim = "fake", 2, 8

    def __init__(self, prefix: str = "", broken=frozenset()):
        self.prefix, self.broken, self.calls = prefix, frozenset(broken), 0

    def encode_sentences(self, texts, pooling="mean", layers=None):
        import hashlib

        self.calls += 1
        out = []
        for t in texts:
            meaning = int(t.split(":")[1])
            noise = np.random.default_rng(int(hashlib.md5(t.encode()).hexdigest()[:8], 16)).normal(size=self.dim)
            clean = noise if meaning in self.broken else np.random.default_rng(meaning).normal(size=self.dim)
            out.append(np.stack([noise, clean]))
        x = np.array(out, np.float32)
        return x if layers is None else x[:, layers]
