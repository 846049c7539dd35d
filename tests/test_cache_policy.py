"""One key rule for every cache: a value is stored under its inputs and the code that computes it
(:func:`xalign.core.code_closure.code_digest`), never under a version number bumped by hand.

Each cache is run twice on the same inputs with the code digest it sees replaced: the same digest reads
the entry back, another one computes a new entry (a declared version that nobody bumped served the old
value: the probe fits, the BLI grid, the BTSR sets and the fine-tuned weights were keyed that way)."""

import ast
import re
from pathlib import Path

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


LIB = Path(__file__).resolve().parents[1] / "lib" / "xalign"
#: the one ``code_digest`` call that is handed its roots: the memo's key, whose roots each caller of
#: ``xalign.core.memo.cached`` names
HANDED_ROOTS = {("core/memo.py", "memo_key")}


def unnamed_code_roots(root: Path = LIB) -> list[str]:
    """Every ``code_digest(...)`` call under ``root`` whose roots are not one module-level ``<NAME>_CODE``
    tuple of its own module (bound at import): ``file:line`` of each."""
    bad = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple)
                     for t in node.targets if isinstance(t, ast.Name)}
        rel = path.relative_to(root).as_posix()
        for top in tree.body:
            for node in ast.walk(top):
                func = getattr(node, "func", None)
                if not isinstance(node, ast.Call) or getattr(func, "id", getattr(func, "attr", None)) != "code_digest":
                    continue
                if (rel, getattr(top, "name", None)) in HANDED_ROOTS:
                    continue
                arg = node.args[0] if len(node.args) == 1 and not node.keywords else None
                if not (isinstance(arg, ast.Name) and re.fullmatch(r"[A-Z][A-Z0-9_]*_CODE", arg.id)
                        and arg.id in constants):
                    bad.append(f"{rel}:{node.lineno}")
    return bad


def test_every_cache_key_names_its_code_roots_in_a_module_constant():
    """A reader finds what a key hashes in one place (``FIT_CODE``, ``GRID_CODE``, ``BTSR_CODE`` ...), and a
    test that stands in for a root changes what runs on a miss, not the key."""
    assert unnamed_code_roots() == []


def test_the_rule_sees_roots_written_at_the_call(tmp_path):
    (tmp_path / "m.py").write_text("GOOD_CODE = (f,)\nLIST_CODE = [f]\n\ndef f():\n    code_digest(GOOD_CODE)\n"
                                   "    code_digest([f])\n    cc.code_digest(LIST_CODE)\n    code_digest(OTHER)\n")
    assert unnamed_code_roots(tmp_path) == ["m.py:6", "m.py:7", "m.py:8"]
