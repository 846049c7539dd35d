"""One key rule for every cache: a value is stored under its inputs and the code that computes it
(:func:`xalign.core.code_closure.code_digest`), never under a version number bumped by hand.

Each cache is run twice on the same inputs with the code digest it sees replaced: the same digest reads
the entry back, another one computes a new entry (a declared version that nobody bumped served the old
value: the probe fits, the BLI grid, the BTSR sets and the fine-tuned weights were keyed that way)."""

import numpy as np
import pytest

from xalign.core import code_closure
from xalign.measures import bli_grid, probe
from xalign.measures.btsr import pairdata
from xalign.papers.calibrated2023 import finetune


def _entries(folder) -> int:
    return sum(1 for p in folder.rglob("*") if p.is_file() and not p.name.startswith("."))


@pytest.fixture
def code(monkeypatch):
    """A switch for the code digest the caches see: ``code["digest"] = "b"`` is an edit of the code."""
    state = {"digest": "a"}

    def fake(roots):
        return state["digest"] + ":" + ",".join(sorted(getattr(r, "__name__", str(r)) for r in roots))

    for module in (probe, bli_grid, pairdata, finetune):
        monkeypatch.setattr(module, "code_digest", fake)
    return state


def test_a_probe_fit_is_keyed_on_the_code_that_fits(tmp_path, monkeypatch, code):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    monkeypatch.setattr(probe, "_probe_cache", None)
    rng = np.random.default_rng(0)
    X, y, Xt = rng.normal(size=(60, 4)), rng.integers(0, 3, 60), rng.normal(size=(20, 4))
    spec = probe.ProbeSpec("LR", kind="logreg", config="prototyping", kfold=3, max_epoch=5)
    first, _ = probe.fit_predict(X, y, spec, 3, None, 0, [Xt])
    n = _entries(tmp_path / "probes")
    again, _ = probe.fit_predict(X, y, spec, 3, None, 0, [Xt])
    assert _entries(tmp_path / "probes") == n and np.array_equal(first[0], again[0])
    code["digest"] = "b"
    probe.fit_predict(X, y, spec, 3, None, 0, [Xt])
    assert _entries(tmp_path / "probes") > n


def test_the_fine_tuned_weights_are_keyed_on_the_training_code_and_every_helper_it_reaches(code):
    before = finetune.training_code_digest()
    code["digest"] = "b"
    assert finetune.training_code_digest() != before
    # the real digest follows the helpers: the loop's own roots are classes and functions of xalign
    assert all(code_closure.in_xalign(obj) for obj in finetune.TRAINING_CODE)


def test_no_cache_keeps_a_version_number_of_its_own():
    from xalign.measures import aligner

    for module in (probe, bli_grid, aligner, finetune):
        names = [n for n in vars(module) if n.endswith("_VERSION")]
        assert names == [], f"{module.__name__} declares {names}"
