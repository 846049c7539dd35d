"""Translated-in-context word pairs (Gaschi et al. 2022, Sec. III-A).

A bilingual dictionary and a sentence-aligned corpus give word pairs in
context, keeping only the pairs the dictionary makes certain. Rules (as in
the authors' released code):

1. for a source word, exactly one of its dictionary translations occurs in
   the target sentence,
2. that target word occurs exactly once in the target sentence,
3. that target word is the translation of exactly one word (token) of the
   source sentence;
4. with ``distinct=True`` a (source word, target word) pair is kept once in
   the whole corpus (its first occurrence).

For comparison, :func:`pairs_from_links` turns a statistical aligner's links
into pairs, and :func:`precision` scores pairs against gold alignments.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from xalign.core.draws import shuffled_indices
from xalign.core.hashing import text_hash
from xalign.data.words import UNSEGMENTED, Token, tokenize


@dataclass(frozen=True)
class WordPair:
    """A word pair in context: the sentences each word comes from, the tokens and their indices.

    For translated pairs ``src_sent == tgt_sent`` (one sentence pair).
    """

    src_sent: int
    tgt_sent: int
    src: Token
    tgt: Token
    src_index: int
    tgt_index: int


def tokenize_corpus(sentences, lang: str, vocabulary: set[str] | None = None) -> list[list[Token]]:
    """:func:`xalign.data.words.tokenize` over a list of sentences."""
    return [tokenize(s, lang, vocabulary) for s in sentences]


def tokenize_parallel(pairs, src_lang: str, tgt_lang: str, dictionary: dict[str, set[str]]):
    """Tokenise both sides; unsegmented languages are segmented with the dictionary's words."""
    src_vocab = set(dictionary) if src_lang in UNSEGMENTED else None
    tgt_vocab = {t for ts in dictionary.values() for t in ts} if tgt_lang in UNSEGMENTED else None
    src = tokenize_corpus([p[0] for p in pairs], src_lang, src_vocab)
    tgt = tokenize_corpus([p[1] for p in pairs], tgt_lang, tgt_vocab)
    return src, tgt


def extract_dictionary_pairs(src_tokens: list[list[Token]], tgt_tokens: list[list[Token]],
                             dictionary: dict[str, set[str]], distinct: bool = True) -> list[WordPair]:
    """Word pairs the dictionary makes certain (rules 1-4 above), in corpus order."""
    if len(src_tokens) != len(tgt_tokens):
        raise ValueError(f"{len(src_tokens)} source sentences but {len(tgt_tokens)} target sentences")
    out, seen = [], set()
    for n, (src, tgt) in enumerate(zip(src_tokens, tgt_tokens)):
        tgt_count = Counter(t.text for t in tgt)
        tgt_pos = {t.text: j for j, t in enumerate(tgt)}
        # candidate translations present in the target, per source token
        present = [sorted(x for x in dictionary.get(s.text, ()) if x in tgt_count) for s in src]
        # how many source tokens each target word translates
        sources_of = Counter(x for cands in present for x in cands)
        for i, cands in enumerate(present):
            if len(cands) != 1:
                continue
            x = cands[0]
            if tgt_count[x] != 1 or sources_of[x] != 1:
                continue
            key = (src[i].text, x)
            if distinct and key in seen:
                continue
            seen.add(key)
            j = tgt_pos[x]
            out.append(WordPair(n, n, src[i], tgt[j], i, j))
    return out


def pairs_from_links(src_tokens, tgt_tokens, links: list[set[tuple[int, int]]],
                     distinct: bool = False) -> list[WordPair]:
    """Word pairs from alignment links (one set of (i, j) token-index links per sentence)."""
    out, seen = [], set()
    for n, (src, tgt, ls) in enumerate(zip(src_tokens, tgt_tokens, links)):
        for i, j in sorted(ls):
            if i >= len(src) or j >= len(tgt):
                raise ValueError(f"sentence {n}: link ({i}, {j}) outside {len(src)} x {len(tgt)} tokens")
            key = (src[i].text, tgt[j].text)
            if distinct and key in seen:
                continue
            seen.add(key)
            out.append(WordPair(n, n, src[i], tgt[j], i, j))
    return out


def precision(pairs: list[WordPair], gold_links: list[set[tuple[int, int]]]) -> float:
    """Fraction of pairs whose (source index, target index) is a gold link of their sentence."""
    if not pairs:
        return float("nan")
    return float(np.mean([(p.src_index, p.tgt_index) in gold_links[p.src_sent] for p in pairs]))


def random_pairs(src_tokens, tgt_tokens, n: int, rng: np.random.Generator,
                 same_sentence: bool = False) -> list[WordPair]:
    """Random (not translated) word pairs: from random sentence pairs, or within the same pair."""
    usable = [k for k in range(len(src_tokens)) if src_tokens[k] and tgt_tokens[k]]
    out = []
    for _ in range(n):
        a = usable[rng.integers(len(usable))]
        b = a if same_sentence else usable[rng.integers(len(usable))]
        i = int(rng.integers(len(src_tokens[a])))
        j = int(rng.integers(len(tgt_tokens[b])))
        out.append(WordPair(a, b, src_tokens[a][i], tgt_tokens[b][j], i, j))
    return out


def sample_distinct(pairs: list[WordPair], n: int, rng: np.random.Generator | int) -> np.ndarray:
    """Indices of up to ``n`` pairs with pairwise distinct (source word, target word) types.

    Occurrences are shuffled and the first occurrence of each type is kept,
    so repeated samples differ in which context represents a word pair
    (Gaschi et al. sample distinct pairs to avoid favouring contextual models).
    ``rng`` an int seed: each occurrence's place in the shuffle comes from the
    seed and the occurrence itself (its words, sentences and positions), so one
    added or removed pair changes no other pair's chance; a Generator: one
    shared permutation (every pair's place hangs on the list's length).
    """
    if isinstance(rng, (int, np.integer)):
        order = shuffled_indices(int(rng), [["pair", p.src.text, p.tgt.text, p.src_sent, p.tgt_sent, p.src_index,
                                              p.tgt_index] for p in pairs])
    else:
        order = rng.permutation(len(pairs))
    seen, keep = set(), []
    for i in order:
        key = (pairs[i].src.text, pairs[i].tgt.text)
        if key in seen:
            continue
        seen.add(key)
        keep.append(i)
        if len(keep) == n:
            break
    return np.sort(np.asarray(keep, dtype=np.int64))


def pairs_digest(pairs: list[WordPair]) -> str:
    """sha256 over every pair's sentences, words and spans, in order (a cache key)."""
    return text_hash(f"{p.src_sent} {p.tgt_sent} {p.src.text} {p.src.start} {p.src.end} {p.tgt.text} "
                     f"{p.tgt.start} {p.tgt.end} {p.src_index} {p.tgt_index}" for p in pairs)


def n_distinct(pairs: list[WordPair]) -> int:
    """Number of distinct (source word, target word) types among the pairs."""
    return len({(p.src.text, p.tgt.text) for p in pairs})
