"""Stemmers from maintained packages, one per language, with a common interface.

- Snowball stemmers through PyStemmer (``import Stemmer``, the C build of
  the Snowball algorithms): en, es, fr, de, it, ru, tr, ta and more.
- Sinhala through ``sinling`` (on PyPI; its data ships inside the wheel):
  ``"sinling-splitter"`` is sinling's corpus-based word splitter
  (``sinling.word_splitter.split(word)["base"]``), the stemmer the paper's
  released evaluation code used; ``"sinling-stemmer"`` is sinling's
  dictionary + suffix-list ``SinhalaStemmer`` (fast; a different stemmer).

sinling's splitter scans its 1.2 million-word corpus once per candidate
split (about a second per word); :class:`SinhalaSplitter` computes exactly
the same splits from the same data, counting suffixes for a whole batch in
one pass, so a BLI run stems tens of thousands of words in seconds.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import Protocol

SNOWBALL_LANGUAGES = {
    "ar": "arabic", "ca": "catalan", "da": "danish", "de": "german", "el": "greek", "en": "english",
    "es": "spanish", "eu": "basque", "fi": "finnish", "fr": "french", "ga": "irish", "hi": "hindi",
    "hu": "hungarian", "hy": "armenian", "id": "indonesian", "it": "italian", "lt": "lithuanian",
    "ne": "nepali", "nl": "dutch", "no": "norwegian", "nb": "norwegian", "pt": "portuguese",
    "ro": "romanian", "ru": "russian", "sr": "serbian", "sv": "swedish", "ta": "tamil", "tr": "turkish",
    "yi": "yiddish",
}
SINHALA_METHODS = ("sinling-splitter", "sinling-stemmer")


class WordStemmer(Protocol):
    name: str

    def stem(self, word: str) -> str: ...

    def stem_many(self, words: Iterable[str]) -> list[str]: ...


class _Base:
    name = "identity"

    def stem(self, word: str) -> str:
        return self.stem_many([word])[0]

    def stem_many(self, words: Iterable[str]) -> list[str]:
        return list(words)

    def __call__(self, word: str) -> str:
        return self.stem(word)

    def __repr__(self) -> str:
        return f"<stemmer {self.name}>"


class IdentityStemmer(_Base):
    """Returns every word unchanged (languages without a stemmer)."""


class SnowballStemmer(_Base):
    """A Snowball stemmer from PyStemmer for ``lang`` (ISO 639-1)."""

    def __init__(self, lang: str):
        import Stemmer

        if lang not in SNOWBALL_LANGUAGES:
            raise ValueError(f"no Snowball stemmer for {lang!r} (have: {', '.join(sorted(SNOWBALL_LANGUAGES))})")
        self._stemmer = Stemmer.Stemmer(SNOWBALL_LANGUAGES[lang])
        self.name = f"snowball-{SNOWBALL_LANGUAGES[lang]}"

    def stem_many(self, words: Iterable[str]) -> list[str]:
        return self._stemmer.stemWords(list(words))


class SinhalaSuffixStemmer(_Base):
    """sinling's ``SinhalaStemmer``: stem dictionary first, then the longest known suffix."""

    name = "sinling-stemmer"

    def __init__(self):
        from sinling import SinhalaStemmer

        self._stemmer = SinhalaStemmer()

    def stem_many(self, words: Iterable[str]) -> list[str]:
        return [self._stemmer.stem(w)[0] for w in words]


