"""Readers for the sentence-level data sets: Tatoeba, STS 2017, STS-B, SNLI.

WMT newstest pairs come from :func:`xalign.data.corpora.wmt_newstest`; XNLI
(labelled rows, its language list and labels) from :mod:`xalign.data.taskdata`,
the one XNLI reader.

Every reader checks its input and fails with :class:`~xalign.data.readers.DataFormatError`
naming the file, the line and what was expected. The ``*_pairs`` / ``*_rows``
helpers fetch the declared files through :mod:`xalign.data.datasets` (cache, then
mirror, then the official source) and call the readers.

Language codes are the papers' ISO 639-1 codes; :data:`TATOEBA_ISO3` maps
them to the ISO 639-3 codes of the Tatoeba files (``fa`` is ``pes``,
``sw`` is ``swh``, ``zh`` is ``cmn``, as in XTREME).
"""

from __future__ import annotations

from pathlib import Path

from xalign.data.corpora import ISO3 as TATOEBA_ISO3
from xalign.data.lines import read_lines
from xalign.data.readers import DataFormatError
from xalign.data.taskdata import NLI_LABELS

PAPER_TATOEBA_LANGS = list(TATOEBA_ISO3)


#: STS 2017 tracks by language pair (file stem after ``STS.input.`` / ``STS.gs.``).
STS2017_TRACKS = {
    "ar-ar": "track1.ar-ar", "ar-en": "track2.ar-en", "es-es": "track3.es-es",
    "es-en": "track4a.es-en", "es-en-wmt": "track4b.es-en", "en-en": "track5.en-en",
    "tr-en": "track6.tr-en",
}


def _read_lines(path: str | Path, what: str) -> list[str]:
    """Lines of a UTF-8 file without line ends (CRLF tolerated); error if it has no text."""
    return read_lines(path, what)


# ------------------------------------------------------------------ Tatoeba
def tatoeba_iso3(lang: str) -> str:
    """Tatoeba's ISO 639-3 code for a paper language code (or an ISO 639-3 code itself)."""
    if lang in TATOEBA_ISO3:
        return TATOEBA_ISO3[lang]
    if len(lang) == 3:
        return lang
    raise KeyError(f"no Tatoeba code known for language {lang!r}; known: {', '.join(TATOEBA_ISO3)}")


def read_tatoeba(xx_path: str | Path, en_path: str | Path) -> list[tuple[str, str]]:
    """Line-aligned Tatoeba pairs (sentence in xx, its English translation); no empty lines allowed."""
    xx = _read_lines(xx_path, "one sentence per line")
    en = _read_lines(en_path, "one sentence per line")
    if len(xx) != len(en):
        raise DataFormatError(f"{xx_path} has {len(xx)} lines but {en_path} has {len(en)}: "
                              f"Tatoeba files must be line-aligned")
    for n, (a, b) in enumerate(zip(xx, en), 1):
        if not a.strip() or not b.strip():
            raise DataFormatError(f"{xx_path if not a.strip() else en_path}:{n}: empty sentence")
    return [(a.strip(), b.strip()) for a, b in zip(xx, en)]


def tatoeba_languages() -> list[str]:
    """Every Tatoeba language (ISO 639-3) the ``tatoeba`` data set declares a test pair file for, sorted."""
    import re

    from xalign.data.datasets import datasets

    files = datasets()["tatoeba"].checksums
    return sorted({m.group(1) for f in files if (m := re.fullmatch(r"tatoeba\.([a-z]{3})-eng\.\1", Path(f).name))})


def tatoeba_pairs(lang: str) -> list[tuple[str, str]]:
    """The Tatoeba test pairs (xx, en) of one language (paper or ISO 639-3 code)."""
    from xalign.data.datasets import fetch

    code = tatoeba_iso3(lang)
    return read_tatoeba(fetch("tatoeba", f"tatoeba.{code}-eng.{code}"),
                        fetch("tatoeba", f"tatoeba.{code}-eng.eng"))


