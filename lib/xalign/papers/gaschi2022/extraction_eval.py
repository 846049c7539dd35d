"""How accurate are extracted word pairs? Precision against gold word alignments (Gaschi et al. Table II)."""

from __future__ import annotations

from dataclasses import dataclass

from xalign.data.readers import GoldAlignment
from xalign.data.words import Token
from xalign.measures.aligner import align_eflomal
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
                         symmetrisation: str = "grow-diag-final-and", seed: int = 1) -> ExtractionPrecision:
    """Precision of dictionary pairs and of eflomal pairs on a gold-aligned test set.

    The aligner is trained on the gold sentences plus any extra tokenised
    parallel text (``extra_src``/``extra_tgt``), as aligners are in practice;
    only the gold sentences are scored. ``dictionary=None`` skips that method.
    Pairs are counted with repetitions (every extracted occurrence).
    """
    src, tgt = _as_tokens(gold.src), _as_tokens(gold.tgt)
    dict_prec, n_dict = None, 0
    if dictionary is not None:
        dpairs = extract_dictionary_pairs(src, tgt, dictionary, distinct=False)
        dict_prec, n_dict = precision(dpairs, gold.possible), len(dpairs)
    train_src = [[t.text for t in s] for s in src] + [[w.lower() for w in s] for s in extra_src]
    train_tgt = [[t.text for t in s] for s in tgt] + [[w.lower() for w in s] for s in extra_tgt]
    links = align_eflomal(train_src, train_tgt, symmetrisation=symmetrisation, seed=seed)[: len(src)]
    apairs = pairs_from_links(src, tgt, links)
    return ExtractionPrecision(dict_prec, precision(apairs, gold.possible), n_dict, len(apairs), len(src))
