"""What BTSR can tell about senses on our set: the word-form ceiling, the items with a same-form
distractor, every map scored on both, and ``BL(word)`` without zero vectors.

A retriever that knows only the gold's *word form* (not its sense) ranks the candidates of that form
first, in random order, and everything else after; on an item whose gold form has ``b`` candidates
(the gold included) it scores P@k = min(1, k / b) in expectation (:func:`word_form_ceiling`). Where no
item has more than k candidates of its gold's form, P@k of that retriever is 100 %: P@k then cannot
see senses, and only the items with a same-form distractor (b > 1) can (:func:`map_scores` scores every
map on all items and on those).

``BL(word)`` looks each word up in the avg_type table of the training text; a word that never occurs
there has no vector. :func:`word_baseline` never scores such a word as if its zero vector were real:
a query without a vector is a miss, a candidate without a vector cannot be retrieved (it leaves the
candidate list), and the same scores are given on the covered items only (query and gold both have a
vector), beside ``avg_type wa mim [token]`` on exactly those items and candidates.

Part of the chapter-2 method; see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pandas as pd

from xalign.core.threads import torch_threads
from xalign.measures.btsr.anchors import PairSpaces, anchors, fit, fit_key, unmapped_alignment
from xalign.measures.btsr.constants import TECHNIQUES
from xalign.measures.btsr.evaluate import btsr_precision, btsr_vectors
from xalign.measures.btsr.testset import BTSRSet, item_precision_at_k, precision_at_k
from xalign.measures.intervals import bootstrap_ci
from xalign.measures.mapping import fit_alignments
from xalign.papers.liu2020.grid import method_label


def candidate_forms(sp: PairSpaces, btsr: BTSRSet | None = None) -> list[str]:
    """The word form of every candidate row of a BTSR set (default ``sp.data.btsr``), in row order."""
    b = btsr or sp.data.btsr
    return [sp.data.tgt_tokens[k][i].text for k, i in b.candidates]


def same_form_counts(forms: list[str], gold: np.ndarray) -> np.ndarray:
    """Per item: how many candidates share its gold's word form, the gold included (``b`` >= 1).

    Args:
        forms: the word form of each candidate row (m,).
        gold: each item's gold candidate row (n,).

    Returns:
        int array (n,).
    """
    n_form = Counter(forms)
    return np.array([n_form[forms[g]] for g in np.asarray(gold)], dtype=np.int64)


def word_form_ceiling(counts: np.ndarray, ks=(1, 5)) -> dict[int, float]:
    """P@k (fraction) of a retriever that knows only the gold's word form: min(1, k / b) per item, averaged.

    Ties among the ``b`` same-form candidates are broken at random, in expectation, as
    :func:`~xalign.measures.btsr.testset.precision_at_k` breaks them. No items: NaN.
    """
    b = np.asarray(counts, dtype=float)
    if len(b) and b.min() < 1:
        raise ValueError(f"same-form counts include the gold, so each must be >= 1, got min {b.min()}")
    return {k: float(np.minimum(1.0, k / b).mean()) if len(b) else float("nan") for k in ks}


#: bootstrap resamples of the test items for each map's P@k interval
N_BOOT = 1000


def grid_fits(sp: PairSpaces, level: str, signal: str, size: int, techniques=TECHNIQUES) -> list:
    """The maps of one (level, signal, size), one per technique, fitted exactly as the grid fits them
    (:func:`xalign.measures.mapping.fit_alignments` on shared anchors, one BLAS thread): the grid's own
    fits where ``sp.memo`` keeps them (a cold run), else a refit that gives the same maps (a warm run,
    whose grid came from the memo)."""
    keys = [fit_key(sp, level, signal, t, size or None) for t in techniques]
    memo = getattr(sp, "memo", {})
    if all(k in memo for k in keys):
        return [memo[k] for k in keys]
    X, Y = anchors(sp, level, signal, size or None)
    return fit_alignments(X, Y, [t == "mim" for t in techniques])


def map_scores(sp: PairSpaces, n: int, methods, techniques=TECHNIQUES, ks=(1, 5)) -> pd.DataFrame:
    """Every map (the grid's fits at ``n`` training pairs; ``dict`` maps at 0) and the centred unmapped
    space, scored by BTSR P@k on all items and on the items with a same-form distractor.

    Returns:
        one row per map: ``method``, ``n``, ``btsr_p{k}`` (all items) with its 95 % bootstrap interval over
        the test items (``btsr_p{k}_lo`` / ``_hi``), ``btsr_p{k}_distractor`` (items with
        a same-form distractor; NaN if none), each a fraction, plus ``n_items`` / ``n_distractor_items``.
        The first row is ``no mapping (centred)``; the gain of a map is its row minus that one.
    """
    with torch_threads(1, blas=True):  # as the grid scores them: the same numbers to the last digit
        return _map_scores(sp, n, methods, techniques, ks)


def _maps(sp, n, methods, techniques) -> list[tuple]:
    """(name, size, alignment) of the centred unmapped space and of every map (``dict`` maps at 0)."""
    maps = [("no mapping (centred)", 0, unmapped_alignment(sp, True, n))]
    for level, signal in methods:
        size = 0 if signal == "dict" else n
        for tech, al in zip(techniques, grid_fits(sp, level, signal, size, techniques)):
            maps.append((method_label(level, signal, tech), size, al))
    return maps


def item_hits(sp: PairSpaces, n: int, methods, techniques=TECHNIQUES, ks=(1, 5)) -> dict[tuple[str, int], np.ndarray]:
    """Every map's (as :func:`map_scores`) and the centred unmapped space's BTSR P@k per test item.

    Returns:
        (method, k) -> (n_items,) array in [0, 1] (1: the gold among the k nearest; a fraction where it
        ties), row i the set's item i for every method: the items of a paired comparison.
    """
    with torch_threads(1, blas=True):
        Q, C = btsr_vectors(sp, "token")
        gold = sp.data.btsr.gold
        out = {}
        for name, _, al in _maps(sp, n, methods, techniques):
            for k, h in item_precision_at_k(al.transform_src(Q), al.transform_tgt(C), gold, ks).items():
                out[name, k] = np.asarray(h, dtype=float)
        return out


def _map_scores(sp, n, methods, techniques, ks) -> pd.DataFrame:
    Q, C = btsr_vectors(sp, "token")
    gold = sp.data.btsr.gold
    has = same_form_counts(candidate_forms(sp), gold) > 1
    maps = _maps(sp, n, methods, techniques)
    rows = []
    for name, size, al in maps:
        hits = item_precision_at_k(al.transform_src(Q), al.transform_tgt(C), gold, ks)
        everyone = {k: float(h.mean()) if len(h) else float("nan") for k, h in hits.items()}
        ci = {k: bootstrap_ci(h, n_boot=N_BOOT, seed=0) if len(h) else (float("nan"),) * 2 for k, h in hits.items()}
        some = btsr_precision(al, Q[has], C, ks, gold[has]) if has.any() else {k: float("nan") for k in ks}
        rows.append({"method": name, "n": size, **{f"btsr_p{k}": v for k, v in everyone.items()},
                     **{f"btsr_p{k}_lo": ci[k][0] for k in ks}, **{f"btsr_p{k}_hi": ci[k][1] for k in ks},
                     **{f"btsr_p{k}_distractor": v for k, v in some.items()},
                     "n_items": len(gold), "n_distractor_items": int(has.sum())})
    return pd.DataFrame(rows)


def word_baseline(sp: PairSpaces, n: int | None, ks=(1, 5)) -> pd.DataFrame:
    """``BL(word)`` (avg_type vectors of the training text, mapped with ``avg_type wa orig``) with words
    that have no training vector handled, never scored as zero vectors.

    Returns:
        three rows (``baseline``, ``mapped_with``, ``btsr_p{k}`` fractions, ``n_items``):
        ``BL(word) avg_type [type], no vector = miss`` (all items; a query or gold without a vector is a
        miss, candidates without a vector cannot be retrieved), ``BL(word) avg_type [type], covered items``
        and ``avg_type wa mim [token], covered items`` (the same items and candidate list, for comparison).
    """
    b = sp.data.btsr
    gold = b.gold
    q_ok = np.array([sp.data.src_tokens[it.src_sent][it.src_index].text in sp.avg_src.index for it in b.items],
                    dtype=bool)
    c_ok = np.array([w in sp.avg_tgt.index for w in candidate_forms(sp)], dtype=bool)
    items = q_ok & c_ok[gold]
    cand = np.flatnonzero(c_ok)
    new_row = -np.ones(len(c_ok), dtype=np.int64)
    new_row[cand] = np.arange(len(cand))
    g = new_row[gold[items]]

    def scores(al, Q, C) -> dict[int, float]:
        if not items.any():
            return {k: float("nan") for k in ks}
        return precision_at_k(al.transform_src(Q[items]), al.transform_tgt(C[cand]), g, ks)

    with torch_threads(1, blas=True):  # as :func:`.grid.btsr_baselines` scores the baselines
        Qt, Ct = btsr_vectors(sp, "type")
        word = scores(fit(sp, "avg_type", "wa", "orig", n), Qt, Ct)
        Qk, Ck = btsr_vectors(sp, "token")
        mim = scores(fit(sp, "avg_type", "wa", "mim", n), Qk, Ck)
    share = items.mean() if len(items) else float("nan")
    rows = [("BL(word) avg_type [type], no vector = miss", "avg_type wa orig", {k: share * v for k, v in word.items()},
             len(items)),
            ("BL(word) avg_type [type], covered items", "avg_type wa orig", word, int(items.sum())),
            ("avg_type wa mim [token], covered items", "avg_type wa mim", mim, int(items.sum()))]
    return pd.DataFrame([{"baseline": name, "mapped_with": m, **{f"btsr_p{k}": v for k, v in p.items()},
                          "n_items": n_items, "queries without a vector": int((~q_ok).sum()),
                          "candidates without a vector": int((~c_ok).sum())} for name, m, p, n_items in rows])


def word_form_table(sp: PairSpaces, variant: str, ks=(1, 5)) -> dict:
    """One row for ``variant``: test items, those with a same-form distractor, the largest number of
    candidates sharing a gold's form, and the word-form ceiling (P@k, %) on all items and on those."""
    counts = same_form_counts(candidate_forms(sp), sp.data.btsr.gold)
    has = counts > 1
    every, some = word_form_ceiling(counts, ks), word_form_ceiling(counts[has], ks)
    return {"variant": variant, "test items": len(counts), "items with a same-form distractor": int(has.sum()),
            "most candidates sharing a gold's form": int(counts.max()) if len(counts) else 0,
            **{f"word-form ceiling P@{k} (%)": 100 * v for k, v in every.items()},
            **{f"word-form ceiling P@{k}, distractor items (%)": 100 * v for k, v in some.items()}}
