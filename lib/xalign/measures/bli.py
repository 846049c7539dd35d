"""Bilingual lexicon induction (BLI, word translation) as MUSE evaluates it.

For every source word of a test dictionary that has a vector and at least
one gold translation with a vector (the *covered* words; coverage is
reported next to precision), the target vocabulary is ranked by

- ``"nn"``: cosine similarity;
- ``"csls"``: ``2 cos(q, t) - r_T(q) - r_S(t)`` (Conneau et al. 2018), with
  ``r_T(q)`` the mean cosine of q's k nearest target words and ``r_S(t)`` the
  mean cosine of t's k nearest words in the *whole source vocabulary*
  (k = 10), as MUSE computes it.

P@k is the percentage of covered source words with any gold translation
among the top k, with a bootstrap confidence interval over the queries
(``lo``, ``hi``). *Identical-string* queries are those whose gold
translations include the source word itself (a multilingual model maps both
to nearly the same vector, so they are near-free hits): their number is
reported, and P@k without them. :func:`stem_hits` is the stem-based soft match of
Wickramasinghe and de Silva's Algorithm 1. The supervised maps evaluated this
way are learnt in :mod:`xalign.measures.bli_maps`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.core.memory import blocks_reused, scratch
from xalign.data.static import StaticVectors
from xalign.measures.neighbours import block_rows, csls_scores, resolve_device, topk_mean, unit_rows
from xalign.measures.validate import positive_int, same_width

RETRIEVALS = ("nn", "csls")


@dataclass
class Lexicon:
    """The covered part of a test dictionary.

    ``sources``: covered source words in file order; ``gold``: their
    translations that are in the target vocabulary; ``n_total``: distinct
    source words in the dictionary.
    """

    sources: list[str]
    gold: list[frozenset[str]]
    n_total: int

    @property
    def coverage(self) -> float:
        """Covered source words as a percentage of all the dictionary's source words."""
        return 100.0 * len(self.sources) / self.n_total if self.n_total else 0.0


def build_lexicon(pairs: Sequence[tuple[str, str]], src_vocab, tgt_vocab) -> Lexicon:
    """Group (source, target) pairs by source word and keep what both vocabularies cover.

    Args:
        pairs: (source word, target word) test pairs.
        src_vocab: the source words (anything supporting ``in``).
        tgt_vocab: the target words.

    Returns:
        A :class:`Lexicon`: the covered queries and, per query, its gold translations.
    """
    if not pairs:
        raise ValueError("empty test dictionary")
    gold: dict[str, set[str]] = {}
    for s, t in pairs:
        gold.setdefault(s, set())
        if s in src_vocab and t in tgt_vocab:
            gold[s].add(t)
    covered = [s for s, g in gold.items() if g]
    return Lexicon(covered, [frozenset(gold[s]) for s in covered], len(gold))


def retrieve(Q, T, topn: int = 10, retrieval: str = "nn", k: int = 10, S=None,
             block: int | None = None, device: str | None = None) -> np.ndarray:
    """The best targets in T for each query row of Q.

    Args:
        Q: (n_Q, d) query vectors.
        T: (n_T, d) target vectors.
        topn: targets per query.
        retrieval: ``"nn"`` (cosine) or ``"csls"``.
        k: CSLS neighbours.
        S: (n_S, d) the whole source vocabulary, for CSLS's r_S (default Q).
        block: query rows per block (default: the library's similarity blocks).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        (n_Q, topn) int64 rows of T, best first.
    """
    if retrieval not in RETRIEVALS:
        raise ValueError(f"retrieval must be one of {RETRIEVALS}, got {retrieval!r}")
    return rank_targets(Q, T, topn, (retrieval,), k, S=S, block=block, device=device)[retrieval]


