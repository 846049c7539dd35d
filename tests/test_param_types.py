"""Each chapter's parameters are one typed, frozen object generated from its profiles.yaml."""

import dataclasses
import typing

import pytest

from test_profiles import parameters_cell
from xalign.core import param_types as T
from xalign.core.profiles import ParameterError, load_profiles
from xalign.papers import meta

CH3 = "03_calibrated_retrieval_transfer_rate"


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_the_class_has_a_field_per_parameter_with_its_type_range_and_doc(paper):
    cls = meta.parameters_class(paper)
    fields = dataclasses.fields(cls)
    assert [f.name for f in fields] == [*meta.profiles(paper)["default"], "profile"]
    for f in fields[:-1]:
        assert f.metadata["range"] == meta.ranges(paper)[f.name] and f.metadata["doc"] == meta.docs(paper)[f.name]
        assert f.type == T.annotation(f.metadata["range"])
        assert f"    {f.name} ({T.type_text(f.metadata['range'])}): {f.metadata['doc']}." in cls.__doc__
    assert cls.__dataclass_params__.frozen and cls.__name__.endswith("Parameters")


def test_types_follow_the_declared_ranges():
    fields = {f.name: f.type for f in dataclasses.fields(meta.parameters_class("calibrated2023"))}
    assert fields["xnli_Cs"] == list[float] and fields["xnli_seeds"] == list[int]
    assert fields["tatoeba_n"] == int | None and fields["seed"] is int and fields["ft_bf16"] is bool
    assert fields["ft_by_model"] is dict and fields["reference_model"] is str
    assert fields["method"] == typing.Literal["cosine", "csls"]
    assert fields["xnli_layer"] == typing.Literal["best"] | int  # or: the union of the alternatives
    assert fields["models"] == list[str] | str  # a list of names may stay a comma string, as the profiles hold them
    assert fields["fig2_models"] == list[str] | str | None
    assert T.type_text(meta.ranges("calibrated2023")["xnli_layer"]) == "Literal['best'] | int"


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_every_notebook_parameter_has_a_doc(paper):
    docs = meta.docs(paper)
    names = parameters_cell(meta.metadata(paper)["chapter"])[1:]  # "profile" first
    assert names and all(docs.get(n) for n in names)
    assert "profile" in meta.parameters_class(paper).__doc__


def notebook_comments(chapter: str) -> dict[str, str]:
    """Each parameter of the notebook's parameters cell -> the comment on its line ("" when none)."""
    import re

    from test_profiles import NOTEBOOKS

    text = (NOTEBOOKS / f"{chapter}.py").read_text(encoding="utf-8")
    cell = re.search(r'# %% tags=\["parameters"\]\n(.*?)\n# %%', text, re.DOTALL).group(1)
    return {m.group(1): (m.group(2) or "").strip()
            for m in re.finditer(r"^(\w+)\s*=[^#\n]*(?:#(.*))?$", cell, re.MULTILINE)}


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_the_notebooks_parameter_comments_are_the_profiles_docs(paper):
    # issue 42: the docs: mapping and the parameters cell's comments say the same thing twice; they must agree
    comments = notebook_comments(meta.metadata(paper)["chapter"])
    comments.pop("profile")
    docs = meta.docs(paper)
    assert {n: c for n, c in comments.items() if c != docs.get(n)} == {}


def test_a_notebook_comment_that_differs_from_its_doc_is_found(tmp_path, monkeypatch):
    import test_profiles

    (tmp_path / "x.py").write_text('# %% tags=["parameters"]\nprofile = "default"  # p\nk = None  # other words\n'
                                   'n = 3\n# %%\n', encoding="utf-8")
    monkeypatch.setattr(test_profiles, "NOTEBOOKS", tmp_path)
    assert notebook_comments("x") == {"profile": "p", "k": "other words", "n": ""}


