"""A damaged cache entry is named, removed and recomputed; finished files follow the umask."""

import os
import stat
from pathlib import Path

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


def test_the_converted_model_follows_the_umask(tmp_path, monkeypatch):
    """convert_image made the model folder 0700 (mkdtemp) and its weights 0600: other users of a shared cache
    got 'Permission denied'. The conversion's heavy parts are replaced; the files are written as they are."""
    import types

    import torch

    from xalign.core import e5convert as E

    image = tmp_path / "image.bin"
    image.write_bytes(b"image")
    monkeypatch.setattr(E, "read_image", lambda path: types.SimpleNamespace(version=1))
    monkeypatch.setattr(E, "bert_state_dict", lambda img: {"w": torch.zeros(2, 2).numpy()})
    monkeypatch.setattr(E, "bert_config", lambda img: {"model_type": "bert"})
    tokenizer = types.SimpleNamespace(save_pretrained=lambda d: (Path(d) / "tokenizer.json").write_text("{}"))
    monkeypatch.setattr(E, "build_tokenizer", lambda img: tokenizer)
    old = os.umask(0o022)
    try:
        out = E.convert_image(image, tmp_path / "cache" / "models" / "m")
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o755
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in out.iterdir()}
    assert "model.safetensors" in modes and set(modes.values()) == {0o644}, modes


def test_a_folder_is_built_once_and_a_failed_build_leaves_nothing(tmp_path):
    from xalign.core.atomic import atomic_folder

    calls = []

    def build(folder):
        calls.append(folder)
        (folder / "done").write_text("x")

    out = atomic_folder(tmp_path / "models" / "m", "done", build)
    assert (out / "done").read_text() == "x" and len(calls) == 1
    assert atomic_folder(out, "done", build) == out and len(calls) == 1  # complete: not built again

    def broken(folder):
        (folder / "half").write_text("x")
        raise RuntimeError("conversion failed")

    with pytest.raises(RuntimeError, match="conversion failed"):
        atomic_folder(tmp_path / "models" / "n", "done", broken)
    with pytest.raises(OSError, match="left no done"):
        atomic_folder(tmp_path / "models" / "n", "done", lambda folder: None)
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["m"]  # no half folder, no temporary
