"""Before/after of the chapter-2 audit (issue 11, items 5-8) and known-answer checks, computed in the run.

Each row changes one thing and keeps everything else equal (same encoder
run, same training pairs, same test pairs), so the difference is that
change's effect:

- item 8, selection: test pairs kept when words are ranked by frequency
  among the items' own words (before) or in the corpus (after);
- item 5, candidates: the first candidate space (test targets + fillers that
  are no test target word) against the paper's (targets of every
  contextualised pair + other words), with the tie-aware scorer; and the
  scorer that lets ties go to the gold against random tie-breaking;
- item 6, type vectors: BL(word) with avg_type vectors averaged over the
  whole pool (test sentences included) against training sentences only;
- item 7, no mapping: the raw space against the normalised-and-centred one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from xalign.measures.btsr.anchors import PairSpaces, anchors, fit, unmapped_alignment
from xalign.measures.btsr.evaluate import btsr_precision, btsr_vectors, type_coverage
from xalign.measures.btsr.testset import precision_at_k
from xalign.measures.btsr.typevectors import average_types
from xalign.measures.mapping import fit_alignment
from xalign.papers.liu2020.memos import memoised, space_digest

ITEMS = {
    5: "5 candidates: targets of all contextualised pairs",
    "5t": "5 scoring: ties at random, not to the gold",
    6: "6 type vectors: training text only",
    7: "7 no mapping: normalised and centred",
    8: "8 selection: frequency ranked in the corpus",
}

METHODS = {  # label: (BTSR representation, level, signal, technique) of the map
    "token wa orig [token]": ("token", "token", "wa", "orig"),
    "avg_type wa mim [token]": ("token", "avg_type", "wa", "mim"),
    "BL(word) avg_type [type]": ("type", "avg_type", "wa", "orig"),
}


def before_after(sp: PairSpaces, n: int | None = None, ks=(1, 5), max_contexts: int = 1000,
                 seed: int = 0, store=None) -> pd.DataFrame:
    """One row per (change, measure): the value before and after the change (P@k in %, counts as counts).

    Maps are learnt from the first ``n`` training pairs (None: all).
    ``max_contexts`` and ``seed`` rebuild the whole-pool avg_type table the
    first version used (item 6). Needs ``sp.data.btsr_first`` (the first
    candidate space, same test items). Memoised (:mod:`~xalign.papers.liu2020.memos`).
    """
    if sp.data.btsr_first is None:
        raise ValueError("sp.data.btsr_first is None: prepare_pair builds it; no before/after without it")
    key = {"space": space_digest(sp), "n": None if n is None else int(n), "ks": list(ks),
           "max_contexts": int(max_contexts), "seed": int(seed)}
    return memoised("before_after", key, lambda: _before_after(sp, n, ks, max_contexts, seed),
                    store=store)


def _before_after(sp: PairSpaces, n, ks, max_contexts: int, seed: int) -> pd.DataFrame:
    new, old = sp.data.btsr, sp.data.btsr_first
    rows = []

    def add(item, measure, before, after, unit="%"):
        scale = 100 if unit == "%" else 1
        rows.append({"change": ITEMS[item], "measure": measure, "before": scale * before,
                     "after": scale * after, "unit": unit})

    add(8, "test pairs", new.stats["test_pairs_ranked_among_items"], new.stats["test_pairs"], "count")
    add(5, "candidates", len(old.candidates), len(new.candidates), "count")
    add(5, "same-form distractors", old.stats["same_form_distractors"], new.stats["same_form_distractors"], "count")
    add(5, "test pairs with a same-form distractor", old.stats["items_with_same_form_distractor"],
        new.stats["items_with_same_form_distractor"], "count")
    fits = {label: fit(sp, lv, sg, tech, n) for label, (_, lv, sg, tech) in METHODS.items()}
    for label, (kind, *_rest) in METHODS.items():
        before = btsr_precision(fits[label], *btsr_vectors(sp, kind, old), ks, old.gold)
        after = btsr_precision(fits[label], *btsr_vectors(sp, kind, new), ks, new.gold)
        for k in ks:
            add(5, f"{label} P@{k}", before[k], after[k])
    al = unmapped_alignment(sp, True, n)
    before = btsr_precision(al, *btsr_vectors(sp, "token", old), ks, old.gold)
    after = btsr_precision(al, *btsr_vectors(sp, "token", new), ks, new.gold)
    for k in ks:
        add(5, f"no mapping (centred) [token] P@{k}", before[k], after[k])
    bl = fits["BL(word) avg_type [type]"]
    Q, C = btsr_vectors(sp, "type", new)
    Qm, Cm = bl.transform_src(Q), bl.transform_tgt(C)
    gold_first = precision_at_k(Qm, Cm, new.gold, ks, ties="gold_first")
    at_random = precision_at_k(Qm, Cm, new.gold, ks)
    for k in ks:
        add("5t", f"BL(word) avg_type [type] P@{k}", gold_first[k], at_random[k])
    rng = np.random.default_rng(seed)
    pool = np.arange(len(sp.data.corpus))
    pooled = (average_types(sp.src, pool, max_contexts, 1, rng), average_types(sp.tgt, pool, max_contexts, 1, rng))
    before = btsr_precision(bl, *btsr_vectors(sp, "type", new, types=pooled), ks, new.gold)
    after = btsr_precision(bl, Q, C, ks, new.gold)
    for k in ks:
        add(6, f"BL(word) avg_type [type] P@{k}", before[k], after[k])
    covered = np.array([it.src_word in sp.avg_src for it in new.items])  # the query has a training vector
    if covered.any():
        sub = new.gold[covered]
        Qp, Cp = btsr_vectors(sp, "type", new, types=pooled)
        before = precision_at_k(bl.transform_src(Qp[covered]), bl.transform_tgt(Cp), sub, ks)
        after = precision_at_k(Qm[covered], Cm, sub, ks)
        for k in ks:
            add(6, f"BL(word) P@{k}, queries with a training type vector", before[k], after[k])
    cov = type_coverage(sp, new)
    add(6, "BTSR candidates with a type vector", 1.0, cov["candidates"])
    add(6, "BTSR queries with a type vector", 1.0, cov["queries"])
    Qt, Ct = btsr_vectors(sp, "token", new)
    raw = btsr_precision(unmapped_alignment(sp, False), Qt, Ct, ks, new.gold)
    centred = btsr_precision(al, Qt, Ct, ks, new.gold)
    for k in ks:
        add(7, f"no mapping [token] P@{k}", raw[k], centred[k])
    return pd.DataFrame(rows)


def known_answers(sp: PairSpaces, store=None) -> pd.DataFrame:
    """Checks with a known answer on the run's own vectors: (check, expected, got, ok).

    Memoised like the scores: the key holds the digest of the vectors and the
    source of the code, so a change to either runs the checks again.
    """
    return memoised("known_answers", {"space": space_digest(sp)}, lambda: _known_answers(sp),
                    store=store)


def retrieves_itself(C: np.ndarray, seed: int = 0) -> float:
    """P@1 of each candidate retrieving itself among ``C`` from a rotated, shuffled copy of it.

    Adjacent words inside one sub-word token share its vector, so one candidate per direction is kept (no
    earlier candidate within cosine 0.999). The queries are those candidates in a random order, turned by a
    random rotation; the Procrustes map fitted from the queries to their candidates must undo the rotation
    and the P@k code must follow the shuffled gold indices: 1.0 only if both do (retrieving the unturned
    candidates in their own order would hold by construction).
    """
    unit = C / np.maximum(np.linalg.norm(C, axis=1, keepdims=True), 1e-12)
    close = np.triu(unit @ unit.T >= 0.999, k=1)
    U = np.asarray(C[~close.any(0)], np.float64)
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.standard_normal((U.shape[1], U.shape[1])))
    order = rng.permutation(len(U))
    Q = U[order] @ rotation
    al = fit_alignment(Q, U[order], center=False)
    return precision_at_k(al.transform_src(Q), al.transform_tgt(U), order, (1,))[1]


def _known_answers(sp: PairSpaces) -> pd.DataFrame:
    b = sp.data.btsr
    _, C = btsr_vectors(sp, "token")
    rows = [{"check": "each BTSR candidate of a distinct direction retrieves itself among them (P@1)", "expected": 1.0,
             "got": retrieves_itself(C)}]
    X, _ = anchors(sp, "token", "wa")
    W = fit_alignment(X, X).W
    rows.append({"check": "Procrustes from the English token anchors to themselves: max |W - I|", "expected": 0.0,
                 "got": float(np.abs(W - np.eye(len(W))).max())})
    gold_words = [sp.data.tgt_tokens[b.candidates[g][0]][b.candidates[g][1]].text for g in b.gold]
    rows.append({"check": "every test pair's gold candidate is its target word (fraction)", "expected": 1.0,
                 "got": float(np.mean([w == it.tgt_word for w, it in zip(gold_words, b.items)]))})
    same = np.abs(unmapped_alignment(sp, True).transform_tgt(C) - fit(sp, "token", "wa").transform_tgt(C)).max()
    rows.append({"check": "centred no-mapping space = target side of the token wa orig map (no matrix on that "
                          "side): max difference on the candidates", "expected": 0.0, "got": float(same)})
    out = pd.DataFrame(rows)
    out["ok"] = np.isclose(out.got, out.expected, atol=1e-3)
    return out