class SinhalaSplitter(_Base):
    """sinling's corpus-based splitter (``word_splitter.split(w)["base"]``), batched.

    For every split point ``i`` of a word, the base ``w[:i]`` (or ``w[:i] + '්'``
    if that form is more frequent and the affix does not start with '්') is
    scored by the harmonic mean of (corpus frequency of the base + 1) and
    (number of corpus words ending in the affix + 1); the best-scoring base
    (the first, on ties) is the stem. Words shorter than two characters, which
    sinling cannot split, are their own stem.
    """

    name = "sinling-splitter"
    VIRAMA = "\u0dca"  # ්

    def __init__(self, data: dict | None = None):
        # sinling's data (1.2 million words, ~0.7 GB) is read on the first word to stem, not here:
        # a rerun that finds every BLI cell cached never needs it
        self._data = data
        self._freq = None
        self._suffix_counts: dict[str, int] = {}
        self._cache: dict[str, str] = {}
        self._reversed: list[str] | None = None

    def _load(self) -> None:
        if self._freq is None:
            data = self._data if self._data is not None else _sinling_split_data()
            self._freq = data["dist"]
            # only the reversed, sorted word list is kept (suffix counts); the corpus word list is dropped
            self._reversed = sorted(w[::-1] for w in data["words"])
            self._data = None

    def _count_suffixes(self, suffixes: set[str]) -> None:
        """Number of corpus words ending in each suffix (two bisections in the reversed, sorted words)."""
        todo = suffixes - self._suffix_counts.keys()
        if not todo:
            return
        rev = self._reversed
        for s in todo:
            r = s[::-1]
            self._suffix_counts[s] = bisect.bisect_left(rev, r + "\U0010ffff") - bisect.bisect_left(rev, r)

    def stem_many(self, words: Iterable[str]) -> list[str]:
        words = list(words)
        new = {w for w in words if w not in self._cache}
        if new:
            self._load()
        self._count_suffixes({w[i:] for w in new for i in range(1, len(w))})
        for w in new:
            self._cache[w] = self._split(w)
        return [self._cache[w] for w in words]

    def _split(self, text: str) -> str:
        best, best_score = text, 0.0
        for i in range(1, len(text)):
            base, affix = text[:i], text[i:]
            freq = self._freq[base]
            if not affix.startswith(self.VIRAMA):
                alt = base + self.VIRAMA
                if self._freq[alt] > freq:
                    freq, base = self._freq[alt], alt
            score = harmonic_mean2(freq + 1, self._suffix_counts[affix] + 1)
            if score > best_score:
                best, best_score = base, score
        return best


def harmonic_mean2(a: int, b: int) -> float:
    """``statistics.harmonic_mean([a, b])`` for positive ints, to the last bit, without Fractions (20x faster).

    Like the library: the exact sum of the floats 1/a and 1/b, then 2 / sum rounded once
    (int / int true division is correctly rounded).
    """
    p1, q1 = (1 / a).as_integer_ratio()
    p2, q2 = (1 / b).as_integer_ratio()
    return (2 * q1 * q2) / (p1 * q2 + p2 * q1)


def _sinling_split_data() -> dict:
    import os
    import pickle

    from sinling.config import RESOURCE_PATH

    path = os.path.join(RESOURCE_PATH, "stat.split.pickle")
    if not os.path.exists(path):
        raise FileNotFoundError(f"sinling's splitter data {path} is missing (reinstall sinling)")
    with open(path, "rb") as fh:
        return pickle.load(fh)


def get_stemmer(lang: str, method: str | None = None) -> WordStemmer:
    """A stemmer for ``lang``: Snowball (PyStemmer), sinling for Sinhala, or ``"identity"``.

    ``method``: ``None`` (the default for the language: Snowball, or
    ``"sinling-splitter"`` for si), ``"snowball"``, ``"sinling-splitter"``,
    ``"sinling-stemmer"`` or ``"identity"``.
    """
    if method == "identity":
        return IdentityStemmer()
    if lang == "si":
        method = method or "sinling-splitter"
        if method == "sinling-splitter":
            return SinhalaSplitter()
        if method == "sinling-stemmer":
            return SinhalaSuffixStemmer()
        raise ValueError(f"Sinhala stemmer must be one of {SINHALA_METHODS} or 'identity', got {method!r}")
    if method not in (None, "snowball"):
        raise ValueError(f"stemmer {method!r} is not available for {lang!r} (use 'snowball' or 'identity')")
    if lang not in SNOWBALL_LANGUAGES:
        raise ValueError(f"no stemmer for {lang!r}: Snowball covers {', '.join(sorted(SNOWBALL_LANGUAGES))}, "
                         f"sinling covers si; pass method='identity' to match exact words only")
    return SnowballStemmer(lang)
