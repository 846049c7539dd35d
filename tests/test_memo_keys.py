"""Memo keys follow the code a computation calls: its function, the helpers it reaches, not whole modules."""

import importlib
import sys
import textwrap

import pytest

import xalign
from xalign.core import memo
from xalign.core.cache import EmbeddingCache

MAIN = textwrap.dedent('''
    """A probe module."""
    import numpy as np

    from xalign import memo_probe_helpers as H
    from xalign.memo_probe_helpers import offset

    K = 3


    def _scale(x):
        return x * K


    def score(x):
        """Score x."""
        # a comment
        return _scale(x) + offset(x) + H.bias()


    def memoised_score(x, store):
        from xalign.core.memo import cached

        return cached("probe.score", {"x": x}, lambda: score(x), store=store)


    def unrelated(x):
        return np.sqrt(x)
''')

HELPERS = textwrap.dedent('''
    def offset(x):
        return x + 1


    def bias():
        return 0


    def not_called():
        return 1
''')


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """Two temporary ``xalign.*`` modules; ``probe.edit(module, old, new)`` re-imports both after an edit."""
    monkeypatch.setattr(xalign, "__path__", [*xalign.__path__, str(tmp_path)])
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    files = {"main": tmp_path / "memo_probe_main.py", "helpers": tmp_path / "memo_probe_helpers.py"}
    files["main"].write_text(MAIN)
    files["helpers"].write_text(HELPERS)

    def forget():
        for name in ("memo_probe_main", "memo_probe_helpers"):
            sys.modules.pop(f"xalign.{name}", None)
            if hasattr(xalign, name):  # else `from xalign import memo_probe_helpers` serves the old module
                delattr(xalign, name)

    class Probe:
        def load(self):
            forget()
            importlib.invalidate_caches()
            self.main = importlib.import_module("xalign.memo_probe_main")
            return self

        def key(self):
            return memo.code_digest([self.main.score])

        def edit(self, which, old, new):
            text = files[which].read_text()
            assert old in text
            files[which].write_text(text.replace(old, new))
            return self.load()

    yield Probe().load()
    forget()


def test_unrelated_edits_in_the_same_modules_keep_the_key(probe):
    before = probe.key()
    probe.edit("main", "import numpy as np\n", "import json\nimport numpy as np\n")        # an import-only edit
    assert probe.key() == before
    probe.edit("main", "return np.sqrt(x)", "return np.sqrt(x) + 1")                    # another function
    assert probe.key() == before
    probe.edit("main", '"""Score x."""', '"""Score x, documented better."""')            # a docstring
    probe.edit("main", "# a comment", "# another comment\n\n")                           # a comment, blank lines
    assert probe.key() == before
    probe.edit("helpers", "return 1\n", "return 2\n")                                    # an uncalled helper
    assert probe.key() == before


@pytest.mark.parametrize("which, old, new", [
    ("main", "return _scale(x) + offset(x)", "return _scale(x) - offset(x)"),  # the function itself
    ("main", "return x * K", "return x * K * 2"),                                # a helper it calls
    ("main", "K = 3", "K = 4"),                                                  # a constant the helper reads
    ("helpers", "return x + 1", "return x + 2"),           # a helper in another module, imported by name
    ("helpers", "return 0", "return 0.5"),                 # ... and called through the module
])
def test_an_edit_of_called_code_changes_the_key(probe, which, old, new):
    before = probe.key()
    probe.edit(which, old, new)
    assert probe.key() != before


def test_cached_follows_the_compute_function(probe, tmp_path):
    store = EmbeddingCache(tmp_path / "cache")
    assert probe.main.memoised_score(2, store) == 6 + 3 + 0
    probe.edit("main", "return np.sqrt(x)", "return np.sqrt(x) + 1")
    assert probe.main.memoised_score(2, store) == 9 and store.hits == 1                 # served: unrelated edit
    probe.edit("helpers", "return x + 1", "return x + 2")
    assert probe.main.memoised_score(2, store) == 10 and store.misses == 2              # recomputed: helper edit


def test_a_root_outside_xalign_counts_with_its_source():
    class Fake:
        def encode(self):
            return 1

    class Other:
        def encode(self):
            return 2

    assert memo.code_digest([Fake]) != memo.code_digest([Other])
    assert memo.code_digest([Fake]) == memo.code_digest([Fake])
