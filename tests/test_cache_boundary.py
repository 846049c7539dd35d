"""Nothing outside the cache is touched: links out of the cache root are never followed by a removal,
an empty or file ``XALIGN_CACHE`` is an error naming the variable."""

import warnings

import numpy as np
import pytest

from test_datasets import toy_registry  # noqa: F401 - the fixture: a toy registry, its mirror, an empty cache
from xalign.book.cli import main
from xalign.core.cache import EmbeddingCache, clear_entries
from xalign.core.hashing import key_digest
from xalign.core.memo import cached, memo_key
from xalign.core.paths import CacheSettingError, cache_dir, check_cache_setting, within

DIGEST = "ab" + "0" * 62


def _elsewhere(tmp_path):
    """A folder outside the cache holding files named like cache entries (and one of the user's)."""
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / f"{DIGEST}.npz").write_bytes(b"not the cache's")
    (other / f"{'c' * 64}.npz").write_bytes(b"not the cache's")
    (other / "thesis.tex").write_text("precious")
    return other


def test_clear_embeddings_does_not_follow_a_linked_memo_folder(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XALIGN_CACHE", str(cache))
    emb = cache_dir("embeddings")
    other = _elsewhere(tmp_path)
    (emb / "memo").symlink_to(other, target_is_directory=True)
    own = emb / "ab" / f"{DIGEST}.npz"
    own.parent.mkdir()
    own.write_bytes(b"x")
    assert main(["cache", "clear-embeddings"]) == 0
    assert not own.exists()  # the cache's own entry is removed
    assert sorted(p.name for p in other.iterdir()) == sorted([f"{DIGEST}.npz", f"{'c' * 64}.npz", "thesis.tex"])
    assert (emb / "memo").is_symlink()
    assert str(emb / "memo") in capsys.readouterr().err  # named as left alone


def test_clear_does_not_follow_a_linked_entry_folder(tmp_path):
    root = tmp_path / "emb"
    root.mkdir()
    other = _elsewhere(tmp_path)
    (root / "ab").symlink_to(other, target_is_directory=True)
    (root / "cd").mkdir()
    own = root / "cd" / f"cd{'1' * 62}.json"
    own.write_text("{}")
    link = root / "cd" / f"cd{'2' * 62}.npz"
    link.symlink_to(other / f"{DIGEST}.npz")
    assert clear_entries(root) == (1, [root / "ab", link])
    assert not own.exists()
    assert (other / f"{DIGEST}.npz").read_bytes() == b"not the cache's"


def test_clear_embeddings_refuses_a_linked_embeddings_folder(tmp_path, monkeypatch, capsys):
    cache = tmp_path / "cache"
    monkeypatch.setenv("XALIGN_CACHE", str(cache))
    cache_dir("data")
    other = _elsewhere(tmp_path)
    (other / "ab").mkdir()
    (other / "ab" / f"{DIGEST}.npz").write_bytes(b"mine")
    (cache / "embeddings").symlink_to(other, target_is_directory=True)
    assert main(["cache", "clear-embeddings"]) == 2
    assert (other / "ab" / f"{DIGEST}.npz").read_bytes() == b"mine"
    assert str(cache / "embeddings") in capsys.readouterr().err


def test_a_damaged_memo_behind_a_linked_memo_folder_is_not_removed(tmp_path):
    store = EmbeddingCache(tmp_path / "emb")
    store.root.mkdir()
    other = tmp_path / "elsewhere"
    other.mkdir()
    (store.root / "memo").symlink_to(other, target_is_directory=True)
    name, key = "test.boundary", {"n": 1}
    entry = other / f"{key_digest(memo_key(name, key))}.npz"
    entry.write_bytes(b"damaged, but not the cache's")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cached(name, key, lambda: np.arange(3), store=store)
    assert entry.exists() and any("link out of the cache" in str(w.message) for w in seen)


def test_a_damaged_entry_inside_the_cache_is_still_removed(tmp_path):
    store = EmbeddingCache(tmp_path / "emb")
    key = {"k": 2}
    store.path(key).parent.mkdir(parents=True)
    store.path(key).write_bytes(b"cut short")
    with pytest.warns(RuntimeWarning, match="damaged entry"):
        assert store.get(key) is None
    assert not store.path(key).exists()


def test_within(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").symlink_to(tmp_path / "a", target_is_directory=True)
    assert within(tmp_path, tmp_path / "a" / "f")
    assert within(tmp_path, tmp_path / "b")  # the link itself may be removed
    assert not within(tmp_path, tmp_path / "b" / "f")
    assert not within(tmp_path / "a", tmp_path / "a" / ".." / "x" / "f")
    assert not within(tmp_path / "a", tmp_path / "c" / "f")


@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_xalign_cache_is_an_error_naming_it(tmp_path, monkeypatch, capsys, value):
    monkeypatch.setenv("HOME", str(tmp_path))  # the default cache, were it used, is a temporary one
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    default = tmp_path / "xdg" / "xalign"
    monkeypatch.setenv("XALIGN_CACHE", str(default))
    (cache_dir("embeddings") / "keep").write_text("x")
    monkeypatch.setenv("XALIGN_CACHE", value)
    with pytest.raises(CacheSettingError, match="XALIGN_CACHE"):
        check_cache_setting()
    assert main(["cache", "clear", "--yes"]) == 2
    assert "XALIGN_CACHE" in capsys.readouterr().err
    assert (default / "embeddings" / "keep").exists()


def test_an_empty_cache_option_is_an_error(capsys):
    assert main(["--cache", "", "cache", "path"]) == 2
    assert "--cache" in capsys.readouterr().err


def test_xalign_cache_pointing_at_a_file_is_an_error_naming_it(tmp_path, monkeypatch, capsys):
    f = tmp_path / "afile"
    f.write_text("mine")
    monkeypatch.setenv("XALIGN_CACHE", str(f))
    with pytest.raises(CacheSettingError, match="XALIGN_CACHE"):
        check_cache_setting()
    assert main(["cache", "clear", "--yes"]) == 2
    err = capsys.readouterr().err
    assert "XALIGN_CACHE" in err and str(f) in err
    assert f.read_text() == "mine"


# --- the hot paths themselves: reached by every memo and every data fetch ----------------------------
def test_a_damaged_entry_behind_a_linked_entry_folder_is_not_removed(tmp_path):
    store = EmbeddingCache(tmp_path / "emb")
    key = {"k": 3}
    other = tmp_path / "elsewhere"
    other.mkdir()
    store.root.mkdir()
    store.path(key).parent.symlink_to(other, target_is_directory=True)  # embeddings/ab -> elsewhere
    victim = other / store.path(key).name
    victim.write_bytes(b"not the cache's, damaged or not")
    with pytest.warns(RuntimeWarning, match="link out of"):
        assert store.get(key) is None
    assert victim.read_bytes() == b"not the cache's, damaged or not"


@pytest.mark.parametrize("value", ["", "  "])
def test_cache_root_itself_refuses_an_empty_xalign_cache(monkeypatch, value):
    """A chapter run in Jupyter or the library reaches cache_root without the xalign command's check."""
    from xalign.core.paths import cache_root

    monkeypatch.setenv("XALIGN_CACHE", value)
    with pytest.raises(CacheSettingError, match="XALIGN_CACHE is set but empty"):
        cache_root()
    with pytest.raises(CacheSettingError):
        cache_dir("embeddings")


def test_a_folder_in_a_cached_data_files_place_is_named(toy_registry):  # noqa: F811
    from xalign.data import datasets as D

    place = toy_registry / "cache" / "data" / "toy" / "de-en.txt"
    place.mkdir(parents=True)
    (place / "mine.txt").write_text("the user's")
    with pytest.raises(D.CachedPathError, match="is a folder where the cache keeps file 'de-en.txt'"):
        D.fetch("toy", "de-en.txt")
    assert (place / "mine.txt").read_text() == "the user's"


def test_a_cached_data_file_reached_through_a_link_is_neither_read_nor_replaced(toy_registry):  # noqa: F811
    """(A guard: the data set's folder is resolved and must stay in the cache, so a link out is refused.)"""
    from xalign.data import datasets as D

    other = toy_registry / "elsewhere"
    other.mkdir()
    (other / "de-en.txt").write_text("someone else's file")
    (toy_registry / "cache" / "data").mkdir(parents=True)
    (toy_registry / "cache" / "data" / "toy").symlink_to(other, target_is_directory=True)
    with pytest.raises(D.DataNotFoundError, match="outside the data set's folder"):
        D.fetch("toy", "de-en.txt")
    assert (other / "de-en.txt").read_text() == "someone else's file"
