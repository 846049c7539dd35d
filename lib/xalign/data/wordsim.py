"""Contextual word similarity data: BCWS (English-Chinese) and SCWS (English), and their scoring.

Both give two words, each in its own sentence, and a human similarity rating;
a model is scored by Spearman's rho between its cosine and the ratings.

- BCWS (Chi et al. 2018): blocks of 4 lines: the two POS tags; the Chinese
  (Traditional) sentence with its word in ``<...>``; the English sentence
  likewise; 11 annotator ratings and their mean.
- SCWS (Huang et al. 2012), in the processed form of ``qianchu/adjust_cwe``:
  two consecutive lines per pair, each ``tokenised context<TAB>target token
  index<TAB>mean rating``; both lines carry the same rating.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from xalign.core.draws import sample_rows
from xalign.data.lines import read_lines
from xalign.data.readers import DataFormatError

_MARKED = re.compile(r"<([^<>]+)>")


@dataclass
class ContextPairs:
    """Word pairs in context: texts and character spans of the two words, and the gold ratings."""

    text_a: list[str]
    span_a: list[tuple[int, int]]
    text_b: list[str]
    span_b: list[tuple[int, int]]
    rating: np.ndarray
    word_a: list[str]
    word_b: list[str]

    def __len__(self) -> int:
        return len(self.rating)


def _unmark(line: str, where: str) -> tuple[str, tuple[int, int], str]:
    marks = list(_MARKED.finditer(line))
    if len(marks) != 1:
        raise DataFormatError(f"{where}: expected exactly one <word> marker, found {len(marks)}: {line[:80]!r}")
    m = marks[0]
    word = m.group(1).strip()
    text = line[: m.start()] + word + line[m.end():]
    start = m.start()
    return text, (start, start + len(word)), word


def read_bcws(path: str | Path) -> ContextPairs:
    """BCWS: ``a`` is the English context, ``b`` the Chinese one (as the file's 3rd and 2nd lines)."""
    path = Path(path)
    lines = read_lines(path, "BCWS items (4 lines each)")
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines or len(lines) % 4:
        raise DataFormatError(f"{path}: {len(lines)} lines; BCWS needs blocks of 4 lines "
                              "(POS tags, Chinese sentence, English sentence, ratings)")
    out = ContextPairs([], [], [], [], np.zeros(len(lines) // 4), [], [])
    for b in range(len(lines) // 4):
        n = 4 * b + 1
        pos, zh, en, scores = lines[4 * b : 4 * b + 4]
        if len(pos.split()) != 2:
            raise DataFormatError(f"{path}:{n}: expected two POS tags, got {pos!r}")
        zt, zs, zw = _unmark(zh, f"{path}:{n + 1}")
        et, es, ew = _unmark(en, f"{path}:{n + 2}")
        try:
            vals = [float(x) for x in scores.split()]
        except ValueError:
            raise DataFormatError(f"{path}:{n + 3}: ratings must be numbers, got {scores!r}") from None
        if len(vals) != 12:
            raise DataFormatError(f"{path}:{n + 3}: expected 11 ratings and their mean, got {len(vals)} numbers")
        out.text_a.append(et), out.span_a.append(es), out.word_a.append(ew)
        out.text_b.append(zt), out.span_b.append(zs), out.word_b.append(zw)
        out.rating[b] = vals[-1]
    return out


def read_scws(path: str | Path) -> ContextPairs:
    """Processed SCWS: pairs of lines ``context<TAB>index<TAB>rating`` (whitespace-tokenised context)."""
    path = Path(path)
    lines = [line for line in read_lines(path, "SCWS pairs") if line.strip()]
    if not lines or len(lines) % 2:
        raise DataFormatError(f"{path}: {len(lines)} non-empty lines; SCWS needs two lines per pair")
    out = ContextPairs([], [], [], [], np.zeros(len(lines) // 2), [], [])
    for p in range(len(lines) // 2):
        ratings = []
        for side in (0, 1):
            n = 2 * p + side + 1
            cols = lines[2 * p + side].split("\t")
            if len(cols) != 3:
                raise DataFormatError(f"{path}:{n}: expected context<TAB>index<TAB>rating, found {len(cols)} columns")
            tokens = cols[0].split(" ")
            try:
                index, rating = int(cols[1]), float(cols[2])
            except ValueError:
                raise DataFormatError(f"{path}:{n}: index must be an integer and rating a number, "
                                      f"got {cols[1]!r}, {cols[2]!r}") from None
            if not 0 <= index < len(tokens) or not tokens[index]:
                raise DataFormatError(f"{path}:{n}: target index {index} outside the {len(tokens)} tokens")
            start = sum(len(t) + 1 for t in tokens[:index])
            span = (start, start + len(tokens[index]))
            text = cols[0]
            if side == 0:
                out.text_a.append(text), out.span_a.append(span), out.word_a.append(tokens[index])
            else:
                out.text_b.append(text), out.span_b.append(span), out.word_b.append(tokens[index])
            ratings.append(rating)
        if ratings[0] != ratings[1]:
            raise DataFormatError(f"{path}:{2 * p + 1}-{2 * p + 2}: the two lines of a pair carry different "
                                  f"ratings ({ratings[0]} vs {ratings[1]})")
        out.rating[p] = ratings[0]
    return out


def sample(data: ContextPairs, n: int | None, seed: int = 0) -> ContextPairs:
    """A random subset of ``n`` pairs (kept in file order); all of them if ``n`` is None or larger."""
    if n is None or n >= len(data):
        return data
    return subset(data, sample_rows(len(data), n, seed))


def subset(data: ContextPairs, idx) -> ContextPairs:
    """The pairs of ``data`` at rows ``idx`` (in that order)."""
    idx = np.asarray(idx, dtype=int)

    def pick(xs):
        return [xs[i] for i in idx]

    return ContextPairs(pick(data.text_a), pick(data.span_a), pick(data.text_b), pick(data.span_b),
                        data.rating[idx], pick(data.word_a), pick(data.word_b))


