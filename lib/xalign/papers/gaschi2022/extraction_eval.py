"""How accurate are extracted word pairs? Precision against gold word alignments (Gaschi et al. Table II)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from xalign.data.readers import GoldAlignment
from xalign.data.word_pairs import extract_dictionary_pairs, pairs_from_links, precision
from xalign.data.words import Token
from xalign.measures.aligner import align_words


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


def uncased_normalise(word: str) -> str:
    """A dictionary entry as mBERT-uncased's tokenizer normalises it: lower-cased, accents stripped.

    Args:
        word: one MUSE entry.

    Returns:
        The word lower-cased, NFD-decomposed and without combining marks ("Äpfel" -> "apfel").
    """
    return _strip_accents(word.lower())


def _uncased_dictionary(d: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for k, v in d.items():
        out.setdefault(uncased_normalise(k), set()).update(uncased_normalise(x) for x in v)
    return out


def _as_is(sentences: list[list[str]]) -> list[list[Token]]:
    """The gold file's tokens unchanged (already tokenised; not lower-cased)."""
    return [[Token(w, 0, 0) for w in s] for s in sentences]


def authors_extraction(gold: GoldAlignment, forward: dict[str, set[str]], backward: dict[str, set[str]] | None,
                       flip: bool) -> tuple[GoldAlignment, list]:
    """The authors' public pair extraction on a gold set, reconstructed (``get_dicos`` + ``generate_pairs``).

    Both MUSE files of the pair are merged, every dictionary entry is normalised as
    mBERT-uncased normalises it (:func:`uncased_normalise`), the gold file's tokens are
    matched as they are (so a capitalised word never matches its lower-cased entry), and the
    extraction runs in the gold file's order (``flip``: the authors' file is the other way round).

    Args:
        gold: the gold set, oriented as the language pair is named.
        forward, backward: that direction's MUSE dictionary and the reverse one (None if absent).
        flip: the authors' gold file has the other order (de-en for our en-de).

    Returns:
        (the gold set in the authors' order, the extracted pairs with repetitions, corpus order).
    """
    g = _flip(gold) if flip else gold
    first, second = (backward, forward) if flip else (forward, backward)
    if first is None:
        raise ValueError("the authors' extraction needs the dictionary of the gold file's direction")
    merged = _uncased_dictionary(_merge(first, second))
    return g, extract_dictionary_pairs(_as_is(g.src), _as_is(g.tgt), merged, distinct=False)


def case_losses(gold: GoldAlignment, forward: dict[str, set[str]], backward: dict[str, set[str]] | None,
                flip: bool) -> dict:
    """Where the authors' extraction loses pairs against the lower-cased one (same direction, both files).

    Args:
        as :func:`authors_extraction`.

    Returns:
        {"lost": pairs (sentence, source index, target index) the lower-cased extraction has and the
        authors' lacks, "capitalised": how many of those have a source word (the gold file's first
        language: German for en-de) that starts with a capital letter, "gained": pairs only the authors' has}.
    """
    g, theirs = authors_extraction(gold, forward, backward, flip)
    first, second = (backward, forward) if flip else (forward, backward)
    ours = extract_dictionary_pairs(_as_tokens(g.src), _as_tokens(g.tgt), _merge(first, second), distinct=False)
    key = {(p.src_sent, p.src_index, p.tgt_index) for p in theirs}
    lost = [p for p in ours if (p.src_sent, p.src_index, p.tgt_index) not in key]
    ours_keys = {(p.src_sent, p.src_index, p.tgt_index) for p in ours}
    capital = sum(g.src[p.src_sent][p.src_index][:1].isupper() for p in lost)
    return {"lost": len(lost), "capitalised": int(capital), "gained": len(key - ours_keys)}


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


MERGED_VARIANT = "the authors' direction + both MUSE files merged (get_dicos)"
AUTHORS_VARIANT = ("the authors' extraction: their direction, both files merged, entries lower-cased and "
                   "accents stripped, gold tokens as they are")


def dictionary_precision_variants(gold: GoldAlignment, forward: dict[str, set[str]],
                                  backward: dict[str, set[str]] | None, flip: bool) -> list[dict]:
    """Precision of dictionary pairs under each protocol choice, one change at a time, then combined.

    ``gold`` is oriented as the language pair is named; ``forward`` is that
    direction's dictionary and ``backward`` the reverse one (None if there is
    none). ``flip``: the authors' gold file has the other order (de-en for our
    en-de), so their extraction ran from the other language. Rows: variant,
    n pairs, precision (x 100); the last, :data:`AUTHORS_VARIANT`, is
    :func:`authors_extraction` (scored on sure or possible links, as the
    authors' reader reads ``p`` links as links).
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
        rows.append((MERGED_VARIANT, score(g_auth, merged)))
        rows.append(("the authors' direction + both files merged + sure links only",
                     score(g_auth, merged, "sure")))
        g_rec, rec = authors_extraction(gold, forward, backward, flip)
        rows.append((AUTHORS_VARIANT, {"n pairs": len(rec), "value": 100 * precision(rec, g_rec.possible)}))
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
        flip = AUTHORS_GOLD_ORDER.get(gp, gp) != gp
        gold = C.gold_alignment(gp)
        out[gp] = dictionary_precision_variants(gold, forward, backward, flip=flip)
        if (backward if flip else forward) is not None:
            out[gp][-1].update(case_losses(gold, forward, backward, flip))
    return out
