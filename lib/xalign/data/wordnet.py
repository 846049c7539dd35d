"""Readers for Princeton WordNet 3.0 database files and Open Multilingual Wordnet tabs.

WordNet ``data.noun`` / ``data.verb`` / ``data.adj`` / ``data.adv`` lines are
``offset lex_filenum ss_type w_cnt word lex_id [word lex_id ...] p_cnt ... | gloss``
(``w_cnt`` two hexadecimal digits); the license header lines start with two
spaces. Open Multilingual Wordnet ``wn-data-<lang>.tab`` files have one
``<offset>-<pos><TAB><lang>:lemma<TAB><lemma>`` per line (``lemma`` alone in
some wordnets), after a ``#`` header. Synsets are keyed ``"<offset>-<pos>"``
with adjective satellites (``s``) written ``a``, as OMW does.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from xalign.data.lines import read_lines
from xalign.data.readers import DataFormatError

POS_OF_FILE = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
_MARKER = re.compile(r"\([a-z]+\)$")  # adjective markers: galore(ip), elect(p)


@dataclass(frozen=True)
class Synset:
    """A WordNet synset: ``key`` "<offset>-<pos>", its lemmas in file order (lower-cased, ``_`` for spaces)."""

    key: str
    pos: str
    lemmas: tuple[str, ...]


def synset_key(offset: str, pos: str) -> str:
    return f"{offset}-{'a' if pos == 's' else pos}"


def read_wordnet_data(paths) -> dict[str, Synset]:
    """Synsets of one or more WordNet ``data.*`` files, by key."""
    out: dict[str, Synset] = {}
    for path in paths:
        path = Path(path)
        n_read = 0
        for n, line in enumerate(read_lines(path, "WordNet data lines"), 1):
            if line.startswith("  ") or not line.strip():
                continue  # license header
            fields = line.split(" | ", 1)[0].split()
            try:
                offset, _lexfile, ss_type, w_cnt = fields[:4]
                count = int(w_cnt, 16)
            except (ValueError, IndexError):
                raise DataFormatError(f"{path}:{n}: expected 'offset lex_filenum ss_type w_cnt ...', "
                                      f"got {line[:80]!r}") from None
            if len(offset) != 8 or not offset.isdigit() or ss_type not in "nvasr":
                raise DataFormatError(f"{path}:{n}: bad synset offset {offset!r} or type {ss_type!r}")
            words = fields[4 : 4 + 2 * count : 2]
            if len(words) != count or count == 0:
                raise DataFormatError(f"{path}:{n}: w_cnt says {count} words, found {len(words)}")
            lemmas = tuple(_MARKER.sub("", w).lower() for w in words)
            key = synset_key(offset, ss_type)
            out[key] = Synset(key, "a" if ss_type == "s" else ss_type, lemmas)
            n_read += 1
        if n_read == 0:
            raise DataFormatError(f"{path}: no synset lines (expected a WordNet data.* file)")
    return out


def read_omw(path: str | Path) -> dict[str, list[str]]:
    """Lemmas per synset key from an OMW ``wn-data-<lang>.tab`` file (other relations are skipped)."""
    path = Path(path)
    out: dict[str, list[str]] = defaultdict(list)
    for n, line in enumerate(read_lines(path, "OMW tab lines"), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) != 3 or not re.fullmatch(r"\d{8}-[nvars]", cols[0]):
            raise DataFormatError(f"{path}:{n}: expected '<8-digit offset>-<pos><TAB>relation<TAB>value', "
                                  f"got {line[:80]!r}")
        if cols[1] != "lemma" and not cols[1].endswith(":lemma"):
            continue
        lemma = cols[2].strip()
        if lemma:
            offset, pos = cols[0].split("-")
            key = synset_key(offset, pos)
            if lemma not in out[key]:
                out[key].append(lemma)
    if not out:
        raise DataFormatError(f"{path}: no lemma lines")
    return dict(out)


def lemma_index(synsets: dict[str, Synset]) -> dict[str, list[str]]:
    """English lemma -> its synset keys (in file order)."""
    out: dict[str, list[str]] = defaultdict(list)
    for key, syn in synsets.items():
        for lemma in syn.lemmas:
            out[lemma].append(key)
    return dict(out)
