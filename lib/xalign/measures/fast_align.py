"""The fast_align word-alignment model (Dyer, Chahuneau and Smith, NAACL 2013), vectorised with numpy.

IBM Model 2 reparameterised with a diagonal prior: target word ``i`` (1-based,
of ``m``) aligns to the null word with probability ``p0`` and to source word
``j`` (1-based, of ``n``) with probability

    (1 - p0) * exp(lambda * h(i, j, m, n)) / Z(i, m, n, lambda),   h = -|i/m - j/n|,

and emits its word with a lexical translation probability ``t(f | e)``. EM
(here with the paper's variational-Bayes M-step, a symmetric Dirichlet prior
``alpha`` on each ``t(. | e)``) estimates ``t``; the tension ``lambda`` is fitted
between iterations by matching the model's expected ``h`` to the posterior's
(gradient steps on ``lambda``). The update is computed as the authors' tool
computes it (clab/fast_align, ``src/fast_align.cc`` and ``src/da.h``): the
posterior's ``h`` takes the 0-based target position (``i - 1``), and the model's
``E[h]`` divides its sum by the normaliser with the two lengths exchanged,
``Z(i, n, m)``. ``tension_update="paper"`` gives the paper's gradient (Sec. 3.2,
1-based positions, ``Z(i, m, n)``) instead. The first E-step has
uniform ``t`` (its posteriors are the prior); the last iteration only decodes
(each target word's most probable link, the null word winning ties, then the
leftmost source word). These are the settings of the authors' ``-d -o -v``
command line, the one Gaschi et al. (2022) and Liu et al. (2019) ran.

There is no randomness anywhere: the same sentences give the same links. Every
sum runs in a fixed order or exactly: per-token and per-word sums with
``np.bincount`` (a plain sequential loop, no SIMD or BLAS dispatch), corpus-wide
expectations with ``math.fsum`` (exactly rounded, so order-free); nothing goes
through BLAS, so the thread count cannot change a bit. Memory: about 40 bytes per (source or null word, target word) pair of
each sentence, i.e. ``sum (n + 1) * m`` cells.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import digamma

#: the authors' defaults (fast_align.cc): null probability, starting tension, EM iterations, Dirichlet alpha
P0, TENSION, ITERATIONS, ALPHA = 0.08, 4.0, 5, 0.01
#: tension bounds and step of the authors' gradient update (8 steps per iteration)
TENSION_MIN, TENSION_MAX, TENSION_STEP, TENSION_STEPS = 0.1, 14.0, 20.0, 8
#: how lambda's gradient is computed: as the authors' tool computes it, or as the paper writes it
TENSION_UPDATES = ("tool", "paper")


@dataclass(frozen=True)
class FastAlignSettings:
    """Model settings (all enter the links' cache key).

    Attributes:
        p0: null-word probability, in [0, 1).
        tension: starting lambda (> 0).
        iterations: EM iterations including the final decoding pass (>= 1).
        optimize_tension: refit lambda between iterations (from the second on).
        alpha: Dirichlet concentration of the variational-Bayes M-step; 0 gives plain EM.
        favor_diagonal: the diagonal prior; False gives IBM Model 1 (uniform over null and source words).
        tension_update: ``"tool"`` (the authors' C++: 0-based target position in the posterior's feature,
            lengths exchanged in the model's normaliser) or ``"paper"`` (the paper's gradient).
    """

    p0: float = P0
    tension: float = TENSION
    iterations: int = ITERATIONS
    optimize_tension: bool = True
    alpha: float = ALPHA
    favor_diagonal: bool = True
    tension_update: str = "tool"

    def __post_init__(self):
        if not 0 <= self.p0 < 1:
            raise ValueError(f"p0 must lie in [0, 1), got {self.p0}")
        if not self.tension > 0:
            raise ValueError(f"tension must be > 0, got {self.tension}")
        if int(self.iterations) != self.iterations or self.iterations < 1:
            raise ValueError(f"iterations must be an integer >= 1, got {self.iterations}")
        if self.alpha < 0:
            raise ValueError(f"alpha must be >= 0, got {self.alpha}")
        if self.tension_update not in TENSION_UPDATES:
            raise ValueError(f"tension_update must be one of {TENSION_UPDATES}, got {self.tension_update!r}")


# ------------------------------------------------------------------ the diagonal prior


def diagonal_feature(i, j, m, n):
    """h(i, j, m, n) = -|i/m - j/n| (positions 1-based; numpy-broadcast)."""
    return -np.abs(np.asarray(i, float) / m - np.asarray(j, float) / n)


def _geometric(r: np.ndarray, count: np.ndarray) -> np.ndarray:
    """sum_{k<count} r**k (r in (0, 1]; r == 1 gives count)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = (1.0 - r**count) / (1.0 - r)
    return np.where(r == 1.0, count.astype(float), out)


def _arith_geometric(a: np.ndarray, d: float | np.ndarray, r: np.ndarray, count: np.ndarray) -> np.ndarray:
    """sum_{k<count} (a + k d) r**k (r in (0, 1]; r == 1 handled)."""
    c = count.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ramp = r * (1.0 - c * r ** (c - 1) + (c - 1) * r**c) / (1.0 - r) ** 2  # sum_k k r^k
    ramp = np.where(r == 1.0, c * (c - 1) / 2, ramp)
    return a * _geometric(r, count) + d * ramp


def _split(i, m, n, tension):
    i, m, n = (np.asarray(x, np.int64) for x in (i, m, n))
    floor = (i * n) // m  # source positions 1..floor lie left of the diagonal point i*n/m
    r = np.exp(-np.asarray(tension, float) / n)
    top_h = diagonal_feature(i, floor + 1, m, n)  # first term right of the diagonal (j = floor + 1)
    bot_h = diagonal_feature(i, floor, m, n)      # first term left of it (j = floor, going down)
    return floor, n - floor, r, top_h, bot_h, n


def diagonal_normaliser(i, m, n, tension):
    """Z(i, m, n, lambda) = sum_{j=1..n} exp(lambda h(i, j, m, n)), in closed form (two geometric series).

    Args:
        i: target positions (1-based), m: target lengths, n: source lengths (>= 1); broadcast arrays.
        tension: lambda (>= 0).
    Returns:
        Z, shaped as the broadcast inputs.
    """
    floor, n_top, r, top_h, bot_h, _ = _split(i, m, n, tension)
    top = np.where(n_top > 0, np.exp(tension * top_h) * _geometric(r, n_top), 0.0)
    bot = np.where(floor > 0, np.exp(tension * bot_h) * _geometric(r, floor), 0.0)
    return top + bot


def _weighted_feature_sum(i, m, n, tension):
    """sum_{j=1..n} h(i, j, m, n) exp(lambda h(i, j, m, n)), in closed form (arithmetico-geometric series)."""
    floor, n_top, r, top_h, bot_h, n = _split(i, m, n, tension)
    step = -1.0 / np.asarray(n, float)  # h falls by 1/n per position away from the diagonal
    top = np.where(n_top > 0, np.exp(tension * top_h) * _arith_geometric(top_h, step, r, n_top), 0.0)
    bot = np.where(floor > 0, np.exp(tension * bot_h) * _arith_geometric(bot_h, step, r, floor), 0.0)
    return top + bot


def diagonal_expected_feature(i, m, n, tension):
    """E[h] under the non-null prior, i.e. d log Z / d lambda (the paper's model feature)."""
    return _weighted_feature_sum(i, m, n, tension) / diagonal_normaliser(i, m, n, tension)


def tool_normaliser(i, m, n, tension):
    """The tool's ``ComputeZ(i, m, n)`` taken literally, for any (i, m, n), as its unsigned arithmetic gives it.

    Equal to :func:`diagonal_normaliser` when ``i <= m``. The tool's model feature calls it with the lengths
    exchanged (``i`` of ``m`` target words, normaliser ``Z(i, n, m)``); then ``floor(i m / n)`` may pass
    ``m`` and the count of terms right of the split, an unsigned ``m - floor``, wraps round to about 2**32,
    so that series runs to its limit ``1 / (1 - r)``.
    """
    i, m, n = (np.asarray(x, np.int64) for x in (i, m, n))
    floor = (i * n) // m
    n_top = np.mod(n - floor, 2**32)  # unsigned subtraction, as the tool's `unsigned num_top = n - floor`
    r = np.exp(-np.asarray(tension, float) / n)
    top = np.exp(tension * diagonal_feature(i, floor + 1, m, n)) * (1.0 - r ** n_top.astype(float)) / (1.0 - r)
    bot = np.exp(tension * diagonal_feature(i, floor, m, n)) * (1.0 - r ** floor.astype(float)) / (1.0 - r)
    return np.where(n_top > 0, top, 0.0) + np.where(floor > 0, bot, 0.0)


def tool_expected_feature(i, m, n, tension):
    """The tool's model feature, ``ComputeDLogZ(i, m, n)``: the weighted sum over ``Z(i, n, m)`` (exchanged)."""
    return _weighted_feature_sum(i, m, n, tension) / tool_normaliser(i, n, m, tension)


# ------------------------------------------------------------------ one direction


@dataclass
class _Cells:
    """Every (target token, null or source position) pair of a corpus, target-token-major, null first."""

    start: np.ndarray      # (T,) first cell of each target token
    token: np.ndarray      # (C,) target token of each cell
    src_pos: np.ndarray    # (C,) source position, 1-based; 0 = null
    tgt_pos: np.ndarray    # (C,) target position, 1-based
    m: np.ndarray          # (C,) target length
    n: np.ndarray          # (C,) source length
    pair: np.ndarray       # (C,) index of the cell's (source word, target word) pair
    pair_src: np.ndarray   # (P,) source word of each pair (the null word is the largest id)
    sizes: np.ndarray      # (S, 2) distinct (m, n) of the corpus
    size_count: np.ndarray  # (S,) sentences of each size


def _cells(src: list[np.ndarray], tgt: list[np.ndarray], n_src_words: int, n_tgt_words: int) -> _Cells:
    n = np.array([len(s) for s in src], np.int64)
    m = np.array([len(t) for t in tgt], np.int64)
    src_flat = np.concatenate(src) if len(src) else np.zeros(0, np.int64)
    tgt_flat = np.concatenate(tgt) if len(tgt) else np.zeros(0, np.int64)
    src_off = np.concatenate([[0], np.cumsum(n)[:-1]])
    tgt_off = np.concatenate([[0], np.cumsum(m)[:-1]])
    tok_sent = np.repeat(np.arange(len(m)), m)                       # (T,)
    tok_pos = np.arange(len(tok_sent)) - tgt_off[tok_sent] + 1       # 1-based
    width = n[tok_sent] + 1
    start = np.concatenate([[0], np.cumsum(width)[:-1]])
    token = np.repeat(np.arange(len(tok_sent)), width)               # (C,)
    src_pos = np.arange(len(token)) - start[token]                   # 0 = null
    sent = tok_sent[token]
    null = n_src_words
    e = np.where(src_pos > 0, src_flat[np.minimum(src_off[sent] + src_pos - 1, max(len(src_flat) - 1, 0))], null)
    f = tgt_flat[token]
    keys, pair = np.unique(e * n_tgt_words + f, return_inverse=True)
    sizes, size_count = np.unique(np.stack([m, n], 1), axis=0, return_counts=True)
    return _Cells(start, token, src_pos, tok_pos[token], m[sent], n[sent], pair.ravel(), keys // n_tgt_words,
                  sizes, size_count)


def _prior(c: _Cells, s: FastAlignSettings, tension: float) -> np.ndarray:
    if not s.favor_diagonal:
        return 1.0 / (c.n + 1.0)
    real = c.src_pos > 0
    out = np.full(len(c.token), s.p0)
    h = diagonal_feature(c.tgt_pos[real], c.src_pos[real], c.m[real], c.n[real])
    out[real] = (1 - s.p0) * np.exp(tension * h) / diagonal_normaliser(c.tgt_pos[real], c.m[real], c.n[real],
                                                                       tension)
    return out


def _fit_tension(c: _Cells, tension: float, posterior_feature: float, n_tokens: int, how: str) -> float:
    """The authors' update: a few steps of lambda += 20 (posterior E[h] - model E[h]), clipped to [0.1, 14]."""
    expected = tool_expected_feature if how == "tool" else diagonal_expected_feature
    m, n = c.sizes[:, 0], c.sizes[:, 1]
    size = np.repeat(np.arange(len(m)), m)
    i = np.arange(len(size)) - np.concatenate([[0], np.cumsum(m)[:-1]])[size] + 1
    weight = c.size_count[size]
    for _ in range(TENSION_STEPS):
        model_feature = math.fsum(weight * expected(i, m[size], n[size], tension)) / n_tokens
        tension = float(np.clip(tension + (posterior_feature - model_feature) * TENSION_STEP, TENSION_MIN,
                                TENSION_MAX))
    return tension


def align_direction(src: list[np.ndarray], tgt: list[np.ndarray], n_src_words: int, n_tgt_words: int,
                    settings: FastAlignSettings = FastAlignSettings()) -> tuple[list[np.ndarray], float]:
    """Align every target word to a source word or null (fast_align, one direction).

    Args:
        src, tgt: per sentence, int arrays of word ids (< n_src_words, < n_tgt_words); no empty sentence.
        settings: the model's settings.
    Returns:
        (per sentence an int array of length m: the 0-based source position of each target word, -1 for
        null; the final tension).
    """
    if any(len(s) == 0 for s in src) or any(len(t) == 0 for t in tgt):
        raise ValueError("align_direction: every sentence needs at least one word on each side")
    c = _cells(src, tgt, n_src_words, n_tgt_words)
    n_tokens = len(c.start)
    real = c.src_pos > 0
    # the posterior's feature: the tool takes the 0-based target position, the paper the 1-based one
    tgt_pos = c.tgt_pos[real] - (1 if settings.tension_update == "tool" else 0)
    feature = diagonal_feature(tgt_pos, c.src_pos[real], c.m[real], c.n[real])
    t = np.ones(len(c.pair_src))  # uniform: the first E-step's posteriors are the prior
    tension = settings.tension
    for it in range(settings.iterations):
        probs = t[c.pair] * _prior(c, settings, tension)
        if it == settings.iterations - 1:
            break
        post = probs / np.bincount(c.token, weights=probs, minlength=n_tokens)[c.token]
        counts = np.bincount(c.pair, weights=post, minlength=len(t))
        if settings.favor_diagonal and settings.optimize_tension and it > 0:
            posterior_feature = math.fsum(post[real] * feature) / n_tokens
            tension = _fit_tension(c, tension, posterior_feature, n_tokens, settings.tension_update)
        if settings.alpha > 0:  # variational Bayes: exp(digamma(count + alpha) - digamma(total + alpha * V_e))
            total = np.bincount(c.pair_src, weights=counts + settings.alpha, minlength=n_src_words + 1)
            t = np.exp(digamma(counts + settings.alpha) - digamma(total[c.pair_src]))
        else:
            total = np.bincount(c.pair_src, weights=counts, minlength=n_src_words + 1)
            t = counts / np.where(total > 0, total, 1.0)[c.pair_src]
    best = np.maximum.reduceat(probs, c.start)
    first = np.where(probs == best[c.token], np.arange(len(probs)), len(probs))
    winner = np.minimum.reduceat(first, c.start)  # leftmost maximum; the null cell comes first
    links = c.src_pos[winner] - 1
    bounds = np.cumsum([len(x) for x in tgt])[:-1]
    return np.split(links, bounds), tension


# ------------------------------------------------------------------ both directions


def _ids(sentences: list[list[str]]) -> tuple[list[np.ndarray], int]:
    vocab = sorted({w for s in sentences for w in s})
    index = {w: k for k, w in enumerate(vocab)}
    return [np.array([index[w] for w in s], np.int64) for s in sentences], len(vocab)


def fast_align_both(src_sentences: list[list[str]], tgt_sentences: list[list[str]],
                    settings: FastAlignSettings = FastAlignSettings()
                    ) -> tuple[list[set[tuple[int, int]]], list[set[tuple[int, int]]], dict]:
    """Forward (target words choose source words) and reverse links, both as (source i, target j).

    Sentence pairs with an empty side get no links and do not enter training.
    Returns (forward, reverse, {"tension_forward", "tension_reverse"}).
    """
    keep = [k for k, (s, t) in enumerate(zip(src_sentences, tgt_sentences)) if s and t]
    forward = [set() for _ in src_sentences]
    reverse = [set() for _ in src_sentences]
    info = {"tension_forward": None, "tension_reverse": None}
    if not keep:
        return forward, reverse, info
    src, n_src = _ids([src_sentences[k] for k in keep])
    tgt, n_tgt = _ids([tgt_sentences[k] for k in keep])
    fwd, info["tension_forward"] = align_direction(src, tgt, n_src, n_tgt, settings)
    rev, info["tension_reverse"] = align_direction(tgt, src, n_tgt, n_src, settings)
    for k, a_f, a_r in zip(keep, fwd, rev):
        forward[k] = {(int(i), j) for j, i in enumerate(a_f) if i >= 0}
        reverse[k] = {(i, int(j)) for i, j in enumerate(a_r) if j >= 0}
    return forward, reverse, info
