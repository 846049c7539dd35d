"""BLI dictionaries and candidate vocabularies: MUSE and the Sinhala-English dictionaries.

- MUSE (Conneau et al. 2018; CC BY-NC 4.0): ``{src}-{tgt}.0-5000.txt`` (train,
  5000 source words) and ``{src}-{tgt}.5000-6500.txt`` (test, 1500 source
  words), English paired with de, es, fr, it, ja, ru, ta, tr, zh; read with
  :func:`xalign.data.corpora.muse_pairs` (Chinese made Simplified).
- Sinhala-English (Wickramasinghe and de Silva 2023; MIT): train/test splits
  built with MUSE's criteria for two fastText vocabularies, ``wiki`` and
  ``cc`` (``{variant}_{src}-{tgt}_{trainset|testset}_1500_5000_200k.txt``),
  and the full wiki dictionaries in both directions.

Vocabularies: wordfreq's top-N list where wordfreq has one; for Sinhala
(which wordfreq does not cover) the paper's own candidate list, the top N of
fastText's Sinhala Wikipedia vocabulary (79,030 words in frequency order, as
the authors' repository ships it). :func:`sinhala_dictionary_vocabulary`, the
Sinhala words of all the dictionary files (test splits included), is the list
this chapter used before; it is kept only to measure how much it inflated
precision (every gold target is then a candidate).
"""

from __future__ import annotations

import re

from xalign.data.corpora import muse_pairs
from xalign.data.datasets import fetch, get
from xalign.data.readers import read_dictionary
from xalign.data.wordvectors import clean_words, dictionary_vocabulary, frequency_vocabulary

MUSE_LANGUAGES = ("de", "es", "fr", "it", "ja", "ru", "ta", "tr", "zh")
SPLITS = ("train", "test")
SINHALA_VARIANTS = ("wiki", "cc")


def _check(src: str, tgt: str, split: str) -> None:
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    if "en" not in (src, tgt) or src == tgt:
        raise ValueError(f"dictionaries pair English with another language, got {src}-{tgt}")


def _muse_split(src: str, tgt: str, split: str) -> list[tuple[str, str]]:
    """MUSE train (0-5000) or test (5000-6500) pairs for ``src``-``tgt``.

    Read through :func:`xalign.data.corpora.muse_pairs`, so Chinese words are made
    Simplified (MUSE's zh files are largely Traditional; wordfreq's zh list,
    our candidate vocabulary, is Simplified).
    """
    _check(src, tgt, split)
    other = tgt if src == "en" else src
    if other not in MUSE_LANGUAGES:
        raise ValueError(f"no MUSE dictionary for {src}-{tgt} here (languages: {', '.join(MUSE_LANGUAGES)})")
    return muse_pairs(f"{src}-{tgt}", split)


def sinhala_dictionary(src: str, tgt: str, split: str, variant: str = "wiki") -> list[tuple[str, str]]:
    """Sinhala-English train or test pairs (``variant``: ``"wiki"`` or ``"cc"``)."""
    _check(src, tgt, split)
    if "si" not in (src, tgt):
        raise ValueError(f"{src}-{tgt} is not a Sinhala pair")
    if variant not in SINHALA_VARIANTS:
        raise ValueError(f"variant must be one of {SINHALA_VARIANTS}, got {variant!r}")
    return read_dictionary(fetch("sinhala_en_dict", f"all_data/{variant}_{src}-{tgt}_{split}set_1500_5000_200k.txt"))


def bli_dictionary(src: str, tgt: str, split: str, sinhala_variant: str = "wiki") -> list[tuple[str, str]]:
    """The train or test dictionary of a direction: Sinhala-English for si, MUSE otherwise."""
    if "si" in (src, tgt):
        return sinhala_dictionary(src, tgt, split, sinhala_variant)
    return _muse_split(src, tgt, split)


SINHALA_FASTTEXT_WORDS = "all_data/wiki.si.vec_words.txt"
SINHALA_VOCABULARIES = ("fasttext", "dictionaries")


def sinhala_fasttext_vocabulary(n: int | None = None) -> list[str]:
    """The ``n`` most frequent words of fastText's Sinhala Wikipedia vectors (all 79,030 for None / 0).

    The paper's Sinhala candidate list. Cleaned like every vocabulary
    (:func:`xalign.data.wordvectors.clean_words`); fastText's list is already
    lower-cased and keeps its foreign-script tokens, which pruning removes.
    """
    path = fetch("sinhala_en_dict", SINHALA_FASTTEXT_WORDS)
    words = clean_words(path.read_text(encoding="utf-8").splitlines())
    return words[:n] if n else words


def sinhala_dictionary_vocabulary(n: int | None = None) -> list[str]:
    """The Sinhala words of every Sinhala-English dictionary file, in order of first appearance.

    The full wiki Si-En dictionary comes first (its Sinhala source words are
    in fastText frequency order), then the full En-Si one, then the splits,
    test splits included: every gold target is a candidate. Not the paper's
    candidate list (see :func:`sinhala_fasttext_vocabulary`); kept to measure
    what using it did to precision.
    """
    first = ("all_data/wiki-si-en.txt", "all_data/wiki-en-si.txt")
    files = [f for f in get("sinhala_en_dict").files("all_data/*.txt") if f != SINHALA_FASTTEXT_WORDS]
    files = sorted(files, key=lambda f: (first.index(f) if f in first else len(first), f))
    dicts, sides = [], []
    for f in files:
        m = re.search(r"(en|si)-(en|si)", f.rsplit("/", 1)[-1])
        if m is None or m.group(1) == m.group(2):
            raise ValueError(f"cannot tell the direction of Sinhala dictionary file {f!r}")
        src = m.group(1)
        dicts.append(read_dictionary(fetch("sinhala_en_dict", f)))
        sides.append(0 if src == "si" else 1)
    return dictionary_vocabulary(dicts, sides, n)


def vocabulary(lang: str, n: int | None, sinhala: str = "fasttext") -> list[str]:
    """Candidate words of ``lang``: wordfreq's top ``n``; for Sinhala fastText's top ``n``.

    ``sinhala="dictionaries"`` gives the old Sinhala list
    (:func:`sinhala_dictionary_vocabulary`) instead.
    """
    if lang == "si":
        if sinhala not in SINHALA_VOCABULARIES:
            raise ValueError(f"sinhala must be one of {SINHALA_VOCABULARIES}, got {sinhala!r}")
        return sinhala_fasttext_vocabulary(n) if sinhala == "fasttext" else sinhala_dictionary_vocabulary(n)
    if not n:
        raise ValueError(f"give the vocabulary size n for {lang!r}")
    return frequency_vocabulary(lang, n)