def target_densities(T, S, k: int = 10, source_masks: Sequence = (None,), block: int | None = None,
                     device: str | None = None) -> list[np.ndarray]:
    """CSLS's r_S(t) for every row of T: the mean of its k largest cosines with the rows of S.

    One (n_T, n_S) product, in blocks of rows, serves every entry of ``source_masks``. Blocks come
    from :func:`~xalign.core.memory.scratch` (one buffer for all of them inside
    :func:`~xalign.core.memory.blocks_reused`).

    Args:
        T: (n_T, d) target vectors.
        S: (n_S, d) source vectors.
        k: neighbours averaged.
        source_masks: None (all of S) or an (n_S,) bool mask (a pruned source vocabulary), per result.
        block: query rows per block (default: the library's similarity blocks).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        One (n_T,) float32 array per mask (NaN for a mask that keeps no word: there are no
        neighbours, and no queries either).
    """
    import torch

    positive_int("k", k)
    same_width(T, S)
    dev = resolve_device(device)
    t, s = unit_rows(T, dev), unit_rows(S, dev)
    cols = [None if m is None else _mask_index(m, s.shape[0], dev) for m in source_masks]
    sizes = [s.shape[0] if c is None else len(c) for c in cols]
    rows = block_rows(s.shape[0], block, s.device)
    out = [np.full(t.shape[0], np.nan, np.float32) for _ in cols]
    if not any(sizes):
        return out
    last = max(i for i, c in enumerate(cols) if c is not None) if any(c is not None for c in cols) else None
    order = sorted(range(len(cols)), key=lambda i: i == last)  # the masked-in-place entry goes last
    dropped = _complement(cols[last], s.shape[0]) if last is not None else None
    with blocks_reused():  # one similarity block for all row blocks
        for b in range(0, t.shape[0], rows):
            q = t[b:b + rows]
            sim = torch.mm(q, s.T, out=scratch("similarity block", (q.shape[0], s.shape[0]), t.dtype, dev))
            for i in order:
                c, n = cols[i], sizes[i]
                if not n:
                    continue
                if i == last:  # no copy of the block: the other columns can no longer be among the k largest
                    sim.index_fill_(1, dropped, -float("inf"))
                    part = sim
                else:
                    part = sim if c is None else torch.index_select(
                        sim, 1, c, out=scratch("similarity columns", (q.shape[0], n), t.dtype, dev))
                out[i][b:b + rows] = topk_mean(part, min(k, n)).cpu().numpy()  # n: the columns kept
    return out


def _complement(index, n: int):
    """The indices in range(n) that ``index`` leaves out (for ``index_fill_``: no boolean-mask pass)."""
    import torch

    keep = torch.zeros(n, dtype=torch.bool, device=index.device)
    keep[index] = True
    return torch.nonzero(~keep).flatten()


def _mask_index(mask, n: int, dev):
    import torch

    mask = np.asarray(mask, bool)
    if mask.shape != (n,):
        raise ValueError(f"mask has shape {mask.shape}, expected ({n},)")
    return torch.as_tensor(np.flatnonzero(mask), device=dev)


def rank_targets(Q, T, topn: int = 10, retrievals: Sequence[str] = RETRIEVALS, k: int = 10, S=None,
                 tgt_density=None, block: int | None = None, device: str | None = None) -> dict[str, np.ndarray]:
    """The best targets in T for each query row of Q, per retrieval.

    NN and CSLS share one product Q T^T per block of query rows (CSLS's query density r_T(q)
    comes from it too).

    Args:
        Q: (n_Q, d) query vectors.
        T: (n_T, d) target vectors.
        topn: targets per query.
        retrievals: among ``"nn"`` and ``"csls"``.
        k: CSLS neighbours.
        S: (n_S, d) the whole source vocabulary, for r_S(t) (default Q).
        tgt_density: (n_T,) r_S(t) of every target when already known (:func:`target_densities`).
        block: query rows per block (default: the library's similarity blocks).
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).

    Returns:
        retrieval -> (n_Q, topn) int64 rows of T, best first.
    """
    bad = [r for r in retrievals if r not in RETRIEVALS]
    if bad:
        raise ValueError(f"retrieval must be one of {RETRIEVALS}, got {bad[0]!r}")
    import torch

    topn = min(topn, len(T))
    positive_int("topn", topn)
    same_width(Q, T)
    dev = resolve_device(device)
    q, t = unit_rows(Q, dev), unit_rows(T, dev)
    r_t = None
    if "csls" in retrievals:
        positive_int("k", k)
        if tgt_density is None:
            tgt_density = target_densities(T, Q if S is None else S, k, block=block, device=dev)[0]
        if len(tgt_density) != t.shape[0]:
            raise ValueError(f"tgt_density has {len(tgt_density)} entries for {t.shape[0]} targets")
        r_t = torch.as_tensor(np.asarray(tgt_density, np.float32), device=dev)
    rows = block_rows(t.shape[0], block, t.device)
    out = {r: np.empty((q.shape[0], topn), np.int64) for r in retrievals}
    with blocks_reused():  # one similarity block for all query blocks
        for s in range(0, q.shape[0], rows):
            block = q[s:s + rows]
            sim = torch.mm(block, t.T, out=scratch("similarity block", (block.shape[0], t.shape[0]), t.dtype, dev))
            if "nn" in out:
                out["nn"][s:s + rows] = sim.topk(topn, dim=1).indices.cpu().numpy()
            if r_t is not None:  # the scores overwrite the block in place (one block in memory, not four)
                csls_scores(sim, topk_mean(sim, k), r_t, out=sim)  # r_q: each query's density among T
                out["csls"][s:s + rows] = sim.topk(topn, dim=1).indices.cpu().numpy()
    return out


