"""What every paper package ships: its profiles (``profiles.yaml``) and metadata (``paper.yaml``).

``paper.yaml`` holds the title, citation, chapter and the list of the paper's
tables and figures; ``profiles.yaml`` the chapter's run profiles. Both are
package data, read relative to this file, so an installed wheel finds them.
"""

from __future__ import annotations

import functools
from pathlib import Path
from types import SimpleNamespace

import yaml

from xalign.core.profiles import load_profiles, resolve_from

HERE = Path(__file__).resolve().parent
#: paper packages in book order
PAPERS = ("gaschi2022", "liu2020", "calibrated2023", "wickramasinghe", "nyholm2020")


def paper_dir(paper: str) -> Path:
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; papers: {', '.join(PAPERS)}")
    return HERE / paper


@functools.cache
def profiles(paper: str) -> dict[str, dict]:
    """The paper's run profiles (validated on load)."""
    return load_profiles(paper_dir(paper) / "profiles.yaml")


@functools.cache
def metadata(paper: str) -> dict:
    """The paper's ``paper.yaml``: title, citation, chapter, items (tables and figures)."""
    return yaml.safe_load((paper_dir(paper) / "paper.yaml").read_text(encoding="utf-8"))


def parameters(paper: str, profile: str, namespace: dict) -> SimpleNamespace:
    """A chapter's parameters: the profile's values, overridden by the non-None names in ``namespace``."""
    return resolve_from(profiles(paper), profile, namespace)


def chapter_paper(chapter: str) -> str:
    """The paper a chapter (notebook stem) reproduces."""
    for p in PAPERS:
        if metadata(p)["chapter"] == chapter:
            return p
    raise ValueError(f"no paper declares chapter {chapter!r}")
