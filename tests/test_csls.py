"""The library's CSLS search (xalign.measures.csls): known answers, the definition, the three-product
search the chapters used, duplicate candidates, bf16 tolerance."""

import numpy as np
import pytest

from csls_reference import csls_scores, csls_topk_three_products, topk_lowest_index_first
from csls_reference import unit as _unit
from xalign.measures.csls import csls_topk


def _pairs(n, d, noise, seed):
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((n, d)).astype(np.float32)
    V = U + noise * rng.standard_normal((n, d)).astype(np.float32)
    return _unit(U), _unit(V)


_brute_force = csls_scores


@pytest.mark.parametrize("block", [None, 7])
def test_matches_the_definition(block):
    U, V = _pairs(60, 16, 1.5, 0)
    S = _brute_force(U, V, k=5)
    idx, val = csls_topk(U, V, k=5, topn=3, block=block)
    np.testing.assert_array_equal(idx, np.argsort(-S, axis=1)[:, :3])
    np.testing.assert_allclose(val, np.sort(S, axis=1)[:, ::-1][:, :3], atol=1e-5)


@pytest.mark.parametrize("group,k,topn", [(3, 5, 3), (1, 1, 2), (7, 2, 1), (16, 5, 40)])
def test_matches_the_definition_whatever_the_groups(group, k, topn):
    """Groups of 3 and 7 pad 61 candidates; k = 1 with one candidate per group sends most rows of
    this hard task (cos(u_i, v_i) about 0.3) to the full-row score; topn 40 > k x group the same."""
    U, V = _pairs(70, 16, 3.0, 5)
    V = V[:61]
    S = _brute_force(U, V, k=k)
    idx, val = csls_topk(U, V, k=k, topn=topn, block=32, group=group)
    np.testing.assert_array_equal(idx, np.argsort(-S, axis=1, kind="stable")[:, :topn])
    np.testing.assert_allclose(val, np.sort(S, axis=1)[:, ::-1][:, :topn], atol=1e-5)


def test_the_score_pass_reads_whole_rows_only_where_the_groups_cannot_decide(monkeypatch):
    """Counts the full-width top-k / maximum calls (the old code made two per query block, one for
    r_V and one for the scores): none on well-separated pairs, some where k = 1 and groups of one
    candidate leave CSLS winners outside the most similar group."""
    import torch

    calls = []
    for name in ("topk", "max"):
        real = getattr(torch.Tensor, name)
        monkeypatch.setattr(torch.Tensor, name, lambda self, *a, _real=real, **kw:
                            calls.append(self.shape[-1]) or _real(self, *a, **kw))
    U, V = _pairs(2000, 64, 0.5, 6)
    csls_topk(U, V, k=10, precision="bfloat16")
    assert calls and max(calls) < 2000, max(calls)
    calls.clear()
    U, V = _pairs(300, 16, 3.0, 7)
    idx, _ = csls_topk(U, V, k=1, group=1)
    np.testing.assert_array_equal(idx[:, 0], np.argmax(_brute_force(U, V, k=1), axis=1))
    assert sum(c == 300 for c in calls) > 0


def test_known_answer_on_two_points():
    # U = V = two orthogonal unit vectors, k = 1: r = 1 everywhere, CSLS = 2 cos - 2
    U = np.eye(2, 3, dtype=np.float32)
    idx, val = csls_topk(U, U, k=1, topn=2)
    np.testing.assert_array_equal(idx, [[0, 1], [1, 0]])
    np.testing.assert_allclose(val, [[0, -2], [0, -2]], atol=1e-6)


@pytest.mark.parametrize("n, noise, seed", [(300, 1.0, 1), (500, 3.0, 11), (1000, 0.5, 12)])
def test_float32_equals_the_three_product_search(n, noise, seed):
    """The chapters' numbers came from the three-product search: same candidates, same order."""
    U, V = _pairs(n, 32, noise, seed)
    i3, v3 = csls_topk_three_products(U, V, k=10, topn=5, block=64)
    i2, v2 = csls_topk(U, V, k=10, topn=5, block=64)
    np.testing.assert_array_equal(i2, i3)
    np.testing.assert_allclose(v2, v3, atol=1e-5)
    assert (csls_topk(U, V, k=10)[0] == i3[:, :1]).all()  # the default blocks, top-1


