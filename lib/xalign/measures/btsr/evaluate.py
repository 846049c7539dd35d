"""BTSR precision, sentence retrieval and the BTSR baselines of one aligned space.

Part of the BTSR method (chapter 2, the card); see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

import numpy as np

from xalign.measures.btsr.anchors import PairSpaces
from xalign.measures.btsr.pairdata import PairData
from xalign.measures.btsr.spaces import encode_space
from xalign.measures.btsr.testset import BTSRSet, precision_at_k
from xalign.measures.btsr.typevectors import TypeVectors, average_types, isolated_types
from xalign.measures.mapping import Alignment


def btsr_vectors(sp: PairSpaces, kind: str = "token", btsr: BTSRSet | None = None,
                 types: tuple[TypeVectors, TypeVectors] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(queries, candidates) of a BTSR set (default: ``sp.data.btsr``) as ``token`` vectors in context,
    ``type`` (the word's avg_type vector), ``context`` (mean of the other words of the sentence),
    ``context_type`` (same with avg_type vectors) or ``word+context`` (mean of the type vector and the
    type-level context).

    Type vectors are the avg_type tables built from the training sentences only
    (``types`` overrides them, e.g. to show the effect of pooling the test
    sentences in); a word that never occurs in training gets the zero vector.
    """
    b = btsr or sp.data.btsr
    qs, qi = [it.src_sent for it in b.items], [it.src_index for it in b.items]
    cs, ci = [c[0] for c in b.candidates], [c[1] for c in b.candidates]
    if kind == "token":
        return sp.src.vectors[sp.src.rows(qs, qi)], sp.tgt.vectors[sp.tgt.rows(cs, ci)]
    if kind == "context":
        return sp.src.context_means(qs, qi), sp.tgt.context_means(cs, ci)
    S, T = types or (sp.avg_src, sp.avg_tgt)
    qw = [sp.data.src_tokens[k][i].text for k, i in zip(qs, qi)]
    cw = [sp.data.tgt_tokens[k][i].text for k, i in zip(cs, ci)]
    Qt, Ct = S.lookup_or_zero(qw), T.lookup_or_zero(cw)
    if kind == "type":
        return Qt, Ct
    Qc = _type_context(S, sp.data.src_tokens, qs, qi)
    Cc = _type_context(T, sp.data.tgt_tokens, cs, ci)
    if kind == "context_type":
        return Qc, Cc
    if kind == "word+context":
        return (Qt + Qc) / 2, (Ct + Cc) / 2
    raise ValueError(f"unknown BTSR representation {kind!r}")


def type_coverage(sp: PairSpaces, btsr: BTSRSet | None = None) -> dict[str, float]:
    """Fractions of BTSR queries and candidates whose word has a training-text avg_type vector."""
    b = btsr or sp.data.btsr
    return {"queries": sp.avg_src.coverage([it.src_word for it in b.items]),
            "candidates": sp.avg_tgt.coverage([sp.data.tgt_tokens[k][i].text for k, i in b.candidates])}


def _type_context(types: TypeVectors, tokens, sents, index) -> np.ndarray:
    out = np.zeros((len(sents), types.vectors.shape[1]), np.float32)
    for r, (k, i) in enumerate(zip(sents, index)):
        idx = [types.index[t.text] for n, t in enumerate(tokens[k]) if n != i and t.text in types.index]
        if idx:
            out[r] = types.vectors[idx].mean(0)
    return out


def btsr_precision(al: Alignment, Q: np.ndarray, C: np.ndarray, ks=(1, 5), gold=None) -> dict[int, float]:
    """P@k of a BTSR set after mapping queries (source) and candidates (target); ``gold``: the set's
    ``gold`` rows (default: query i's gold is candidate i)."""
    gold = np.arange(len(Q)) if gold is None else gold
    return precision_at_k(al.transform_src(Q), al.transform_tgt(C), gold, ks)


def sentence_retrieval(al: Alignment, sp: PairSpaces, kind: str = "token", k: int = 5,
                       level: str = "avg_type") -> float:
    """P@k of finding each held-out source sentence's translation among all held-out target sentences.

    Sentences are the average of their words' ``token`` vectors, or of their
    type vectors (``kind="type"``: avg_type vectors from the training sentences, or iso_type ones for
    ``level="iso_type"``).
    """
    sents = sp.data.retrieval
    if kind == "token":
        Q, C = sp.once("retrieval token", lambda: (sp.src.sentence_means(sents), sp.tgt.sentence_means(sents)))
    elif kind == "type":
        iso = level == "iso_type"
        S, T = (sp.iso_src, sp.iso_tgt) if iso else (sp.avg_src, sp.avg_tgt)
        Q, C = sp.once(f"retrieval {'iso' if iso else 'avg'}_type", lambda: (
            S.sentence_means(sp.data.src_tokens, sents), T.sentence_means(sp.data.tgt_tokens, sents)))
    else:
        raise ValueError(f"kind must be 'token' or 'type', got {kind!r}")
    return precision_at_k(al.transform_src(Q), al.transform_tgt(C), np.arange(len(sents)), (k,))[k]


