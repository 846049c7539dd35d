"""Anchors for the maps: aligned words or sentences at the ``token``, ``avg_type`` or ``iso_type`` level.

Part of the BTSR method (chapter 2, the card); see :mod:`xalign.measures.btsr` for the vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from xalign.measures.btsr.constants import LEVELS, SIGNALS, TECHNIQUES
from xalign.measures.btsr.pairdata import PairData
from xalign.measures.btsr.spaces import Space
from xalign.measures.btsr.typevectors import TypeVectors
from xalign.measures.mapping import Alignment, fit_alignment, normalize_center


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
    #: tables built once per object (whole-training anchors, the memo digest); treat the fields above as frozen
    memo: dict = field(default_factory=dict, repr=False, compare=False)

    def once(self, name, build):
        """``build()``, computed on the first call for ``name`` and kept in :attr:`memo`."""
        if name not in self.memo:
            self.memo[name] = build()
        return self.memo[name]


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
    training pairs (``dict`` ignores ``n_sentences``); (n_anchors, dim) each (``sa``: read-only views).

    The anchors of the first n pairs are a prefix of those of all pairs (in
    training order; type-level ``wa`` pairs in order of first occurrence), so
    the whole-training table is built once per ``sp`` and every size slices it.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, got {level!r}")
    if signal not in SIGNALS:
        raise ValueError(f"signal must be one of {SIGNALS}, got {signal!r}")
    m = _n_used(sp, n_sentences)
    if level == "token":
        if signal == "wa":
            rows_s, rows_t, ends = sp.once("token wa", lambda: _token_links(sp))
            return sp.src.vectors[rows_s[: ends[m]]], sp.tgt.vectors[rows_t[: ends[m]]]
        if signal == "sa":
            X, Y = sp.once("token sa", lambda: _frozen(sp.src.sentence_means(sp.data.train),
                                                       sp.tgt.sentence_means(sp.data.train)))
            return X[:m], Y[:m]
        raise ValueError("token-level alignment needs parallel text (wa or sa), not a dictionary")
    S, T = type_tables(sp, level)
    if signal == "sa":
        X, Y = sp.once(f"{level} sa", lambda: _frozen(S.sentence_means(sp.data.src_tokens, sp.data.train),
                                                      T.sentence_means(sp.data.tgt_tokens, sp.data.train)))
        return X[:m], Y[:m]
    idx_s, idx_t, first = sp.once(f"{level} {signal}", lambda: _type_pairs(sp, S, T, signal))
    n = int(np.searchsorted(first, m)) if signal == "wa" else len(idx_s)
    if n < 2:
        raise ValueError(f"{level} {signal}: only {n} anchor pairs have vectors")
    return S.vectors[idx_s[:n]], T.vectors[idx_t[:n]]


def _frozen(*arrays):
    for a in arrays:
        a.flags.writeable = False
    return arrays


def _token_links(sp: PairSpaces):
    """Rows of every linked (source, target) token of the training pairs, in training order, and
    ``ends[m]``: how many of them the first m training pairs hold."""
    ks, i, j, ends = [], [], [], [0]
    for k in sp.data.train:
        for a, b in sorted(sp.data.links[k]):
            ks.append(k), i.append(a), j.append(b)
        ends.append(len(ks))
    as_int = lambda v: np.asarray(v, dtype=np.int64)
    return sp.src.rows(as_int(ks), as_int(i)), sp.tgt.rows(as_int(ks), as_int(j)), np.asarray(ends)


def _type_pairs(sp: PairSpaces, S: TypeVectors, T: TypeVectors, signal: str):
    """Table rows of the type-level anchor pairs that have vectors, and the training position of each
    pair's first occurrence (``wa``: aligned word pairs in order of first occurrence; ``dict``: the
    dictionary)."""
    if signal == "wa":
        first: dict[tuple[str, str], int] = {}
        for pos, k in enumerate(sp.data.train):
            s, t = sp.data.src_tokens[k], sp.data.tgt_tokens[k]
            for i, j in sorted(sp.data.links[k]):
                first.setdefault((s[i].text, t[j].text), pos)
        pairs = list(first.items())
    else:
        pairs = [(p, 0) for p in sp.data.dictionary]
    pairs = [((s, t), pos) for (s, t), pos in pairs if s in S and t in T]
    return (np.array([S.index[s] for (s, _), _ in pairs], dtype=np.int64),
            np.array([T.index[t] for (_, t), _ in pairs], dtype=np.int64),
            np.array([pos for _, pos in pairs], dtype=np.int64))


def fit(sp: PairSpaces, level: str, signal: str, technique: str = "orig",
        n_sentences: int | None = None) -> Alignment:
    """Procrustes (``orig``) or Procrustes + MIM (``mim``) on the chosen anchors (kept in ``sp.memo``:
    the baselines, the audit and the checks reuse the largest training set's maps)."""
    if technique not in TECHNIQUES:
        raise ValueError(f"technique must be one of {TECHNIQUES}, got {technique!r}")

    def compute():
        X, Y = anchors(sp, level, signal, n_sentences)
        return fit_alignment(X, Y, mim=technique == "mim")

    return sp.once(fit_key(sp, level, signal, technique, n_sentences), compute)


def fit_key(sp: PairSpaces, level: str, signal: str, technique: str, n_sentences: int | None = None) -> tuple:
    """The ``sp.memo`` name of a fitted map (n_sentences as the number of training pairs it uses)."""
    return "fit", level, signal, technique, _n_used(sp, n_sentences)


def _n_used(sp: PairSpaces, n_sentences: int | None) -> int:
    """How many training pairs ``sp.data.train[:n_sentences]`` holds (all of them for None or 0)."""
    return len(range(len(sp.data.train))[:n_sentences]) if n_sentences else len(sp.data.train)


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

    def means():
        X, Y = anchors(sp, "token", "wa", n_sentences)
        if len(X) < 1:
            raise ValueError("no token wa anchors in the training pairs: cannot centre the unmapped space")
        return normalize_center(X)[1], normalize_center(Y)[1]

    mean_x, mean_y = sp.once(("token wa means", _n_used(sp, n_sentences)), means)
    eye = np.eye(dim)
    return Alignment(eye, eye, eye, mean_x, mean_y)


