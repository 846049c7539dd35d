"""fast_align (Dyer et al. 2013): known answers, the diagonal prior's closed forms, determinism, caching."""

import hashlib
import json

import numpy as np
import pytest

from xalign.measures.aligner import UNSEEDED, align_words, symmetrise
from xalign.measures.fast_align import (
    FastAlignSettings,
    align_direction,
    diagonal_expected_feature,
    diagonal_feature,
    diagonal_normaliser,
    fast_align_both,
)

CASES = [(1, 5, 7, 4.0), (3, 3, 10, 2.5), (2, 9, 1, 0.0), (4, 4, 4, 14.0), (5, 7, 3, 0.1), (1, 1, 1, 4.0),
         (7, 7, 30, 9.3), (2, 30, 5, 0.0), (6, 13, 13, 1e-2)]  # closed forms lose digits as lambda/n -> 0 (lambda >= 0.1 in use)


@pytest.mark.parametrize("i,m,n,lam", CASES)
def test_normaliser_and_expected_feature_match_brute_force_sums(i, m, n, lam):
    j = np.arange(1, n + 1)
    h = diagonal_feature(i, j, m, n)
    w = np.exp(lam * h)
    assert diagonal_normaliser(i, m, n, lam) == pytest.approx(w.sum(), rel=1e-10)
    assert diagonal_expected_feature(i, m, n, lam) == pytest.approx((h * w).sum() / w.sum(), rel=1e-8, abs=1e-12)


def test_closed_forms_broadcast_over_arrays():
    i, m, n, _ = (np.array(x) for x in zip(*CASES))
    z = diagonal_normaliser(i, m, n, 3.0)
    assert z.shape == (len(CASES),)
    assert z == pytest.approx([np.exp(3.0 * diagonal_feature(a, np.arange(1, c + 1), b, c)).sum()
                               for a, b, c in zip(i, m, n)])


def test_expected_feature_is_the_derivative_of_log_normaliser():
    i, m, n, lam, eps = 3, 8, 11, 5.0, 1e-6
    numeric = (np.log(diagonal_normaliser(i, m, n, lam + eps)) - np.log(diagonal_normaliser(i, m, n, lam - eps))) / (
        2 * eps)
    assert diagonal_expected_feature(i, m, n, lam) == pytest.approx(numeric, rel=1e-6)


TOY_SRC = [["das", "haus"], ["das", "buch"], ["ein", "buch"], ["ein", "haus"]] * 20
TOY_TGT = [["the", "house"], ["the", "book"], ["a", "book"], ["a", "house"]] * 20


def test_toy_corpus_gets_the_obvious_links_both_ways():
    forward, reverse, info = fast_align_both(TOY_SRC, TOY_TGT)
    assert all(f == {(0, 0), (1, 1)} for f in forward)
    assert all(r == {(0, 0), (1, 1)} for r in reverse)
    assert 0.1 <= info["tension_forward"] <= 14


def test_crossing_links_are_learnt_from_the_words_and_the_tension_falls():
    # adjective-noun order swaps (red car -> CAR RED); one-word sentences anchor the lexicon: the
    # words beat the diagonal, and the fitted tension drops below its start (4)
    adj, noun = ["red", "big", "old", "new", "blue"], ["car", "house", "dog", "book", "tree"]
    src = [["the", a, n] for a in adj for n in noun] + [[w] for w in adj + noun] * 3
    tgt = [["LA", n.upper(), a.upper()] for a in adj for n in noun] + [[w.upper()] for w in adj + noun] * 3
    forward, reverse, info = fast_align_both(src, tgt)
    assert all(f == {(0, 0), (1, 2), (2, 1)} for f in forward[:25])
    assert all(r == {(0, 0), (1, 2), (2, 1)} for r in reverse[:25])
    assert info["tension_forward"] < 4.0
    assert align_words(src, tgt, cache=False)[:25] == forward[:25]


def test_a_word_without_a_counterpart_goes_to_null():
    # "xx" occurs once, in a sentence whose other words are explained: its target "ZZ" is aligned
    # to "xx" or to null, never to the well-explained "a"
    src = [["a"], ["b"], ["a", "b"]] * 20 + [["a", "xx"]]
    tgt = [["A"], ["B"], ["A", "B"]] * 20 + [["A", "ZZ"]]
    forward, _, _ = fast_align_both(src, tgt)
    assert forward[-1] <= {(0, 0), (1, 1)} and (0, 0) in forward[-1]


