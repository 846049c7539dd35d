"""The library stands alone: the built wheel, installed (not editable) into a fresh environment, runs
from an empty directory: package data (data declarations, checksums, profiles, the papers' tables) and
the chapter notebooks come from the installed package, not from a checkout."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "lib", "notebooks")


def _run(cmd, **kw) -> subprocess.CompletedProcess:
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, **kw)
    assert out.returncode == 0, f"{cmd}: {out.stdout[-2000:]}\n{out.stderr[-4000:]}"
    return out


def _setuptools_ok() -> bool:
    try:
        import setuptools
    except ImportError:
        return False
    return int(setuptools.__version__.split(".")[0]) >= 77


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(python, xalign script, env) of a fresh venv holding only the built wheel (dependencies from ours)."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"  # a clean copy: no stale build/ folder can leak into the wheel
    src.mkdir()
    for name in SOURCES:
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, src / name)
    isolation = [] if _setuptools_ok() else ["--use-pep517"]
    no_iso = ["--no-build-isolation"] if _setuptools_ok() else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", *no_iso, *isolation, "-w", str(tmp / "whl"),
          str(src)])
    wheels = list((tmp / "whl").glob("xalign-*.whl"))
    assert len(wheels) == 1
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XALIGN_RESULTS")}
    _run([sys.executable, "-m", "venv", str(tmp / "v")], env=env)
    py = tmp / "v" / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheels[0])], env=env)
    # the dependencies (torch, transformers, ...) come from this environment, xalign from the wheel
    env["PYTHONPATH"] = sysconfig.get_paths()["purelib"]
    env["OMP_NUM_THREADS"] = "1"
    empty = tmp / "empty"
    empty.mkdir()
    return py, tmp / "v" / "bin" / "xalign", env, empty


def test_the_wheel_ships_package_data_and_notebooks(installed):
    py, _, env, empty = installed
    code = ("import xalign, xalign.book.runner as r; print(xalign.__file__); print(r.NOTEBOOKS); "
            "print(r.IN_CHECKOUT); print(len(list(r.NOTEBOOKS.glob('*.py'))))")
    out = _run([str(py), "-c", code],
               env=env, cwd=empty).stdout.splitlines()
    venv = str(py.parent.parent)
    assert out[0].startswith(venv) and out[1].startswith(venv) and out[2] == "False"
    assert out[3] == "5"
    code = ("from xalign.data import datasets as D; from xalign.papers import meta; "
            "print(len(D.datasets()), D.DECLARATIONS.exists(), D.REGISTRY.exists()); "
            "print(sorted(len(meta.profiles(p)) for p in meta.PAPERS)); "
            "from xalign.core.paths import paper_tables_dir; print(len(list(paper_tables_dir('gaschi2022').glob('*.csv'))))")
    data = _run([str(py), "-c", code],
                env=env, cwd=empty).stdout.split()
    assert int(data[0]) > 0 and data[1:3] == ["True", "True"] and data[-1] == "5"


def test_status_fetch_and_book_outside_a_checkout(installed, tmp_path):
    _, xalign, env, empty = installed
    status = _run([str(xalign), "status"], env=env, cwd=empty)
    assert "Reproduction ledger" in status.stdout and "41 items" in status.stdout
    listing = _run([str(xalign), "fetch"], env=env, cwd=empty)
    assert "tatoeba" in listing.stdout
    if env.get("XALIGN_DATA_MIRROR"):  # CI has the mirror; elsewhere the official URLs would be tried
        fetched = _run([str(xalign), "--cache", str(tmp_path / "cache"), "fetch", "tatoeba"], env=env, cwd=empty)
        assert str(tmp_path / "cache") in fetched.stdout
    book = subprocess.run([str(xalign), "book"], env=env, cwd=empty, capture_output=True, text=True, check=False)
    assert book.returncode != 0 and "source checkout" in book.stderr
    assert not (empty / "book").exists() and not (empty / "_build").exists()


@pytest.mark.slow
def test_run_a_chapter_from_an_empty_directory(installed):
    """``xalign run 01 --profile smoke`` writes the executed chapter and its results under the current directory."""
    _, xalign, env, empty = installed
    out = _run([str(xalign), "run", "01", "--profile", "smoke"], env=env, cwd=empty, timeout=1500)
    nb = empty / "book" / "chapters" / "01_weak_strong_alignment.ipynb"
    assert str(nb) in out.stdout and nb.exists()
    assert (empty / "book" / "chapters" / "01_weak_strong_alignment.py").exists()  # the page's source download
    saved = list((empty / "results" / "01_weak_strong_alignment" / "smoke").glob("*.json"))  # one file per model
    assert len(saved) == 1
    res = json.loads(saved[0].read_text())
    assert res["tables"]
    cells = json.loads(nb.read_text())["cells"]
    assert cells[-1]["source"][0].startswith("## Run it") if isinstance(cells[-1]["source"], list) else \
        cells[-1]["source"].startswith("## Run it")
