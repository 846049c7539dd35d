"""The card's word-level steps (S_weak / S_strong, BLI, BTSR) and the summaries every step makes of its items.

Each step takes the card's model (:class:`xalign.card.battery.CardModel`) and settings
(:class:`xalign.card.battery.CardConfig`) and returns ``{measure id: {layer label: summary}}``; a summary is
``{"value", "lo", "hi", "n", ITEMS}`` (:func:`acc_summary`, :func:`stat_summary`), the per-item outcomes
kept for paired comparisons (:mod:`xalign.card.items`).
"""

from __future__ import annotations

import numpy as np

from xalign.card.items import ITEMS
from xalign.measures.intervals import accuracy_ci, bootstrap_ci

# (the steps' ``m`` and ``cfg`` are xalign.card.battery's CardModel and CardConfig: not imported, card imports this)


# ------------------------------------------------------------------ summaries
def acc_summary(items: np.ndarray, n_boot: int, seed: int) -> dict:
    """(n,) 0/1 outcomes -> their accuracy x 100 with its 95% bootstrap interval, n, and the items."""
    lo, hi = accuracy_ci(items, n_boot=n_boot, seed=seed)
    return {"value": 100 * float(np.mean(items)), "lo": 100 * lo, "hi": 100 * hi, "n": len(items), ITEMS: items}


def stat_summary(items: np.ndarray, stat, n_boot: int, seed: int) -> dict:
    """(n, ...) per-item rows -> ``stat`` of them with its 95% bootstrap interval (items resampled), n, the items."""
    lo, hi = bootstrap_ci(items, stat, n_boot=n_boot, seed=seed)
    return {"value": float(stat(items)), "lo": lo, "hi": hi, "n": len(items), ITEMS: items}


def hit_counts(percent: float, n: int) -> np.ndarray:
    """0/1 outcomes with the given percentage (exact: percent = 100 hits / n); the bootstrap of a mean needs only counts."""
    hits = round(percent * n / 100)
    return np.r_[np.ones(hits), np.zeros(n - hits)]


# ------------------------------------------------------------------ word-level measures
def weak_strong(m, cfg) -> dict[str, dict[str, dict]]:
    from xalign.data import corpora as C
    from xalign.data import word_pairs as PR
    from xalign.measures import incontext as IC
    from xalign.measures.retrieval import strong_hits, weak_hits

    src_lang, tgt_lang = cfg.word_pair.split("-")
    corpus = C.parallel_corpus([cfg.word_corpus], cfg.word_pair, cfg.word_sentences)
    dictionary = C.muse_dictionary(cfg.word_pair)
    tokens = PR.tokenize_parallel(corpus, src_lang, tgt_lang, dictionary)
    found = PR.extract_dictionary_pairs(*tokens, dictionary, distinct=False)
    runs = [[found[i] for i in PR.sample_distinct(found, cfg.word_n, np.random.default_rng(cfg.seed + r))]
            for r in range(cfg.word_runs)]
    every = [p for pairs in runs for p in pairs]  # each sentence encoded once for all runs
    src = IC.encode_side(m.enc, [s for s, _ in corpus], IC.spans_needed(every, "src"), poolings=())
    tgt = IC.encode_side(m.enc, [t for _, t in corpus], IC.spans_needed(every, "tgt"), poolings=())
    vectors = [IC.pair_vectors(pairs, src, tgt) for pairs in runs]
    out = {"s_weak": {}, "s_strong": {}}
    for i, label in enumerate(m.hidden):  # each run's N pairs retrieve among themselves; the items: every run's
        for mid, hits in (("s_weak", weak_hits), ("s_strong", strong_hits)):
            items = np.concatenate([hits(U[:, i], V[:, i], cfg.csls_k) for U, V in vectors])
            out[mid][label] = acc_summary(items, cfg.n_boot, cfg.seed)
    return out


