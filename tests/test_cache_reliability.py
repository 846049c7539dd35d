"""A damaged cache entry is named, removed and recomputed; finished files follow the umask."""

import os
import stat

import numpy as np
import pytest

from xalign.core.atomic import write_json
from xalign.core.cache import EmbeddingCache


@pytest.mark.parametrize("damage", [b"", b"PK\x03\x04 not a zip", b"\x93NUMPY garbage"])
def test_damaged_npz_entry_is_reported_removed_and_recomputed(tmp_path, damage):
    cache = EmbeddingCache(tmp_path)
    key = {"model": "m", "inputs": "abc"}
    cache.put(key, x=np.ones((2, 3), np.float32))
    path = cache.path(key)
    path.write_bytes(damage)
    with pytest.warns(RuntimeWarning, match=str(path)):
        assert cache.get(key) is None
    assert not path.exists() and cache.damaged == 1
    cache.put(key, x=np.zeros((2, 3), np.float32))
    assert cache.get(key)["x"].sum() == 0


def test_damaged_json_entry_is_reported_and_removed(tmp_path):
    cache = EmbeddingCache(tmp_path)
    key = {"kind": "links"}
    cache.put_json(key, [[0, 1]])
    assert cache.get_json(key) == [[0, 1]]
    cache.json_path(key).write_text('[[0, 1]')
    with pytest.warns(RuntimeWarning, match="damaged entry"):
        assert cache.get_json(key) is None
    assert not cache.json_path(key).exists()


def test_written_files_respect_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_json(tmp_path / "r.json", {"a": 1})
        EmbeddingCache(tmp_path / "c").put({"k": 1}, x=np.ones(2))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "r.json").stat().st_mode) == 0o644
    entry = next((tmp_path / "c").glob("*/*.npz"))
    assert stat.S_IMODE(entry.stat().st_mode) == 0o644
