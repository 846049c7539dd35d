"""Anchors for the maps: aligned words or sentences at the ``token``, ``avg_type`` or ``iso_type`` level.

Part of the chapter-2 method; see :mod:`xalign.papers.liu2020` for the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from xalign.measures.mapping import Alignment, fit_alignment, normalize_center
from xalign.papers.liu2020.constants import LEVELS, SIGNALS, TECHNIQUES
from xalign.papers.liu2020.pairdata import PairData
from xalign.papers.liu2020.spaces import Space
from xalign.papers.liu2020.typevectors import TypeVectors


@dataclass
class PairSpaces:
    """Everything the alignment methods draw anchors from, for one language pair."""

    data: PairData
    src: Space
    tgt: Space
    avg_src: TypeVectors  # avg_type from the training sentences only (anchors, baselines, [type] evaluation)
    avg_tgt: TypeVectors
    iso_src: TypeVectors
    iso_tgt: TypeVectors


def aligned_word_pairs(data: PairData, sents) -> list[tuple[str, str]]:
    """Distinct (source word, target word) pairs linked by the aligner in ``sents`` (a type-level dictionary)."""
    out = {}
    for k in sents:
        s, t = data.src_tokens[k], data.tgt_tokens[k]
        for i, j in sorted(data.links[k]):
            out.setdefault((s[i].text, t[j].text), None)
    return list(out)


def type_tables(sp: PairSpaces, level: str) -> tuple[TypeVectors, TypeVectors]:
    if level == "avg_type":
        return sp.avg_src, sp.avg_tgt
    if level == "iso_type":
        return sp.iso_src, sp.iso_tgt
    raise ValueError(f"{level!r} is not a type level")


def anchors(sp: PairSpaces, level: str, signal: str, n_sentences: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Paired anchor vectors (X source, Y target) for one level and signal, from the first ``n_sentences``
    training pairs (``dict`` ignores ``n_sentences``)."""
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    sents = sp.data.train[:n_sentences] if n_sentences else sp.data.train
    if level == "token":
        if signal == "wa":
            ks, i, j = [], [], []
            for k in sents:
                for a, b in sorted(sp.data.links[k]):
                    ks.append(k), i.append(a), j.append(b)
            return sp.src.vectors[sp.src.rows(ks, i)], sp.tgt.vectors[sp.tgt.rows(ks, j)]
        if signal == "sa":
            return sp.src.sentence_means(sents), sp.tgt.sentence_means(sents)
        raise ValueError("token-level alignment needs parallel text (wa or sa), not a dictionary")
    S, T = type_tables(sp, level)
    if signal == "sa":
        return S.sentence_means(sp.data.src_tokens, sents), T.sentence_means(sp.data.tgt_tokens, sents)
    pairs = aligned_word_pairs(sp.data, sents) if signal == "wa" else sp.data.dictionary
    pairs = [(s, t) for s, t in pairs if s in S and t in T]
    if len(pairs) < 2:
        raise ValueError(f"{level} {signal}: only {len(pairs)} anchor pairs have vectors")
    return S.lookup([s for s, _ in pairs]), T.lookup([t for _, t in pairs])


def fit(sp: PairSpaces, level: str, signal: str, technique: str = "orig",
        n_sentences: int | None = None) -> Alignment:
    """Procrustes (``orig``) or Procrustes + MIM (``mim``) on the chosen anchors."""
    if technique not in TECHNIQUES:
        raise ValueError(f"technique must be one of {TECHNIQUES}, got {technique!r}")
    X, Y = anchors(sp, level, signal, n_sentences)
    return fit_alignment(X, Y, mim=technique == "mim")


def identity_alignment(dim: int) -> Alignment:
    """No mapping at all, not even centring (the raw original space)."""
    eye = np.eye(dim)
    return Alignment(eye, eye, eye, None, None)


def unmapped_alignment(sp: PairSpaces, centred: bool = True, n_sentences: int | None = None) -> Alignment:
    """The original space with no map (W = I), given the same pre-processing as every fitted map.

    ``centred``: vectors are L2-normalised, centred on the mean of the
    ``token wa`` training anchors of their side (the first ``n_sentences``
    training pairs) and normalised again, as :func:`fit` does before
    Procrustes; so "a map adds N points" measures the map, not the centring.
    ``centred=False`` is the raw space (:func:`identity_alignment`).
    """
    dim = sp.src.vectors.shape[1]
    if not centred:
        return identity_alignment(dim)
    X, Y = anchors(sp, "token", "wa", n_sentences)
    if len(X) < 1:
        raise ValueError("no token wa anchors in the training pairs: cannot centre the unmapped space")
    _, mean_x = normalize_center(X)
    _, mean_y = normalize_center(Y)
    eye = np.eye(dim)
    return Alignment(eye, eye, eye, mean_x, mean_y)


