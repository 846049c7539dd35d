"""Scratch buffers for loops of large blocks: one allocation (and one round of page faults) per loop,
not per block, and bit for bit the numbers of fresh blocks."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from xalign.core.memory import blocks_reused, scratch
from xalign.measures import rcsls
from xalign.measures.bli import rank_targets, target_densities
from xalign.measures.neighbours import unit_rows


def test_scratch_is_fresh_outside_and_reused_inside():
    a, b = scratch("x", (4, 5)), scratch("x", (4, 5))
    assert a.data_ptr() != b.data_ptr()                       # no pool: every call its own tensor
    with blocks_reused():
        first = scratch("x", (4, 5))
        assert scratch("x", (3, 5)).data_ptr() == first.data_ptr()   # smaller: a view of the same buffer
        assert scratch("y", (4, 5)).data_ptr() != first.data_ptr()   # another name, another buffer
        with blocks_reused():                                 # nested: the outer pool
            assert scratch("x", (2, 2)).data_ptr() == first.data_ptr()
        grown = scratch("x", (8, 5))                          # larger: reallocated once, then kept
        assert grown.shape == (8, 5) and scratch("x", (8, 5)).data_ptr() == grown.data_ptr()
        assert scratch("x", (8, 5), torch.float64).dtype == torch.float64
    assert scratch("x", (8, 5)).data_ptr() != grown.data_ptr()


def _spaces(n_t=900, n_s=700, d=16, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n_t, d)).astype(np.float32), rng.normal(size=(n_s, d)).astype(np.float32)


def test_target_densities_are_bit_for_bit_those_of_fresh_blocks():
    T, S = _spaces()
    mask = np.arange(len(S)) % 3 == 0
    t, s = unit_rows(T, "cpu"), unit_rows(S, "cpu")
    full = t @ s.T  # one product: what the blocks compute
    want = [full.topk(10, dim=1).values.mean(1).numpy(),
            full[:, torch.as_tensor(np.flatnonzero(mask))].topk(10, dim=1).values.mean(1).numpy()]
    for mask_list in ([None, mask], [mask, None]):          # the masked-in-place variant first or last
        got = target_densities(T, S, 10, mask_list, block=128)  # 8 blocks through one buffer
        for g, m in zip(got, mask_list):
            np.testing.assert_array_equal(g, want[0] if m is None else want[1])


def test_rank_targets_and_rcsls_are_bit_for_bit_those_of_fresh_blocks():
    T, S = _spaces()
    Q = S[:150]
    t, q = unit_rows(T, "cpu"), unit_rows(Q, "cpu")
    want_nn = (q @ t.T).topk(10, dim=1).indices.numpy()
    got = rank_targets(Q, T, 10, ("nn", "csls"), S=S, block=40)
    np.testing.assert_array_equal(got["nn"], want_nn)
    assert got["csls"].shape == (150, 10)

    X, Y = torch.as_tensor(S[:300]), torch.as_tensor(T[:300])
    W = torch.as_tensor(np.linalg.qr(np.random.default_rng(1).normal(size=(16, 16)))[0].astype(np.float32))
    Zs, Zt = torch.as_tensor(S), torch.as_tensor(T)
    XW = X @ W
    fwd = (XW @ Zt.T).topk(10, dim=1)
    bwd = (Y @ (Zs @ W).T).topk(10, dim=1)
    A, B = Zt[fwd.indices].mean(1), Zs[bwd.indices].mean(1)
    want_loss = (-2 * (XW * Y).sum(1) + fwd.values.mean(1) + bwd.values.mean(1)).mean()
    want_grad = (X.T @ (A - 2 * Y) + B.T @ Y) / X.shape[0]
    with blocks_reused():
        loss, grad = rcsls.rcsls_loss_and_grad(W, X, Y, Zs, Zt, k=10, block=64)
    assert torch.equal(loss, want_loss) and torch.equal(grad, want_grad)


FAULT_PROBE = """
import resource
import numpy as np
from xalign.core.memory import freed_memory_returned
from xalign.measures.bli import target_densities

