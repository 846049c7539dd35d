"""How accurate are extracted word pairs? Precision against gold word alignments (Gaschi et al. Table II)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from xalign.data.readers import GoldAlignment
from xalign.data.words import Token
from xalign.measures.aligner import align_words
from xalign.papers.gaschi2022.pairs import extract_dictionary_pairs, pairs_from_links, precision


@dataclass
class ExtractionPrecision:
    """Precision (fraction of pairs that are gold links, sure or possible) and pair counts."""

    dictionary: float | None
    aligner: float
    n_dictionary: int
    n_aligner: int
    n_sentences: int


def _as_tokens(sentences: list[list[str]]) -> list[list[Token]]:
    return [[Token(w.lower(), 0, 0) for w in s] for s in sentences]


def extraction_precision(gold: GoldAlignment, dictionary: dict[str, set[str]] | None,
                         extra_src: list[list[str]] = (), extra_tgt: list[list[str]] = (),
                         symmetrisation: str = "grow-diag-final-and", seed: int = 1,
                         aligner: str = "fast_align") -> ExtractionPrecision:
    """Precision of dictionary pairs and of word-aligner pairs on a gold-aligned test set.

    The aligner is trained on the gold sentences plus any extra tokenised
    parallel text (``extra_src``/``extra_tgt``), as aligners are in practice;
    only the gold sentences are scored. ``dictionary=None`` skips that method.
    Pairs are counted with repetitions (every extracted occurrence).
    ``aligner``: ``"fast_align"`` (deterministic) or ``"eflomal"`` (unseeded; ``seed`` names its sample).
    """
    src, tgt = _as_tokens(gold.src), _as_tokens(gold.tgt)
    dict_prec, n_dict = None, 0
    if dictionary is not None:
        dpairs = extract_dictionary_pairs(src, tgt, dictionary, distinct=False)
        dict_prec, n_dict = precision(dpairs, gold.possible), len(dpairs)
    train_src = [[t.text for t in s] for s in src] + [[w.lower() for w in s] for s in extra_src]
    train_tgt = [[t.text for t in s] for s in tgt] + [[w.lower() for w in s] for s in extra_tgt]
    links = align_words(train_src, train_tgt, aligner=aligner, symmetrisation=symmetrisation, seed=seed)[: len(src)]
    apairs = pairs_from_links(src, tgt, links)
    return ExtractionPrecision(dict_prec, precision(apairs, gold.possible), n_dict, len(apairs), len(src))


# ---- which protocol choice moves the dictionary method's precision (Table II) ----

# the order of each gold file in lilt/alignment-scripts, which the authors' reader takes as is
AUTHORS_GOLD_ORDER = {"en-de": "de-en", "en-fr": "en-fr", "ro-en": "ro-en"}

def _flip(gold: GoldAlignment) -> GoldAlignment:
    """The same gold set read the other way round (target side as source)."""
    swap = [{(j, i) for i, j in links} for links in gold.possible]
    swap_s = [{(j, i) for i, j in links} for links in gold.sure]
    return GoldAlignment(gold.tgt, gold.src, swap_s, swap)


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", word) if unicodedata.category(c) != "Mn")


def _merge(forward: dict[str, set[str]], backward: dict[str, set[str]] | None) -> dict[str, set[str]]:
    """forward plus the inverse of backward: the authors' ``get_dicos`` reads both MUSE files."""
    out = {k: set(v) for k, v in forward.items()}
    for b, translations in (backward or {}).items():
        for a in translations:
            out.setdefault(a, set()).add(b)
    return out


def _strip_dictionary(d: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for k, v in d.items():
        out.setdefault(_strip_accents(k), set()).update(_strip_accents(x) for x in v)
    return out


def _once_per_word(pairs: list) -> list:
    """Keep a pair only if neither its source nor its target word was kept before (corpus order)."""
    seen_s, seen_t, out = set(), set(), []
    for p in pairs:
        if p.src.text in seen_s or p.tgt.text in seen_t:
            continue
        seen_s.add(p.src.text)
        seen_t.add(p.tgt.text)
        out.append(p)
    return out


def dictionary_precision_variants(gold: GoldAlignment, forward: dict[str, set[str]],
                                  backward: dict[str, set[str]] | None, flip: bool) -> list[dict]:
    """Precision of dictionary pairs under each protocol choice, one change at a time, then combined.

    ``gold`` is oriented as the language pair is named; ``forward`` is that
    direction's dictionary and ``backward`` the reverse one (None if there is
    none). ``flip``: the authors' gold file has the other order (de-en for our
    en-de), so their extraction ran from the other language. Rows: variant,
    n pairs, precision (x 100).
    """
    def score(g, d, links="possible", lower=_as_tokens, once=False):
        pairs = extract_dictionary_pairs(lower(g.src), lower(g.tgt), d, distinct=False)
        if once:
            pairs = _once_per_word(pairs)
        return {"n pairs": len(pairs), "value": 100 * precision(pairs, getattr(g, links))}

    def stripped(sentences):
        return [[Token(_strip_accents(w.lower()), 0, 0) for w in s] for s in sentences]

    g_auth, d_auth = (_flip(gold), backward) if flip else (gold, forward)
    merged = _merge(d_auth, forward if flip else backward) if d_auth is not None else None
    rows = [("xalign: pair's own dictionary, lower-cased, sure or possible links", score(gold, forward)),
            ("sure links only", score(gold, forward, "sure")),
            ("accents stripped (as mBERT-uncased normalises)",
             score(gold, _strip_dictionary(forward), lower=stripped)),
            ("each source and target word kept once (avoid_repetition)", score(gold, forward, once=True))]
    if d_auth is not None:
        rows.append(("the authors' direction (gold file's order)", score(g_auth, d_auth)))
        rows.append(("the authors' direction + both MUSE files merged (get_dicos)", score(g_auth, merged)))
        rows.append(("the authors' direction + both files merged + sure links only",
                     score(g_auth, merged, "sure")))
    return [{"variant": name, **vals} for name, vals in rows]


def variants_on_gold_sets(gold_pairs: list[str]) -> dict[str, list[dict]]:
    """:func:`dictionary_precision_variants` for every gold pair that has a MUSE dictionary."""
    from xalign.data import corpora as C
    from xalign.data.datasets import DataNotFoundError

    out = {}
    for gp in gold_pairs:
        s_lang, t_lang = gp.split("-")
        try:
            forward = C.muse_dictionary(gp)
        except DataNotFoundError:
            continue
        try:
            backward = C.muse_dictionary(f"{t_lang}-{s_lang}")
        except DataNotFoundError:
            backward = None
        out[gp] = dictionary_precision_variants(C.gold_alignment(gp), forward, backward,
                                                flip=AUTHORS_GOLD_ORDER.get(gp, gp) != gp)
    return out