@pytest.mark.parametrize("topn", [1, 3, 6])
def test_duplicate_candidates_come_lowest_index_first(topn):
    """Equal candidates (a sentence twice in a test set) tie exactly: the lowest index wins, as in the
    three-product search's top-1 and the definition's stable order; near-duplicate queries pick them."""
    rng = np.random.default_rng(13)
    V = rng.standard_normal((300, 16)).astype(np.float32)
    twins = rng.choice(300, 120, replace=False)
    V[twins[60:]] = V[twins[:60]]                 # 60 candidates twice
    V[twins[:3]] = V[twins[3]]                    # and one four times
    U = V + 0.01 * rng.standard_normal(V.shape).astype(np.float32)
    idx, val = csls_topk(U, V, k=10, topn=topn)
    ref, ref_val = topk_lowest_index_first(csls_scores(U, V, 10).astype(np.float32), topn)
    np.testing.assert_array_equal(idx, ref)
    np.testing.assert_allclose(val, ref_val, atol=1e-5)
    if topn == 1:
        np.testing.assert_array_equal(idx, csls_topk_three_products(U, V, k=10)[0])


def test_bfloat16_top1_agrees_with_float32_on_random_data():
    """Stated tolerance: >= 98% of queries get the same top-1 as in float32 (N = 2,000, d = 384, a hard
    task: 43% top-1 accuracy; measured 99.05%), and every query that differs is a near-tie in float32
    (its two candidates' float32 CSLS scores differ by < 0.02)."""
    U, V = _pairs(2000, 384, 6.0, 2)   # cos(u_i, v_i) about 0.16: many near-ties
    S = _brute_force(U, V, k=10)
    i32, _ = csls_topk(U, V, k=10)
    i16, _ = csls_topk(U, V, k=10, precision="bfloat16")
    np.testing.assert_array_equal(i32[:, 0], np.argmax(S, axis=1))
    same = i16[:, 0] == i32[:, 0]
    assert same.mean() >= 0.98
    rows = np.flatnonzero(~same)
    gaps = S[rows, i32[rows, 0]] - S[rows, i16[rows, 0]]
    assert np.all(gaps < 0.02), gaps


def test_bad_arguments_are_named():
    U, V = _pairs(10, 4, 1.0, 3)
    with pytest.raises(ValueError, match="precision"):
        csls_topk(U, V, precision="float16")
    with pytest.raises(ValueError, match="topn"):
        csls_topk(U, V, topn=11)
    with pytest.raises(ValueError, match="dimension"):
        csls_topk(U, V[:, :3])


def test_blocks_hold_512_queries_or_256_mib_of_scores():
    from xalign.measures.csls import block_rows

    assert block_rows(20_000) == 512 and block_rows(200_000) == 335   # 256 MiB of float32 scores: 335 rows
    assert block_rows(1_000_000) == 67                                # 256 MiB of float32 scores: memory O(block x N)
    assert block_rows(20_000, 7) == 7


def test_blocks_are_sized_for_the_device(monkeypatch):
    """A CPU keeps its cache-sized blocks; a GPU gets 2 GiB of float32 scores, at most 1/16 of its memory."""
    import types

    import torch

    from xalign.measures import neighbours
    from xalign.measures.csls import BLOCK_ROWS, block_rows

    assert neighbours.block_rows(200_000) == neighbours.block_rows(200_000, None, "cpu") == 335
    assert block_rows(20_000) == block_rows(20_000, device=torch.device("cpu")) == BLOCK_ROWS
    assert block_rows(20_000, 700, "cuda") == 700  # an explicit block wins everywhere
    for memory, rows_200k in ((80 * 2**30, 2 * 2**30 // 800_000), (16 * 2**30, 2**30 // 800_000)):
        monkeypatch.setattr(torch.cuda, "get_device_properties", lambda d, m=memory: types.SimpleNamespace(total_memory=m))
        assert neighbours.block_bytes("cuda") == min(2 * 2**30, memory // 16)
        assert block_rows(200_000, device="cuda") == neighbours.block_rows(200_000, None, "cuda:0") == rows_200k
        assert block_rows(20_000, device=torch.device("cuda")) == 8192  # at most 8,192 rows
