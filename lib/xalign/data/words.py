"""Word tokenisation with character offsets.

Space-delimited scripts: runs of word characters (``\\w+``), so punctuation
is never a word. Chinese and Japanese, which have no spaces: forward maximum
matching against a vocabulary (the dictionary's words), every unmatched
character becoming a one-character word. Pre-tokenised text (gold alignment
corpora): split on whitespace so indices match the gold links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORD_RE = re.compile(r"\w+", re.UNICODE)
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
NON_CJK_WORD_RE = re.compile(rf"[^\W{_CJK}]+", re.UNICODE)
UNSEGMENTED = {"zh", "ja", "th", "cmn", "jpn", "yue", "wuu"}


@dataclass(frozen=True)
class Token:
    """A word of a sentence: its lower-cased form and character span [start, end)."""

    text: str
    start: int
    end: int


def tokenize(sentence: str, lang: str, vocabulary: set[str] | None = None,
             max_word_len: int = 8) -> list[Token]:
    """Words of ``sentence`` with character offsets (lower-cased forms).

    For unsegmented languages (``zh``, ``ja``, ...) ``vocabulary`` drives the
    segmentation; without one every character is a word.
    """
    if lang in UNSEGMENTED:
        return _max_match(sentence, vocabulary or set(), max_word_len)
    return [Token(m.group().lower(), m.start(), m.end()) for m in WORD_RE.finditer(sentence)]


def _max_match(sentence: str, vocabulary: set[str], max_len: int) -> list[Token]:
    out, i, n = [], 0, len(sentence)
    while i < n:
        if sentence[i].isspace() or not (sentence[i].isalnum()):
            i += 1
            continue
        for j in range(min(n, i + max_len), i, -1):
            piece = sentence[i:j].lower()
            if piece in vocabulary or j == i + 1:
                m = NON_CJK_WORD_RE.match(sentence, i) if j == i + 1 and not _is_cjk(sentence[i]) else None
                if m is not None:  # a Latin word or number inside CJK text
                    j = m.end()
                    piece = sentence[i:j].lower()
                out.append(Token(piece, i, j))
                i = j
                break
    return out


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return (0x3040 <= cp <= 0x30FF or 0x3400 <= cp <= 0x4DBF or 0x4E00 <= cp <= 0x9FFF
            or 0xF900 <= cp <= 0xFAFF or 0x20000 <= cp <= 0x2FA1F)


def valid_word(word: str, lang: str) -> bool:
    """A single written word: alphabetic (Latin etc.) or all-CJK for zh/ja; no spaces, digits, hyphens."""
    if not word or any(c in word for c in " _-'.") or word != word.strip():
        return False
    if lang in ("zh", "ja", "cmn", "jpn"):
        return all(_is_cjk(c) for c in word)
    return word.isalpha()


_PUNCT_RE = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def punct_tokens(sentence: str) -> list[str]:
    """Words and single punctuation marks, for aligner input (like a tokenizer's output)."""
    return _PUNCT_RE.findall(sentence)
