"""Buttons that work or are absent (public_links) and the front page's "Cite this book" (citation)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from xalign.book import citation as C
from xalign.book import public_links as PL
from xalign.book.runner import _jupyter_book_cmd

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
#: what a launch, repository or issue button of this book would point at
REPO_LINKS = ("mybinder.org", "colab.research.google.com", CONFIG["repository"]["url"].split("://", 1)[1])


def _mini_book(root: Path, public: bool) -> Path:
    """A two-page Jupyter Book (a Markdown page, an executed notebook) with the project's _config.yml,
    its xalign.public set to ``public``; returns the HTML folder."""
    config = dict(CONFIG, title="mini", xalign={"public": public})
    root.mkdir(parents=True)
    (root / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    (root / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: nb\n"
                                   "  - file: book/bibliography\n", encoding="utf-8")
    shutil.copy(ROOT / "references.bib", root / "references.bib")
    shutil.copytree(ROOT / "book" / "_static", root / "book" / "_static")
    (root / "intro.md").write_text(f"# Intro\n\nA page.\n\n## Cite this book\n\n{C.cite_markdown(public=public)}",
                                   encoding="utf-8")
    (root / "book" / "bibliography.md").write_text("# Papers\n\nThe papers.\n", encoding="utf-8")
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# A chapter\n\nText."},
                    {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "1 + 1",
                     "outputs": [{"output_type": "execute_result", "execution_count": 1, "metadata": {},
                                  "data": {"text/plain": "2"}}]}],
          "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
          "nbformat": 4, "nbformat_minor": 5}
    (root / "nb.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    cmd = [sys.executable, "-m", "jupyter_book", "build", str(root), "--builder", "html", "-W"]
    done = subprocess.run(_jupyter_book_cmd(cmd), check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return root / "_build" / "html"


def test_theme_options_keep_the_repository_s_buttons_only_while_public():
    given = {"repository_url": "https://github.com/x/y", "repository_branch": "notebooks", "path_to_docs": "",
             "launch_buttons": {"binderhub_url": "https://mybinder.org", "colab_url": "https://colab"},
             "use_repository_button": True, "use_issues_button": True, "home_page_in_toc": True}
    assert PL.theme_options(given, public=True) == given
    hidden = PL.theme_options(given, public=False)
    assert hidden == {"home_page_in_toc": True, "use_repository_button": False, "use_issues_button": False,
                      "use_edit_page_button": False, "use_source_button": False}
    assert given["launch_buttons"]  # the caller's options are not changed
    assert "xalign.book.public_links" in CONFIG["sphinx"]["extra_extensions"]


@pytest.mark.parametrize("public", [False, True])
def test_the_built_pages_carry_launch_repository_and_issue_buttons_only_when_public(tmp_path, public):
    html = _mini_book(tmp_path / "book", public)
    for page in ("intro.html", "nb.html"):
        text = (html / page).read_text(encoding="utf-8")
        found = [link for link in REPO_LINKS if link in text]
        assert found == (list(REPO_LINKS) if public and page == "nb.html" else
                         [REPO_LINKS[2]] if public else []), (page, found)
    nb = (html / "nb.html").read_text(encoding="utf-8")
    assert "nb.ipynb" in nb  # the download button stays: a file of the build
    intro = (html / "intro.html").read_text(encoding="utf-8")  # the cite block renders (-W: no warning)
    assert 'id="cite-this-book"' in intro and "highlight-bibtex" in intro and 'href="book/bibliography.html"' in intro


def test_cite_this_book_comes_from_citation_cff(tmp_path):
    cff = yaml.safe_load(C.CITATION.read_text(encoding="utf-8"))
    hidden = C.cite_markdown(public=False)
    year = str(cff["date-released"])[:4]
    assert hidden.startswith(f"The xalign authors ({year}). *{cff['title']}* (software, version {cff['version']}, "
                             f"{cff['license']} license).")
    assert "```bibtex\n@software{xalign" in hidden and "author = {{The xalign authors}}" in hidden
    assert f"title = {{{{{cff['title']}}}}}" in hidden and f"version = {{{cff['version']}}}" in hidden
    assert cff["message"] in hidden and "{doc}`bibliography </book/bibliography>`" in hidden
    assert "http" not in hidden  # no address while the project has no public home
    live = C.cite_markdown(public=True)
    assert f"<{cff['url']}>" in live and f"url = {{{cff['url']}}}" in live
    # the software's version is the package's
    version = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"),
                        re.MULTILINE)[1]
    assert str(cff["version"]) == version
    # the front page includes the block under its heading
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert re.search(r"## Cite this book\n\n```\{include\} _generated/cite\.md\n```", intro)


def test_people_and_bad_citation_files(tmp_path):
    people = tmp_path / "CITATION.cff"
    people.write_text(yaml.safe_dump({
        "title": "T", "version": "1", "date-released": "2024-01-02",
        "authors": [{"given-names": "Nisansa", "family-names": "Silva", "name-particle": "de"},
                    {"given-names": "Félix", "family-names": "Gaschi"}]}), encoding="utf-8")
    md = C.cite_markdown(people, public=True)
    assert md.startswith("Nisansa de Silva, Félix Gaschi (2024). *T* (software, version 1).")
    assert "author = {de Silva, Nisansa and Gaschi, Félix}" in md
    people.write_text("title: T\nversion: 1\nauthors: [{name: A}]\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"CITATION\.cff: missing or empty field\(s\) \['date-released'\]"):
        C.read_citation(people)
    people.write_text("title: T\nversion: 1\ndate-released: 2024-01-01\nauthors: [{given-names: A}]\n")
    with pytest.raises(ValueError, match=r"authors\[0\] has neither 'name' nor 'family-names'"):
        C.read_citation(people)
    with pytest.raises(FileNotFoundError, match="no citation file"):
        C.read_citation(tmp_path / "none.cff")
