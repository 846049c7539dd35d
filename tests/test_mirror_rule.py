"""One rule for the data mirror, the CLI's and the Makefile's: XALIGN_DATA_MIRROR, else ../shared/data
beside the checkout, else none, said in the same words everywhere (core.paths.mirror_words)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from xalign.core import paths as P
from xalign.data import datasets as D

ROOT = Path(__file__).resolve().parents[1]
TOY = b"haus\thouse\n"


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A fake checkout (``work/repo`` with its pyproject.toml) and a toy data set declared in it."""
    repo = tmp_path / "work" / "repo"
    repo.mkdir(parents=True)
    (repo / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.setattr(P, "PROJECT_ROOT", repo)
    monkeypatch.delenv(P.MIRROR_VARIABLE, raising=False)
    decl, reg = tmp_path / "datasets.yaml", tmp_path / "registry.txt"
    decl.write_text("toy:\n  title: Toy dictionary\n  mirror: toy\n  base_url: null\n  license: CC0\n"
                    "  citation: nobody\n  obtain: ask the toy maker\n")
    reg.write_text(f"toy/de-en.txt {hashlib.sha256(TOY).hexdigest()}\n")
    monkeypatch.setattr(D, "DECLARATIONS", decl)
    monkeypatch.setattr(D, "REGISTRY", reg)
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    D.datasets.cache_clear()
    D._registry.cache_clear()
    yield repo
    D.datasets.cache_clear()
    D._registry.cache_clear()


def test_the_mirror_beside_the_checkout_is_found_without_the_variable(checkout, monkeypatch):
    shared = checkout.parent / "shared" / "data"
    (shared / "toy").mkdir(parents=True)
    (shared / "toy" / "de-en.txt").write_text("haus\thouse\n")
    assert P.data_mirror() == shared.resolve()
    monkeypatch.setenv(P.MIRROR_VARIABLE, "")  # what the Makefile exports when it finds none: the same rule
    assert P.data_mirror() == shared.resolve()
    assert P.mirror_words() == f"data mirror {shared.resolve()} (beside the checkout; XALIGN_DATA_MIRROR is not set)"
    path = D.fetch("toy", "de-en.txt")
    assert path.read_text() == "haus\thouse\n" and any(p["origin"] == "mirror" for p in D.provenance())
    other = checkout.parent / "elsewhere"
    monkeypatch.setenv(P.MIRROR_VARIABLE, str(other))  # the variable wins
    assert P.data_mirror() == other and P.mirror_words() == f"data mirror {other} (XALIGN_DATA_MIRROR)"


def test_no_mirror_is_said_in_the_same_words_by_the_error(checkout):
    assert P.data_mirror() is None
    words = P.mirror_words()
    expected = checkout.parent.resolve() / "shared" / "data"
    assert words.startswith(f"no data mirror (XALIGN_DATA_MIRROR is not set and there is no {expected}): set "
                            "XALIGN_DATA_MIRROR to a folder")
    with pytest.raises(D.DataNotFoundError) as err:
        D.fetch("toy", "de-en.txt")
    msg = str(err.value)
    assert words in msg and "'toy'" in msg and "ask the toy maker" in msg and "homepage" not in msg


def test_outside_a_checkout_there_is_no_sibling_rule(checkout, monkeypatch, tmp_path):
    (checkout.parent / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(P, "PROJECT_ROOT", tmp_path / "site-packages")  # an installed wheel: no pyproject.toml
    assert P.data_mirror() is None and "outside a checkout" in P.mirror_words()


def test_the_makefile_uses_the_same_folder():
    rule = re.search(r"^export XALIGN_DATA_MIRROR \?= \$\(if \$\(wildcard ([^)]+)\),\$\(abspath \1\),\)$",
                     (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert rule and rule[1] == "/".join(P.SIBLING_MIRROR)