# ------------------------------------------------------------------ STS
def read_sts(input_path: str | Path, gold_path: str | Path) -> list[tuple[str, str, float]]:
    """An STS 2017 track: ``sent1<TAB>sent2`` lines and one gold score (0-5) per line.

    The two files must have the same number of lines (the mirror's track 6,
    tr-en, has 500 inputs for 250 scores and is refused here: which 250
    inputs the scores belong to is not recorded).
    """
    inputs = _read_lines(input_path, "'sentence1<TAB>sentence2' per line")
    gold = _read_lines(gold_path, "one similarity score per line")
    if len(inputs) != len(gold):
        raise DataFormatError(f"{input_path} has {len(inputs)} sentence pairs but {gold_path} has "
                              f"{len(gold)} scores: cannot tell which pair each score belongs to")
    out = []
    for n, (line, g) in enumerate(zip(inputs, gold), 1):
        cols = line.split("\t")
        if len(cols) != 2 or not cols[0].strip() or not cols[1].strip():
            raise DataFormatError(f"{input_path}:{n}: expected 2 tab-separated sentences, got {len(cols)} "
                                  f"field(s): {line[:80]!r}")
        try:
            score = float(g)
        except ValueError:
            raise DataFormatError(f"{gold_path}:{n}: expected a number, got {g!r}") from None
        if not 0.0 <= score <= 5.0:
            raise DataFormatError(f"{gold_path}:{n}: score {score} outside 0..5")
        out.append((cols[0].strip(), cols[1].strip(), score))
    return out


def sts2017_pairs(track: str) -> list[tuple[str, str, float]]:
    """STS 2017 pairs with gold scores; ``track`` is a key of :data:`STS2017_TRACKS` (e.g. ``"en-en"``)."""
    from xalign.data.datasets import fetch

    if track not in STS2017_TRACKS:
        raise KeyError(f"unknown STS 2017 track {track!r}; known: {', '.join(STS2017_TRACKS)}")
    stem = STS2017_TRACKS[track]
    return read_sts(fetch("sts2017", f"STS2017.eval.v1.1/STS.input.{stem}.txt"),
                    fetch("sts2017", f"STS2017.gs/STS.gs.{stem}.txt"))


def read_stsbenchmark(path: str | Path) -> list[tuple[str, str, float]]:
    """STS Benchmark ``sts-*.csv``: tab-separated genre, file, year, id, score, sentence1, sentence2.

    Some lines carry two more columns (the sentences' sources); they are
    ignored. The file is not CSV-quoted, so it is split on tabs only.
    """
    out = []
    for n, line in enumerate(_read_lines(path, "STS Benchmark rows"), 1):
        cols = line.split("\t")
        if len(cols) not in (7, 9):
            raise DataFormatError(f"{path}:{n}: expected 7 (or 9) tab-separated fields, got {len(cols)}")
        try:
            score = float(cols[4])
        except ValueError:
            raise DataFormatError(f"{path}:{n}: field 5 should be a score, got {cols[4]!r}") from None
        if not 0.0 <= score <= 5.0 or not cols[5].strip() or not cols[6].strip():
            raise DataFormatError(f"{path}:{n}: expected a 0..5 score and two sentences")
        out.append((cols[5].strip(), cols[6].strip(), score))
    return out


def stsbenchmark_pairs(split: str = "train") -> list[tuple[str, str, float]]:
    """STS Benchmark ``train``, ``dev`` or ``test`` pairs with scores 0..5."""
    from xalign.data.datasets import fetch

    if split not in ("train", "dev", "test"):
        raise ValueError(f"split must be train, dev or test, got {split!r}")
    return read_stsbenchmark(fetch("stsbenchmark", f"sts-{split}.csv"))


# ------------------------------------------------------------------ NLI
def read_nli_columns(premises: str | Path, hypotheses: str | Path,
                     labels: str | Path) -> list[tuple[str, str, str]]:
    """Three line-aligned files (InferSent / e-SNLI layout) -> (premise, hypothesis, label)."""
    s1 = _read_lines(premises, "one premise per line")
    s2 = _read_lines(hypotheses, "one hypothesis per line")
    lab = _read_lines(labels, "one label per line")
    if not len(s1) == len(s2) == len(lab):
        raise DataFormatError(f"{premises}, {hypotheses}, {labels}: {len(s1)}, {len(s2)} and "
                              f"{len(lab)} lines; they must be line-aligned")
    out = []
    for n, (a, b, y) in enumerate(zip(s1, s2, lab), 1):
        if y.strip() not in NLI_LABELS:
            raise DataFormatError(f"{labels}:{n}: expected one of {NLI_LABELS}, got {y!r}")
        out.append((a.strip(), b.strip(), y.strip()))
    return out


def snli_rows(splits=("dev", "test")) -> list[tuple[str, str, str]]:
    """SNLI dev and/or test (the mirror's e-SNLI copy, pre-tokenised): (premise, hypothesis, label)."""
    from xalign.data.datasets import fetch

    out = []
    for split in splits:
        if split not in ("dev", "test"):
            raise ValueError(f"the mirror has SNLI dev and test only, not {split!r}")
        out += read_nli_columns(fetch("snli_devtest", f"s1.{split}"), fetch("snli_devtest", f"s2.{split}"),
                                fetch("snli_devtest", f"labels.{split}"))
    return out
