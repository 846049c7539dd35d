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
among the top k. :func:`stem_hits` is the stem-based soft match of
Wickramasinghe and de Silva's Algorithm 1. :func:`fit_map` learns the
supervised maps (Procrustes, RCSLS, VecMap) on vocabulary-normalised
vectors (unit length, centred on the vocabulary mean, unit length).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from xalign.data.static import StaticVectors
from xalign.data.wordvectors import subset
from xalign.measures.mapping import Alignment, normalize_center, procrustes
from xalign.measures.retrieval import (
    _as_unit_tensor,
    _block_rows,
    _device,
    cosine_topk,
    mean_topk_similarity,
)

RETRIEVALS = ("nn", "csls")
MAPPINGS = ("procrustes", "rcsls", "vecmap")


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
    """Group (source, target) pairs by source word and keep what both vocabularies cover."""
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
    """Indices (n_Q, topn) of the best targets in T for each query row of Q.

    ``S``: the whole source vocabulary (CSLS's ``r_S``; defaults to Q).
    """
    if retrieval not in RETRIEVALS:
        raise ValueError(f"retrieval must be one of {RETRIEVALS}, got {retrieval!r}")
    topn = min(topn, len(T))
    if retrieval == "nn":
        return cosine_topk(Q, T, topn, block=block, device=device)[0]
    import torch

    dev = _device(device)
    r_t = torch.as_tensor(mean_topk_similarity(T, Q if S is None else S, k, block=block, device=dev), device=dev)
    r_q = torch.as_tensor(mean_topk_similarity(Q, T, k, block=block, device=dev), device=dev)
    q, t = _as_unit_tensor(Q, dev), _as_unit_tensor(T, dev)
    rows = _block_rows(t.shape[0], block)
    out = np.empty((q.shape[0], topn), np.int64)
    for s in range(0, q.shape[0], rows):
        scores = 2 * (q[s:s + rows] @ t.T) - r_q[s:s + rows, None] - r_t[None, :]
        out[s:s + rows] = scores.topk(topn, dim=1).indices.cpu().numpy()
    return out


def exact_hits(predictions: Sequence[Sequence[str]], gold: Sequence[frozenset[str]], k: int) -> np.ndarray:
    """Per query: is any gold translation among the first k predicted words? (n,) bool."""
    _check_k(predictions, gold, k)
    return np.array([not g.isdisjoint(p[:k]) for p, g in zip(predictions, gold)], bool)


def stem_hits(predictions: Sequence[Sequence[str]], gold: Sequence[frozenset[str]], k: int,
              stem: Callable[[str], str] | None = None, stem_many=None) -> np.ndarray:
    """Stem-based soft match (Wickramasinghe and de Silva, Algorithm 1); (n,) bool.

    A query counts if a gold word is among its top k; otherwise, with
    ``full = topk | stem(topk)``, if a gold word or its stem is in ``full``.
    Give ``stem`` (one word) or ``stem_many`` (a list, faster).
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
                 stemmer=None, block: int | None = None, device: str | None = None) -> pd.DataFrame:
    """P@k of translating ``src`` words into ``tgt`` words for a test dictionary.

    Returns a long frame: ``retrieval``, ``k``, ``match`` ("exact", and
    "stem" when a ``stemmer`` with ``stem_many`` is given), ``precision`` (%),
    ``coverage`` (%), ``n_queries`` (covered source words), ``n_test``.
    CSLS densities use the whole ``src`` vocabulary.
    """
    lex = build_lexicon(pairs, src.index, tgt.index)
    rows = []
    if not lex.sources:
        for r in retrievals:
            for k in ks:
                rows.append({"retrieval": r, "k": k, "match": "exact", "precision": np.nan, "coverage": 0.0,
                             "n_queries": 0, "n_test": lex.n_total})
        return pd.DataFrame(rows)
    Q = src.lookup(lex.sources)
    for r in retrievals:
        idx = retrieve(Q, tgt.vectors, max(ks), r, csls_k, S=src.vectors, block=block, device=device)
        preds = [[tgt.words[j] for j in row] for row in idx]
        for k in ks:
            matches = [("exact", exact_hits(preds, lex.gold, k))]
            if stemmer is not None:
                matches.append(("stem", stem_hits(preds, lex.gold, k, stem_many=stemmer.stem_many)))
            for name, hits in matches:
                rows.append({"retrieval": r, "k": k, "match": name, "precision": 100.0 * hits.mean(),
                             "coverage": lex.coverage, "n_queries": len(lex.sources), "n_test": lex.n_total})
    return pd.DataFrame(rows)


def anchor_indices(src: StaticVectors, tgt: StaticVectors,
                   pairs: Sequence[tuple[str, str]]) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (into src and tgt) of the training pairs both vocabularies cover."""
    keep = [(src.index[s], tgt.index[t]) for s, t in pairs if s in src.index and t in tgt.index]
    if len(keep) < 2:
        raise ValueError(f"only {len(keep)} of {len(pairs)} training pairs are in both vocabularies")
    i, j = zip(*keep)
    return np.asarray(i), np.asarray(j)


