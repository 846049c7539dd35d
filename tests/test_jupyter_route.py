"""The Jupyter route works as written: the README's and every "Run it" section's jupytext + papermill
command, run exactly on a tiny chapter, and prepared on a real one; `make notebooks` pairs them."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from xalign.book.publish import papermill_command, run_it_markdown

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
COMMAND = re.compile(r"^jupytext --to ipynb notebooks/(?P<ch>[\w-]+)\.py && mkdir -p (?P<dir>[\w-]+) && "
                     r"papermill notebooks/(?P=ch)\.ipynb (?P<out>(?P=dir)/\S+\.ipynb) -p profile (?P<profile>\w+)$",
                     re.MULTILINE)
TINY = '''# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # A tiny chapter

# %% tags=["parameters"]
profile = None  # smoke | default | paper

# %%
print(f"ran with profile {profile}")
'''


def _shell(command: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # as after `activate`
    return subprocess.run(["bash", "-c", command], check=False, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)


def test_readme_gives_the_command_and_its_files_exist():
    found = COMMAND.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found, "the README gives no jupytext + papermill command"
    for chapter, _, out, _ in found:
        assert (ROOT / "notebooks" / f"{chapter}.py").exists(), chapter
        # the executed notebook lands in a folder git ignores: following the README leaves nothing to commit
        ignored = subprocess.run(["git", "check-ignore", "-q", "--no-index", out], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{out} is not git-ignored"
    assert "\nnotebooks: env\n\t$(BIN)/jupytext --to ipynb notebooks/" in (ROOT / "Makefile").read_text()
    assert "notebooks/*.ipynb" in (ROOT / ".gitignore").read_text()  # paired notebooks stay out of git


def test_the_command_runs_as_written_on_a_tiny_chapter(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "00_tiny.py").write_text(TINY)
    command = papermill_command("00_tiny")
    assert COMMAND.fullmatch(command)  # the same shape as every chapter's
    done = _shell(command, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    nb = json.loads((tmp_path / "executed" / "00_tiny.ipynb").read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["executed", "notebooks"]  # nothing else written
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "ran with profile smoke" in text


def test_every_chapter_prepares_with_papermill(tmp_path):
    chapters = sorted(p.stem for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    assert len(chapters) == 5
    (tmp_path / "notebooks").mkdir()
    for chapter in chapters:
        shutil.copy(ROOT / "notebooks" / f"{chapter}.py", tmp_path / "notebooks")
        command = papermill_command(chapter)
        assert command in run_it_markdown(chapter)  # the page gives this very command
        # the same command with --prepare-only: kernel, parameters cell and injection, without the run
        done = _shell(command + " --prepare-only", tmp_path)
        assert done.returncode == 0, (chapter, done.stderr[-2000:])
        nb = json.loads((tmp_path / "executed" / f"{chapter}.ipynb").read_text())
        assert nb["metadata"]["kernelspec"]["name"] == "python3"
        injected = [c for c in nb["cells"] if "injected-parameters" in c["metadata"].get("tags", [])]
        assert injected and 'profile = "smoke"' in "".join(injected[0]["source"]), chapter
