"""Readers for bilingual dictionaries, parallel text and gold word alignments.

Every reader checks its input and fails with the file, the line and what was
expected (wrong column count, mismatched line counts, empty file).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from xalign.data.lines import DataFormatError, read_lines

_lines = read_lines  # every reader here reads lines the same way (xalign.data.lines)
__all__ = ["DataFormatError"]


def read_dictionary(path: str | Path, lowercase: bool = True) -> list[tuple[str, str]]:
    """Word pairs of a bilingual dictionary: one ``source<TAB or space>target`` per line.

    Blank lines are skipped; any other line must have exactly two columns.
    Returns the pairs in file order (duplicates removed).
    """
    pairs, seen = [], set()
    for n, line in enumerate(_lines(path, "a dictionary: source and target word per line"), 1):
        if not line.strip():
            continue
        cols = line.split("\t") if "\t" in line else line.split()
        cols = [c.strip() for c in cols]
        if len(cols) != 2 or not all(cols):
            raise DataFormatError(f"{path}:{n}: expected 2 columns (source, target), "
                                  f"found {len([c for c in cols if c])}: {line!r}")
        pair = (cols[0].lower(), cols[1].lower()) if lowercase else (cols[0], cols[1])
        if pair not in seen:
            seen.add(pair)
            pairs.append(pair)
    return pairs


def dictionary_map(pairs) -> dict[str, set[str]]:
    """source word -> set of its translations."""
    out: dict[str, set[str]] = defaultdict(set)
    for s, t in pairs:
        out[s].add(t)
    return dict(out)


def read_parallel(src_path: str | Path, tgt_path: str | Path,
                  skip_empty: bool = True) -> list[tuple[str, str]]:
    """Line-aligned parallel text from two files; returns (source, target) pairs.

    The files must have the same number of lines. Pairs where either side is
    empty are dropped when ``skip_empty``.
    """
    src = _lines(src_path, "one sentence per line")
    tgt = _lines(tgt_path, "one sentence per line")
    if len(src) != len(tgt):
        raise DataFormatError(f"{src_path} has {len(src)} lines but {tgt_path} has {len(tgt)}: "
                              f"parallel files must be line-aligned")
    pairs = [(s.strip(), t.strip()) for s, t in zip(src, tgt)]
    return [p for p in pairs if p[0] and p[1]] if skip_empty else pairs


@dataclass
class GoldAlignment:
    """Tokenised sentence pairs with gold links (0-based token indices)."""

    src: list[list[str]]
    tgt: list[list[str]]
    sure: list[set[tuple[int, int]]]
    possible: list[set[tuple[int, int]]]  # includes the sure links

    def __len__(self) -> int:
        return len(self.src)


def read_gold_alignment(text_path: str | Path, gold_path: str | Path,
                        one_based: bool = True, reverse: bool = False) -> GoldAlignment:
    """Gold word alignments: ``src ||| tgt`` lines and ``i-j`` (sure) / ``ipj`` (possible) links.

    ``reverse`` swaps the two sides (links become ``j-i``).
    """
    texts = _lines(text_path, "'source ||| target' per line")
    golds = read_lines(gold_path, "gold links per line", allow_empty=True)
    if len(texts) != len(golds):
        raise DataFormatError(f"{text_path} has {len(texts)} lines but {gold_path} has {len(golds)}")
    src, tgt, sure, poss = [], [], [], []
    base = 1 if one_based else 0
    for n, (line, gold) in enumerate(zip(texts, golds), 1):
        if line.count("|||") != 1:
            raise DataFormatError(f"{text_path}:{n}: expected 'source ||| target', got {line!r}")
        s, t = (side.split() for side in line.split("|||"))
        S, P = set(), set()
        for tok in gold.split():
            kind = "p" if "p" in tok else "-"
            parts = tok.split(kind)
            if len(parts) != 2 or not all(x.isdigit() for x in parts):
                raise DataFormatError(f"{gold_path}:{n}: bad link {tok!r} (expected i-j or ipj)")
            i, j = int(parts[0]) - base, int(parts[1]) - base
            if not (0 <= i < len(s) and 0 <= j < len(t)):
                raise DataFormatError(f"{gold_path}:{n}: link {tok!r} outside the sentence "
                                      f"({len(s)} x {len(t)} tokens)")
            link = (j, i) if reverse else (i, j)
            P.add(link)
            if kind == "-":
                S.add(link)
        if reverse:
            s, t = t, s
        src.append(s)
        tgt.append(t)
        sure.append(S)
        poss.append(P)
    return GoldAlignment(src, tgt, sure, poss)