def test_ibm1_without_diagonal_prefers_a_word_over_null():
    # "e" always comes with "f", "g" with "h": t(f|e) = 1 beats t(f|null) = 1/2 under a uniform prior
    out, _ = align_direction([np.array([0]), np.array([1])] * 15, [np.array([0]), np.array([1])] * 15, 2, 2,
                             FastAlignSettings(favor_diagonal=False, alpha=0.0))
    assert all(a.tolist() == [0] for a in out)


def test_empty_sentences_get_no_links_and_do_not_break_training():
    src = TOY_SRC + [[], ["das"]]
    tgt = TOY_TGT + [["the"], []]
    links = align_words(src, tgt, cache=False)
    assert links[-2:] == [set(), set()]
    assert links[0] == {(0, 0), (1, 1)}


def _digest(links):
    return hashlib.sha256(json.dumps([sorted(ls) for ls in links]).encode()).hexdigest()


def test_two_runs_give_byte_identical_links():
    rng = np.random.default_rng(3)  # a random-looking corpus with ties and repeated words
    words = [f"w{k}" for k in range(40)]
    src = [[words[k] for k in rng.integers(0, 40, rng.integers(1, 12))] for _ in range(300)]
    tgt = [[w.upper() for w in s[::-1]] + ["PAD"] * int(rng.integers(0, 3)) for s in src]
    a = align_words(src, tgt, cache=False)
    b = align_words(src, tgt, cache=False)
    assert _digest(a) == _digest(b)
    assert sum(map(len, a)) > 0


def test_settings_are_checked():
    with pytest.raises(ValueError, match="p0"):
        FastAlignSettings(p0=1.0)
    with pytest.raises(ValueError, match="tension"):
        FastAlignSettings(tension=0)
    with pytest.raises(ValueError, match="iterations"):
        FastAlignSettings(iterations=0)
    with pytest.raises(ValueError, match="aligner must be one of"):
        align_words([["a"]], [["b"]], aligner="giza")


def test_links_are_cached_under_the_aligner_and_its_settings(tmp_path, monkeypatch):
    import xalign.measures.aligner as A

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    first = A.align_words(TOY_SRC, TOY_TGT)
    assert len(list((tmp_path / "alignments").glob("*/*.json"))) == 1

    def no_rerun(*args, **kwargs):
        raise AssertionError("the aligner ran again although its links were cached")

    monkeypatch.setattr(A, "fast_align_both", no_rerun)
    assert A.align_words(TOY_SRC, TOY_TGT) == first  # read back, identical
    with pytest.raises(AssertionError):  # other settings: not a cache hit
        A.align_words(TOY_SRC, TOY_TGT, settings=FastAlignSettings(p0=0.2))
    with pytest.raises(AssertionError):
        A.align_words(TOY_SRC, TOY_TGT, symmetrisation="intersection")


def test_eflomal_is_the_labelled_unseeded_variant():
    assert UNSEEDED == {"eflomal"}
    assert "fast_align" not in UNSEEDED


# ---- grow-diag-final-and: cases worked by hand


def test_gdfa_keeps_the_intersection_and_grows_to_unaligned_neighbours():
    fwd = {(0, 0), (1, 1), (2, 2)}
    rev = {(0, 0), (1, 1), (1, 2), (2, 2)}
    # (1, 2) neighbours (1, 1) and (2, 2), but source 1 and target 2 are both aligned already: not grown
    assert symmetrise(fwd, rev, 3, 3) == {(0, 0), (1, 1), (2, 2)}


def test_gdfa_grows_a_one_to_many_link():
    fwd = {(0, 0), (1, 1), (1, 2)}  # source 1 -> targets 1 and 2
    rev = {(0, 0), (1, 1)}           # target 2 unaligned in the reverse direction
    assert symmetrise(fwd, rev, 2, 3) == {(0, 0), (1, 1), (1, 2)}