rng = np.random.default_rng(0)
T, S = rng.normal(size=(6000, 32)).astype(np.float32), rng.normal(size=(6000, 32)).astype(np.float32)
with freed_memory_returned():  # as in chapter 4's BLI grid: blocks above 8 MiB come from mmap
    target_densities(T[:600], S, 10, block=500)  # warm-up: the libraries' own first allocations
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    target_densities(T, S, 10, block=500)  # 12 blocks of 500 x 6,000 float32 (11.4 MiB)
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page faults counted by Linux's getrusage")
def test_target_densities_fault_their_block_in_once():
    """Twelve 11.4 MiB similarity blocks: allocated fresh, each one's 2,930 pages are faulted in and
    zeroed by the kernel again (35,000 faults: chapter 4's BLI grid spent a quarter of its time so);
    through one scratch buffer, about one block's. A fresh interpreter: the allocator's state after
    the rest of the suite is not the test's."""
    out = subprocess.run([sys.executable, "-c", FAULT_PROBE], capture_output=True, text=True, check=True)
    block_pages = 500 * 6000 * 4 // 4096
    assert int(out.stdout) < 3 * block_pages


def _hits_reference(u, v, k):
    """Chapter 1's weak / strong / xalign 0.1 hits from fresh N x N matrices (the code before scratch)."""
    n = u.shape[0]
    ar = torch.arange(n)
    c = u @ v.T
    r_v = c.topk(k, dim=1).values.mean(1)
    r_u = c.T.contiguous().topk(k, dim=1).values.mean(1)
    cos_own = c[ar, ar].clone()
    c = 2 * c - r_v[:, None] - r_u[None, :]
    diag = c[ar, ar].clone()
    c[ar, ar] = -float("inf")
    weak = diag > c.max(1).values
    t = u @ u.T
    r_uu = t.topk(k, dim=1).values.mean(1)
    t[ar, ar] = -float("inf")
    r_other = t.topk(k, dim=1).values.mean(1)
    old = (2 * cos_own - r_v - r_u) > (2 * t - r_other[:, None] - r_other[None, :]).max(1).values
    strong = (2 * cos_own - r_u) > (2 * t - r_uu[None, :]).max(1).values
    return weak.numpy(), strong.numpy(), old.numpy()


def test_alignment_hits_are_bit_for_bit_those_of_fresh_matrices():
    """Two calls through the same buffers (the second must not see the first's numbers)."""
    from xalign.measures.retrieval import _hits_in_memory

    rng = np.random.default_rng(0)
    with blocks_reused():
        for n, noise in ((400, 1.0), (300, 1.5)):
            U = rng.normal(size=(n, 24)).astype(np.float32)
            u, v = unit_rows(U, "cpu"), unit_rows(U + noise * rng.normal(size=U.shape), "cpu")
            got, want = _hits_in_memory(u, v, 10, xalign01=True), _hits_reference(u, v, 10)
            assert 0.05 < want[0].mean() < 0.95  # not a trivial all-hit case
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)


LAYERWISE_PROBE = """
import resource
import numpy as np
from xalign.measures.layerwise import layerwise_scores
from xalign.measures.retrieval import alignment_scores

rng = np.random.default_rng(0)
U = rng.normal(size=(3000, 1, 32)).astype(np.float32)
V = U + rng.normal(size=U.shape).astype(np.float32)
score = lambda a, b: alignment_scores(a, b, 10, with_xalign01=True)
layerwise_scores(U[:500], V[:500], score, [np.arange(500)])  # warm-up: the libraries' first allocations
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
layerwise_scores(U, V, score, [np.arange(3000)] * 4)  # 4 runs, two 3,000 x 3,000 float32 matrices each
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="page faults counted by Linux's getrusage")
def test_layerwise_alignment_scores_fault_their_matrices_in_once():
    """Chapter 1 scores 10 runs x 13 layers of 5,000 pairs: every score's N x N matrices (above
    glibc's 32 MiB mmap ceiling) were faulted in anew (here ~4 x 2 x 8,800 pages); through the
    layer loop's scratch buffers, about once."""
    out = subprocess.run([sys.executable, "-c", LAYERWISE_PROBE], capture_output=True, text=True, check=True)
    matrix_pages = 3000 * 3000 * 4 // 4096
    assert int(out.stdout) < 3.5 * matrix_pages
