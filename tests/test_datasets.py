"""Data sets: mirror first, checksums enforced, clear errors, no half-written cache files."""

import hashlib

import pytest

from conftest import mirror_available, mirror_root
from xalign.data import datasets as D


@pytest.fixture
def toy_registry(tmp_path, monkeypatch):
    """A declarations file and registry for two toy data sets, a mirror and an empty cache."""
    mirror = tmp_path / "mirror"
    (mirror / "toy").mkdir(parents=True)
    good = b"haus\thouse\n"
    (mirror / "toy" / "de-en.txt").write_bytes(good)
    (mirror / "toy" / "bad.txt").write_bytes(b"tampered\n")
    decl = tmp_path / "datasets.yaml"
    decl.write_text(
        "toy:\n  title: Toy dictionary\n  mirror: toy\n  base_url: null\n  license: CC0\n"
        "  citation: nobody\n  obtain: ask the toy maker\n"
        "web:\n  title: Web toy\n  mirror: web\n  base_url: http://127.0.0.1:9/files/\n  verified: true\n"
        "  license: CC0\n  citation: nobody\n")
    reg = tmp_path / "registry.txt"
    reg.write_text(f"toy/de-en.txt {hashlib.sha256(good).hexdigest()}\n"
                   f"toy/bad.txt {hashlib.sha256(b'original').hexdigest()}\n"
                   f"web/x.txt {'0' * 64}\n")
    monkeypatch.setattr(D, "DECLARATIONS", decl)
    monkeypatch.setattr(D, "REGISTRY", reg)
    D.datasets.cache_clear()
    D._registry.cache_clear()
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XALIGN_DATA_MIRROR", str(mirror))
    yield tmp_path
    D.datasets.cache_clear()
    D._registry.cache_clear()


def test_fetch_copies_from_the_mirror_into_the_cache(toy_registry):
    path = D.fetch("toy", "de-en.txt")
    assert path.read_text() == "haus\thouse\n"
    assert str(toy_registry / "cache") in str(path)
    assert any(p["file"] == "de-en.txt" and p["origin"] == "mirror" for p in D.provenance())
    assert D.fetch("toy", "de-en.txt") == path  # second time: from the cache


def test_checksum_mismatch_is_an_error_and_leaves_no_file(toy_registry):
    with pytest.raises(D.ChecksumError, match="bad.txt"):
        D.fetch("toy", "bad.txt")
    cached = list((toy_registry / "cache").rglob("bad.txt*"))
    assert cached == []


def test_missing_file_names_the_dataset_the_source_and_the_mirror_variable(toy_registry, monkeypatch):
    monkeypatch.delenv("XALIGN_DATA_MIRROR")
    with pytest.raises(D.DataNotFoundError) as err:
        D.fetch("toy", "de-en.txt")
    msg = str(err.value)
    assert "'toy'" in msg and "ask the toy maker" in msg and "XALIGN_DATA_MIRROR" in msg
    with pytest.raises(D.DataNotFoundError) as err:
        D.fetch("web", "x.txt")  # nothing listens on port 9: the download fails
    assert "http://127.0.0.1:9/files/x.txt" in str(err.value)
    assert not list((toy_registry / "cache").rglob("x.txt*"))


def test_unknown_dataset_and_file(toy_registry):
    with pytest.raises(KeyError, match="unknown data set 'nope'"):
        D.get("nope")
    with pytest.raises(D.DataNotFoundError, match="declares no file"):
        D.fetch("toy", "other.txt")


def test_every_declaration_is_complete():
    D.datasets.cache_clear()
    table = D.datasets()
    assert {"muse", "wmt19", "wmt21", "gold_alignments", "tatoeba", "xnli", "xed"} <= set(table)
    for ds in table.values():
        assert ds.license and ds.citation and ds.title, ds.name
        assert ds.base_url or ds.obtain or ds.fetch == "sacrebleu", f"{ds.name}: no way to obtain it"
        assert ds.checksums, f"{ds.name}: no files in the registry"


