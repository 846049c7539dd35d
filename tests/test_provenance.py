"""A result's identity does not depend on the cache's warmth, the clock or the machine (xalign.core.provenance)."""

from __future__ import annotations

import pytest

from test_datasets import toy_registry  # noqa: F401 - the fixture: a toy registry, its mirror, an empty cache
from xalign.core.provenance import DATA_FILE_FIELDS, RUN_FIELDS, result_identity
from xalign.data import datasets as D


def test_a_cold_fetch_and_a_warm_one_give_the_same_identity(toy_registry, monkeypatch):  # noqa: F811
    """An empty cache: this process copies the file from the mirror; a later process (a cluster worker, the
    next run) reads it from the cache. The records differ in their origin only, and results made from
    them have the same identity while each keeps its origin."""
    monkeypatch.setattr(D, "_FETCHED", {})
    D.fetch("toy", "de-en.txt")
    (cold,) = D.provenance()
    monkeypatch.setattr(D, "_FETCHED", {})  # a new process: the file is in the cache now
    D.fetch("toy", "de-en.txt")
    (warm,) = D.provenance()
    assert (cold["origin"], warm["origin"]) == ("mirror", "cache")
    assert {k for k in cold if cold[k] != warm[k]} == {"origin"}
    a = {"model": "m", "scores": {"x": 1.0}, "data": [cold], "wall_time_s": 80.0, "finished": "2026-11-27T10:00",
         "machine": {"cpu": {"model": "AMD EPYC"}}}
    b = {"model": "m", "scores": {"x": 1.0}, "data": [warm], "wall_time_s": 3.0, "finished": "2026-11-27T11:00",
         "machine": {"cpu": {"model": "Intel Xeon"}}}
    assert a != b and result_identity(a) == result_identity(b)
    assert a["data"][0]["origin"] == "mirror" and a["wall_time_s"] == 80.0  # the inputs keep their provenance


def test_identity_still_tells_other_data_and_other_numbers_apart():
    rec = {"dataset": "toy", "file": "de-en.txt", "sha256": "a" * 64, "origin": "cache"}
    base = {"model": "m", "scores": {"x": 1.0}, "data": [rec]}
    assert result_identity(base) == result_identity({**base, "machine": {}, "step_seconds": {"tatoeba": 2.0}})
    assert result_identity(base) != result_identity({**base, "data": [{**rec, "sha256": "b" * 64}]})
    assert result_identity(base) != result_identity({**base, "scores": {"x": 1.5}})
    assert "origin" in DATA_FILE_FIELDS and {"machine", "wall_time_s", "finished"} <= set(RUN_FIELDS)


def test_identity_refuses_what_is_not_a_result():
    with pytest.raises(TypeError, match="result or card dict"):
        result_identity(["not", "a", "result"])
