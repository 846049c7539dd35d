"""BLI work that is shared instead of repeated: one similarity product serves NN, CSLS and the pruned
variant of a cell; RCSLS searches the neighbours of a repeated anchor row once. Same numbers either way."""

import numpy as np
import pytest
import torch

from xalign.data.static import StaticVectors
from xalign.measures import rcsls
from xalign.measures.bli import evaluate_bli, rank_targets, retrieve, target_densities
from xalign.measures.bli_grid import evaluate_directions
from xalign.measures.csls import csls_topk
from xalign.measures.neighbours import cosine_topk


class _ProductLog:
    """Records the shape of every torch matrix product (a @ b, torch.mm) while installed."""

    def __init__(self, monkeypatch):
        self.shapes = []
        matmul, mm = torch.Tensor.__matmul__, torch.mm

        def logged(a, b):
            out = matmul(a, b)
            self.shapes.append(tuple(out.shape))
            return out

        def logged_mm(a, b, **kw):
            out = mm(a, b, **kw)
            self.shapes.append(tuple(out.shape))
            return out

        monkeypatch.setattr(torch.Tensor, "__matmul__", logged)
        monkeypatch.setattr(torch, "mm", logged_mm)

    def count(self, cols: int) -> int:
        return sum(1 for s in self.shapes if len(s) == 2 and s[1] == cols)


def _spaces(n_src=37, n_tgt=53, d=8, seed=0):
    rng = np.random.default_rng(seed)
    T = rng.normal(size=(n_tgt, d)).astype(np.float32)
    S = (T[:n_src] + rng.normal(scale=0.5, size=(n_src, d))).astype(np.float32)
    src = StaticVectors([f"s{i}" for i in range(n_src)], S)
    tgt = StaticVectors([f"猫{i}" if i % 4 else f"ok{i}" for i in range(n_tgt)], T)
    pairs = [(f"s{i}", tgt.words[i]) for i in range(n_src)]
    return src, tgt, pairs


def test_nn_and_csls_come_from_one_product_and_match_the_reference(monkeypatch):
    src, tgt, _ = _spaces()
    Q = src.vectors[:11]
    ref_nn = cosine_topk(Q, tgt.vectors, 5)[0]
    ref_csls = csls_topk(src.vectors, tgt.vectors, k=3, topn=5)[0][:11]  # densities over the whole source
    log = _ProductLog(monkeypatch)
    got = rank_targets(Q, tgt.vectors, 5, ("nn", "csls"), k=3, S=src.vectors)
    assert log.count(len(tgt.words)) == 1          # Q T^T once, for NN, r_T(q) and the CSLS scores
    assert log.count(len(src.words)) == 1          # T S^T once, for r_S(t)
    np.testing.assert_array_equal(got["nn"], ref_nn)
    np.testing.assert_array_equal(got["csls"], ref_csls)
    np.testing.assert_array_equal(retrieve(Q, tgt.vectors, 5, "csls", 3, S=src.vectors), ref_csls)


def test_target_densities_of_a_pruned_source_come_from_the_same_product(monkeypatch):
    src, tgt, _ = _spaces()
    mask = np.arange(len(src.words)) % 3 != 0
    full_ref = target_densities(tgt.vectors, src.vectors, 4)[0]
    pruned_ref = target_densities(tgt.vectors, src.vectors[mask], 4)[0]
    log = _ProductLog(monkeypatch)
    full, pruned = target_densities(tgt.vectors, src.vectors, 4, [None, mask])
    assert len(log.shapes) == 1
    np.testing.assert_array_equal(full, full_ref)
    np.testing.assert_array_equal(pruned, pruned_ref)
    none = target_densities(tgt.vectors, src.vectors, 4, [np.zeros(len(src.words), bool)])[0]
    assert np.isnan(none).all()  # no neighbours (and no queries either)
    with pytest.raises(ValueError, match="shape"):
        target_densities(tgt.vectors, src.vectors, 4, [mask[:-1]])


@pytest.mark.parametrize("direction", [("en", "zh"), ("zh", "en")])
def test_a_pruned_cell_reuses_the_unpruned_densities(monkeypatch, direction):
    """En->Zh prunes the target side, Zh->En the source side: one T S^T product per cell, same numbers."""
    src, tgt, pairs = _spaces()
    vec = {"en": src, "zh": tgt} if direction == ("en", "zh") else {"zh": tgt, "en": src}
    test = pairs if direction == ("en", "zh") else [(t, s) for s, t in pairs]
    kw = dict(methods=("none",), retrievals=("nn", "csls"), ks=(1, 5), csls_k=3, prune_langs=("zh",),
              prune_rule="ascii", progress=False, n_boot=50)
    n_src = len(vec[direction[0]].words)
    # the reference: every variant evaluated on its own (densities recomputed inside evaluate_bli)
    from xalign.data.scripts import script_mask
    from xalign.data.wordvectors import subset

    keep = script_mask(vec["zh"].words, "zh", rule="ascii")
    U, V = vec[direction[0]], vec[direction[1]]
    Up, Vp = (U, subset(V, keep)) if direction == ("en", "zh") else (subset(U, keep), V)
    ref = [evaluate_bli(U, V, test, (1, 5), ("nn", "csls"), 3, n_boot=50),
           evaluate_bli(Up, Vp, test, (1, 5), ("nn", "csls"), 3, n_boot=50)]
    log = _ProductLog(monkeypatch)
    res, _ = evaluate_directions([direction], vec, lambda s, t, split: test, **kw)
    assert log.count(n_src) == 1  # the targets' densities among the sources: once for both variants
    for pruned, r in zip((False, True), ref):
        got = res[res.pruned == pruned].drop(columns=["src", "tgt", "method", "pruned"]).reset_index(drop=True)
        assert got.equals(r)