def exact_hits(predictions: Sequence[Sequence[str]], gold: Sequence[frozenset[str]], k: int) -> np.ndarray:
    """Per query: is any gold translation among the first k predicted words?

    Args:
        predictions: per query, its ranked predicted words.
        gold: per query, its gold translations.
        k: predictions read.

    Returns:
        (n_queries,) bool.
    """
    _check_k(predictions, gold, k)
    return np.array([not g.isdisjoint(p[:k]) for p, g in zip(predictions, gold)], bool)


def stem_hits(predictions: Sequence[Sequence[str]], gold: Sequence[frozenset[str]], k: int,
              stem: Callable[[str], str] | None = None, stem_many=None) -> np.ndarray:
    """Stem-based soft match (Wickramasinghe and de Silva, Algorithm 1).

    A query counts if a gold word is among its top k; otherwise, with ``full = topk | stem(topk)``,
    if a gold word or its stem is in ``full``.

    Args:
        predictions: per query, its ranked predicted words.
        gold: per query, its gold translations.
        k: predictions read.
        stem: one word -> its stem.
        stem_many: a list of words -> their stems (faster; give this or ``stem``).

    Returns:
        (n_queries,) bool.
    """
    _check_k(predictions, gold, k)
    if stem_many is None:
        if stem is None:
            raise ValueError("give stem or stem_many")
        stem_many = lambda ws: [stem(w) for w in ws]
    words = sorted({w for p in predictions for w in p[:k]} | {w for g in gold for w in g})
    stems = dict(zip(words, stem_many(words)))
    out = np.empty(len(gold), bool)
    for i, (p, g) in enumerate(zip(predictions, gold)):
        top = list(p[:k])
        if not g.isdisjoint(top):
            out[i] = True
            continue
        full = set(top) | {stems[w] for w in top}
        out[i] = any(w in full or stems[w] in full for w in g)
    return out


