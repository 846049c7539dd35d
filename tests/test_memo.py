"""The memo store: a warm call does not recompute, a code or key change does, bad entries recover."""

import json

import numpy as np
import pandas as pd
import pytest

from xalign.core import memo
from xalign.core.cache import EmbeddingCache


def test_second_call_is_served_from_the_store(tmp_path):
    store = EmbeddingCache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"layer": [0, 1], "value": [0.25, 0.5]})

    a = memo.cached("t.frame", {"n": 2}, compute, code=[memo], store=store)
    b = memo.cached("t.frame", {"n": 2}, compute, code=[memo], store=store)
    assert len(calls) == 1
    pd.testing.assert_frame_equal(a, b)
    assert b["layer"].dtype == a["layer"].dtype


def test_key_and_code_are_part_of_the_address(tmp_path):
    store = EmbeddingCache(tmp_path)
    calls = []
    memo.cached("t", {"n": 1}, lambda: calls.append(1), code=[memo], store=store)
    memo.cached("t", {"n": 2}, lambda: calls.append(1), code=[memo], store=store)
    memo.cached("t", {"n": 1}, lambda: calls.append(1), code=[memo, json], store=store)
    assert len(calls) == 3


def test_array_digest_sees_values_dtype_and_shape():
    x = np.arange(6, dtype=np.float32)
    assert memo.array_digest(x) == memo.array_digest(x.copy())
    assert memo.array_digest(x) != memo.array_digest(x.astype(np.float64))
    assert memo.array_digest(x) != memo.array_digest(x.reshape(2, 3))
    y = x.copy()
    y[3] += 1e-3
    assert memo.array_digest(x) != memo.array_digest(y)


def test_failed_compute_leaves_no_entry_and_damaged_entry_is_recomputed(tmp_path):
    store = EmbeddingCache(tmp_path)

    def boom():
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        memo.cached("t", {}, boom, store=store)
    assert not list((tmp_path / "memo").glob("*")) if (tmp_path / "memo").exists() else True
    memo.cached("t", {}, lambda: 1, store=store)
    (entry,) = (tmp_path / "memo").glob("*.pkl")
    entry.write_bytes(b"not a pickle")
    with pytest.warns(RuntimeWarning, match="damaged memo entry"):
        assert memo.cached("t", {}, lambda: 2, store=store) == 2
    assert memo.cached("t", {}, lambda: 3, store=store) == 2
    assert store.clear() == 1
