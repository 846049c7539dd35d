"""Shared fixtures. The real offline encoder is converted once into the user cache
(or $XALIGN_CACHE) and reused; results and book builds go to temporary folders."""

from __future__ import annotations

import os

import numpy as np
import pytest


@pytest.fixture(scope="session")
def encoder():
    from xalign.core.loading import load_encoder

    return load_encoder("multilingual-e5-small", progress=False)


@pytest.fixture
def fresh_cache(tmp_path):
    from xalign.core.cache import EmbeddingCache

    return EmbeddingCache(tmp_path / "emb")


@pytest.fixture(autouse=True)
def _results_to_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))


@pytest.fixture(autouse=True)
def _mirror_variable_restored(monkeypatch):
    """The ``xalign`` command sets XALIGN_DATA_MIRROR by the default rule (core.paths.use_default_mirror):
    whatever a test's command set is undone after it."""
    value = os.environ.get("XALIGN_DATA_MIRROR")
    monkeypatch.setenv("XALIGN_DATA_MIRROR", value or "")
    if value is None:
        monkeypatch.delenv("XALIGN_DATA_MIRROR")


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def mirror_root():
    """The data mirror by the library's own rule (XALIGN_DATA_MIRROR, else ../shared/data beside the
    checkout), or None."""
    from xalign.core.paths import data_mirror, sibling_mirror

    return data_mirror() or sibling_mirror()


def mirror_available() -> bool:
    path = mirror_root()
    return path is not None and path.is_dir()


#: model names the smoke book shows a card of (the committed e5 card renamed): a script, an image's handler
#: with a javascript: link, a backtick, a blank line and a {raw} role; the browser test checks none runs
HOSTILE_CARD_NAMES = ("<script>alert(11)</script>", "<img src=x onerror=alert(12)> [x](javascript:alert(13))",
                      "a`b\n\n{raw}`html`<script>alert(14)</script>`")


def add_hostile_cards(results) -> None:
    """Write the committed e5 card under each of :data:`HOSTILE_CARD_NAMES` into ``results/cards``."""
    import json
    from pathlib import Path

    from xalign.card.battery import slug

    card = json.loads((Path(__file__).resolve().parents[1] / "reference" / "cards" / "multilingual-e5-small.json")
                      .read_text(encoding="utf-8"))
    (Path(results) / "cards").mkdir(parents=True, exist_ok=True)
    for name in HOSTILE_CARD_NAMES:
        (Path(results) / "cards" / f"{slug(name)}.json").write_text(json.dumps({**card, "model": name}),
                                                                   encoding="utf-8")


@pytest.fixture(scope="session")
def built_book(tmp_path_factory):
    """Every chapter run with the smoke profile and the book built with -W, once per session; the
    Compare models page also shows a card under each hostile name of :data:`HOSTILE_CARD_NAMES`.

    Returns (build root, results folder, html folder)."""
    from xalign.book.runner import build_book

    root = tmp_path_factory.mktemp("book")
    results = tmp_path_factory.mktemp("results")
    add_hostile_cards(results)
    mp = pytest.MonkeyPatch()
    mp.setenv("XALIGN_RESULTS", str(results))
    try:
        html = build_book("smoke", build_root=root)
    finally:
        mp.undo()
    return root, results, html


def smoke_results(built_book, chapter: str) -> dict:
    """The saved smoke-profile results of one chapter."""
    from xalign.book.results import load_results

    found = load_results(chapter, "smoke", built_book[1])
    assert found, f"no smoke results of {chapter}"
    return found[0]


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory):
    """Tiny random models of the papers' families (mBERT, XLM-R, mBART, LaBSE), tokenizers trained on WMT19."""
    import glob
    from pathlib import Path

    from xalign.testing.tiny import FAMILIES, build_tiny_model

    if not mirror_available():
        pytest.skip("needs the data mirror (XALIGN_DATA_MIRROR) for tokenizer training text")
    files = sorted(glob.glob(os.path.join(str(mirror_root()), "wmt19_newstest2019", "*", "*")))
    sentences = [s for f in files for s in Path(f).read_text(encoding="utf-8").split("\n")[:150]]
    root = tmp_path_factory.mktemp("tiny")
    return {fam: build_tiny_model(fam, root / fam, sentences) for fam in FAMILIES}
