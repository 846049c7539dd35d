"""WordNet, Open Multilingual Wordnet and MUSE lexicons (cached): the BTSR set's translation pairs and the
segmentation vocabulary of unsegmented languages (:mod:`xalign.measures.btsr.pairdata`)."""

from __future__ import annotations

import functools

from xalign.data import datasets
from xalign.data.corpora import muse_pairs
from xalign.data.words import UNSEGMENTED, valid_word


@functools.lru_cache(maxsize=2)
def wordnet_synsets():
    from xalign.data.wordnet import read_wordnet_data

    return read_wordnet_data(datasets.fetch_many("wordnet", "data.*"))


OMW_FILES = {"zh": "cmn/wn-data-cmn.tab", "es": "spa/wn-data-spa.tab"}


@functools.lru_cache(maxsize=4)
def omw_lemmas(lang: str) -> dict[str, list[str]]:
    """OMW lemmas per synset for ``lang`` (zh: Chinese Open Wordnet; es: MCR)."""
    from xalign.data.wordnet import read_omw

    if lang not in OMW_FILES:
        raise ValueError(f"no Open Multilingual Wordnet file declared for {lang!r} (have {sorted(OMW_FILES)})")
    return read_omw(datasets.fetch("omw", OMW_FILES[lang]))


@functools.lru_cache(maxsize=8)
def cached_muse_pairs(src: str, tgt: str, split: str = "0-5000") -> list[tuple[str, str]]:
    """MUSE pairs (``split``: "0-5000", "5000-6500" or "" for the full file); Chinese made Simplified."""
    return muse_pairs(f"{src}-{tgt}", split)


@functools.lru_cache(maxsize=4)
def segmentation_vocabulary(lang: str) -> frozenset[str] | None:
    """Words for max-match segmentation of unsegmented languages: OMW lemmas and MUSE words (Simplified)."""
    if lang not in UNSEGMENTED:
        return None
    vocab = {w for ws in omw_lemmas(lang).values() for w in ws if valid_word(w, lang)}
    vocab |= {t for _, t in cached_muse_pairs("en", lang, "") if valid_word(t, lang)}
    return frozenset(vocab)


