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
    assert P.mirror_words() == f"data mirror {shared.resolve()} (beside the checkout; XALIGN_DATA_MIRROR is not set)"
    assert P.use_default_mirror() == shared.resolve() == P.data_mirror()
    assert P.mirror_words() == f"data mirror {shared.resolve()} (beside the checkout)"
    path = D.fetch("toy", "de-en.txt")  # what a chapter's kernel does, with the variable it inherits
    assert path.read_text() == "haus\thouse\n" and any(p["origin"] == "mirror" for p in D.provenance())
    monkeypatch.setenv(P.MIRROR_VARIABLE, "")  # what the Makefile exports when it finds none: the same rule
    assert P.use_default_mirror() == shared.resolve()
    other = checkout.parent / "elsewhere"
    monkeypatch.setenv(P.MIRROR_VARIABLE, str(other))  # the variable wins
    assert P.use_default_mirror() == other and P.mirror_words() == f"data mirror {other} (XALIGN_DATA_MIRROR)"


def test_the_command_applies_the_rule_before_anything_runs(checkout, monkeypatch, capsys):
    from xalign.book.cli import main

    shared = checkout.parent / "shared" / "data"
    shared.mkdir(parents=True)
    monkeypatch.setenv("XALIGN_CACHE", str(checkout / "cache"))
    assert main(["cache", "path"]) == 0
    assert P.data_mirror() == shared.resolve()  # set for this process and every kernel it starts


def test_no_mirror_is_said_in_one_phrase_and_a_missing_data_set_ends_a_run_in_two_lines(checkout, monkeypatch,
                                                                                       capsys):
    from papermill.exceptions import PapermillExecutionError

    from xalign.book import runner as R
    from xalign.book.cli import main

    assert P.use_default_mirror() is None and P.data_mirror() is None
    expected = checkout.parent.resolve() / "shared" / "data"
    words = P.mirror_words()
    assert words.startswith(f"no data mirror (XALIGN_DATA_MIRROR is not set and there is no {expected}): set "
                            "XALIGN_DATA_MIRROR to a folder")
    with pytest.raises(D.DataNotFoundError, match="'toy'"):
        D.fetch("toy", "de-en.txt")
    evalue = "data set 'xnli' (XNLI): file 'xnli.test.tsv' is not cached, not in the mirror"

    def missing(chapter, params, output=None):
        raise PapermillExecutionError(3, 2, "fetch()", "DataNotFoundError", evalue, ["...190 lines..."])

    monkeypatch.setattr(R, "run_chapter", missing)
    assert main(["run", "05", "--profile", "smoke"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == [f"xalign: chapter 05_feature_based_transfer needs data that is not here: {evalue}",
                   f"[xalign] {words}"]


def test_outside_a_checkout_there_is_no_sibling_rule(checkout, monkeypatch, tmp_path):
    (checkout.parent / "shared" / "data").mkdir(parents=True)
    monkeypatch.setattr(P, "PROJECT_ROOT", tmp_path / "site-packages")  # an installed wheel: no pyproject.toml
    assert P.use_default_mirror() is None and "outside a checkout" in P.mirror_words()


def test_the_makefile_uses_the_same_folder():
    rule = re.search(r"^export XALIGN_DATA_MIRROR \?= \$\(if \$\(wildcard ([^)]+)\),\$\(abspath \1\),\)$",
                     (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert rule and rule[1] == "/".join(P.SIBLING_MIRROR)