@pytest.mark.skipif(not mirror_available(), reason="needs XALIGN_DATA_MIRROR")
def test_mirror_matches_the_registry():
    """Every declared file is in the mirror with the declared sha256."""
    from pathlib import Path

    D.datasets.cache_clear()
    root = Path(mirror_root())
    for ds in D.datasets().values():
        for rel, sha in ds.checksums.items():
            assert D.file_sha256(root / ds.mirror / rel) == sha, f"{ds.name}/{rel}"


def test_a_corrupted_cached_copy_is_named_and_fetched_again(toy_registry):
    path = D.fetch("toy", "de-en.txt")
    path.write_text("haus\thaus\n")  # damaged after it was fetched
    D._FETCHED.clear()
    with pytest.warns(RuntimeWarning, match=r"cached copy .*de-en.txt"):
        again = D.fetch("toy", "de-en.txt")
    assert again.read_text() == "haus\thouse\n"
    assert [p["sha256"] == p["declared_sha256"] for p in D.provenance() if p["file"] == "de-en.txt"] == [True]


def test_a_file_name_outside_the_declared_ones_is_refused_and_nothing_is_copied(toy_registry):
    """``fetch('toy', '../../victim/pwn.txt')`` once copied a file from outside the mirror to outside the cache."""
    victim = toy_registry / "victim"
    victim.mkdir()
    (victim / "pwn.txt").write_text("secret")
    (toy_registry / "mirror" / "web").mkdir()  # mirror/web/../../victim/pwn.txt is the victim's file
    for name in ("../victim/pwn.txt", "../../victim/pwn.txt", str(victim / "pwn.txt")):
        with pytest.raises(D.DataNotFoundError, match="declares no file"):
            D.fetch("toy", name)
        with pytest.raises(D.DataNotFoundError, match="declares no file"):
            D.fetch("web", name)  # a downloadable set too: no undeclared name without a checksum
    assert sorted(p.name for p in toy_registry.rglob("pwn.txt")) == ["pwn.txt"]


def test_a_declared_name_that_leaves_the_mirror_or_the_cache_is_refused(toy_registry):
    reg = toy_registry / "registry.txt"
    reg.write_text(reg.read_text() + f"toy/../escape.txt {hashlib.sha256(b'x').hexdigest()}\n")
    (toy_registry / "mirror" / "escape.txt").write_bytes(b"x")
    D._registry.cache_clear()
    D.datasets.cache_clear()
    with pytest.raises(D.DataNotFoundError, match="outside"):
        D.fetch("toy", "../escape.txt")
    assert not (toy_registry / "cache" / "escape.txt").exists()


def test_a_cached_copy_is_checked_against_the_registry_not_a_record_in_the_cache(toy_registry):
    path = D.fetch("toy", "de-en.txt")
    path.write_text("haus\thaus\n")  # altered in the cache, with any record the cache holds beside it
    for sidecar in path.parent.glob(f".{path.name}*"):
        sidecar.write_text(hashlib.sha256(b"haus\thaus\n").hexdigest())
    (path.parent / f".{path.name}.sha256").write_text(hashlib.sha256(b"haus\thaus\n").hexdigest())
    D._FETCHED.clear()
    with pytest.warns(RuntimeWarning, match="registry declares"):
        again = D.fetch("toy", "de-en.txt")
    assert again.read_text() == "haus\thouse\n"


def test_top_level_data_folder_declares_every_data_set():
    """data/: the declarations (links to the package's files, which the wheel ships) and a README of
    every data set with its URL and license, generated and current."""
    from pathlib import Path

    from xalign.data.datasets import DECLARATIONS, REGISTRY, data_readme, datasets

    root = Path(__file__).resolve().parents[1] / "data"
    assert (root / "datasets.yaml").resolve() == DECLARATIONS.resolve()
    assert (root / "registry.txt").resolve() == REGISTRY.resolve()
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert readme == data_readme(), "data/README.md is stale: regenerate it (see its first lines)"
    for name, ds in datasets().items():
        assert f"| **{name}**: " in readme and ds.license in readme
