"""Profiles live in each paper package and match the notebook's parameters cell name for name."""

import re
from pathlib import Path

import pytest

from xalign.core.profiles import ParameterError, load_profiles, resolve
from xalign.papers import meta

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def parameters_cell(chapter: str) -> list[str]:
    text = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    cell = re.search(r'# %% tags=\["parameters"\]\n(.*?)\n# %%', text, re.DOTALL).group(1)
    return re.findall(r"^(\w+)\s*=", cell, re.MULTILINE)


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_profile_file_matches_the_parameters_cell(paper):
    profiles = meta.profiles(paper)
    declared = parameters_cell(meta.metadata(paper)["chapter"])
    assert declared[0] == "profile"
    assert set(declared[1:]) == set(profiles["default"])


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_notebook_holds_no_profile_values(paper):
    text = (NOTEBOOKS / f"{meta.metadata(paper)['chapter']}.py").read_text(encoding="utf-8")
    assert not re.search(r"^PROFILES\s*=", text, re.MULTILINE)
    assert f'parameters("{paper}", profile, globals())' in text


def test_overrides_win_and_unknown_names_are_named(tmp_path):
    f = tmp_path / "profiles.yaml"
    f.write_text("smoke: {k: 1, n: 2}\ndefault: {k: 10, n: 20}\npaper: {k: 10, n: 5000}\n")
    profiles = load_profiles(f)
    assert resolve(profiles, "default", k=3, n=None)["k"] == 3
    assert resolve(profiles, "default", n=None)["n"] == 20
    with pytest.raises(ParameterError, match="'kk'"):
        resolve(profiles, "default", kk=1)
    with pytest.raises(ParameterError, match="profile must be one of"):
        resolve(profiles, "fast")


def test_inconsistent_profile_file_is_refused(tmp_path):
    f = tmp_path / "profiles.yaml"
    f.write_text("smoke: {k: 1}\ndefault: {k: 10, n: 20}\npaper: {k: 10}\n")
    with pytest.raises(ParameterError, match="profile .default."):
        load_profiles(f)
    f.write_text("smoke: {k: 1}\ndefault: {k: 1}\n")
    with pytest.raises(ParameterError, match="missing"):
        load_profiles(f)


def markdown_text(chapter: str) -> str:
    """The chapter's markdown cells as one line of text (the ``# `` of py:percent removed)."""
    lines, inside = [], False
    for line in (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            inside = "[markdown]" in line
        elif inside:
            lines.append(line.removeprefix("#").removeprefix(" "))
    return " ".join(lines)


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_method_prose_states_a_size_as_a_number_not_as_the_parameter_that_sets_it(paper):
    """A reader of the default book reads "on 1,500 sentence pairs", never "on `n_sentences` sampled pairs":
    a count parameter's name may stand beside its number (in parentheses), not in its place."""
    counts = [name for name, rule in meta.ranges(paper).items() if "int" in rule or "list" in rule]
    text = markdown_text(meta.metadata(paper)["chapter"])
    names = "|".join(map(re.escape, counts))
    used_as_numbers = re.findall(rf"`(?:{names})`\s+[a-z]+", text)
    assert not used_as_numbers, used_as_numbers
