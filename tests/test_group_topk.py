"""Exact row top-k through group maxima (xalign.measures.group_topk) against torch.topk."""

import numpy as np
import pytest
import torch

from xalign.measures.group_topk import group_bounds, top_groups, topk_values


def _block(rows, width, dtype, seed, shift=0.0, levels=None):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(rows, width, generator=g) + shift
    if levels is not None:  # few distinct values: many ties
        x = torch.round(x * levels) / levels
    return x.to(dtype)


CASES = {
    "mixed signs": dict(shift=0.0),
    "mostly negative (rows with < k entries >= 0: plain top-k)": dict(shift=-3.0),
    "all negative": dict(shift=-50.0),
    "ties": dict(shift=0.5, levels=2),
}


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32, torch.bfloat16, torch.float16])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("group,k", [(16, 10), (4, 3), (1, 5), (8, 40)])
def test_values_equal_torch_topk(dtype, case, group, k):
    width = group * -(-203 // group)   # whole groups (tails: test_a_tail_...)
    S = _block(37, width, dtype, seed=list(CASES).index(case), **CASES[case])
    want = S.topk(k, dim=1).values
    got = topk_values(S.clone(), k, group)
    assert got.dtype == S.dtype
    torch.testing.assert_close(got, want, rtol=0, atol=0)


def test_padding_columns_at_minus_infinity_are_never_chosen():
    S = _block(20, 64, torch.bfloat16, seed=1, shift=-2.0)
    S[:, 50:] = float("-inf")
    want = S[:, :50].topk(12, dim=1).values
    torch.testing.assert_close(topk_values(S, 12, 16), want, rtol=0, atol=0)


def test_bounds_are_upper_bounds_and_exact_where_a_group_has_an_entry_at_or_above_zero():
    S = _block(30, 8 * 25, torch.bfloat16, seed=3, shift=-1.5)
    bounds = group_bounds(S, 8).float()
    true = S.float().view(30, 8, 25).amax(1)          # group c: columns c, c + 25, ...
    assert torch.all(bounds >= true)
    has = true >= 0
    assert has.any() and (~has).any()
    assert torch.equal(bounds[has], true[has])
    assert torch.all(bounds[~has] == 0)


def test_the_chosen_groups_hold_the_top_k():
    S = _block(25, 16 * 50, torch.float32, seed=4)
    chosen = top_groups(S, 10, 16)
    assert chosen.entries.shape == (25, 160)
    assert torch.equal(S.gather(1, chosen.positions), chosen.entries)
    kth = S.topk(10, dim=1).values[:, -1:]
    assert torch.all((S >= kth).sum(1) == (chosen.entries >= kth).sum(1))


@pytest.mark.parametrize("width", [203, 16 * 11 + 15, 30, 9])
def test_a_tail_of_width_mod_group_columns_is_always_read(width):
    S = _block(23, width, torch.float32, seed=width, shift=-1.0)
    S[:, -1] = 50.0                                    # the best entry in the tail
    torch.testing.assert_close(topk_values(S, 7, 16), S.topk(7, dim=1).values, rtol=0, atol=0)
    view = torch.zeros(23, width + 5)[:, 2 : width + 2].copy_(S)   # rows inside a wider buffer
    torch.testing.assert_close(topk_values(view, 7, 16), S.topk(7, dim=1).values, rtol=0, atol=0)


def test_bad_blocks_are_named():
    with pytest.raises(ValueError, match="contiguous"):
        group_bounds(torch.zeros(32, 2).T, 16)
    with pytest.raises(TypeError, match="block of floats"):
        group_bounds(torch.zeros(2, 32, dtype=torch.int32), 16)


def test_no_full_width_sort_when_the_groups_decide(monkeypatch):
    """The point of the module: rows of 4,000 entries are never sorted whole (torch.topk on them)."""
    widths = []
    real = torch.Tensor.topk
    monkeypatch.setattr(torch.Tensor, "topk", lambda self, *a, **kw: widths.append(self.shape[-1]) or real(self, *a, **kw))
    S = _block(64, 4000, torch.bfloat16, seed=5)
    topk_values(S, 10, 16)
    assert widths and max(widths) <= np.ceil(4000 / 16)