def test_rcsls_searches_each_distinct_anchor_once(monkeypatch):
    rng = np.random.default_rng(0)
    X0, Y0 = rng.normal(size=(30, 6)).astype(np.float32), rng.normal(size=(40, 6)).astype(np.float32)
    i = np.r_[np.arange(30), [0, 0, 5, 7]]          # source words with several translations
    j = np.r_[np.arange(30), [31, 32, 33, 7]]      # target word 7 twice
    X, Y = X0[i], Y0[j]
    Zs, Zt = rng.normal(size=(50, 6)).astype(np.float32), rng.normal(size=(60, 6)).astype(np.float32)
    t = torch.as_tensor
    W = t(np.eye(6, dtype=np.float32))
    plain = rcsls.rcsls_loss_and_grad(W, t(X), t(Y), t(Zs), t(Zt), k=4, block=7)
    distinct = (rcsls.distinct_rows(X), rcsls.distinct_rows(Y))
    shared = rcsls.rcsls_loss_and_grad(W, t(X), t(Y), t(Zs), t(Zt), k=4, block=7, distinct=distinct)
    assert torch.equal(plain[0], shared[0]) and torch.equal(plain[1], shared[1])
    assert rcsls.distinct_rows(X0) == (None, None)

    rows = []
    knn = rcsls._knn
    monkeypatch.setattr(rcsls, "_knn", lambda Q, P, k, block: rows.append(Q.shape[0]) or knn(Q, P, k, block))
    fit = rcsls.fit_rcsls(X, Y, Zs, Zt, k=4, n_iter=2)
    assert rows and set(rows) <= {30, 33}            # 30 distinct source rows, 33 distinct target rows
    monkeypatch.setattr(rcsls, "_knn", knn)
    monkeypatch.setattr(rcsls, "distinct_rows", lambda M: (None, None))
    ref = rcsls.fit_rcsls(X, Y, Zs, Zt, k=4, n_iter=2)
    np.testing.assert_array_equal(fit.W, ref.W)
    assert fit.losses == ref.losses


def test_maps_normalise_each_space_once_and_give_the_same_vectors(monkeypatch):
    import xalign.measures.bli_grid as grid
    from xalign.measures import bli_maps, mapping

    src, tgt, pairs = _spaces(n_src=60, n_tgt=70)
    vec = {"en": src, "de": tgt}
    train, test = pairs[:40], pairs[40:]
    calls = []
    orig = mapping.normalize_center

    def counted(*a, **k):
        calls.append(1)
        return orig(*a, **k)

    for mod in (bli_maps, grid, mapping):
        monkeypatch.setattr(mod, "normalize_center", counted, raising=False)
    kw = dict(methods=("procrustes", "rcsls", "vecmap"), retrievals=("nn",), ks=(1,), progress=False, n_boot=20,
              rcsls_options={"n_iter": 2})
    evaluate_directions([("en", "de")], vec, lambda s, t, split: train if split == "train" else test, **kw)
    assert len(calls) == 2  # one per space, shared by the three maps and their application
    for method in ("procrustes", "rcsls", "vecmap"):
        alignment, _ = bli_maps.fit_map(method, src, tgt, train, {"n_iter": 2})
        U, V = bli_maps.apply_map(alignment, src, tgt)
        pre = (orig(src.vectors), orig(tgt.vectors))
        U2, V2 = bli_maps.apply_map(alignment, src, tgt, normalized=pre)
        for a, b, ref in ((U, U2, alignment.transform_src(src.vectors)), (V, V2, alignment.transform_tgt(tgt.vectors))):
            np.testing.assert_array_equal(a.vectors, ref)
            np.testing.assert_array_equal(b.vectors, ref)


def test_csls_scores_and_pruned_densities_make_no_extra_copy_of_a_block(monkeypatch):
    """The CSLS scores overwrite the similarity block in place; a pruned source masks it in place."""
    src, tgt, _ = _spaces()
    big = []
    for name in ("__mul__", "__rmul__", "__sub__", "__getitem__"):
        orig = getattr(torch.Tensor, name)

        def logged(a, *rest, _orig=orig):
            out = _orig(a, *rest)
            if isinstance(out, torch.Tensor) and out.ndim == 2 and out.shape[1] in (len(src.words), len(tgt.words)) \
                    and out.shape[0] > 1:
                big.append(tuple(out.shape))
            return out

        monkeypatch.setattr(torch.Tensor, name, logged)
    rank_targets(src.vectors[:11], tgt.vectors, 5, ("nn", "csls"), k=3, S=src.vectors)
    target_densities(tgt.vectors, src.vectors, 4, [None, np.arange(len(src.words)) % 3 != 0])
    assert big == []
