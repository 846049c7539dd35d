"""Named parallel corpora and dictionaries.

Chapters ask for "WMT19 de-en" or "the MUSE en-zh dictionary", not for file
paths; everything here reads declared data through :mod:`xalign.data.datasets`.

- :func:`wmt_newstest`, :func:`parallel_corpus`: WMT news test sets as
  (source, target) sentence pairs;
- :func:`load_parallel`: several sources pooled and de-duplicated
  (:class:`ParallelCorpus`; XNLI, WMT21, Tatoeba, Europarl), every source
  and target sentence kept once, which the BTSR builder relies on;
- :func:`muse_pairs` / :func:`muse_dictionary`: MUSE dictionaries, Chinese
  made Simplified (the MUSE zh files are Traditional, the corpora Simplified);
- :func:`gold_alignment`, :func:`europarl_fr_en`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xalign.data import datasets
from xalign.data.readers import DataFormatError, dictionary_map, read_dictionary, read_gold_alignment, read_parallel

WMT_SETS = {"wmt19": "newstest2019", "wmt21": "newstest2021"}
SOURCES = ("xnli", "wmt21", "tatoeba", "europarl")
#: ISO 639-1 -> 639-3 (Tatoeba file names): the 36 Tatoeba languages of the calibrated-retrieval paper's Table 5.
ISO3 = {
    "af": "afr", "ar": "ara", "bg": "bul", "bn": "ben", "de": "deu", "el": "ell", "es": "spa",
    "et": "est", "eu": "eus", "fa": "pes", "fi": "fin", "fr": "fra", "he": "heb", "hi": "hin",
    "hu": "hun", "id": "ind", "it": "ita", "ja": "jpn", "jv": "jav", "ka": "kat", "kk": "kaz",
    "ko": "kor", "ml": "mal", "mr": "mar", "nl": "nld", "pt": "por", "ru": "rus", "sw": "swh",
    "ta": "tam", "te": "tel", "th": "tha", "tl": "tgl", "tr": "tur", "ur": "urd", "vi": "vie",
    "zh": "cmn",
}


# ------------------------------------------------------------------ WMT news test sets


def wmt_newstest(corpus: str, pair: str) -> list[tuple[str, str]]:
    """Sentence pairs of a WMT news test set for ``pair`` ("de-en": German source, English target).

    ``wmt19``: the de-en, ru-en, zh-en test sets. ``wmt21``: both translation
    directions of the language pair that exist (the other one swapped), so a
    pair gets every sentence pair of that language pair.
    """
    src, tgt = pair.split("-")
    if corpus == "wmt19":
        return read_parallel(datasets.fetch("wmt19", f"{pair}/newstest2019.{src}"),
                             datasets.fetch("wmt19", f"{pair}/newstest2019.{tgt}"))
    if corpus == "wmt21":
        ds = datasets.get("wmt21")
        out = []
        for a, b in ((src, tgt), (tgt, src)):
            s_file = f"sources/newstest2021.{a}-{b}.src.{a}"
            r_file = f"references/newstest2021.{a}-{b}.ref.A.{b}"
            if s_file in ds.checksums and r_file in ds.checksums:
                sides = read_parallel(datasets.fetch("wmt21", s_file), datasets.fetch("wmt21", r_file))
                out += sides if a == src else [(t, s) for s, t in sides]
        if not out:
            raise ValueError(f"wmt21 has no test set for {pair}")
        return out
    raise ValueError(f"unknown corpus {corpus!r}; known: {sorted(WMT_SETS)}")


def parallel_corpus(corpora: list[str], pair: str, max_sentences: int | None = None) -> list[tuple[str, str]]:
    """Concatenation of named WMT corpora for ``pair``, truncated to ``max_sentences``."""
    out = []
    for c in corpora:
        out += wmt_newstest(c, pair)
    return out[:max_sentences] if max_sentences else out


def europarl_fr_en() -> list[tuple[str, str]]:
    """The mirrored Europarl v7 fr-en sample as (English, French) pairs."""
    return read_parallel(datasets.fetch("europarl_fr_en", "europarl-v7.fr-en.en"),
                         datasets.fetch("europarl_fr_en", "europarl-v7.fr-en.fr"))


# ------------------------------------------------------------------ pooled English-X text


@dataclass
class ParallelCorpus:
    """Sentence pairs: ``src[i]`` translates ``tgt[i]``; ``origin[i]`` names the source corpus."""

    src_lang: str
    tgt_lang: str
    src: list[str] = field(default_factory=list)
    tgt: list[str] = field(default_factory=list)
    origin: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # source -> why it gave nothing

    def __len__(self) -> int:
        return len(self.src)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for o in self.origin:
            out[o] = out.get(o, 0) + 1
        return out


def read_xnli_pairs(src_path, tgt_path) -> list[tuple[str, str]]:
    """Premise and hypothesis translation pairs of two line-parallel XNLI files (2 or 3 tab columns).

    Rows are parsed by :func:`xalign.data.taskdata.read_xnli` (LF/CRLF line ends
    only, labels checked where present)."""
    from xalign.data.taskdata import read_xnli

    src, tgt = read_xnli(src_path, labelled=None), read_xnli(tgt_path, labelled=None)
    if len(src) != len(tgt):
        raise DataFormatError(f"{src_path} has {len(src)} lines but {tgt_path} has {len(tgt)}")
    out = []
    for a, b in zip(src, tgt):
        out.append((a.premise.strip(), b.premise.strip()))
        out.append((a.hypothesis.strip(), b.hypothesis.strip()))
    return out


def _source_pairs(source: str, src: str, tgt: str) -> tuple[list[tuple[str, str]], str]:
    """(pairs, why-empty) of one source for src-tgt (src must be English for wmt21/tatoeba/europarl)."""
    if source == "xnli":
        pairs = []
        for split in ("dev", "test"):
            pairs += read_xnli_pairs(datasets.fetch("xnli", f"{split}-{src}.tsv"),
                                     datasets.fetch("xnli", f"{split}-{tgt}.tsv"))
        return pairs, ""
    if src != "en":
        return [], f"{source} is read with English as the source language only"
    if source == "wmt21":
        try:
            return wmt_newstest("wmt21", f"{src}-{tgt}"), ""
        except ValueError:
            return [], f"newstest2021 has no {src}-{tgt} pair"
    if source == "tatoeba":
        code = ISO3.get(tgt)
        name = f"tatoeba.{code}-eng"
        if code is None or f"{name}.eng" not in datasets.get("tatoeba").checksums:
            return [], f"no Tatoeba file for {tgt}"
        return read_parallel(datasets.fetch("tatoeba", f"{name}.eng"),
                             datasets.fetch("tatoeba", f"{name}.{code}")), ""
    if source == "europarl":
        if tgt != "fr":
            return [], "the Europarl sample is fr-en only"
        return europarl_fr_en(), ""
    raise ValueError(f"unknown parallel source {source!r}; known: {SOURCES}")


def load_parallel(src_lang: str, tgt_lang: str, sources=("xnli", "wmt21", "tatoeba"),
                  max_per_source: int | dict | None = None) -> ParallelCorpus:
    """Pool the sources' sentence pairs in order, keeping each source and target sentence once.

    ``max_per_source`` keeps the first pairs of each source (an int for all,
    or a dict by source name; small runs).
    """
    out = ParallelCorpus(src_lang, tgt_lang)
    seen_src, seen_tgt = set(), set()
    for source in sources:
        pairs, why = _source_pairs(source, src_lang, tgt_lang)
        if not pairs:
            out.skipped[source] = why
            continue
        cap = max_per_source.get(source) if isinstance(max_per_source, dict) else max_per_source
        kept = 0
        for s, t in pairs:
            if not s or not t or s in seen_src or t in seen_tgt:
                continue
            seen_src.add(s)
            seen_tgt.add(t)
            out.src.append(s)
            out.tgt.append(t)
            out.origin.append(source)
            kept += 1
            if cap and kept >= cap:
                break
    if not out.src:
        raise ValueError(f"no parallel text for {src_lang}-{tgt_lang} in {list(sources)}: {out.skipped}")
    return out


# ------------------------------------------------------------------ dictionaries and gold alignments


def to_simplified(word: str) -> str:
    """Traditional -> Simplified Chinese, character by character (hanziconv)."""
    from hanziconv import HanziConv

    return HanziConv.toSimplified(word)


MUSE_SPLITS = {"full": "", "train": ".0-5000", "test": ".5000-6500",
               "": "", "0-5000": ".0-5000", "5000-6500": ".5000-6500"}


def muse_pairs(pair: str, split: str = "full") -> list[tuple[str, str]]:
    """MUSE word pairs for ``pair`` ("en-zh"); split: full, train (0-5000), test (5000-6500).

    Chinese words are converted to Simplified characters (duplicates removed).
    """
    if split not in MUSE_SPLITS:
        raise ValueError(f"split must be one of full, train, test, got {split!r}")
    src, tgt = pair.split("-")
    pairs = read_dictionary(datasets.fetch("muse", f"{pair}{MUSE_SPLITS[split]}.txt"))
    if "zh" in (src, tgt):
        pairs = [(to_simplified(s) if src == "zh" else s, to_simplified(t) if tgt == "zh" else t)
                 for s, t in pairs]
        pairs = list(dict.fromkeys(pairs))
    return pairs


def muse_dictionary(pair: str, split: str = "full") -> dict[str, set[str]]:
    """A MUSE dictionary as {source word: {translations}} (see :func:`muse_pairs`)."""
    return dictionary_map(muse_pairs(pair, split))


# gold word alignments: pair -> (data set, text file, links file, reverse the sides?)
GOLD_ALIGNMENTS = {
    "en-de": ("gold_alignments_deen", "test.de-en", "deen.talp", True),
    "en-fr": ("gold_alignments", "enfr.src-tgt", "enfr.gold", False),
    "ro-en": ("gold_alignments", "roen.src-tgt", "roen.gold", False),
    "zh-en": ("gold_alignments", "zhen.src-tgt", "zhen.gold", False),
}


def gold_alignment(pair: str):
    """Gold-aligned test sentences for ``pair`` (sides ordered as the pair's name)."""
    if pair not in GOLD_ALIGNMENTS:
        raise ValueError(f"no gold alignments for {pair!r}; known: {sorted(GOLD_ALIGNMENTS)}")
    name, text, links, reverse = GOLD_ALIGNMENTS[pair]
    return read_gold_alignment(datasets.fetch(name, text), datasets.fetch(name, links), reverse=reverse)
