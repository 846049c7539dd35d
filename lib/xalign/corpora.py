"""Named parallel corpora and dictionaries, as (source, target) sentence lists.

Thin, declared-data-only helpers so chapters ask for "WMT19 de-en" rather
than for file paths.
"""

from __future__ import annotations

from . import datasets
from .readers import dictionary_map, read_dictionary, read_parallel

WMT_YEARS = {"wmt19": "newstest2019", "wmt21": "newstest2021"}


def wmt_newstest(corpus: str, pair: str) -> list[tuple[str, str]]:
    """Sentence pairs of a WMT news test set for ``pair`` ("de-en": German source, English target).

    ``wmt19``: the de-en, ru-en, zh-en test sets. ``wmt21``: both translation
    directions of de/ru/zh with English are used (the en-xx direction swapped),
    so a pair gets every sentence pair of that language pair.
    """
    src, tgt = pair.split("-")
    if corpus == "wmt19":
        return read_parallel(datasets.fetch("wmt19", f"{pair}/newstest2019.{src}"),
                             datasets.fetch("wmt19", f"{pair}/newstest2019.{tgt}"))
    if corpus == "wmt21":
        out = []
        for a, b in ((src, tgt), (tgt, src)):
            name = f"newstest2021.{a}-{b}"
            ds = datasets.get("wmt21")
            refs = ds.files(f"references/{name}.ref.A.{b}")
            if not refs:
                continue
            sides = read_parallel(datasets.fetch("wmt21", f"sources/{name}.src.{a}"),
                                  datasets.fetch("wmt21", refs[0]))
            out += sides if a == src else [(t, s) for s, t in sides]
        if not out:
            raise ValueError(f"wmt21 has no test set for {pair}")
        return out
    raise ValueError(f"unknown corpus {corpus!r}; known: {sorted(WMT_YEARS)}")


def parallel_corpus(corpora: list[str], pair: str, max_sentences: int | None = None) -> list[tuple[str, str]]:
    """Concatenation of named corpora for ``pair``, truncated to ``max_sentences``."""
    out = []
    for c in corpora:
        out += wmt_newstest(c, pair)
    return out[:max_sentences] if max_sentences else out


def muse_dictionary(pair: str, split: str = "full") -> dict[str, set[str]]:
    """A MUSE dictionary as {source word: {translations}}; split: full, train (0-5000), test (5000-6500)."""
    suffix = {"full": "", "train": ".0-5000", "test": ".5000-6500"}
    if split not in suffix:
        raise ValueError(f"split must be one of {sorted(suffix)}, got {split!r}")
    return dictionary_map(read_dictionary(datasets.fetch("muse", f"{pair}{suffix[split]}.txt")))


# gold word alignments: pair -> (data set, text file, links file, reverse the sides?)
GOLD_ALIGNMENTS = {
    "en-de": ("gold_alignments_deen", "test.de-en", "deen.talp", True),
    "en-fr": ("gold_alignments", "enfr.src-tgt", "enfr.gold", False),
    "ro-en": ("gold_alignments", "roen.src-tgt", "roen.gold", False),
    "zh-en": ("gold_alignments", "zhen.src-tgt", "zhen.gold", False),
}


def gold_alignment(pair: str):
    """Gold-aligned test sentences for ``pair`` (sides ordered as the pair's name)."""
    from .readers import read_gold_alignment

    if pair not in GOLD_ALIGNMENTS:
        raise ValueError(f"no gold alignments for {pair!r}; known: {sorted(GOLD_ALIGNMENTS)}")
    name, text, links, reverse = GOLD_ALIGNMENTS[pair]
    return read_gold_alignment(datasets.fetch(name, text), datasets.fetch(name, links), reverse=reverse)


def europarl_fr_en() -> list[tuple[str, str]]:
    """The mirrored Europarl v7 fr-en sample as (English, French) pairs."""
    return read_parallel(datasets.fetch("europarl_fr_en", "europarl-v7.fr-en.en"),
                         datasets.fetch("europarl_fr_en", "europarl-v7.fr-en.fr"))
