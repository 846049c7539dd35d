"""fast_align as the authors' tool computes it (clab/fast_align src/fast_align.cc, da.h, atools.cc).

Every expected value here is worked by hand from the tool's code; the two corpus cases were also run
through the tool built from that code (its log: "model al-feat: -0.965611 (tension=4)", then tension 14
and the line "2-0"; atools -c grow-diag-final-and prints "0-1 1-2").
"""

import math

import numpy as np
import pytest

from xalign.measures.aligner import SYMMETRISATIONS, symmetrise
from xalign.measures.fast_align import (
    FastAlignSettings,
    diagonal_expected_feature,
    diagonal_feature,
    diagonal_normaliser,
    fast_align_both,
    tool_expected_feature,
    tool_normaliser,
)

SRC, TGT = [["s3", "s1", "s2"], ["s2"]], [["t0"], ["t2"]]


# ---- grow-diag-final-and: atools scans the union's untaken links in (i, j) order


def test_gdfa_is_atools_by_default_on_the_issue_example():
    # intersection {1-2}; atools tries 0-1 first (source 0 unaligned, diagonal neighbour 1-2): taken;
    # then 0-2 has source 0 and target 2 aligned: refused. The pseudo-code grows from 1-2's neighbours
    # and takes 0-2 first (source 0 unaligned), then 0-1 (target 1 unaligned).
    fwd, rev = {(0, 1), (1, 2)}, {(0, 2), (1, 2)}
    assert symmetrise(fwd, rev, 2, 3) == {(0, 1), (1, 2)}
    assert symmetrise(fwd, rev, 2, 3, "grow-diag-final-and-koehn") == {(0, 1), (0, 2), (1, 2)}


def test_gdfa_atools_takes_a_chain_over_several_passes():
    # intersection {0-0}; union adds 2-2 and 1-1. Pass 1 in (i, j) order: 1-1 neighbours 0-0: taken;
    # 2-2 neighbours 1-1 (taken earlier in the same pass): taken too. Both directions agree.
    fwd, rev = {(0, 0), (1, 1)}, {(0, 0), (2, 2)}
    for method in ("grow-diag-final-and", "grow-diag-final-and-koehn"):
        assert symmetrise(fwd, rev, 3, 3, method) == {(0, 0), (1, 1), (2, 2)}


def test_both_growths_are_named_symmetrisations():
    assert "grow-diag-final-and-koehn" in SYMMETRISATIONS and SYMMETRISATIONS[0] == "grow-diag-final-and"


# ---- the tension update


def test_tool_normaliser_is_the_plain_sum_when_the_position_lies_within_its_length():
    for i, m, n, lam in [(1, 5, 7, 4.0), (3, 3, 10, 2.5), (6, 13, 13, 1.0), (2, 9, 1, 0.3)]:
        assert tool_normaliser(i, m, n, lam) == pytest.approx(diagonal_normaliser(i, m, n, lam), rel=1e-12)


def test_tool_normaliser_wraps_its_unsigned_term_count_when_the_lengths_are_exchanged():
    # ComputeZ(i=3, m=1, n=3): split 9 > n, num_top = 3 - 9 wraps to ~2**32, so the right-hand series
    # runs to r / (1 - r) (its first term exp(-lam |10/3 - 3|) = r); the left one is (1 - r**9) / (1 - r)
    lam = 4.0
    r = math.exp(-lam / 3)
    assert tool_normaliser(3, 1, 3, lam) == pytest.approx((r + 1 - r**9) / (1 - r), rel=1e-12)


def test_tool_model_feature_on_the_two_line_corpus_is_the_tools_log():
    # line 1: target 1 word, source 3: sum_j h e^{4h} over h = -2/3, -1/3, 0, divided by the exchanged
    # Z(1, 3, 1) = e^{-8/3}: -2/3 - e^{4/3}/3 ; line 2: h = 0, so 0. Mean over the 2 target tokens.
    one = tool_expected_feature(1, 1, 3, 4.0)
    assert one == pytest.approx(-2 / 3 - math.exp(4 / 3) / 3, rel=1e-12)
    assert tool_expected_feature(1, 1, 1, 4.0) == 0
    assert (one + 0) / 2 == pytest.approx(-0.965611, abs=1e-6)  # the tool prints "model al-feat: -0.965611"
    # the paper's E[h] divides by the proper Z(1, 1, 3) = e^{-8/3} + e^{-4/3} + 1
    h = diagonal_feature(1, np.arange(1, 4), 1, 3)
    assert diagonal_expected_feature(1, 1, 3, 4.0) == pytest.approx((h * np.exp(4 * h)).sum() / np.exp(4 * h).sum())


def test_tool_tension_goes_to_its_bound_and_links_the_last_word_on_the_issue_corpus():
    # the posterior's feature with 0-based target position j = 0: -|i/3 - 0| <= -1/3 for line 1, -1 for
    # line 2, far below the model's -0.97: lambda rises to its bound 14, whose prior puts line 1's t0 on
    # s2 (i = 3, closest to the tool's diagonal point): link 2-0
    forward, reverse, info = fast_align_both(SRC, TGT)
    assert info["tension_forward"] == 14.0
    assert forward == [{(2, 0)}, {(0, 0)}]
    assert info["tension_reverse"] == pytest.approx(0.1)
    assert reverse == [{(0, 0), (1, 0), (2, 0)}, {(0, 0)}]


def test_paper_tension_update_is_the_named_option():
    forward, _, info = fast_align_both(SRC, TGT, FastAlignSettings(tension_update="paper"))
    assert info["tension_forward"] == pytest.approx(0.1)
    assert forward == [{(1, 0)}, {(0, 0)}]
    with pytest.raises(ValueError, match="tension_update must be one of"):
        FastAlignSettings(tension_update="cpp")


def test_the_link_cache_is_keyed_on_the_code_that_aligns(tmp_path, monkeypatch):
    # the cache's one rule (inputs and the code called): the same sentences aligned by other code are
    # another entry, by the same code the same one (a declared version number was bumped by hand before)
    from xalign.measures import aligner

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    entries = lambda: len(list((tmp_path / "alignments").rglob("*.json")))
    code = {"digest": "a"}
    monkeypatch.setattr(aligner, "code_digest", lambda roots: code["digest"] + str(sorted(r.__name__ for r in roots)))
    first = aligner.align_fast_align(SRC, TGT)
    assert entries() == 1 and aligner.align_fast_align(SRC, TGT) == first and entries() == 1
    code["digest"] = "b"
    assert aligner.align_fast_align(SRC, TGT) == first and entries() == 2
