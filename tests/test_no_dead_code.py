"""Every public top-level function and class of ``lib/xalign`` has a caller.

A name that occurs nowhere but in its own definition (in the library, the tests, the notebooks, the
benchmarks, the book's sources or the packaging files) is dead code: it costs a reader time and a
refactoring an edit. Name-level and textual on purpose (a call through ``getattr`` or an entry point
written in ``pyproject.toml`` counts, since its name is written there).
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SEARCHED = ("lib", "tests", "notebooks", "bench", "book")
SUFFIXES = (".py", ".md", ".yml", ".yaml", ".toml", ".cfg")
TOP_FILES = ("pyproject.toml", "setup.py", "_config.yml", "Makefile")


def _texts() -> list[str]:
    out = [p.read_text(errors="replace") for d in SEARCHED for p in (ROOT / d).rglob("*")
           if p.is_file() and p.suffix in SUFFIXES]
    return out + [(ROOT / f).read_text() for f in TOP_FILES if (ROOT / f).exists()]


def public_definitions(package: Path) -> list[tuple[str, str]]:
    """(file relative to the repository, name) of every public top-level def or class under ``package``."""
    out = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                out.append((str(path.relative_to(ROOT)), node.name))
    return out


def uncalled(definitions, texts) -> list[tuple[str, str]]:
    """The definitions whose name occurs only once (their own ``def``) in all ``texts``."""
    words = Counter(w for text in texts for w in re.findall(r"\w+", text))
    return [(f, n) for f, n in definitions if words[n] <= 1]


def test_every_public_function_has_a_caller():
    dead = uncalled(public_definitions(ROOT / "lib" / "xalign"), _texts())
    assert not dead, "public definitions nobody calls (remove them or call them): " + ", ".join(
        f"{f}:{n}" for f, n in dead)


def test_the_rule_finds_a_function_nobody_calls(tmp_path):
    (tmp_path / "m.py").write_text("def used():\n    return 1\n\ndef orphan():\n    return used()\n")
    defs = [("m.py", "used"), ("m.py", "orphan")]
    assert uncalled(defs, [(tmp_path / "m.py").read_text()]) == [("m.py", "orphan")]
