"""`.ci/run`: the README's `make test`, with an empty cache of its own (a new user's first run), removed at exit."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def test_ci_runs_make_test_with_an_empty_cache_of_its_own(tmp_path):
    """A stand-in `make` records its arguments, XALIGN_CACHE and what that folder holds; the folder must be
    new and empty (not ~/.cache/xalign, not the caller's XALIGN_CACHE) and gone after the script."""
    repo, shared, bin_ = tmp_path / "checkout", tmp_path / "shared" / "data", tmp_path / "bin"
    (repo / ".ci").mkdir(parents=True)
    shared.mkdir(parents=True)
    bin_.mkdir()
    shutil.copy2(ROOT / ".ci" / "run", repo / ".ci" / "run")
    log = tmp_path / "make.log"
    _tool(bin_, "make", f'{{ echo "args=$*"; echo "cache=$XALIGN_CACHE"; echo "mirror=$XALIGN_DATA_MIRROR"; '
                        f'echo "entries=$(ls -A "$XALIGN_CACHE" | wc -l)"; }} > {log}')
    _tool(bin_, "chromium", "exit 0")
    warm = tmp_path / "warm-cache"
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "XALIGN_CACHE": str(warm),
           "TMPDIR": str(tmp_path)}
    done = subprocess.run(["bash", str(repo / ".ci" / "run")], check=False, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = dict(line.split("=", 1) for line in log.read_text().splitlines())
    assert seen["args"] == "test"
    assert Path(seen["mirror"]) == shared.resolve()
    cache = Path(seen["cache"])
    assert cache != warm and cache.parent == tmp_path and seen["entries"] == "0", seen
    assert not cache.exists(), "the CI cache was not removed at exit"


def test_ci_removes_its_cache_when_the_tests_fail(tmp_path):
    repo, bin_ = tmp_path / "checkout", tmp_path / "bin"
    (repo / ".ci").mkdir(parents=True)
    (tmp_path / "shared" / "data").mkdir(parents=True)
    bin_.mkdir()
    shutil.copy2(ROOT / ".ci" / "run", repo / ".ci" / "run")
    _tool(bin_, "make", f'echo "$XALIGN_CACHE" > {tmp_path / "cache.txt"}; exit 3')
    _tool(bin_, "chromium", "exit 0")
    env = {**os.environ, "PATH": f"{bin_}{os.pathsep}{os.environ['PATH']}", "TMPDIR": str(tmp_path)}
    done = subprocess.run(["bash", str(repo / ".ci" / "run")], check=False, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert not Path((tmp_path / "cache.txt").read_text().strip()).exists()