def test_a_comma_string_of_numbers_becomes_a_list_of_numbers():
    P = meta.checked_parameters("calibrated2023", "default", {"xnli_Cs": "0.25,1", "xnli_seeds": "0, 6",
                                                               "fig2_fractions": [1]})
    assert P.xnli_Cs == [0.25, 1.0] and P.xnli_seeds == [0, 6] and P.fig2_fractions == [1.0]
    assert all(type(c) is float for c in P.xnli_Cs) and all(type(s) is int for s in P.xnli_seeds)
    assert P.to_dict()["xnli_Cs"] == [0.25, 1.0]
    # a list of names keeps the form it was given in (results record it so; the profiles hold comma strings)
    assert meta.checked_parameters("gaschi2022", "default", {}).pairs == "de-en,ru-en,zh-en"
    assert meta.checked_parameters("calibrated2023", "default", {"models": "a,b"}).models == "a,b"


@pytest.mark.parametrize("paper", meta.PAPERS)
@pytest.mark.parametrize("profile", ["smoke", "default", "paper"])
def test_to_dict_is_the_profile_as_results_recorded_it(paper, profile):
    P = meta.checked_parameters(paper, profile, {})
    expected = {**meta.profiles(paper)[profile], "profile": profile}  # the resolved namespace's vars() before
    assert P.to_dict() == expected and list(P.to_dict()) == list(expected)


def test_the_object_is_frozen():
    P = meta.checked_parameters("calibrated2023", "default", {})
    with pytest.raises(dataclasses.FrozenInstanceError):
        P.xnli_Cs = [5.0]
    assert P.xnli_Cs == [0.01, 0.1]


def test_an_out_of_range_value_raises_the_same_message_as_before():
    with pytest.raises(ParameterError) as err:
        meta.checked_parameters("calibrated2023", "default", {"xnli_Cs": "0.25,x"})
    assert str(err.value) == (f"{CH3}: parameter 'xnli_Cs' = '0.25,x' is outside its range: it must be a list or "
                              "comma string of at least 1 item(s), no repeats, each a number >= 1e-12")
    with pytest.raises(ParameterError, match=r"^01_weak_strong_alignment: parameter 'k' = 500 is outside its "
                                             r"range: it must be at most n_pairs = 150"):
        meta.checked_parameters("gaschi2022", "smoke", {"k": 500})
    with pytest.raises(ParameterError, match=r"^05_feature_based_transfer: parameters \['nope'\] are not known"):
        meta.checked_parameters("nyholm2020", "smoke", {"nope": 1})
    P = meta.checked_parameters("calibrated2023", "default", {})
    with pytest.raises(ParameterError, match=f"^{CH3}: parameter 'tatoeba_n' = 0 is outside its range"):
        dataclasses.replace(P, tatoeba_n=0)  # a copy with changes is checked as well


def test_the_range_check_runs_once(monkeypatch):
    calls = []
    real = T.check_values
    monkeypatch.setattr(T, "check_values", lambda *a, **k: calls.append(a) or real(*a, **k))
    meta.checked_parameters("nyholm2020", "default", {"seeds": "4,5"})
    assert len(calls) == 1


def test_docs_are_checked_on_load(tmp_path):
    f = tmp_path / "profiles.yaml"
    head = "smoke: {k: 1, n: 2}\ndefault: {k: 10, n: 20}\npaper: {k: 10, n: 5000}\n"
    f.write_text(head + "ranges: {k: {int: [1, null]}, n: {int: [1, null]}}\ndocs: {k: neighbours, n: items}\n")
    assert T.load_docs(f) == {"k": "neighbours", "n": "items"}
    assert set(load_profiles(f)) == {"smoke", "default", "paper"}  # docs and ranges are no profiles
    for docs, message in [("{k: neighbours}", r"missing \['n'\]"), ("{k: a, n: b, m: c}", r"not a parameter \['m'\]"),
                          ("{k: a, n: ''}", "docs.n must be one non-empty line"), ("", "'docs' must map")]:
        f.write_text(head + (f"docs: {docs}\n" if docs else ""))
        with pytest.raises(ParameterError, match=message):
            T.load_docs(f)
