"""eflomal wrapper and grow-diag-final-and symmetrisation."""

import pytest

from xalign.measures.aligner import align_eflomal, symmetrise


def test_symmetrise_grow_diag_final_and():
    fwd = {(0, 0), (1, 1), (2, 3)}
    rev = {(0, 0), (1, 1), (1, 2), (3, 3)}
    assert symmetrise(fwd, rev, 4, 4, "intersection") == {(0, 0), (1, 1)}
    assert symmetrise(fwd, rev, 4, 4, "union") == fwd | rev
    gdfa = symmetrise(fwd, rev, 4, 4)
    # (1, 2) is a diagonal/adjacent neighbour of (1, 1) in the union with target 2 unaligned: grown;
    # (2, 3) and (3, 3) compete for target 3; the first one kept leaves the other's target aligned
    assert {(0, 0), (1, 1), (1, 2)} <= gdfa
    assert len(gdfa & {(2, 3), (3, 3)}) >= 1
    assert gdfa <= fwd | rev


def test_eflomal_aligns_a_toy_corpus():
    src = [["das", "haus"], ["das", "buch"], ["ein", "buch"], ["ein", "haus"], []] * 20
    tgt = [["the", "house"], ["the", "book"], ["a", "book"], ["a", "house"], ["x"]] * 20
    links = align_eflomal(src, tgt)
    assert len(links) == len(src)
    assert links[4] == set()  # empty side: no links
    assert (1, 1) in links[0] and (0, 0) in links[0]
    for s, t, ls in zip(src, tgt, links):
        assert all(0 <= i < len(s) and 0 <= j < len(t) for i, j in ls)


def test_eflomal_links_are_cached(tmp_path, monkeypatch):
    import xalign.measures.aligner as A

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    src = [["das", "haus"], ["das", "buch"], ["ein", "buch"]] * 10
    tgt = [["the", "house"], ["the", "book"], ["a", "book"]] * 10
    first = A.align_eflomal(src, tgt)
    assert list((tmp_path / "alignments").glob("*/*.json"))

    def no_rerun(*args):
        raise AssertionError("the aligner ran again although its links were cached")

    monkeypatch.setattr(A, "_run_eflomal", no_rerun)
    assert A.align_eflomal(src, tgt) == first            # read back, identical
    with pytest.raises(AssertionError):                   # other settings: not a cache hit
        A.align_eflomal(src, tgt, symmetrisation="intersection")
