"""Shared fixtures. The real offline encoder is converted once into the user cache
(or $XALIGN_CACHE) and reused; results and book builds go to temporary folders."""

from __future__ import annotations

import os

import numpy as np
import pytest


@pytest.fixture(scope="session")
def encoder():
    from xalign.models import load_encoder

    return load_encoder("multilingual-e5-small", progress=False)


@pytest.fixture
def fresh_cache(tmp_path):
    from xalign.cache import EmbeddingCache

    return EmbeddingCache(tmp_path / "emb")


@pytest.fixture(autouse=True)
def _results_to_tmp(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


def mirror_available() -> bool:
    path = os.environ.get("XALIGN_DATA_MIRROR")
    return bool(path) and os.path.isdir(path)
