"""Parallel text from the mirrored corpora, pooled and de-duplicated.

Sources (all English-X, English first):

- ``xnli``: XNLI dev and test (XTREME format, line-parallel across 15
  languages); the premise and the hypothesis columns are both parallel
  sentences. Each premise is repeated for three hypotheses; duplicates go.
- ``wmt21``: WMT newstest2021, both directions where they exist (en-zh and
  zh-en, de, ru; no Spanish), reference A.
- ``tatoeba``: the Tatoeba test pairs (1000 per language).
- ``europarl``: the Europarl v7 fr-en sample (French only).

:func:`load_parallel` keeps the first occurrence of every source sentence
and of every target sentence, so no sentence appears in two pairs: the
BTSR builder relies on this for its non-parallel guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import datasets
from .readers import DataFormatError, read_parallel

SOURCES = ("xnli", "wmt21", "tatoeba", "europarl")
ISO3 = {"zh": "cmn", "es": "spa", "de": "deu", "fr": "fra", "ru": "rus", "ar": "ara", "bg": "bul",
        "el": "ell", "hi": "hin", "sw": "swh", "th": "tha", "tr": "tur", "ur": "urd", "vi": "vie",
        "ja": "jpn", "it": "ita"}


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
    """Premise and hypothesis pairs of two line-parallel XNLI files (2 or 3 tab columns)."""
    src = src_path.read_text(encoding="utf-8").splitlines()
    tgt = tgt_path.read_text(encoding="utf-8").splitlines()
    if len(src) != len(tgt):
        raise DataFormatError(f"{src_path} has {len(src)} lines but {tgt_path} has {len(tgt)}")
    out = []
    for n, (a, b) in enumerate(zip(src, tgt), 1):
        ca, cb = a.split("\t"), b.split("\t")
        for path, cols in ((src_path, ca), (tgt_path, cb)):
            if len(cols) not in (2, 3):
                raise DataFormatError(f"{path}:{n}: expected premise<TAB>hypothesis[<TAB>label], "
                                      f"found {len(cols)} columns")
        out.append((ca[0].strip(), cb[0].strip()))
        out.append((ca[1].strip(), cb[1].strip()))
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
        ds = datasets.get("wmt21")
        pairs = []
        for a, b in ((src, tgt), (tgt, src)):
            s_file, r_file = f"sources/newstest2021.{a}-{b}.src.{a}", f"references/newstest2021.{a}-{b}.ref.A.{b}"
            if s_file in ds.checksums and r_file in ds.checksums:
                got = read_parallel(datasets.fetch("wmt21", s_file), datasets.fetch("wmt21", r_file))
                pairs += got if a == src else [(e, x) for x, e in got]
        return pairs, "" if pairs else f"newstest2021 has no {src}-{tgt} pair"
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
        ds = datasets.get("europarl_fr_en")
        en = [f for f in ds.files() if f.endswith(".en")]
        fr = [f for f in ds.files() if f.endswith(".fr")]
        if len(en) != 1 or len(fr) != 1:
            return [], f"unexpected Europarl files {ds.files()}"
        return read_parallel(datasets.fetch("europarl_fr_en", en[0]), datasets.fetch("europarl_fr_en", fr[0])), ""
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