def _check_k(predictions, gold, k):
    if len(predictions) != len(gold):
        raise ValueError(f"{len(predictions)} prediction lists for {len(gold)} gold sets")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def evaluate_bli(src: StaticVectors, tgt: StaticVectors, pairs: Sequence[tuple[str, str]],
                 ks: Sequence[int] = (1, 5, 10), retrievals: Sequence[str] = RETRIEVALS, csls_k: int = 10,
                 stemmer=None, block: int | None = None, device: str | None = None,
                 n_boot: int = 1000, tgt_density=None) -> pd.DataFrame:
    """P@k of translating ``src`` words into ``tgt`` words for a test dictionary.

    CSLS densities use the whole ``src`` vocabulary.

    Args:
        src: the (n_src, d) source space.
        tgt: the (n_tgt, d) target space.
        pairs: (source word, target word) test pairs.
        ks: the k of each P@k.
        retrievals: among ``"nn"`` and ``"csls"``.
        csls_k: CSLS neighbours.
        stemmer: adds ``match == "stem"`` rows when it has ``stem_many`` (:func:`stem_hits`).
        block: query rows per block.
        device: ``"cpu"``, ``"cuda"``... (default: the GPU when there is one).
        n_boot: bootstrap resamples of the queries for the intervals.
        tgt_density: (n_tgt,) r_src(t) when already known (:func:`target_densities` of ``tgt`` against ``src``).

    Returns:
        A long frame: ``retrieval``, ``k``, ``match`` ("exact", and "stem"), ``precision`` (%),
        ``lo`` / ``hi`` (its 95% bootstrap interval over the queries, %), ``coverage`` (%),
        ``n_queries`` (covered source words), ``n_test``, ``n_identical`` (queries whose gold includes
        the source string itself), ``precision_no_identical`` with ``lo_no_identical`` /
        ``hi_no_identical`` (P@k over the other queries).
    """
    from xalign.measures.intervals import accuracy_ci

    lex = build_lexicon(pairs, src.index, tgt.index)
    rows = []
    if not lex.sources:
        for r in retrievals:
            for k in ks:
                rows.append({"retrieval": r, "k": k, "match": "exact", "precision": np.nan, "lo": np.nan,
                             "hi": np.nan, "coverage": 0.0, "n_queries": 0, "n_test": lex.n_total,
                             "n_identical": 0, "precision_no_identical": np.nan,
                             "lo_no_identical": np.nan, "hi_no_identical": np.nan})
        return pd.DataFrame(rows)
    Q = src.lookup(lex.sources)
    identical = identical_queries(lex)
    ranked = rank_targets(Q, tgt.vectors, max(ks), retrievals, csls_k, S=src.vectors, tgt_density=tgt_density,
                          block=block, device=device)
    for r in retrievals:
        idx = ranked[r]
        preds = [[tgt.words[j] for j in row] for row in idx]
        for k in ks:
            matches = [("exact", exact_hits(preds, lex.gold, k))]
            if stemmer is not None:
                matches.append(("stem", stem_hits(preds, lex.gold, k, stem_many=stemmer.stem_many)))
            for name, hits in matches:
                lo, hi = accuracy_ci(hits, n_boot=n_boot)
                rest = hits[~identical]
                lo_r, hi_r = accuracy_ci(rest, n_boot=n_boot)
                rows.append({"retrieval": r, "k": k, "match": name, "precision": 100.0 * hits.mean(),
                             "lo": 100.0 * lo, "hi": 100.0 * hi,
                             "coverage": lex.coverage, "n_queries": len(lex.sources), "n_test": lex.n_total,
                             "n_identical": int(identical.sum()),
                             "precision_no_identical": 100.0 * rest.mean() if len(rest) else np.nan,
                             "lo_no_identical": 100.0 * lo_r, "hi_no_identical": 100.0 * hi_r})
    return pd.DataFrame(rows)


def query_hits(src: StaticVectors, tgt: StaticVectors, pairs: Sequence[tuple[str, str]],
               retrievals: Sequence[str] = RETRIEVALS, csls_k: int = 10, k: int = 1) -> dict[str, np.ndarray]:
    """Each covered test query's exact P@k hit: the items :func:`evaluate_bli`'s P@k is the mean of.

    Kept per query so that two models (or two layers) can be compared on the same queries
    (:mod:`xalign.measures.paired`).

    Args:
        src: the (n_src, d) source space (CSLS densities use all of it).
        tgt: the (n_tgt, d) target space (the candidates).
        pairs: (source word, target word) test pairs.
        retrievals: among ``"nn"`` and ``"csls"``.
        csls_k: CSLS neighbours.
        k: a hit is a gold translation among the k nearest.

    Returns:
        retrieval -> (n_queries,) booleans, one per covered source word in the order of
        :func:`build_lexicon` (empty when no query is covered).
    """
    lex = build_lexicon(pairs, src.index, tgt.index)
    if not lex.sources:
        return {r: np.zeros(0, bool) for r in retrievals}
    ranked = rank_targets(src.lookup(lex.sources), tgt.vectors, k, retrievals, csls_k, S=src.vectors)
    return {r: exact_hits([[tgt.words[j] for j in row] for row in ranked[r]], lex.gold, k) for r in retrievals}


def identical_queries(lex: Lexicon) -> np.ndarray:
    """Is the source word itself one of its gold translations (in the target vocabulary)?

    Args:
        lex: the test lexicon (:func:`build_lexicon`).

    Returns:
        (n_queries,) bool.
    """
    return np.array([s in g for s, g in zip(lex.sources, lex.gold)], bool)


def self_translation_check(vectors: StaticVectors, n: int = 500, retrieval: str = "nn") -> pd.DataFrame:
    """Known answer: translate the first ``n`` words of a space into the same space with the identity dictionary.

    Nearest-neighbour P@1 must be 100 (each word is its own nearest neighbour).

    Args:
        vectors: the space.
        n: words translated.
        retrieval: ``"nn"`` or ``"csls"``.

    Returns:
        :func:`evaluate_bli`'s frame for that dictionary.
    """
    words = vectors.words[:n]
    if not words:
        raise ValueError("no words in the space")
    return evaluate_bli(vectors, vectors, [(w, w) for w in words], ks=(1,), retrievals=(retrieval,), n_boot=200)