def fit_map(method: str, src: StaticVectors, tgt: StaticVectors, train_pairs: Sequence[tuple[str, str]],
            rcsls_options: dict | None = None, vecmap_options: dict | None = None) -> tuple[Alignment, dict]:
    """Learn a supervised source->target map on the covered training pairs.

    ``method``: ``"procrustes"`` (orthogonal), ``"rcsls"`` (Joulin et al.
    2018; negatives: the whole vocabularies unless ``rcsls_options`` says
    ``n_negatives``) or ``"vecmap"`` (Artetxe et al. 2018 supervised
    multi-step). Returns the :class:`xalign.measures.mapping.Alignment` (apply with
    ``transform_src`` / ``transform_tgt``) and facts about the fit.
    """
    if method not in MAPPINGS:
        raise ValueError(f"method must be one of {MAPPINGS}, got {method!r}")
    i, j = anchor_indices(src, tgt, train_pairs)
    Xn, mean_x = normalize_center(src.vectors)
    Yn, mean_y = normalize_center(tgt.vectors)
    X, Y = Xn[i], Yn[j]
    d_t = Y.shape[1]
    info = {"method": method, "n_train_pairs": len(train_pairs), "n_anchors": len(i)}
    if method == "procrustes":
        return Alignment(procrustes(X, Y), np.eye(d_t), np.eye(d_t), mean_x, mean_y), info
    if method == "rcsls":
        from xalign.measures.rcsls import fit_rcsls

        opts = dict(rcsls_options or {})
        n_neg = opts.pop("n_negatives", None)
        fit = fit_rcsls(X, Y, Zs=Xn[:n_neg], Zt=Yn[:n_neg], **opts)
        info.update(loss_start=fit.losses[0], loss_end=fit.losses[-1], steps=len(fit.losses) - 1)
        return Alignment(fit.W, np.eye(d_t), np.eye(d_t), mean_x, mean_y), info
    from xalign.measures.vecmap import fit_vecmap

    fit = fit_vecmap(X, Y, **(vecmap_options or {}))
    d = fit.A_src.shape[1]
    return Alignment(fit.A_src, np.eye(d), fit.A_tgt, mean_x, mean_y), info


def apply_map(alignment: Alignment | None, src: StaticVectors,
              tgt: StaticVectors) -> tuple[StaticVectors, StaticVectors]:
    """Both vocabularies in the shared space of ``alignment`` (None: unchanged)."""
    if alignment is None:
        return src, tgt
    return (StaticVectors(src.words, alignment.transform_src(src.vectors)),
            StaticVectors(tgt.words, alignment.transform_tgt(tgt.vectors)))


def evaluate_directions(directions: Sequence[tuple[str, str]], vectors: dict[str, StaticVectors],
                        dictionary: Callable[[str, str, str], Sequence[tuple[str, str]]],
                        methods: Sequence[str] = ("none",) + MAPPINGS, retrievals: Sequence[str] = RETRIEVALS,
                        ks: Sequence[int] = (1, 5, 10), csls_k: int = 10, prune_langs: Sequence[str] = (),
                        prune_rule: str = "script", prune_source: bool = False, stemmers: dict | None = None,
                        rcsls_options: dict | None = None, vecmap_options: dict | None = None,
                        progress: bool = True) -> tuple[pd.DataFrame, pd.DataFrame]:
    """BLI for every direction and method, with and without vocabulary pruning.

    ``vectors``: one :class:`StaticVectors` per language (the candidate
    vocabulary). ``dictionary(src, tgt, split)`` returns the train / test
    pairs. ``methods``: ``"none"`` (the vectors as they are, e.g. a
    multilingual model's own space) and/or mappings of :data:`MAPPINGS`
    learned on the train split. Directions whose target language is in
    ``prune_langs`` (or whose source language is, with ``prune_source``) are
    evaluated twice: as is, and with that language's vocabulary pruned to its
    script (:func:`xalign.data.scripts.script_mask`, ``prune_rule``).
    ``stemmers``: {target language: stemmer} adds the stem-based match.

    Returns (results, fits): results in long format (``src``, ``tgt``,
    ``method``, ``pruned``, ``retrieval``, ``k``, ``match``, ``precision``,
    ``coverage``, ``n_queries``, ``n_test``) and one row per learned map.
    """
    from xalign.core.progress import bar as progress_bar
    from xalign.data.scripts import script_mask

    bad = [m for m in methods if m != "none" and m not in MAPPINGS]
    if bad:
        raise ValueError(f"unknown methods {bad}; use 'none' or one of {MAPPINGS}")
    missing = sorted({lang for d in directions for lang in d} - set(vectors))
    if missing:
        raise KeyError(f"no vectors for {missing}")
    stemmers = stemmers or {}
    masks = {lang: script_mask(vectors[lang].words, lang, rule=prune_rule) for lang in prune_langs
             if lang in vectors}
    results, fits = [], []
    bar = progress_bar(total=len(directions) * len(methods), desc="BLI", disable=not progress)
    for s, t in directions:
        test = dictionary(s, t, "test")
        train = dictionary(s, t, "train") if any(m != "none" for m in methods) else None
        for method in methods:
            bar.set_postfix_str(f"{s}-{t} {method}")
            if method == "none":
                U, V = vectors[s], vectors[t]
            else:
                alignment, info = fit_map(method, vectors[s], vectors[t], train, rcsls_options, vecmap_options)
                fits.append({"src": s, "tgt": t, **info})
                U, V = apply_map(alignment, vectors[s], vectors[t])
            prune_s = prune_source and s in masks
            variants = [False] + ([True] if (prune_s or t in masks) else [])
            for pruned in variants:
                Up = subset(U, masks[s]) if pruned and prune_s else U
                Vp = subset(V, masks[t]) if pruned and t in masks else V
                df = evaluate_bli(Up, Vp, test, ks, retrievals, csls_k, stemmers.get(t))
                df.insert(0, "pruned", pruned)
                df.insert(0, "method", method)
                df.insert(0, "tgt", t)
                df.insert(0, "src", s)
                results.append(df)
            bar.update(1)
    bar.close()
    return pd.concat(results, ignore_index=True), pd.DataFrame(fits)

