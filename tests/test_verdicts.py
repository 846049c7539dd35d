"""The book's one verdict rule (xalign.measures.verdicts): directions from intervals and a noise margin,
and a claim's held / did not hold / not testable."""

import math

import pytest

from xalign.measures.verdicts import (
    DOWN,
    HELD,
    NONE,
    NOT_HELD,
    NOT_TESTABLE,
    UNRESOLVED,
    UP,
    ZERO,
    change_verb,
    claim_verdict,
    direction,
    separated,
)


def test_direction_needs_the_whole_interval_beyond_the_margin():
    assert direction(0.5, 2.0) == UP
    assert direction(-2.0, -0.5) == DOWN
    assert direction(-0.1, 2.0) == UNRESOLVED
    assert direction(0.5, 2.0, margin=0.6) == UNRESOLVED     # the bound lies inside the rerun noise
    assert direction(-8.8e-16, 3.0) == UNRESOLVED            # a bound that is zero up to rounding is zero
    assert direction(ZERO / 2, 3.0) == UNRESOLVED
    assert direction(math.nan, 1.0) == NONE and direction(None, 1.0) == NONE


def test_separated_intervals():
    assert separated(19, 21, 9, 11) == UP
    assert separated(9, 11, 19, 21) == DOWN
    assert separated(10, 12, 11, 13) == UNRESOLVED
    assert separated(19, 21, 9, 11, margin=8.5) == UNRESOLVED
    assert separated(19, 21, math.inf, 11) == NONE


@pytest.mark.parametrize("margin", [-1.0, math.nan, math.inf])
def test_margin_must_be_finite_and_non_negative(margin):
    with pytest.raises(ValueError, match="margin"):
        direction(0.0, 1.0, margin=margin)


def test_claim_verdicts():
    assert claim_verdict(UP, UP).verdict == HELD
    assert claim_verdict(UP, DOWN).verdict == NOT_HELD
    assert claim_verdict(DOWN, UP).verdict == NOT_HELD
    # unresolved, but the interval reaches well into the paper's direction: too wide to tell
    assert claim_verdict(UP, UNRESOLVED, far_bound=3.0).verdict == NOT_TESTABLE
    # the interval's paper-side bound lies beyond zero on the other side by more than the margin: ruled out
    assert claim_verdict(UP, UNRESOLVED, far_bound=-0.2, margin=0.1).verdict == NOT_HELD
    assert claim_verdict(DOWN, UNRESOLVED, far_bound=0.2, margin=0.1).verdict == NOT_HELD
    # ending at zero within the margin: another machine could put it on either side (unstable)
    v = claim_verdict(UP, UNRESOLVED, far_bound=0.05, margin=0.1)
    assert v.verdict == NOT_TESTABLE and "unstable" in v.reason
    assert claim_verdict(DOWN, UNRESOLVED, far_bound=-0.05, margin=0.1).verdict == NOT_TESTABLE
    # a wide noise margin never makes a verdict more decisive (chapter 5: MLP - LR +0.9 [-1.7, +3.3] with a
    # 9.6-point margin was "did not hold ... rules out an effect in the paper's direction")
    assert claim_verdict(UP, UNRESOLVED, far_bound=3.3, margin=9.6).verdict == NOT_TESTABLE
    assert claim_verdict(UP, UP, seeds_agree=False).verdict == NOT_TESTABLE
    assert claim_verdict(UP, NONE).verdict == NOT_TESTABLE
    v = claim_verdict(UP, UP, untestable="the model has no layer 12")
    assert v.verdict == NOT_TESTABLE and "layer 12" in str(v)
    with pytest.raises(ValueError, match="expected"):
        claim_verdict("sideways", UP)


def test_only_a_resolved_change_gets_a_directional_verb():
    assert change_verb(UP) == "raises" and change_verb(DOWN) == "lowers"
    assert change_verb(UNRESOLVED) == "does not move" and change_verb(NONE) == "does not move"
