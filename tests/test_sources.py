"""Memo keys hash the source a module was imported with, not the file as edited since."""

import hashlib
import importlib
import inspect
import sys
import textwrap

import pytest

import xalign
from xalign.core import memo, sources
from xalign.papers.calibrated2023 import finetune
from xalign.papers.gaschi2022 import weakstrong

ORIGINAL = textwrap.dedent('''
    import dataclasses

    K = 10

    @dataclasses.dataclass
    class Config:
        k: int = K

    def score(x):
        return x * K
''')


@pytest.fixture
def probe_module(tmp_path, monkeypatch):
    """An ``xalign.*`` module imported from a temporary file: (module, path)."""
    path = tmp_path / "xalign_source_probe.py"
    path.write_text(ORIGINAL)
    monkeypatch.setattr(xalign, "__path__", [*xalign.__path__, str(tmp_path)])
    module = importlib.import_module("xalign.xalign_source_probe")
    yield module, path
    sys.modules.pop("xalign.xalign_source_probe", None)


def old_code_digest(modules):
    """The digest as memo computed it before (the files as they are now)."""
    h = hashlib.sha256()
    for m in modules:
        mod = inspect.getmodule(m) if not inspect.ismodule(m) else m
        h.update(mod.__name__.encode())
        h.update(inspect.getsource(mod).encode())
    return h.hexdigest()


def test_an_edit_after_import_does_not_change_the_key(probe_module):
    module, path = probe_module
    before = memo.code_digest([module])
    assert sources.imported_source(module.__name__) == ORIGINAL
    path.write_text(ORIGINAL.replace("K = 10", "K = 11"))
    assert memo.code_digest([module]) == before            # the code this process runs
    assert old_code_digest([module]) != before            # what reading the file gave
    assert "K = 10" not in sources.source_of(module.score) and "x * K" in sources.source_of(module.score)
    assert sources.source_of(module.Config).startswith("@dataclasses.dataclass\nclass Config:")


def test_unedited_modules_keep_their_keys():
    """Imported source equals the file for an unedited tree, so keys do not depend on when they are made."""
    mods = [weakstrong, weakstrong.pair_layer_scores]
    assert sources.imported_source(weakstrong.__name__) == inspect.getsource(weakstrong)
    assert memo.code_digest(mods) == memo.code_digest(list(mods))
    for obj in finetune.TRAINING_CODE:
        assert sources.source_of(obj) == inspect.getsource(obj)