def test_gdfa_final_and_adds_only_links_with_both_ends_unaligned():
    fwd = {(0, 0), (3, 3)}
    rev = {(0, 0), (3, 1)}
    # (3, 3) and (3, 1) are no neighbours of (0, 0); final-and takes forward's (3, 3) first, then
    # reverse's (3, 1) has its source aligned: dropped
    assert symmetrise(fwd, rev, 4, 4) == {(0, 0), (3, 3)}
    assert symmetrise(fwd, rev, 4, 4, "intersection") == {(0, 0)}
    assert symmetrise(fwd, rev, 4, 4, "union") == {(0, 0), (3, 3), (3, 1)}


# ---- the vectorised model against a plain loop over sentences, written from the paper


def _tool_z_exchanged(i, m, n, tension):
    """The tool's ComputeZ(i, n, m) as a plain sum: j = 1..m, or on and on where floor(i m / n) passes m
    (its unsigned term count wraps round to about 2**32; the tail beyond 20,000 terms is negligible here)."""
    last = m if (i * m) // n <= m else 20_000
    return sum(np.exp(-tension * abs(j / m - i / n)) for j in range(1, last + 1))


def _loop_fast_align(src, tgt, n_src_words, p0=0.08, tension=4.0, iterations=5, alpha=0.01, tool=False):
    """One direction of fast_align with dictionaries and loops (slow, obviously the paper's equations;
    ``tool``: the tension update as the authors' C++ computes it)."""
    from collections import defaultdict

    from scipy.special import digamma

    null = n_src_words
    t = defaultdict(lambda: 1.0)
    sizes = defaultdict(int)
    for s, f in zip(src, tgt):
        sizes[(len(f), len(s))] += 1
    n_tokens = sum(len(f) for f in tgt)
    for it in range(iterations):
        counts, emp, out = defaultdict(float), 0.0, []
        for s, f in zip(src, tgt):
            n, m = len(s), len(f)
            links = []
            for i in range(1, m + 1):
                z = sum(np.exp(-tension * abs(i / m - j / n)) for j in range(1, n + 1))
                probs = [t[(null, f[i - 1])] * p0] + [
                    t[(s[j - 1], f[i - 1])] * (1 - p0) * np.exp(-tension * abs(i / m - j / n)) / z
                    for j in range(1, n + 1)]
                links.append(int(np.argmax(probs)) - 1)  # first maximum: null, then the leftmost word
                total = sum(probs)
                counts[(null, f[i - 1])] += probs[0] / total
                for j in range(1, n + 1):
                    counts[(s[j - 1], f[i - 1])] += probs[j] / total
                    emp += -abs((i - tool) / m - j / n) * probs[j] / total
            out.append(links)
        if it == iterations - 1:
            return out, tension
        if it > 0:
            for _ in range(8):
                model = 0.0
                for (m, n), c in sizes.items():
                    for i in range(1, m + 1):
                        h = np.array([-abs(i / m - j / n) for j in range(1, n + 1)])
                        w = np.exp(tension * h)
                        model += c * (h * w).sum() / (_tool_z_exchanged(i, m, n, tension) if tool else w.sum())
                tension = float(np.clip(tension + (emp / n_tokens - model / n_tokens) * 20, 0.1, 14))
        tot = defaultdict(float)
        for (e, f), c in counts.items():
            tot[e] += c + alpha
        t = defaultdict(float, {(e, f): float(np.exp(digamma(c + alpha) - digamma(tot[e])))
                                for (e, f), c in counts.items()})


@pytest.mark.parametrize("how", ["tool", "paper"])
def test_vectorised_model_equals_the_loop_over_sentences(how):
    rng = np.random.default_rng(7)
    src = [rng.integers(0, 12, rng.integers(1, 7)) for _ in range(60)]
    tgt = [np.concatenate([(s[::-1] + 3) % 15, rng.integers(0, 15, rng.integers(0, 3))]) for s in src]
    fast, fast_tension = align_direction(src, tgt, 12, 15, FastAlignSettings(tension_update=how))
    loop, loop_tension = _loop_fast_align([s.tolist() for s in src], [t.tolist() for t in tgt], 12,
                                          tool=how == "tool")
    assert [a.tolist() for a in fast] == loop
    assert fast_tension == pytest.approx(loop_tension, rel=1e-9)
