"""Every numeric argument of a measure is checked at the public boundary: no silent zeros, no garbage."""

import numpy as np
import pytest

from xalign.measures import neighbours as N
from xalign.measures import retrieval as R
from xalign.measures.csls import csls_topk


@pytest.fixture
def spaces(rng):
    return rng.normal(size=(30, 8)).astype(np.float32), rng.normal(size=(30, 8)).astype(np.float32)


@pytest.mark.parametrize("fn", [R.alignment_scores, R.s_weak, R.s_strong, N.csls, csls_topk])
def test_k_must_be_positive(spaces, fn):
    with pytest.raises(ValueError, match=r"k must be >= 1, got 0"):
        fn(*spaces, k=0)


@pytest.mark.parametrize("block", [0, -5])
def test_block_must_be_positive(spaces, block):
    with pytest.raises(ValueError, match=r"block must be >= 1"):
        csls_topk(*spaces, block=block)
    with pytest.raises(ValueError, match=r"block must be >= 1"):
        R.alignment_scores(*spaces, block=block)


@pytest.mark.parametrize("fn", [csls_topk, N.cosine_topk])
def test_topn_cannot_exceed_the_candidates(spaces, fn):
    with pytest.raises(ValueError, match=r"topn must be <= 30 \(the number of candidates\), got 31"):
        fn(*spaces, topn=31)
    with pytest.raises(ValueError, match=r"topn must be >= 1"):
        fn(*spaces, topn=0)


@pytest.mark.parametrize("fn", [R.alignment_scores, csls_topk, N.cosine_topk, N.csls])
def test_widths_must_agree(spaces, fn):
    with pytest.raises(ValueError, match="dimension 8 but V of dimension 5"):
        fn(spaces[0], spaces[1][:, :5])


def test_valid_arguments_still_work(spaces):
    s = R.alignment_scores(spaces[0], spaces[0], k=3)
    assert s == {"S_weak": 1.0, "S_strong": s["S_strong"]}
    assert csls_topk(*spaces, k=3, topn=30, block=7)[0].shape == (30, 30)
