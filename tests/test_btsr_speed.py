"""Chapter 2's speed-ups: memoised tables, anchors built once per space, shared Procrustes steps."""

import numpy as np
import pytest

from test_ctxalign import toy_spaces
from xalign.core.cache import EmbeddingCache
from xalign.measures.btsr import anchors as anchors_mod
from xalign.measures.btsr.anchors import aligned_word_pairs, anchors, fit
from xalign.measures.btsr.evaluate import sentence_retrieval
from xalign.measures.btsr.typevectors import TypeVectors
from xalign.papers.liu2020 import audit, grid

METHODS = [("token", "wa"), ("token", "sa"), ("avg_type", "wa"), ("avg_type", "sa"), ("avg_type", "dict")]


def counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def wrapper(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(module, name, wrapper)
    return calls


def test_grid_is_memoised_and_keyed_by_the_vectors(tmp_path, monkeypatch):
    store = EmbeddingCache(tmp_path)
    calls = counting(monkeypatch, grid, "_run_jobs")
    _, sp = toy_spaces()
    a = grid.evaluate_grid(sp, [2, 4], METHODS, store=store)
    b = grid.evaluate_grid(toy_spaces()[1], [2, 4], METHODS, store=store)  # a new object with the same content
    assert len(calls) == 1
    assert a.equals(b)
    _, sp2 = toy_spaces()
    sp2.src.vectors = sp2.src.vectors + 1e-3  # other vectors: recomputed
    grid.evaluate_grid(sp2, [2, 4], METHODS, store=store)
    grid.evaluate_grid(sp, [2], METHODS, store=store)  # other sizes: recomputed
    assert len(calls) == 3


def with_first_set(sp):
    """The toy space with the statistics and the 'first' candidate space the audit reads."""
    sp.data.btsr.stats = {"test_pairs": 1, "test_pairs_ranked_among_items": 1, "same_form_distractors": 0,
                          "items_with_same_form_distractor": 0}
    sp.data.btsr_first = sp.data.btsr
    return sp


def test_original_baselines_audit_and_checks_are_memoised(tmp_path, monkeypatch):
    store = EmbeddingCache(tmp_path)
    names = [(grid, "_original_space_scores"), (grid, "_baseline_rows"), (audit, "_before_after"),
             (audit, "_known_answers")]
    calls = {n: counting(monkeypatch, m, n) for m, n in names}
    for _ in range(2):
        sp = with_first_set(toy_spaces()[1])
        grid.original_space_scores(sp, store=store)
        grid.btsr_baselines(sp, store=store)
        audit.before_after(sp, store=store)
        audit.known_answers(sp, store=store)
    assert {n: len(c) for n, c in calls.items()} == {n: 1 for _, n in names}


def test_memoised_grid_equals_the_direct_computation(tmp_path):
    _, sp = toy_spaces()
    memo = grid.evaluate_grid(sp, [2, 4], METHODS, store=EmbeddingCache(tmp_path))
    _, sp2 = toy_spaces()
    direct = grid.evaluate_grid(sp2, [2, 4], METHODS, store=EmbeddingCache(tmp_path, enabled=False))
    assert memo.equals(direct) and len(memo) == 18


def test_anchor_tables_are_built_once_and_sliced_per_size(monkeypatch):
    _, sp = toy_spaces()
    token_means = counting(monkeypatch, sp.src, "sentence_means")
    type_means = counting(monkeypatch, TypeVectors, "sentence_means")
    pairs_built = counting(monkeypatch, anchors_mod, "_type_pairs")
    for n in (1, 2, 3, None):
        for level, signal in METHODS:
            anchors(sp, level, signal, n)
    assert len(token_means) == 1 and len(type_means) == 2 and len(pairs_built) == 2


@pytest.mark.parametrize("n", [1, 2, 3, 4, None])
def test_sliced_anchors_equal_the_anchors_of_the_first_n_pairs(n):
    _, sp = toy_spaces()
    sents = sp.data.train[:n] if n else sp.data.train
    X, Y = anchors(sp, "token", "sa", n)
    assert np.array_equal(X, sp.src.sentence_means(sents)) and np.array_equal(Y, sp.tgt.sentence_means(sents))
    pairs = [(s, t) for s, t in aligned_word_pairs(sp.data, sents) if s in sp.avg_src and t in sp.avg_tgt]
    X, Y = anchors(sp, "avg_type", "wa", n) if len(pairs) >= 2 else (None, None)
    if X is not None:
        assert np.array_equal(X, sp.avg_src.lookup([s for s, _ in pairs]))
        assert np.array_equal(Y, sp.avg_tgt.lookup([t for _, t in pairs]))
    ks, i, j = zip(*[(k, a, b) for k in sents for a, b in sorted(sp.data.links[k])])
    X, Y = anchors(sp, "token", "wa", n)
    assert np.array_equal(X, sp.src.vectors[sp.src.rows(list(ks), list(i))])
    assert np.array_equal(Y, sp.tgt.vectors[sp.tgt.rows(list(ks), list(j))])


def test_retrieval_sentences_are_averaged_once(monkeypatch):
    _, sp = toy_spaces()
    calls = counting(monkeypatch, TypeVectors, "sentence_means")
    al = fit(sp, "avg_type", "wa")
    first = sentence_retrieval(al, sp, "type")
    assert sentence_retrieval(al, sp, "type") == first
    assert len(calls) == 2  # source and target, once


def test_baselines_and_checks_reuse_the_grids_largest_maps(tmp_path, monkeypatch):
    sp = with_first_set(toy_spaces()[1])
    grid.evaluate_grid(sp, [2, 4], METHODS, store=EmbeddingCache(tmp_path))
    calls = counting(monkeypatch, anchors_mod, "fit_alignment")
    store = EmbeddingCache(tmp_path / "other")
    grid.btsr_baselines(sp, n=4, store=store)
    audit.known_answers(sp, store=store)
    assert calls == []  # every map they need was fitted by the grid


def test_occurrence_ranks_equal_the_visiting_loop():
    from xalign.measures.btsr.typevectors import occurrence_ranks

    rng = np.random.default_rng(3)
    ids = rng.integers(0, 40, size=2000)
    order = rng.permutation(len(ids))
    ranks, seen = np.empty(len(ids), int), np.zeros(40, int)
    for pos in order:  # the loop average_types used
        ranks[pos] = seen[ids[pos]]
        seen[ids[pos]] += 1
    assert np.array_equal(occurrence_ranks(ids, order), ranks)
    assert occurrence_ranks(np.zeros(0, int), np.zeros(0, int)).shape == (0,)
