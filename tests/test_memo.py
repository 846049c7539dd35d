"""The memo store: a warm call does not recompute, a code or key change does, bad entries recover."""

import json
import pickle

import numpy as np
import pandas as pd
import pytest

from xalign.core import hashing, memo
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
    assert hashing.array_digest(x) == hashing.array_digest(x.copy())
    assert hashing.array_digest(x) != hashing.array_digest(x.astype(np.float64))
    assert hashing.array_digest(x) != hashing.array_digest(x.reshape(2, 3))
    y = x.copy()
    y[3] += 1e-3
    assert hashing.array_digest(x) != hashing.array_digest(y)


def test_failed_compute_leaves_no_entry_and_damaged_entry_is_recomputed(tmp_path):
    store = EmbeddingCache(tmp_path)

    def boom():
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        memo.cached("t", {}, boom, store=store)
    assert not list((tmp_path / "memo").glob("*")) if (tmp_path / "memo").exists() else True
    memo.cached("t", {}, lambda: 1, store=store)
    (entry,) = (tmp_path / "memo").glob("*")
    entry.write_bytes(b"not an entry")
    with pytest.warns(RuntimeWarning, match="damaged memo entry"):
        assert memo.cached("t", {}, lambda: 2, store=store) == 2
    assert memo.cached("t", {}, lambda: 3, store=store) == 2
    assert store.clear() == 1


class _Exploit:
    """Unpickling this creates a file: what a pickle replaced in a shared cache could do."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _only_entry(root):
    (entry,) = [p for p in (root / "memo").iterdir() if not p.name.startswith(".")]
    return entry


def test_a_replaced_entry_cannot_run_code(tmp_path):
    """A pickle written over a memo entry is not executed: the entry is reported, removed and recomputed."""
    store = EmbeddingCache(tmp_path / "cache")
    marker = tmp_path / "pwned"
    assert memo.cached("t", {"n": 1}, lambda: {"value": 1}, store=store) == {"value": 1}
    entry = _only_entry(store.root)
    entry.write_bytes(pickle.dumps(_Exploit(marker)))
    with pytest.warns(RuntimeWarning, match=f"damaged memo entry {entry}"):
        assert memo.cached("t", {"n": 1}, lambda: {"value": 2}, store=store) == {"value": 2}
    assert not marker.exists()
    # an npz holding a pickled object array is refused as well (allow_pickle=False)
    entry = _only_entry(store.root)
    with open(entry, "wb") as fh:
        np.savez(fh, __tree__=np.frombuffer(b'{"format": 1, "value": {"array": "a0"}}', np.uint8),
                 a0=np.array([_Exploit(marker)], dtype=object))
    with pytest.warns(RuntimeWarning, match="damaged memo entry"):
        assert memo.cached("t", {"n": 1}, lambda: 3, store=store) == 3
    assert not marker.exists()


def _flip_byte(p):
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0xFF
    p.write_bytes(bytes(b))


def _truncate(p):
    p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])


def _directory(p):
    p.unlink()
    (p / "inner").mkdir(parents=True)


def _zip_header(p):
    b = bytearray(p.read_bytes())
    b[6] ^= 0xFF  # the zip's first local header: flags/version
    b[:4] = b"PK\x05\x06"
    p.write_bytes(bytes(b))


@pytest.mark.parametrize("damage", [_flip_byte, _truncate, _directory, _zip_header])
def test_any_unreadable_memo_entry_is_reported_removed_and_recomputed(tmp_path, damage):
    store = EmbeddingCache(tmp_path)
    frame = pd.DataFrame({"pair": ["de-en", "fr-en"], "value": np.arange(2000, dtype=np.float64)[:2]})
    memo.cached("t", {}, lambda: frame, store=store)
    entry = _only_entry(store.root)
    damage(entry)
    with pytest.warns(RuntimeWarning, match=f"damaged memo entry {entry}"):
        pd.testing.assert_frame_equal(memo.cached("t", {}, lambda: frame.assign(value=[5.0, 6.0]), store=store),
                                      frame.assign(value=[5.0, 6.0]))
    assert entry.is_file() and store.damaged == 1
    pd.testing.assert_frame_equal(memo.cached("t", {}, lambda: None, store=store), frame.assign(value=[5.0, 6.0]))


@pytest.mark.parametrize("damage", [_flip_byte, _truncate, _directory])
def test_any_unreadable_store_entry_is_reported_removed_and_recomputed(tmp_path, damage):
    """The embedding store's npz and JSON entries follow the same rule (a directory in place included)."""
    store = EmbeddingCache(tmp_path)
    store.put({"k": 1}, x=np.arange(1000.0))
    store.put_json({"k": 2}, {"value": list(range(100))})
    for path, get in ((store.path({"k": 1}), lambda: store.get({"k": 1})),
                      (store.json_path({"k": 2}), lambda: store.get_json({"k": 2}))):
        damage(path)
        with pytest.warns(RuntimeWarning, match=f"damaged entry {path}"):
            assert get() is None
        assert not path.exists()


def test_memo_values_round_trip_with_their_types(tmp_path):
    """What the library memoises: tables (object, categorical, nullable columns; per-row arrays), dicts of
    numpy scalars, tuples of arrays, xalign dataclasses."""
    from xalign.measures.sentbank import SentenceBank

    store = EmbeddingCache(tmp_path)
    values = {
        "frame": pd.DataFrame({"pair": ["de-en", "fr-en"], "layer": np.array([0, 12], np.int64),
                               "value": [0.25, np.nan], "hits": [np.array([True]), np.array([False, True])],
                               "kind": pd.Categorical(["a", "b"]), "n": pd.array([1, None], dtype="Int64")}),
        "row": {"fraction": 0.5, "layer": 3, "validation": np.float64(0.2), "C": 1.0, "val": float("nan")},
        "pair": (np.array([True, False]), np.array([3, 4], np.int64)),
        "info": (pd.DataFrame({"lang": ["de"], "value": [70.0]}), {"C": 0.1, "n_train": 10, "big": 2**70}),
        "bank": SentenceBank(["a", "b"], {"mean": np.ones((2, 1, 3), np.float16)}, {"mean": [12]}),
    }
    for name, value in values.items():
        memo.cached(name, {}, lambda v=value: v, store=store)
        back = memo.cached(name, {}, lambda: pytest.fail("recomputed"), store=store)
        if name == "frame":
            pd.testing.assert_frame_equal(back.drop(columns="hits"), value.drop(columns="hits"))
            assert all((a == b).all() for a, b in zip(back["hits"], value["hits"]))
        elif name == "row":
            assert type(back["validation"]) is np.float64 and back["val"] != back["val"]
            assert {k: v for k, v in back.items() if k != "val"} == {k: v for k, v in value.items() if k != "val"}
        elif name == "pair":
            assert isinstance(back, tuple) and all(a.dtype == b.dtype and (a == b).all() for a, b in zip(back, value))
        elif name == "info":
            pd.testing.assert_frame_equal(back[0], value[0])
            assert back[1] == value[1]
        else:
            assert type(back) is SentenceBank and back.texts == value.texts and back.layers == value.layers
            assert back.vectors["mean"].dtype == np.float16 and (back.vectors["mean"] == 1).all()


def test_a_value_the_format_cannot_hold_is_an_error_before_anything_is_written(tmp_path):
    store = EmbeddingCache(tmp_path)
    with pytest.raises(TypeError, match="cannot hold a .*_Exploit"):
        memo.cached("t", {}, lambda: [_Exploit(tmp_path / "x")], store=store)
    assert not [p for p in (tmp_path / "memo").iterdir()]
