"""The BLI grid: source-side pruning as the authors do, identical strings, intervals, the cache."""

import numpy as np
import pytest

from xalign.data.static import StaticVectors
from xalign.measures.bli import evaluate_bli, self_translation_check
from xalign.measures.bli_grid import evaluate_directions


def _toy():
    # Chinese vocabulary with a Latin-script token "ok" whose vector is the English "ok"'s.
    en = StaticVectors(["cat", "dog", "ok"], np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1]], np.float32))
    zh = StaticVectors(["猫", "狗", "ok"], np.array([[0.9, 0, 0.1], [0, 1, 0], [0, 0, 1]], np.float32))
    return {"en": en, "zh": zh}


def test_x_to_en_prunes_the_source_side_as_the_authors_do():
    vec = _toy()
    test = [("猫", "cat"), ("狗", "dog"), ("ok", "ok")]
    res, _ = evaluate_directions([("zh", "en")], vec, lambda s, t, split: test, methods=("none",),
                                 retrievals=("nn",), ks=(1,), prune_langs=("zh",), prune_rule="ascii",
                                 progress=False)
    got = res.set_index("pruned")
    assert set(got.index) == {False, True}            # zh-en has a pruned variant (source side)
    assert got.loc[False, "n_queries"] == 3 and got.loc[True, "n_queries"] == 2  # "ok" is no query once pruned
    assert got.loc[False, "n_identical"] == 1 and got.loc[True, "n_identical"] == 0


def test_identical_string_queries_are_counted_and_removed():
    vec = _toy()
    test = [("cat", "猫"), ("dog", "狗"), ("ok", "ok")]
    df = evaluate_bli(vec["en"], vec["zh"], test, ks=(1,), retrievals=("nn",))
    row = df.iloc[0]
    assert row.precision == 100.0 and row.n_identical == 1
    assert row.precision_no_identical == 100.0
    assert row.lo <= row.precision <= row.hi


def test_self_translation_is_a_known_answer():
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(300)]
    space = StaticVectors(words, rng.standard_normal((300, 16)).astype(np.float32))
    row = self_translation_check(space, n=200).iloc[0]
    assert row.precision == 100.0 and row.n_queries == 200 and row.n_identical == 200


def test_grid_cells_are_cached_and_keyed_by_the_vectors(fresh_cache, monkeypatch):
    import xalign.measures.bli_grid as grid

    vec = _toy()
    test = [("cat", "猫"), ("dog", "狗"), ("ok", "ok")]
    kw = dict(methods=("none", "procrustes"), retrievals=("nn", "csls"), ks=(1, 2), prune_langs=("zh",),
              progress=False, cache=fresh_cache)
    first, fits1 = evaluate_directions([("en", "zh")], vec, lambda s, t, split: test, **kw)
    assert fresh_cache.misses == 2 and fresh_cache.hits == 0

    def boom(*a, **k):
        raise AssertionError("a cached cell was recomputed")

    monkeypatch.setattr(grid, "evaluate_bli", boom)
    monkeypatch.setattr(grid, "fit_map", boom)
    second, fits2 = evaluate_directions([("en", "zh")], vec, lambda s, t, split: test, **kw)
    assert fresh_cache.hits == 2
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(first, second)
    pd_testing.assert_frame_equal(fits1, fits2)
    # other vectors (another model, layer or vocabulary) miss the cache
    vec["zh"] = StaticVectors(vec["zh"].words, vec["zh"].vectors * 2)
    with pytest.raises(AssertionError, match="recomputed"):
        evaluate_directions([("en", "zh")], vec, lambda s, t, split: test, **kw)
    assert not list(fresh_cache.root.rglob("*.part"))  # atomic writes leave no partial files