def build_spaces(encoder_src, encoder_tgt, data: PairData, layers=None, max_contexts: int = 1000,
                 min_count: int = 1, seed: int = 0, iso: bool = True, reuse: PairSpaces | None = None) -> PairSpaces:
    """Encode both sides (every word in context), then the avg_type and iso_type tables.

    avg_type vectors average the training sentences only (``data.train``): no
    BTSR test sentence and no sentence-retrieval test sentence enters them.
    iso_type vectors are the training words, the retrieval-test words and the
    dictionary's words that occur in the text, each fed alone; every word of the
    text is encoded once (:func:`isolated_pool`), and each seed takes its words.

    Args:
        encoder_src, encoder_tgt: the two sides' encoders.
        data: the pair's corpus, tokens, BTSR set and splits (one seed's).
        layers: the averaged layers (:func:`.spaces.resolve_layers`).
        max_contexts: avg_type contexts per word; ``min_count``: fewest occurrences for an avg_type vector.
        seed: draws the avg_type context sample.
        iso: build the iso_type tables (False: empty tables).
        reuse: the spaces of another seed on the same pool: its encoded sentences and isolated words
            are reused (the pool's text does not depend on the seed), so no sentence is encoded again.

    Returns:
        the :class:`PairSpaces` (vectors float32, (n_words, dim)).
    """
    c = data.corpus
    if reuse is not None:
        if reuse.data.corpus.src != c.src or reuse.data.corpus.tgt != c.tgt:
            raise ValueError("build_spaces: `reuse` holds another pool's spaces; reuse needs the same parallel text")
        src, tgt = reuse.src, reuse.tgt
    else:
        src = encode_space(encoder_src, c.src, data.src_tokens, layers, desc=f"encode {c.src_lang} ({len(c)})")
        tgt = encode_space(encoder_tgt, c.tgt, data.tgt_tokens, layers, desc=f"encode {c.tgt_lang} ({len(c)})")
    rng = np.random.default_rng(seed)
    avg_src = average_types(src, data.train, max_contexts, min_count, rng)
    avg_tgt = average_types(tgt, data.train, max_contexts, min_count, rng)
    if iso:  # training words, retrieval-test words, and the dictionary's words that occur in the text
        pool_src, pool_tgt = reuse.memo["iso pool"] if reuse is not None and "iso pool" in reuse.memo else \
            isolated_pool(encoder_src, encoder_tgt, data, layers)
        test_src = {t.text for k in data.retrieval for t in data.src_tokens[k]}
        test_tgt = {t.text for k in data.retrieval for t in data.tgt_tokens[k]}
        text_src = {t.text for s in data.src_tokens for t in s}
        text_tgt = {t.text for s in data.tgt_tokens for t in s}
        iso_src = subset_types(pool_src, set(avg_src.words) | test_src | ({s for s, _ in data.dictionary} & text_src))
        iso_tgt = subset_types(pool_tgt, set(avg_tgt.words) | test_tgt | ({t for _, t in data.dictionary} & text_tgt))
    else:
        iso_src = iso_tgt = TypeVectors([], np.zeros((0, encoder_src.dim), np.float32))
    out = PairSpaces(data, src, tgt, avg_src, avg_tgt, iso_src, iso_tgt)
    if iso:
        out.memo["iso pool"] = (pool_src, pool_tgt)
    return out


def isolated_pool(encoder_src, encoder_tgt, data: PairData, layers=None) -> tuple[TypeVectors, TypeVectors]:
    """iso_type vectors of every word of the pool's text (each side), whatever the seed: one encoding serves
    every seed's tables (:func:`subset_types`)."""
    words_src = {t.text for s in data.src_tokens for t in s}
    words_tgt = {t.text for s in data.tgt_tokens for t in s}
    return isolated_types(encoder_src, words_src, layers), isolated_types(encoder_tgt, words_tgt, layers)


def subset_types(pool: TypeVectors, words) -> TypeVectors:
    """The rows of ``pool`` for ``words`` (sorted; each must be in ``pool``)."""
    words = sorted(set(words))
    return TypeVectors(words, pool.lookup(words) if words else np.zeros((0, pool.vectors.shape[1]), np.float32))