def bli(m, cfg) -> dict[str, dict[str, dict]]:
    from xalign.data.bli_data import bli_dictionary, vocabulary
    from xalign.data.scripts import script_mask
    from xalign.data.static import StaticVectors
    from xalign.data.wordvectors import subset
    from xalign.measures.bli import query_hits

    rng = np.random.default_rng(cfg.seed)
    tests = {}  # a fixed sample of test source words per direction, with all their gold pairs
    for x in cfg.bli_langs:
        pairs = bli_dictionary("en", x, "test")
        sources = sorted({s for s, _ in pairs})
        keep = set(rng.choice(sources, size=min(cfg.bli_queries, len(sources)), replace=False).tolist())
        tests[x] = [(s, t) for s, t in pairs if s in keep]
    # candidates: the top words of each language plus the sample's own words (so every query is covered)
    vocab = {"en": list(dict.fromkeys(vocabulary("en", cfg.bli_vocab)
                                      + [s for p in tests.values() for s, _ in p]))}
    vocab.update({x: list(dict.fromkeys(vocabulary(x, cfg.bli_vocab) + [t for _, t in tests[x]]))
                  for x in cfg.bli_langs})
    vecs = {lang: m.isolated_words(words) for lang, words in vocab.items()}
    # a target language of bli_prune keeps the candidates in its own script (as evaluate_directions prunes)
    masks = {x: script_mask(vocab[x], x, rule="script") for x in cfg.bli_langs if x in cfg.bli_prune}

    out = {"bli_nn": {}, "bli_csls": {}}
    for label in m.labels:
        hits = {"nn": [], "csls": []}  # per query, so that layers and models compare on the same queries
        for x in cfg.bli_langs:
            tgt = StaticVectors(vocab[x], vecs[x][label])
            got = query_hits(StaticVectors(vocab["en"], vecs["en"][label]),
                             subset(tgt, masks[x]) if x in masks else tgt, tests[x], ("nn", "csls"), cfg.csls_k)
            for retrieval, h in hits.items():
                h.append(got[retrieval])
        for retrieval, h in hits.items():
            out[f"bli_{retrieval}"][label] = acc_summary(np.concatenate(h), cfg.n_boot, cfg.seed)
    return out


def btsr(m, cfg) -> dict[str, dict[str, dict]]:
    from xalign.data.corpora import load_parallel
    from xalign.measures.btsr.anchors import PairSpaces, anchors
    from xalign.measures.btsr.evaluate import btsr_precision, btsr_vectors
    from xalign.measures.btsr.pairdata import prepare_pair
    from xalign.measures.btsr.spaces import Space
    from xalign.measures.btsr.typevectors import TypeVectors
    from xalign.measures.mapping import fit_alignment

    corpus = load_parallel("en", cfg.btsr_lang, ("xnli", "tatoeba"), cfg.btsr_per_source)
    data = prepare_pair(corpus, seed=cfg.seed, top=250, n_candidates=cfg.btsr_candidates, n_retrieval=100)
    sides = []
    for texts, tokens in ((corpus.src, data.src_tokens), (corpus.tgt, data.tgt_tokens)):
        W = m.enc.encode_words(texts, [[(t.start, t.end) for t in s] for s in tokens], layers=None)
        sides.append((tokens, W, np.cumsum([0] + [len(s) for s in tokens])))
    empty = TypeVectors([], np.zeros((0, 1), np.float32))
    out = {}
    for i, label in enumerate(m.hidden):
        src, tgt = (Space(tok, W[:, i], off) for tok, W, off in sides)
        sp = PairSpaces(data, src, tgt, *([empty] * 4))
        al = fit_alignment(*anchors(sp, "token", "wa"))
        Q, Cand = btsr_vectors(sp, "token")
        p1 = btsr_precision(al, Q, Cand, ks=(1,), gold=data.btsr.gold)[1]
        row = acc_summary(hit_counts(100 * p1, len(Q)), cfg.n_boot, cfg.seed)
        out[label] = {k: v for k, v in row.items() if k != ITEMS}  # counts only: P@1 gives ties fractional credit
    return {"btsr_p1": out}
